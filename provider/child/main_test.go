package child_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/version"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

// sampleSettings are a small platform's settings, decoded strictly.
type sampleSettings struct {
	Token   string  `json:"token"`
	ChatID  int64   `json:"chat_id"`
	Users   []int64 `json:"allowed_user_ids"`
	Verbose bool    `json:"verbose"`
}

// sampleChild builds a Fake after checking sampleSettings; builds counts
// the Builds that got through, checks the ones in check mode.
func sampleChild(built *[]child.BuildContext) child.Program {
	return child.Program{
		Name:  "sample",
		Usage: "provider-sample: a test child",
		Build: func(b child.BuildContext) (provider.Platform, error) {
			var s sampleSettings
			if err := provider.DecodeSettings(b.Settings, &s); err != nil {
				return nil, err
			}
			if s.Token == "" {
				s.Token = b.Getenv("SAMPLE_TOKEN")
			}
			if s.Token == "" {
				return nil, provider.Settingf("token", "missing: set it or export SAMPLE_TOKEN")
			}
			if s.ChatID >= 0 {
				return nil, provider.Settingf("chat_id", "must be negative (a group), got %d", s.ChatID)
			}
			*built = append(*built, b)
			return &providertest.Fake{}, nil
		},
	}
}

func settingsJSON(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMainCheck: --check validates the settings and answers with the exit
// code and one line naming the key, without serving.
func TestMainCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stdin    string
		env      map[string]string
		wantCode int
		wantOut  string // the line printed; "" for none
	}{
		{name: "valid", stdin: settingsJSON(t, map[string]any{"secret": testSecret, "name": "sample", "token": "t", "chat_id": -5}), wantCode: 0},
		{name: "token from the environment", env: map[string]string{"SAMPLE_TOKEN": "x"},
			stdin: settingsJSON(t, map[string]any{"secret": testSecret, "name": "sample", "chat_id": -5}), wantCode: 0},
		{name: "typo", stdin: settingsJSON(t, map[string]any{"secret": testSecret, "tokn": "t", "chat_id": -5}),
			wantCode: 1, wantOut: "tokn: unknown setting; did you mean token? (known: allowed_user_ids, chat_id, token, verbose)"},
		{name: "wrong type", stdin: settingsJSON(t, map[string]any{"secret": testSecret, "token": "t", "chat_id": -5, "allowed_user_ids": "me"}),
			wantCode: 1, wantOut: "allowed_user_ids: want a list of integers, got a string"},
		{name: "wrong element type", stdin: settingsJSON(t, map[string]any{"secret": testSecret, "token": "t", "chat_id": -5, "allowed_user_ids": []any{"me"}}),
			wantCode: 1, wantOut: "allowed_user_ids"},
		{name: "missing token", stdin: settingsJSON(t, map[string]any{"secret": testSecret, "chat_id": -5}),
			wantCode: 1, wantOut: "token: missing: set it or export SAMPLE_TOKEN"},
		{name: "out of range", stdin: settingsJSON(t, map[string]any{"secret": testSecret, "token": "t", "chat_id": 5}),
			wantCode: 1, wantOut: "chat_id: must be negative (a group), got 5"},
		{name: "no secret", stdin: settingsJSON(t, map[string]any{"token": "t", "chat_id": -5}),
			wantCode: 1, wantOut: `settings on stdin carry no "secret": this binary is started by supervisord`},
		{name: "not JSON", stdin: "token: x", wantCode: 1, wantOut: "settings on stdin must be one JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var built []child.BuildContext
			var out, errOut strings.Builder
			getenv := func(k string) string { return tc.env[k] }
			code := child.Main(context.Background(), child.Process{
				Args: []string{"--check"}, Stdin: strings.NewReader(tc.stdin), Stdout: &out, Stderr: &errOut, Getenv: getenv,
			}, sampleChild(&built))
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.wantCode, out.String(), errOut.String())
			}
			if tc.wantOut == "" {
				if out.Len() != 0 || errOut.Len() != 0 {
					t.Fatalf("printed %q / %q, want nothing", out.String(), errOut.String())
				}
				if len(built) != 1 || !built[0].Check || built[0].Name != "sample" {
					t.Fatalf("builds %+v", built)
				}
				if strings.Contains(string(built[0].Settings), "secret") || strings.Contains(string(built[0].Settings), `"name"`) {
					t.Errorf("Build saw the supervisor's keys: %s", built[0].Settings)
				}
				return
			}
			line := out.String()
			if strings.Count(line, "\n") != 1 || !strings.Contains(line, tc.wantOut) {
				t.Fatalf("stdout %q, want one line containing %q", line, tc.wantOut)
			}
			if strings.Contains(line, testSecret) {
				t.Error("the secret was printed")
			}
		})
	}
}

// TestMainArgs: help, the version, and unknown arguments refused with the
// usage code; none of them builds the platform.
func TestMainArgs(t *testing.T) {
	var built []child.BuildContext
	var out, errOut strings.Builder
	if code := child.Main(context.Background(), child.Process{Args: []string{"--help"}, Stdout: &out, Stderr: &errOut}, sampleChild(&built)); code != 0 || !strings.Contains(out.String(), "a test child") {
		t.Errorf("--help: exit %d, %q", code, out.String())
	}
	out.Reset()
	if code := child.Main(context.Background(), child.Process{Args: []string{"--version"}, Stdout: &out, Stderr: &errOut}, sampleChild(&built)); code != 0 || out.String() != "provider-sample "+version.String()+"\n" {
		t.Errorf("--version: exit %d, %q", code, out.String())
	}
	if len(built) != 0 {
		t.Errorf("built %d platforms for --help and --version", len(built))
	}
	if code := child.Main(context.Background(), child.Process{Args: []string{"--chek"}, Stdout: &out, Stderr: &errOut}, sampleChild(&built)); code != child.ExitUsage {
		t.Errorf("unknown argument: exit %d", code)
	}
}

// TestMainServeFailureLogsJSON: a child that cannot start says why in one
// JSON log line at level error on stderr, and exits 1.
func TestMainServeFailureLogsJSON(t *testing.T) {
	for _, tc := range []struct {
		name, stdin, socket, want string
	}{
		{name: "bad settings", socket: filepath.Join(t.TempDir(), "p.sock"),
			stdin: settingsJSON(t, map[string]any{"secret": testSecret, "tokn": "t"}), want: "settings: tokn: unknown setting"},
		{name: "no socket", stdin: settingsJSON(t, map[string]any{"secret": testSecret, "token": "t", "chat_id": -5}),
			want: child.EnvSocket + " is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var built []child.BuildContext
			var out, errOut strings.Builder
			env := map[string]string{child.EnvSocket: tc.socket, child.EnvName: "sample"}
			code := child.Main(context.Background(), child.Process{
				Stdin: strings.NewReader(tc.stdin), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] },
			}, sampleChild(&built))
			if code != child.ExitFailed || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q", code, out.String())
			}
			lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
			var rec map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
				t.Fatalf("last stderr line is not JSON: %q", lines[len(lines)-1])
			}
			if rec["level"] != "error" || rec["provider"] != "sample" || !strings.Contains(rec["error"].(string), tc.want) {
				t.Errorf("fatal line %v, want level error, provider sample, error containing %q", rec, tc.want)
			}
		})
	}
}

// TestMainServes: without arguments Main serves on the socket from the
// environment and returns 0 once ctx ends.
func TestMainServes(t *testing.T) {
	dir, err := os.MkdirTemp("", "pm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "p.sock")
	env := map[string]string{child.EnvSocket: socket, child.EnvName: "sample"}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var built []child.BuildContext
	done := make(chan int, 1)
	go func() {
		done <- child.Main(ctx, child.Process{
			Stdin:  strings.NewReader(settingsJSON(t, map[string]any{"secret": testSecret, "name": "sample", "token": "t", "chat_id": -5})),
			Stdout: pw, Stderr: io.Discard, Getenv: func(k string) string { return env[k] },
		}, sampleChild(&built))
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || line != "1|unix|"+socket+"|grpc\n" {
		t.Fatalf("handshake %q, %v", line, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(wait):
		t.Fatal("Main did not return")
	}
	if len(built) != 1 || built[0].Check {
		t.Errorf("builds %+v", built)
	}
}

// TestSettingErrorIs: every SettingError matches ErrSettings.
func TestSettingErrorIs(t *testing.T) {
	err := provider.DecodeSettings(json.RawMessage(`{"x":1}`), &sampleSettings{})
	var se *provider.SettingError
	if !errors.Is(err, provider.ErrSettings) || !errors.As(err, &se) || se.Key != "x" {
		t.Fatalf("%v", err)
	}
	if err := provider.DecodeSettings(nil, &sampleSettings{}); err != nil {
		t.Fatalf("empty settings: %v", err)
	}
}
