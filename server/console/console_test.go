package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/servertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConsole: the console of a real supervisor, reached with the URL
// GetInfo gives its owner: the snapshot, the event stream, a restart that
// is refused with its reason, and each refusal of the guard.
func TestConsole(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	c, err := client.Dial(sup.Config.Socket, client.WithSecret(sup.Secret))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(info.GetConsoleUrl())
	if err != nil || u.Hostname() != "127.0.0.1" || u.Query().Get("token") == "" {
		t.Fatalf("console URL %q", info.GetConsoleUrl())
	}
	origin := u.Scheme + "://" + u.Host
	f, err := c.Register(ctx, client.Registration{ProfileKey: "manual:1", Cwd: "/w/one", InstanceID: "one-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(context.Background())

	anon := &http.Client{Timeout: 10 * time.Second}
	defer anon.CloseIdleConnections()
	jar, _ := cookiejar.New(nil)
	owner := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	defer owner.CloseIdleConnections()
	resp, err := owner.Get(info.GetConsoleUrl())
	if err != nil || resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" {
		t.Fatalf("opening the console: %v %v", resp, err)
	}
	resp.Body.Close()

	// The snapshot.
	resp, err = owner.Get(origin + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Info      struct{ Profile string }
		Followers []struct {
			InstanceID string `json:"instance_id"`
		}
		Providers []json.RawMessage
		Journal   map[string]uint64
	}
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st.Info.Profile != "test" || len(st.Followers) != 1 || st.Followers[0].InstanceID != "one-1" || st.Journal == nil {
		t.Fatalf("state %+v", st)
	}

	// The event stream replays what happened.
	sctx, scancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(sctx, "GET", origin+"/api/events", nil)
	req.Header.Set("Origin", origin)
	stream := &http.Client{Jar: jar}
	resp, err = stream.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", resp, err)
	}
	sc := bufio.NewScanner(resp.Body)
	var kinds []string
	for sc.Scan() && !strings.Contains(strings.Join(kinds, ","), "FOLLOWER_REGISTERED") {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e struct{ Kind string }
			json.Unmarshal([]byte(line), &e)
			kinds = append(kinds, e.Kind)
		}
	}
	if !strings.Contains(strings.Join(kinds, ","), "EVENT_KIND_FOLLOWER_REGISTERED") {
		t.Fatalf("events %v", kinds)
	}
	scancel()
	resp.Body.Close()
	stream.CloseIdleConnections()

	post := func(cl *http.Client, origin, body string) (int, string) {
		req, _ := http.NewRequest("POST", u.Scheme+"://"+u.Host+"/api/restart", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out.Error
	}
	// A restart the supervisor refuses says why.
	if code, msg := post(owner, origin, `{"provider":"nope"}`); code != http.StatusConflict || !strings.Contains(msg, "nope") {
		t.Errorf("restart of an unknown provider: %d %q", code, msg)
	}
	for _, tc := range []struct {
		name   string
		cl     *http.Client
		origin string
		body   string
		want   int
	}{
		{"no session", anon, origin, `{"provider":"nope"}`, 401},
		{"no Origin", owner, "", `{"provider":"nope"}`, 403},
		{"another origin", owner, "http://127.0.0.1:1", `{"provider":"nope"}`, 403},
		{"no provider named", owner, origin, `{}`, 400},
		{"a bad drain", owner, origin, `{"provider":"x","drain":"forever"}`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, msg := post(tc.cl, tc.origin, tc.body); code != tc.want {
				t.Errorf("restart: %d %q, want %d", code, msg, tc.want)
			}
		})
	}
	for _, path := range []string{"/", "/static/console.js", "/api/state", "/api/events"} {
		resp, err := anon.Get(origin + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("GET %s without a session: %d", path, resp.StatusCode)
		}
	}
}
