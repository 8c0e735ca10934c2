package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestSupervisordAndBusctl(t *testing.T) {
	p := newProfile(t)
	d := p.start("--default-playground=false") // no provider at all
	p.waitServing(d)

	out, _, code := p.busctl("status", "--json")
	var st struct {
		Running   bool   `json:"running"`
		PID       int    `json:"pid"`
		Socket    string `json:"socket"`
		Profile   string `json:"profile"`
		Followers int    `json:"followers"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status --json: %v (exit %d)\n%s", err, code, out)
	}
	if !st.Running || st.PID != d.cmd.Process.Pid || st.Socket != p.socket || st.Profile != "default" {
		t.Errorf("status = %+v; want pid %d socket %s", st, d.cmd.Process.Pid, p.socket)
	}
	out, _, _ = p.busctl("status")
	contains(t, "status", out, fmt.Sprintf("running (pid %d", d.cmd.Process.Pid))

	out, _, code = p.busctl("followers", "--json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("followers --json = %q (exit %d)", out, code)
	}
	out, _, _ = p.busctl("events")
	contains(t, "events", out, "supervisor_started")
	out, _, code = p.busctl("doctor", "status")
	if code != 0 {
		t.Errorf("doctor status: exit %d", code)
	}
	contains(t, "doctor status without providers", out, "(no providers configured")
	_, errOut, code := p.busctl("updates", "no-such-binding")
	if code != 5 || strings.Contains(errOut, "session") {
		t.Errorf("updates of an unknown binding: exit %d, %q", code, errOut)
	}
	contains(t, "updates of an unknown binding", errOut, "no binding for no-such-binding yet")

	// Files: socket 0600 in a 0700 dir, secret 0600.
	for path, want := range map[string]os.FileMode{p.socket: 0o600, filepath.Dir(p.socket): 0o700, filepath.Join(p.state, "secret"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v err %v, want %#o", path, fi.Mode().Perm(), err, want)
		}
	}

	// A second supervisord on the same profile refuses, naming the pid.
	second := p.start()
	err := second.wait(t, 15*time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Errorf("second supervisord exited with %v", err)
	}
	contains(t, "second supervisord", second.stderr.String(), fmt.Sprintf("already running (pid %d)", d.cmd.Process.Pid))

	// SIGTERM: clean exit, socket removed, busctl says it is not running.
	d.cmd.Process.Signal(syscall.SIGTERM)
	if err := d.wait(t, 15*time.Second); err != nil {
		t.Errorf("supervisord exit: %v", err)
	}
	if _, err := os.Stat(p.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after stop: %v", err)
	}
	_, errOut, code = p.busctl("status")
	if code != 3 {
		t.Errorf("status when stopped: exit %d, want 3", code)
	}
	contains(t, "busctl stderr", errOut, "not running")
}

func TestSupervisordStartRace(t *testing.T) {
	p := newProfile(t)
	const n = 3
	ds := make([]*daemon, n)
	var wg sync.WaitGroup
	for i := range ds {
		wg.Go(func() { ds[i] = p.start() })
	}
	wg.Wait()
	// Losers exit on their own; the winner keeps serving.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		exited := 0
		for _, d := range ds {
			select {
			case <-d.exited:
				exited++
			default:
			}
		}
		if exited == n-1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var live []*daemon
	for _, d := range ds {
		select {
		case <-d.exited:
			if d.err == nil {
				t.Errorf("a loser exited 0:\n%s", d.stderr.String())
			}
			if s := d.stderr.String(); !strings.Contains(s, "already running") && !strings.Contains(s, "startup lock held") {
				t.Errorf("loser's message:\n%s", s)
			}
		default:
			live = append(live, d)
		}
	}
	if len(live) != 1 {
		t.Fatalf("%d supervisords running, want exactly 1", len(live))
	}
	p.waitServing(live[0])
	out, _, _ := p.busctl("status", "--json")
	contains(t, "status", out, fmt.Sprintf(`"pid": %d`, live[0].cmd.Process.Pid))
}

func TestBadStartup(t *testing.T) {
	p := newProfile(t)
	long := "/tmp/" + strings.Repeat("s", 110) + ".sock"
	unwritable := filepath.Join(t.TempDir(), "file")
	os.WriteFile(unwritable, nil, 0o600)
	badConfig := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(badConfig, []byte("stale_after: soon\n"), 0o600)
	unknownKey := filepath.Join(t.TempDir(), "unknown.yaml")
	os.WriteFile(unknownKey, []byte("stale_aftr: 5s\n"), 0o600)
	tests := []struct {
		name     string
		args     []string
		want     string
		wantCode int // if zero, 1
	}{
		{name: "socket path too long", args: []string{"--socket", long}, want: "at most 107"},
		{name: "state dir unwritable", args: []string{"--state-dir", filepath.Join(unwritable, "state")}, want: "state dir"},
		{name: "bad duration in config", args: []string{"--config", badConfig}, want: "not a duration", wantCode: 78},
		{name: "unknown key in config", args: []string{"--config", unknownKey}, want: "stale_aftr", wantCode: 78},
		{name: "missing named config", args: []string{"--config", "/nonexistent.yaml"}, want: "no such file"},
		{name: "bad profile", args: []string{"--profile", "../x"}, want: "profile"},
		{name: "stale-after shorter than heartbeat", args: []string{"--heartbeat-interval", "2s", "--stale-after", "1s"}, want: "shorter than the heartbeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.start(tt.args...)
			err := d.wait(t, 15*time.Second)
			want := tt.wantCode
			if want == 0 {
				want = 1
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != want {
				t.Errorf("exit: %v, want %d", err, want)
			}
			contains(t, "stderr", d.stderr.String(), tt.want)
		})
	}
}

func TestBusctlNotRunning(t *testing.T) {
	p := newProfile(t)
	for _, args := range [][]string{{"status"}, {"followers"}, {"events"}} {
		_, errOut, code := p.busctl(args...)
		if code != 3 {
			t.Errorf("%v: exit %d, want 3", args, code)
		}
		contains(t, "stderr", errOut, "supervisord is not running")
	}
	out, _, code := p.busctl("status", "--json")
	if code != 3 || !strings.Contains(out, `"running": false`) {
		t.Errorf("status --json when stopped: exit %d\n%s", code, out)
	}
}

func TestBusctlWrongSecret(t *testing.T) {
	p := newProfile(t)
	d := p.start()
	p.waitServing(d)
	bad := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(bad, []byte("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"), 0o600)
	_, errOut, code := p.busctl("status", "--secret-file", bad)
	if code != 4 {
		t.Errorf("exit %d, want 4", code)
	}
	contains(t, "stderr", errOut, "wrong bearer secret")
	out, _, _ := p.busctl("events", "--json")
	contains(t, "events", out, "EVENT_KIND_AUTH_REFUSED")
}
