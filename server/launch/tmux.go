package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// tmux runs the tmux client against the supervisor's own tmux server
// (its socket, no config file). Every argument reaches tmux as one word
// of an argv, never through a shell; tmux itself would end a command at
// a word ending in ';', so escape makes such a word literal.
type tmux struct {
	bin    string
	socket string
	// env is the environment of the tmux client, and so of the server
	// it starts (the global environment of every window).
	env []string
}

// tmuxTimeout bounds one tmux command.
const tmuxTimeout = 10 * time.Second

// escape makes a word literal to tmux's command parser: a word ending in
// ';' separates commands unless the ';' is escaped as "\;" (and a word
// ending in "\;" is read as ending in ';', so it gets one more '\').
func escape(word string) string {
	if strings.HasSuffix(word, ";") {
		return word[:len(word)-1] + `\;`
	}
	return word
}

// errNoServer: no tmux server runs on the socket (no session was ever
// launched, or all ended and the server exited).
var errNoServer = errors.New("no tmux server")

// run runs one tmux command, its words escaped, and returns its output.
func (m tmux) run(ctx context.Context, args ...string) (string, error) {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = escape(a)
	}
	return m.exec(ctx, words)
}

// chain runs tmux commands in one client, in order (the server runs them
// before anything else happens, such as a pane's exit).
func (m tmux) chain(ctx context.Context, cmds ...[]string) (string, error) {
	var words []string
	for i, c := range cmds {
		if i > 0 {
			words = append(words, ";")
		}
		for _, a := range c {
			words = append(words, escape(a))
		}
	}
	return m.exec(ctx, words)
}

func (m tmux) exec(ctx context.Context, words []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tmuxTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.bin, append([]string{"-S", m.socket, "-f", "/dev/null"}, words...)...)
	cmd.Env = m.env
	cmd.Dir = "/"
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") {
			return "", errNoServer
		}
		return out.String(), fmt.Errorf("tmux %s: %v: %s", words[0], err, msg)
	}
	return out.String(), nil
}

// session is the name of the supervisor's one tmux session.
const tmuxSession = "chatbus"

// ensureServer starts the tmux server if none runs, with the options a
// launched window needs from its first moment: a pane whose program ended
// stays (remain-on-exit) until its exit is noticed, and the server stays
// while it has no session.
func (m tmux) ensureServer(ctx context.Context) error {
	_, err := m.chain(ctx,
		[]string{"start-server"},
		[]string{"set-option", "-g", "exit-empty", "off"},
		[]string{"set-option", "-g", "remain-on-exit", "on"},
	)
	return err
}

// window is a new window's spec.
type window struct {
	name, dir string
	env       []string // KEY=value
	argv      []string
	options   map[string]string // window options (@chatbus-…)
}

// newWindow starts w in a new window of the session (made with it if
// there is none) and returns its id and its program's pid. The program is
// w.argv executed directly (tmux ≥ 3.0 runs a command of several words
// without a shell).
func (m tmux) newWindow(ctx context.Context, w window) (id string, pid int, err error) {
	if err := m.ensureServer(ctx); err != nil {
		return "", 0, err
	}
	args := []string{"new-window", "-d", "-t", "=" + tmuxSession + ":"}
	if _, err := m.run(ctx, "has-session", "-t", "="+tmuxSession); err != nil {
		args = []string{"new-session", "-d", "-s", tmuxSession, "-x", "200", "-y", "50"}
	}
	args = append(args, "-P", "-F", "#{window_id} #{pane_pid}", "-n", w.name, "-c", w.dir)
	for _, e := range w.env {
		args = append(args, "-e", e)
	}
	args = append(args, "--")
	args = append(args, w.argv...)
	out, err := m.run(ctx, args...)
	if err != nil {
		return "", 0, err
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return "", 0, fmt.Errorf("tmux new-window said %q", out)
	}
	pid, err = strconv.Atoi(f[1])
	if err != nil {
		return "", 0, fmt.Errorf("tmux new-window said %q", out)
	}
	for k, v := range w.options {
		if err := m.setOption(ctx, f[0], k, v); err != nil {
			return f[0], pid, err
		}
	}
	return f[0], pid, nil
}

func (m tmux) setOption(ctx context.Context, win, key, value string) error {
	_, err := m.run(ctx, "set-option", "-w", "-t", win, key, value)
	return err
}

// pane is one launched window's pane as tmux lists it.
type pane struct {
	window    string
	pid       int
	dead      bool
	status    string // exit status when dead; "" if killed by a signal
	launch    string // @chatbus-launch; "" for a window chatbus did not make
	template  string
	project   string
	binding   string
	slot      string
	thread    string
	name      string
	startedAt string
}

var paneFormat = strings.Join([]string{"#{window_id}", "#{pane_pid}", "#{pane_dead}", "#{pane_dead_status}",
	"#{@chatbus-launch}", "#{@chatbus-template}", "#{@chatbus-project}", "#{@chatbus-binding}", "#{@chatbus-slot}",
	"#{@chatbus-thread}", "#{window_name}", "#{@chatbus-started}"}, "\t")

// panes lists the panes of the server (none when no server runs).
func (m tmux) panes(ctx context.Context) ([]pane, error) {
	out, err := m.run(ctx, "list-panes", "-a", "-F", paneFormat)
	if errors.Is(err, errNoServer) || (err != nil && strings.Contains(err.Error(), "no current target")) {
		return nil, nil // no server, or no session in it
	}
	if err != nil {
		return nil, err
	}
	var ps []pane
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 12 {
			continue
		}
		pid, _ := strconv.Atoi(f[1])
		ps = append(ps, pane{window: f[0], pid: pid, dead: f[2] == "1", status: f[3], launch: f[4], template: f[5],
			project: f[6], binding: f[7], slot: f[8], thread: f[9], name: f[10], startedAt: f[11]})
	}
	return ps, nil
}

// sendKeys types keys into the window (tmux key names, else text).
func (m tmux) sendKeys(ctx context.Context, win string, keys ...string) error {
	_, err := m.run(ctx, append([]string{"send-keys", "-t", win}, keys...)...)
	return err
}

// capture returns what the window's screen shows.
func (m tmux) capture(ctx context.Context, win string) string {
	out, _ := m.run(ctx, "capture-pane", "-p", "-t", win)
	return out
}

func (m tmux) rename(ctx context.Context, win, name string) error {
	_, err := m.run(ctx, "rename-window", "-t", win, name)
	return err
}

func (m tmux) kill(ctx context.Context, win string) error {
	_, err := m.run(ctx, "kill-window", "-t", win)
	if errors.Is(err, errNoServer) || (err != nil && strings.Contains(err.Error(), "can't find window")) {
		return nil
	}
	return err
}
