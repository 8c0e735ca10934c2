package e2e

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/chatbus/chatbus/internal/testkit"
)

// onTTY runs busctl with its stdout (and stdin, stderr) on a new
// pseudo-terminal and returns what the terminal showed.
func (p *profile) onTTY(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "busctl"), args...)
	cmd.Env = append(p.env(), env...)
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out bytes.Buffer
	// The terminal's end reads EIO once busctl has exited and closed it.
	if _, err := io.Copy(&out, tty); err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("busctl %v on a terminal: %v\n%s", args, err, out.String())
	}
	return out.String()
}

// TestBusctlColourOnATerminalOnly: tables are coloured on a terminal,
// not through a pipe, not with NO_COLOR set, not on TERM=dumb.
func TestBusctlColourOnATerminalOnly(t *testing.T) {
	p := newProfile(t)
	p.servePlayground()
	const green, bold = "\x1b[32m", "\x1b[1m"
	tests := []struct {
		name   string
		env    []string
		tty    bool
		colour bool
	}{
		{name: "terminal", tty: true, env: []string{"NO_COLOR=", "TERM=xterm"}, colour: true},
		{name: "terminal NO_COLOR", tty: true, env: []string{"NO_COLOR=1", "TERM=xterm"}},
		{name: "terminal TERM=dumb", tty: true, env: []string{"NO_COLOR=", "TERM=dumb"}},
		{name: "pipe", env: []string{"NO_COLOR=", "TERM=xterm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, verb := range []string{"providers", "status"} {
				var out string
				if tt.tty {
					out = p.onTTY(t, tt.env, verb)
				} else {
					out, _, _ = p.busctlEnv(tt.env, verb)
				}
				if !strings.Contains(out, "RUNNING") && !strings.Contains(out, "running") {
					t.Fatalf("%s printed no state:\n%q", verb, out)
				}
				if got := strings.Contains(out, "\x1b["); got != tt.colour {
					t.Errorf("%s: escape sequences %v, want %v:\n%q", verb, got, tt.colour, out)
				}
				if tt.colour && verb == "providers" && (!strings.Contains(out, green+"RUNNING\x1b[0m") || !strings.Contains(out, bold+"NAME\x1b[0m")) {
					t.Errorf("providers on a terminal: RUNNING not green or the header not bold:\n%q", out)
				}
			}
		})
	}
}

// busctlEnv is busctl with env added to the profile's.
func (p *profile) busctlEnv(env []string, args ...string) (string, string, int) {
	p.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "busctl"), args...)
	cmd.Env = append(p.env(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		p.t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// TestBusctlWatchRedrawsInPlaceOnATerminal: on a terminal a watch clears
// the screen before each table (NO_COLOR or not: that is not colour);
// through a pipe it never does (TestBusctlWatchRedrawsOnChange).
func TestBusctlWatchRedrawsInPlaceOnATerminal(t *testing.T) {
	p := newProfile(t)
	d := p.start()
	p.waitServing(d)
	cmd := exec.Command(filepath.Join(binDir, "busctl"), "providers", "-w")
	cmd.Env = append(p.env(), "NO_COLOR=1")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := &testkit.SyncBuffer{}
	copied := make(chan struct{})
	go func() { io.Copy(out, tty); close(copied) }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "playground") {
		if time.Now().After(deadline) {
			t.Fatalf("providers -w on a terminal printed:\n%q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("providers -w interrupted: %v", err)
	}
	<-copied
	if got := out.String(); !strings.HasPrefix(got, "\x1b[H\x1b[2J") || strings.Contains(got, "\x1b[1m") {
		t.Errorf("providers -w on a terminal with NO_COLOR: want a clear screen first and no colour:\n%q", got)
	}
}
