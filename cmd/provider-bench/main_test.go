package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/provider/child"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = `"secret": "0123456789abcdef0123456789abcdef"`

// TestCheck: check mode reads the settings through the runtime and the
// kit's decoder: a misspelt key is refused naming it, a missing
// forum_chat_id too, good settings pass.
func TestCheck(t *testing.T) {
	for _, c := range []struct{ settings, want string }{
		{`{` + secret + `, "forum_chat_id": -100, "paced": true, "inject": {"rate": 5}}`, ""},
		{`{` + secret + `, "forum_chat_idd": -100}`, "forum_chat_idd: unknown setting; did you mean forum_chat_id?"},
		{`{` + secret + `, "control": "/tmp/x"}`, "forum_chat_id: required"},
		{`{` + secret + `, "forum_chat_id": "-100"}`, "forum_chat_id: want an integer, got a string"},
	} {
		var out bytes.Buffer
		code := child.Main(context.Background(), child.Process{Args: []string{child.CheckFlag},
			Stdin: strings.NewReader(c.settings), Stdout: &out, Stderr: &out}, program)
		if c.want == "" {
			if code != child.ExitOK || out.Len() != 0 {
				t.Errorf("check %s: exit %d, %q; want 0 and nothing", c.settings, code, out.String())
			}
			continue
		}
		if code != child.ExitFailed || !strings.HasPrefix(out.String(), c.want) {
			t.Errorf("check %s: exit %d, %q; want 1 and %q", c.settings, code, out.String(), c.want)
		}
	}
}

// TestServeWithControl: served by the runtime, the child answers the
// handshake and its control API; when it stops, the control API stops
// with it.
func TestServeWithControl(t *testing.T) {
	dir, err := os.MkdirTemp("", "pb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctl := filepath.Join(dir, "ctl")
	settings := `{` + secret + `, "name": "b1", "forum_chat_id": -100, "control": "` + ctl + `"}`
	env := map[string]string{child.EnvSocket: filepath.Join(dir, "sock")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	handshake := &testkit.SyncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- child.Main(ctx, child.Process{Stdin: strings.NewReader(settings), Stdout: handshake,
			Stderr: &testkit.SyncBuffer{}, Getenv: func(k string) string { return env[k] }}, program)
	}()
	testkit.Eventually(t, "handshake", func() bool { return strings.Contains(handshake.String(), "|unix|") })
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", ctl)
	}}}
	defer hc.CloseIdleConnections()
	var st bench.ProviderStats
	testkit.Eventually(t, "control API", func() bool {
		resp, err := hc.Get("http://ctl/stats")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&st) == nil
	})
	cancel()
	if code := testkit.Recv(t, done, "Main"); code != child.ExitOK {
		t.Fatalf("Main = %d", code)
	}
	hc.CloseIdleConnections()
	if resp, err := hc.Get("http://ctl/stats"); err == nil {
		resp.Body.Close()
		t.Fatal("the control API still answers after the child stopped")
	}
}
