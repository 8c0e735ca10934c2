package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/server/control"
	"github.com/chatbus/chatbus/server/events"
)

// The launched program in these tests is this test binary, in the mode
// LAUNCH_HELPER names: it records its argv, directory and launch id in
// $LAUNCH_OUT, then
//   - "exit-on-line": exits 0 on reading the line /exit (the agent's own
//     way; C-c, SIGTERM as by default);
//   - "ignore-int": ignores SIGINT, ends on SIGTERM;
//   - "ignore-all": ignores SIGINT and SIGTERM (only SIGKILL ends it);
//   - "exit-when": exits 7 once the file $LAUNCH_OUT.go exists;
//   - "exit-now": exits 3 at once.
func TestMain(m *testing.M) {
	if mode := os.Getenv("LAUNCH_HELPER"); mode != "" {
		helper(mode)
		return
	}
	goleak.VerifyTestMain(m)
}

type record struct {
	Argv     []string
	Dir      string
	LaunchID string
	Env      string
}

func helper(mode string) {
	out := os.Getenv("LAUNCH_OUT")
	dir, _ := os.Getwd()
	rec, _ := json.Marshal(record{Argv: os.Args[1:], Dir: dir, LaunchID: os.Getenv(EnvLaunchID), Env: os.Getenv("TEMPLATE_VAR")})
	os.WriteFile(out+".tmp", rec, 0o600)
	os.Rename(out+".tmp", out)
	switch mode {
	case "exit-on-line":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "/exit" {
				os.Exit(0)
			}
		}
	case "ignore-int":
		signal.Ignore(syscall.SIGINT)
	case "ignore-all":
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
	case "exit-when":
		for {
			if _, err := os.Stat(out + ".go"); err == nil {
				os.Exit(7)
			}
			time.Sleep(20 * time.Millisecond)
		}
	case "exit-now":
		os.Exit(3)
	}
	select {}
}

// rig is a Launcher on a tmux server of its own, with what it said and
// parked recorded.
type rig struct {
	t    *testing.T
	l    *Launcher
	mu   sync.Mutex
	said map[string][]string // by binding key
	park []string
	evs  []events.Event
}

func newRig(t *testing.T, ts ...Template) *rig {
	t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("these tests run the real tmux: apt-get install tmux")
	}
	sockDir, err := os.MkdirTemp("", "cbl")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, said: map[string][]string{}}
	sock := filepath.Join(sockDir, "tmux.sock")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TERM=xterm-256color", "LANG=C.UTF-8"}
	r.l, err = New(Config{Templates: ts, Socket: sock, Tmux: tmuxBin, Env: env, Poll: 50 * time.Millisecond,
		Publish: func(e events.Event) { r.mu.Lock(); r.evs = append(r.evs, e); r.mu.Unlock() },
		Say: func(_ context.Context, key, text string) error {
			r.mu.Lock()
			r.said[key] = append(r.said[key], text)
			r.mu.Unlock()
			return nil
		},
		Park: func(key, _ string) { r.mu.Lock(); r.park = append(r.park, key); r.mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.l.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		out, _ := r.l.tmux.run(context.Background(), "list-panes", "-a", "-F", "#{pane_pid}")
		r.l.tmux.run(context.Background(), "kill-server")
		for _, f := range strings.Fields(out) {
			var pid int
			fmt.Sscan(f, &pid)
			for deadline := time.Now().Add(10 * time.Second); pid > 0 && syscall.Kill(pid, 0) == nil && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
		}
		os.RemoveAll(sockDir)
	})
	return r
}

// helperTemplate runs this binary in mode in the projects under root.
func helperTemplate(t *testing.T, name, mode, root string, args ...string) Template {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Template{Name: name, Argv: append([]string{exe}, args...), Roots: []string{root},
		Env:         map[string]string{"LAUNCH_HELPER": mode, "LAUNCH_OUT": filepath.Join(root, name+".out"), "TEMPLATE_VAR": "from the template"},
		StopTimeout: 500 * time.Millisecond, RegisterTimeout: time.Minute}
}

// register waits for the launched helper's record, then registers its
// follower as chatbus-mcp would (the supervisor calls Registered).
func (r *rig) register(tmpl Template, slot string) record {
	r.t.Helper()
	out := tmpl.Env["LAUNCH_OUT"]
	var rec record
	deadline := time.Now().Add(time.Minute)
	for {
		b, err := os.ReadFile(out)
		if err == nil && json.Unmarshal(b, &rec) == nil {
			break
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the launched program never wrote %s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.Remove(out)
	r.l.Registered(rec.LaunchID, Follower{BindingKey: "key-" + slot, Slot: slot, Thread: "thread " + slot, InstanceID: "1:1"})
	return rec
}

// launch runs New in the background and registers its follower.
func (r *rig) launch(tmpl Template, project, slot string) (control.Launched, record) {
	r.t.Helper()
	type res struct {
		l   control.Launched
		err error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := r.l.New(context.Background(), control.NewRequest{Template: tmpl.Name, Project: project, By: control.Requester{Name: "Ann"}})
		ch <- res{l, err}
	}()
	rec := r.register(tmpl, slot)
	got := <-ch
	if got.err != nil {
		r.t.Fatalf("New: %v", got.err)
	}
	return got.l, rec
}

func (r *rig) windows() []pane {
	ps, err := r.l.tmux.panes(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return ps
}

// waitSaid waits until the thread of key was told text, followed by the
// session's status: status, or that tmux did not give one ("" : any).
// (tmux may see a terminal close before it reaps the program, and then
// not learn its status.)
func (r *rig) waitSaid(key, text, status string) {
	r.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r.mu.Lock()
		said := slices.Clone(r.said[key])
		r.mu.Unlock()
		if slices.ContainsFunc(said, func(s string) bool {
			rest, ok := strings.CutPrefix(s, text)
			rest = strings.TrimSpace(rest)
			return ok && (status == "" || rest == "("+status+")." || rest == "("+statusUnknown+").")
		}) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("never said %q in %s; said %q", text, key, said)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLaunchRunsExactlyTheTemplate: the launched program gets the
// template's argv word for word (a ';', "$(…)", a backquote reach it as
// text: no shell ran), runs in the project's directory with the
// template's environment and its launch id, in a window named as its
// thread once its follower registered; /exit Enter (the template's stop
// keys) ends it, and its thread is parked and told who stopped it.
func TestLaunchRunsExactlyTheTemplate(t *testing.T) {
	root := mkdir(t, t.TempDir(), "src")
	web := mkdir(t, root, "web")
	pwn := filepath.Join(root, "pwned")
	args := []string{"a;", ";", "$(touch " + pwn + ")", "`touch " + pwn + "`", "x y", `b\;`, "#{pane_id}", "~", "{", "}", "-n"}
	tmpl := helperTemplate(t, "agent", "exit-on-line", root, args...)
	tmpl.StopKeys = []string{"/exit", "Enter"}
	tmpl.StopTimeout = time.Minute
	r := newRig(t, tmpl)

	launched, rec := r.launch(tmpl, "web", "A")
	if !slices.Equal(rec.Argv, args) {
		t.Errorf("argv %q, want %q", rec.Argv, args)
	}
	if rec.Dir != web || rec.Env != "from the template" || rec.LaunchID == "" {
		t.Errorf("ran in %q with TEMPLATE_VAR %q and launch id %q", rec.Dir, rec.Env, rec.LaunchID)
	}
	if _, err := os.Stat(pwn); err == nil {
		t.Errorf("a shell ran an argument")
	}
	if launched.Slot != "A" || launched.Window != "thread A" {
		t.Errorf("launched %+v", launched)
	}
	ws := r.windows()
	if len(ws) != 1 || ws[0].name != "thread A" || ws[0].launch != rec.LaunchID || ws[0].slot != "A" {
		t.Errorf("windows %+v", ws)
	}

	stopped, err := r.l.Stop(context.Background(), "A", control.Requester{Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	if stopped.How != "it ended after /exit Enter" {
		t.Errorf("stopped %+v", stopped)
	}
	r.waitSaid("key-A", "Stopped by Ann: it ended after /exit Enter", "exited with status 0")
	r.mu.Lock()
	park := slices.Clone(r.park)
	r.mu.Unlock()
	if !slices.Equal(park, []string{"key-A"}) {
		t.Errorf("parked %q", park)
	}
	if ws := r.windows(); len(ws) != 0 {
		t.Errorf("windows left after the stop: %+v", ws)
	}
	if _, err := r.l.Stop(context.Background(), "A", control.Requester{}); !errors.Is(err, control.ErrNotLaunched) {
		t.Errorf("a second stop: %v", err)
	}
}

// TestLaunchStopEscalates: a session that ignores its stop keys gets
// SIGTERM; one that ignores SIGTERM too is killed.
func TestLaunchStopEscalates(t *testing.T) {
	for _, tt := range []struct{ mode, how string }{
		{"ignore-int", "it ended on SIGTERM"},
		{"ignore-all", "it was killed (SIGKILL)"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			root := mkdir(t, t.TempDir(), "src")
			mkdir(t, root, "web")
			tmpl := helperTemplate(t, "agent", tt.mode, root)
			r := newRig(t, tmpl)
			r.launch(tmpl, "web", "B")
			stopped, err := r.l.Stop(context.Background(), "B", control.Requester{Name: "Ann"})
			if err != nil || stopped.How != tt.how {
				t.Fatalf("Stop: %+v, %v; want %q", stopped, err, tt.how)
			}
			r.waitSaid("key-B", "Stopped by Ann: "+tt.how, "")
		})
	}
}

// TestLaunchExitReported: a launched session that ends by itself is
// reported in its thread, with its status, its thread parked and its
// window closed; its slot is no longer stoppable.
func TestLaunchExitReported(t *testing.T) {
	root := mkdir(t, t.TempDir(), "src")
	mkdir(t, root, "web")
	tmpl := helperTemplate(t, "agent", "exit-when", root)
	r := newRig(t, tmpl)
	r.launch(tmpl, "web", "C")
	if err := os.WriteFile(tmpl.Env["LAUNCH_OUT"]+".go", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r.waitSaid("key-C", "agent in web ended", "exited with status 7")
	if ws := r.windows(); len(ws) != 0 {
		t.Errorf("windows left: %+v", ws)
	}
	r.mu.Lock()
	var kinds []events.Kind
	for _, e := range r.evs {
		kinds = append(kinds, e.Kind)
	}
	r.mu.Unlock()
	if !slices.Equal(kinds, []events.Kind{events.LaunchStarted, events.LaunchEnded}) {
		t.Errorf("events %v", kinds)
	}
}

// TestLaunchNotRegistered: a session whose follower never registers is
// ended at the template's deadline, one that exits first is reported
// with its status and last lines; New fails and no window is left.
func TestLaunchNotRegistered(t *testing.T) {
	root := mkdir(t, t.TempDir(), "src")
	mkdir(t, root, "web")
	silent := helperTemplate(t, "silent", "ignore-int", root)
	silent.RegisterTimeout = 300 * time.Millisecond
	quitter := helperTemplate(t, "quitter", "exit-now", root)
	r := newRig(t, silent, quitter)
	for _, tt := range []struct{ tmpl, want string }{
		{"silent", "silent in web did not register within 300ms, so it was ended"},
		{"quitter", "quitter in web "},
	} {
		_, err := r.l.New(context.Background(), control.NewRequest{Template: tt.tmpl, Project: "web"})
		if tt.tmpl == "quitter" && err != nil && !strings.Contains(err.Error(), "ended (exited with status 3) before its follower registered") &&
			!strings.Contains(err.Error(), "ended ("+statusUnknown+") before its follower registered") {
			t.Errorf("New(quitter): %v, want its end before it registered", err)
		}
		if !errors.Is(err, ErrNotRegistered) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%s): %v, want %q", tt.tmpl, err, tt.want)
		}
		if ws := r.windows(); len(ws) != 0 {
			t.Errorf("windows left after %s: %+v", tt.tmpl, ws)
		}
	}
}

// TestLaunchRefusals: a template not configured, a project not allowed
// and a template at its limit are refused with a *control.Refusal and
// start nothing.
func TestLaunchRefusals(t *testing.T) {
	dir := t.TempDir()
	root := mkdir(t, dir, "src")
	mkdir(t, root, "web")
	mkdir(t, dir, "secret")
	if err := os.Symlink(filepath.Join(dir, "secret"), filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	tmpl := helperTemplate(t, "agent", "ignore-int", root)
	r := newRig(t, tmpl)
	for _, tt := range []struct{ template, project, want string }{
		{"bash", "web", `no template "bash"; the templates: agent`},
		{"agent", "../secret", "a project is a name, not a path"},
		{"agent", "/tmp", "a project is a name, not a path"},
		{"agent", "escape", "leads outside"},
		{"agent", "nope", `template agent has no project "nope"`},
	} {
		_, err := r.l.New(context.Background(), control.NewRequest{Template: tt.template, Project: tt.project})
		var ref *control.Refusal
		if !errors.As(err, &ref) || !strings.Contains(ref.Reason, tt.want) {
			t.Errorf("New(%s %s): %v, want a refusal saying %q", tt.template, tt.project, err, tt.want)
		}
		if ws := r.windows(); len(ws) != 0 {
			t.Errorf("New(%s %s) started %+v", tt.template, tt.project, ws)
		}
	}

	r.launch(tmpl, "web", "D")
	_, err := r.l.New(context.Background(), control.NewRequest{Template: "agent", Project: "web"})
	var ref *control.Refusal
	if !errors.As(err, &ref) || !strings.Contains(ref.Reason, "template agent runs 1 session(s) already, its limit") {
		t.Errorf("a second session over the limit: %v", err)
	}
	if ws := r.windows(); len(ws) != 1 {
		t.Errorf("windows %+v, want the one", ws)
	}
	if _, err := r.l.Stop(context.Background(), "Z", control.Requester{}); !errors.Is(err, control.ErrNotLaunched) {
		t.Errorf("Stop of a slot not launched: %v", err)
	}
}

// TestLaunchFoundAfterRestart: a launcher started on the tmux server of
// one before it (a supervisor restarted) finds the session that one
// launched, and stops it.
func TestLaunchFoundAfterRestart(t *testing.T) {
	root := mkdir(t, t.TempDir(), "src")
	mkdir(t, root, "web")
	tmpl := helperTemplate(t, "agent", "ignore-int", root)
	r := newRig(t, tmpl)
	r.launch(tmpl, "web", "E")

	again, err := New(r.l.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { again.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	stopped, err := again.Stop(context.Background(), "E", control.Requester{Name: "Ann"})
	if err != nil || stopped.How != "it ended on SIGTERM" {
		t.Fatalf("Stop after a restart: %+v, %v", stopped, err)
	}
	r.waitSaid("key-E", "Stopped by Ann: it ended on SIGTERM", "")
}
