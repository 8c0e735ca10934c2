package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/proc"
)

// startResult is `busctl start --json`.
type startResult struct {
	PID     int    `json:"pid"`
	Started bool   `json:"started"`
	Socket  string `json:"socket"`
	Log     string `json:"log"`
}

func TestEnsureStartConcurrent(t *testing.T) {
	p := newProfile(t)
	t.Cleanup(func() { stopSupervisords(t, p.socket) })
	logPath := filepath.Join(p.state, "supervisord.log")

	// Ten at once, as ten agent sessions opening together would.
	const n = 10
	type run struct {
		out, errOut string
		code        int
		err         error
	}
	runs := make([]run, n)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			r := &runs[i]
			r.out, r.errOut, r.code, r.err = runBusctl(p, "start", "--json", "--timeout", "30s")
		})
	}
	wg.Wait()

	var pid, started int
	for i, r := range runs {
		if r.err != nil || r.code != 0 {
			t.Fatalf("busctl start %d: exit %d, %v\n%s%s", i, r.code, r.err, r.out, r.errOut)
		}
		var res startResult
		if err := json.Unmarshal([]byte(r.out), &res); err != nil {
			t.Fatalf("busctl start %d --json: %v\n%s", i, err, r.out)
		}
		if res.PID <= 0 || res.Socket != p.socket || res.Log != logPath {
			t.Errorf("busctl start %d = %+v; want socket %s, log %s", i, res, p.socket, logPath)
		}
		if pid == 0 {
			pid = res.PID
		}
		if res.PID != pid {
			t.Errorf("busctl start %d reports pid %d, another %d", i, res.PID, pid)
		}
		if res.Started {
			started++
		}
	}
	if started != 1 {
		t.Errorf("%d of %d busctl start say they started it, want exactly 1", started, n)
	}
	if live := supervisords(p.socket); len(live) != 1 || live[0] != pid {
		t.Fatalf("supervisord processes on %s: %v, want exactly [%d]", p.socket, live, pid)
	}
	out, _, _ := p.busctl("status", "--json")
	contains(t, "status", out, fmt.Sprintf(`"pid": %d`, pid))

	// Its output goes to the log, private, in the state dir.
	fi, err := os.Stat(logPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("log %s: %v, want mode 0600", logPath, err)
	}
	b, _ := os.ReadFile(logPath)
	// Exactly one supervisord was ever started: a second one would have
	// logged "already running" (or "startup lock held") there too.
	if got := strings.Count(string(b), `"message":"serving"`); got != 1 || strings.Contains(string(b), "already running") || strings.Contains(string(b), "startup lock") {
		t.Errorf("supervisord.log: %d serving lines, want exactly 1 and no refused starts:\n%s", got, b)
	}

	// Second round, again at once: nothing to start. (Each busctl, built
	// with -race, lingers 1s at exit: run them together.)
	second := make([]run, 3)
	for i := range second {
		args := []string{"start"}
		if i == 0 {
			args = append(args, "--json")
		}
		wg.Go(func() {
			r := &second[i]
			r.out, r.errOut, r.code, r.err = runBusctl(p, args...)
		})
	}
	wg.Wait()
	for i, r := range second {
		if r.err != nil || r.code != 0 {
			t.Errorf("busctl start again: exit %d, %v\n%s", r.code, r.err, r.errOut)
			continue
		}
		if i > 0 {
			contains(t, "busctl start again", r.out, fmt.Sprintf("already running (pid %d)", pid))
			continue
		}
		var res startResult
		if err := json.Unmarshal([]byte(r.out), &res); err != nil || res.Started || res.PID != pid {
			t.Errorf("busctl start --json again = %+v, %v; want started false, pid %d", res, err, pid)
		}
	}
	if live := supervisords(p.socket); len(live) != 1 {
		t.Errorf("after the second round, supervisord processes: %v", live)
	}

	// It outlives every busctl and stops on SIGTERM.
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !waitGone(pid, 15*time.Second) {
		t.Fatalf("supervisord %d still running 15s after SIGTERM", pid)
	}
	if _, _, code := p.busctl("status"); code != 3 {
		t.Errorf("status after stop: exit %d, want 3", code)
	}
}

func TestEnsureStartFailures(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o600)
	script := filepath.Join(dir, "complains")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"complains: unknown flag $1\" >&2\nexit 2\n"), 0o700)
	tests := []struct {
		name   string
		args   []string
		config string // the profile's config file, if any
		want   []string
	}{
		{name: "missing binary", args: []string{"--supervisord", "/nonexistent/supervisord"},
			want: []string{"/nonexistent/supervisord", "no such file or directory"}},
		{name: "binary not executable", args: []string{"--supervisord", notExec},
			want: []string{notExec, "permission denied"}},
		{name: "exits at once", args: []string{"--supervisord", "/bin/false"},
			want: []string{"exited before serving (exit status 1)", "it printed nothing", "supervisord.out"}},
		{name: "exits with a message", args: []string{"--supervisord", script},
			want: []string{"exit status 2", "supervisord.out", "complains: unknown flag --profile"}},
		{name: "real supervisord refuses its config", config: "stale_aftr: 5s\n",
			want: []string{"exited before serving (exit status 78)", "supervisord.out", "line 1: stale_aftr: unknown key; did you mean stale_after?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t)
			t.Cleanup(func() { stopSupervisords(t, p.socket) })
			if tt.config != "" {
				cfg := filepath.Join(p.home, ".config", "chatbus", "default.yaml")
				os.MkdirAll(filepath.Dir(cfg), 0o700)
				os.WriteFile(cfg, []byte(tt.config), 0o600)
			}
			out, errOut, code := p.busctl(append([]string{"start"}, tt.args...)...)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s%s", code, out, errOut)
			}
			for _, w := range tt.want {
				contains(t, "busctl start stderr", errOut, w)
			}
			if strings.Contains(errOut, "supervisord.out") {
				contains(t, "busctl start stderr", errOut, filepath.Join(p.state, "supervisord.out"))
			}
			if live := supervisords(p.socket); len(live) != 0 {
				t.Errorf("supervisord processes after a failed start: %v", live)
			}
		})
	}
}

// runBusctl runs busctl like profile.busctl but reports instead of failing
// the test, so goroutines may call it.
func runBusctl(p *profile, args ...string) (stdout, stderr string, code int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "busctl"), args...)
	cmd.Env = p.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// supervisords returns the live supervisord processes whose command line
// names socket (busctl start passes it as --socket).
func supervisords(socket string) []int {
	var pids []int
	for _, p := range processes() {
		args, err := proc.Args(p.pid)
		if err != nil || len(args) == 0 {
			continue
		}
		if filepath.Base(args[0]) == "supervisord" && slices.Contains(args, socket) && alive(p.pid) {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	_, err := proc.StartTime(pid)
	return err == nil
}

func waitGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return !alive(pid)
}

// stopSupervisords stops what busctl start left running on socket: SIGTERM,
// then SIGKILL after 10s. They are not our children, so we poll their start time.
func stopSupervisords(t *testing.T, socket string) {
	for _, pid := range supervisords(socket) {
		syscall.Kill(pid, syscall.SIGTERM)
		if !waitGone(pid, 10*time.Second) {
			t.Errorf("supervisord %d ignored SIGTERM; killing it", pid)
			syscall.Kill(pid, syscall.SIGKILL)
			waitGone(pid, 5*time.Second)
		}
	}
}
