// Package launch starts and stops agent sessions from the launch
// templates of the config file (the control surface's new and stop):
// each launched session runs in a window of the supervisor's own tmux
// server (its socket, one session named "chatbus"), where the person can
// attach at the desk.
//
// Nothing runs that a template does not name: the template's argv is
// executed directly (tmux runs a command of several words without a
// shell), in a project directory the template allows (a name, matched
// against the list; symbolic links resolved and kept inside their root),
// with the template's environment and CHATBUS_LAUNCH_ID, which the
// session's follower sends when it registers (Registered); New returns
// once it has. A pane stays after its program ends (remain-on-exit) until
// Run notices the end, reports it in the session's thread and closes the
// window. Stop ends a session the agent's own way first (the template's
// keys), then SIGTERM, then SIGKILL to its process group.
//
// Each window carries its launch in window options (@chatbus-launch,
// -template, -project, -binding, -slot, -thread), so a supervisor that
// restarts finds the sessions it launched still running (Run, at its
// start) and stops them as before.
//
// Goroutines: Run owns the watch of the windows; New and Stop run on
// their callers' goroutines and wait on the session's channels. mu guards
// the sessions and their fields; make serializes the making and closing
// of windows (the session is made with its first window and goes with
// its last). Neither is held while tmux runs, but for make.
package launch

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/control"
	"github.com/chatbus/chatbus/server/events"
)

// Config configures a Launcher.
type Config struct {
	// Templates are the launch templates (checked with Check).
	Templates []Template
	// Socket is the tmux server's socket (required): the person attaches
	// with tmux -S <Socket> attach -t chatbus.
	Socket string
	// Tmux is the tmux binary. If empty, tmux on PATH.
	Tmux string
	// Env is the environment the tmux server starts with, so the base of
	// every launched session's. If nil, the supervisor's.
	Env []string
	// SessionEnv is added to every launched session's environment
	// (KEY=value), before the template's.
	SessionEnv []string
	// Logger receives the launcher's log.
	Logger zerolog.Logger
	// Publish, if set, publishes the launches' events.
	Publish func(events.Event)
	// Say, if set, writes text in the thread of binding key (a launched
	// session's end).
	Say func(ctx context.Context, bindingKey, text string) error
	// Park, if set, parks the thread of binding key now that its
	// session ended: the follower instance, if it still holds it, is
	// ended, and a binding held for a handoff goes offline.
	Park func(bindingKey, instanceID string)
	// Poll is how often the windows are looked at while sessions run. If
	// zero, 1s.
	Poll time.Duration
}

// Follower is what a launched session's follower registered as.
type Follower struct {
	BindingKey string
	Slot       string
	Thread     string
	InstanceID string
}

// Launcher implements control.Launcher. Make it with New and run Run.
type Launcher struct {
	cfg       Config
	log       zerolog.Logger
	tmux      tmux
	templates map[string]Template
	ready     chan struct{} // closed once Run has found the running sessions
	wake      chan struct{} // cap 1: look at the windows now

	make sync.Mutex // serializes new-window/new-session and kill-window

	mu       sync.Mutex
	sessions map[string]*session // by launch id
}

var _ control.Launcher = (*Launcher)(nil)

// session is one launched session.
type session struct {
	id, template, project, dir string
	started                    time.Time
	// window is its tmux window's id ("@3"), pid its program's; set
	// under Launcher.mu once the window is made, then never changed.
	window string
	pid    int

	registered chan struct{} // closed at its follower's first registration
	exited     chan struct{} // closed once its end was noticed

	// Guarded by Launcher.mu.
	follower Follower
	stopping bool
	// signalled is set once Stop sent it a signal: a dead pane without
	// an exit status is then its end.
	signalled atomic.Bool
	// deadSince is when Run first saw its pane dead without an exit
	// status (Run's own).
	deadSince time.Time
	// Written before exited is closed.
	status    string // "exited with status 0", statusUnknown, "its window was closed"
	lastLines string
}

// New makes a Launcher; nothing starts before Run.
func New(cfg Config) (*Launcher, error) {
	if cfg.Socket == "" {
		return nil, errors.New("launch: Config.Socket is required")
	}
	if cfg.Tmux == "" {
		p, err := exec.LookPath("tmux")
		if err != nil {
			return nil, fmt.Errorf("launch: launched sessions run in tmux: %w", err)
		}
		cfg.Tmux = p
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	l := &Launcher{
		cfg:       cfg,
		log:       cfg.Logger.With().Str("component", "launch").Logger(),
		tmux:      tmux{bin: cfg.Tmux, socket: cfg.Socket, env: cfg.Env},
		templates: map[string]Template{},
		ready:     make(chan struct{}),
		wake:      make(chan struct{}, 1),
		sessions:  map[string]*session{},
	}
	for _, t := range cfg.Templates {
		l.templates[t.Name] = t
	}
	return l, nil
}

// AttachCommand is what the person types at the desk to see the launched
// sessions.
func (l *Launcher) AttachCommand() string {
	return fmt.Sprintf("tmux -S %s attach -t %s", l.cfg.Socket, tmuxSession)
}

// Templates lists the templates with their projects as they are now.
func (l *Launcher) Templates() []control.Template {
	out := make([]control.Template, 0, len(l.cfg.Templates))
	for _, t := range l.cfg.Templates {
		out = append(out, control.Template{Name: t.Name, Projects: t.Projects()})
	}
	return out
}

func (l *Launcher) names() string {
	names := make([]string, 0, len(l.cfg.Templates))
	for _, t := range l.cfg.Templates {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// ErrNotRegistered: a launched session's follower did not register in
// time, or the session ended before it did; the session was ended.
var ErrNotRegistered = errors.New("launch: the session's follower did not register")

// New starts a session from r.Template in r.Project and returns once its
// follower registered. A template or project the person may not name,
// and a template at its limit, are a *control.Refusal; nothing starts.
func (l *Launcher) New(ctx context.Context, r control.NewRequest) (control.Launched, error) {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return control.Launched{}, ctx.Err()
	}
	t, ok := l.templates[r.Template]
	if !ok {
		return control.Launched{}, &control.Refusal{Reason: fmt.Sprintf("no template %q; the templates: %s", r.Template, l.names())}
	}
	project, dir, err := t.project(r.Project)
	if err != nil {
		return control.Launched{}, err
	}
	s := &session{id: newID(), template: t.Name, project: project, dir: dir, started: time.Now(),
		registered: make(chan struct{}), exited: make(chan struct{})}
	l.mu.Lock()
	n := 0
	for _, o := range l.sessions {
		if o.template == t.Name && !closed(o.exited) {
			n++
		}
	}
	if n >= t.max() {
		l.mu.Unlock()
		return control.Launched{}, &control.Refusal{Reason: fmt.Sprintf("template %s runs %d session(s) already, its limit: stop one first", t.Name, n)}
	}
	l.sessions[s.id] = s
	l.mu.Unlock()

	env := slices.Clone(l.cfg.SessionEnv)
	keys := make([]string, 0, len(t.Env))
	for k := range t.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+t.Env[k])
	}
	env = append(env, EnvLaunchID+"="+s.id)
	l.make.Lock()
	win, pid, err := l.tmux.newWindow(ctx, window{name: project, dir: dir, env: env, argv: t.Argv, options: map[string]string{
		"@chatbus-launch": s.id, "@chatbus-template": t.Name, "@chatbus-project": project,
		"@chatbus-started": s.started.UTC().Format(time.RFC3339),
	}})
	l.make.Unlock()
	l.mu.Lock() // Run and Registered look at the sessions' windows
	s.window, s.pid = win, pid
	f := s.follower
	l.mu.Unlock()
	if err == nil && f.BindingKey != "" {
		l.markWindow(win, f) // it registered before the window was known
	}
	if err != nil {
		l.end(s)
		return control.Launched{}, fmt.Errorf("launch %s in %s: %w", t.Name, project, err)
	}
	l.log.Info().Str("template", t.Name).Str("project", project).Str("dir", dir).Str("window", s.window).Int("pid", s.pid).
		Str("launch", s.id).Str("by", r.By.Name).Str("attach", l.AttachCommand()).Msg("session launched")
	l.publish(events.LaunchStarted, fmt.Sprintf("%s launched in %s", t.Name, project), s, map[string]string{
		"by": r.By.Name, "by_id": r.By.Sender, "provider": r.By.Provider, "dir": dir})
	l.poke()
	return l.awaitFollower(ctx, t, s)
}

// awaitFollower waits until s's follower registers, typing the
// template's answers meanwhile; a session that ends first, or does not
// register in time, is ended and said so.
func (l *Launcher) awaitFollower(ctx context.Context, t Template, s *session) (control.Launched, error) {
	deadline := time.NewTimer(t.registerTimeout())
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	answered := make([]bool, len(t.Answers))
	for {
		select {
		case <-s.registered:
			l.mu.Lock()
			f := s.follower
			l.mu.Unlock()
			return control.Launched{Slot: f.Slot, Window: f.Thread}, nil
		case <-s.exited:
			return control.Launched{}, fmt.Errorf("%w: %s in %s ended (%s) before its follower registered%s", ErrNotRegistered, t.Name, s.project, s.status, lastLines(s.lastLines))
		case <-ctx.Done():
			l.end(s)
			return control.Launched{}, ctx.Err()
		case <-deadline.C:
			screen := l.tmux.capture(context.WithoutCancel(ctx), s.window)
			l.end(s)
			return control.Launched{}, fmt.Errorf("%w: %s in %s did not register within %s, so it was ended (is chatbus-mcp in the project's MCP servers?)%s",
				ErrNotRegistered, t.Name, s.project, t.registerTimeout(), lastLines(screen))
		case <-tick.C:
			if !slices.Contains(answered, false) {
				continue
			}
			screen := l.tmux.capture(ctx, s.window)
			for i, a := range t.Answers {
				if !answered[i] && strings.Contains(screen, a.Screen) {
					answered[i] = true
					if err := l.tmux.sendKeys(ctx, s.window, a.Keys...); err != nil {
						l.log.Warn().Err(err).Str("window", s.window).Msg("typing an answer")
					}
				}
			}
		}
	}
}

// Registered tells the launcher that a follower registered with launch
// id launchID (from CHATBUS_LAUNCH_ID): the session's New returns, and
// its window is named as its thread. An id of no session is ignored.
func (l *Launcher) Registered(launchID string, f Follower) {
	l.mu.Lock()
	s, ok := l.sessions[launchID]
	var win string
	if ok {
		s.follower = f
		win = s.window
	}
	l.mu.Unlock()
	if !ok {
		l.log.Warn().Str("launch", launchID).Str("binding", f.BindingKey).Msg("a follower registered with a launch id of no session launched here")
		return
	}
	if win != "" { // else New does it once it has the window
		l.markWindow(win, f)
	}
	l.mu.Lock()
	if !closed(s.registered) {
		close(s.registered)
	}
	l.mu.Unlock()
}

// markWindow records f in its session's window and names the window as
// its thread.
func (l *Launcher) markWindow(win string, f Follower) {
	ctx := context.Background()
	for k, v := range map[string]string{"@chatbus-binding": f.BindingKey, "@chatbus-slot": f.Slot, "@chatbus-thread": f.Thread} {
		if err := l.tmux.setOption(ctx, win, k, v); err != nil {
			l.log.Warn().Err(err).Str("window", win).Msg("recording the follower in its window")
		}
	}
	if f.Thread != "" {
		if err := l.tmux.rename(ctx, win, f.Thread); err != nil {
			l.log.Warn().Err(err).Str("window", win).Msg("naming the window as its thread")
		}
	}
}

// Stop ends the launched session in slot: the template's stop keys, then
// SIGTERM, then SIGKILL to its process group, each after the template's
// stop timeout; its thread is parked and told who stopped it. A slot of
// no session launched here is control.ErrNotLaunched.
func (l *Launcher) Stop(ctx context.Context, slot string, by control.Requester) (control.Stopped, error) {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return control.Stopped{}, ctx.Err()
	}
	l.mu.Lock()
	var s *session
	for _, o := range l.sessions {
		if o.follower.Slot == slot && slot != "" && !closed(o.exited) {
			s = o
		}
	}
	if s == nil {
		l.mu.Unlock()
		return control.Stopped{}, fmt.Errorf("slot %s: %w", slot, control.ErrNotLaunched)
	}
	if s.stopping {
		l.mu.Unlock()
		return control.Stopped{}, &control.Refusal{Reason: fmt.Sprintf("slot %s is being stopped already", slot)}
	}
	s.stopping = true
	f := s.follower
	l.mu.Unlock()
	t := l.templates[s.template] // a template gone from the config: the defaults
	l.publish(events.LaunchStopped, fmt.Sprintf("%s in %s stopped by %s", s.template, s.project, by.Name), s, map[string]string{
		"by": by.Name, "by_id": by.Sender, "provider": by.Provider, "slot": slot})

	how, err := l.stop(ctx, t, s)
	if err != nil {
		return control.Stopped{}, err
	}
	text := fmt.Sprintf("Stopped by %s: %s (%s).", by.Name, how, s.status)
	if by.Name == "" {
		text = fmt.Sprintf("Stopped: %s (%s).", how, s.status)
	}
	l.report(f, text)
	return control.Stopped{Slot: slot, How: how}, nil
}

// stop ends s in steps and says which step ended it.
func (l *Launcher) stop(ctx context.Context, t Template, s *session) (string, error) {
	keys := t.stopKeys()
	for i, k := range keys {
		if i > 0 {
			// One element at a time, as a person types: a program may
			// react to the first (a completion menu) before the next.
			select {
			case <-s.exited:
			case <-time.After(200 * time.Millisecond):
			}
		}
		if err := l.tmux.sendKeys(ctx, s.window, k); err != nil {
			l.log.Warn().Err(err).Str("window", s.window).Msg("typing the stop keys")
			break
		}
	}
	if l.waitExit(ctx, s, t.stopTimeout()) {
		return "it ended after " + strings.Join(keys, " "), nil
	}
	l.signal(s, syscall.SIGTERM)
	if l.waitExit(ctx, s, t.stopTimeout()) {
		return "it ended on SIGTERM", nil
	}
	l.signal(s, syscall.SIGKILL)
	if l.waitExit(ctx, s, t.stopTimeout()) {
		return "it was killed (SIGKILL)", nil
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return "", fmt.Errorf("launch: %s in %s (window %s, pid %d) did not end even on SIGKILL", s.template, s.project, s.window, s.pid)
}

// waitExit waits up to d for s's end to be noticed.
func (l *Launcher) waitExit(ctx context.Context, s *session, d time.Duration) bool {
	l.poke()
	tm := time.NewTimer(d)
	defer tm.Stop()
	// The end is noticed at the next look; a look every 100ms meanwhile.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.exited:
			return true
		case <-ctx.Done():
			return false
		case <-tm.C:
			return closed(s.exited)
		case <-tick.C:
			l.poke()
		}
	}
}

// signal sends sig to s's process group (tmux makes each pane's program
// the leader of its own session), unless its end was noticed.
func (l *Launcher) signal(s *session, sig syscall.Signal) {
	if closed(s.exited) || s.pid <= 1 {
		return
	}
	s.signalled.Store(true)
	if err := syscall.Kill(-s.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		l.log.Warn().Err(err).Int("pid", s.pid).Str("signal", sig.String()).Msg("signalling a launched session")
	}
}

// end ends s now (SIGTERM to its group, then its window closed), for a
// launch that failed; Run reports nothing for it.
func (l *Launcher) end(s *session) {
	if !l.claim(s) {
		<-s.exited // Run noticed its end first
		return
	}
	l.signal(s, syscall.SIGTERM)
	if s.window != "" {
		l.make.Lock()
		if err := l.tmux.kill(context.Background(), s.window); err != nil {
			l.log.Warn().Err(err).Str("window", s.window).Msg("closing a launched window")
		}
		l.make.Unlock()
	}
	s.status = "ended by chatbus"
	close(s.exited)
}

// claim takes s out of the sessions; only its taker writes its end and
// closes exited. False: another took it.
func (l *Launcher) claim(s *session) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions[s.id] != s {
		return false
	}
	delete(l.sessions, s.id)
	return true
}

// statusGrace is how long a dead pane may lack its exit status before its
// end is reported without one (tmux may see the terminal close before it
// reaps the program; one killed by a signal has no exit status at all).
const statusGrace = 2 * time.Second

// statusUnknown ends a session whose exit status tmux did not give.
const statusUnknown = "killed by a signal, or its exit status unknown"

// Run finds the sessions launched before (a restart of the supervisor)
// and watches the windows until ctx ends: a session whose program ended
// is reported in its thread (unless Stop does it) and its window closed.
// Sessions go on running after Run returns.
func (l *Launcher) Run(ctx context.Context) {
	l.recover(ctx)
	close(l.ready)
	tick := time.NewTicker(l.cfg.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		case <-tick.C:
		}
		l.mu.Lock()
		n := len(l.sessions)
		l.mu.Unlock()
		if n > 0 {
			l.look(ctx)
		}
	}
}

func (l *Launcher) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// recover takes over the windows a previous supervisor launched.
func (l *Launcher) recover(ctx context.Context) {
	ps, err := l.tmux.panes(ctx)
	if err != nil {
		l.log.Warn().Err(err).Msg("looking for sessions launched before")
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range ps {
		if p.launch == "" {
			continue
		}
		s := &session{id: p.launch, template: p.template, project: p.project, window: p.window, pid: p.pid,
			registered: make(chan struct{}), exited: make(chan struct{}),
			follower: Follower{BindingKey: p.binding, Slot: p.slot, Thread: p.thread}}
		s.started, _ = time.Parse(time.RFC3339, p.startedAt)
		if p.binding != "" {
			close(s.registered)
		}
		l.sessions[s.id] = s
		l.log.Info().Str("template", s.template).Str("project", s.project).Str("window", s.window).Str("slot", s.follower.Slot).
			Bool("ended", p.dead).Msg("a session launched before this supervisor started")
	}
}

// look notices the sessions whose program ended or whose window is gone.
func (l *Launcher) look(ctx context.Context) {
	ps, err := l.tmux.panes(ctx)
	if err != nil {
		l.log.Warn().Err(err).Msg("looking at the launched sessions")
		return
	}
	byWindow := map[string]pane{}
	for _, p := range ps {
		byWindow[p.window] = p
	}
	l.mu.Lock()
	var ended []*session
	for _, s := range l.sessions {
		if s.window == "" || closed(s.exited) {
			continue
		}
		p, ok := byWindow[s.window]
		if ok && p.dead && p.status == "" {
			// tmux saw the terminal close before it had the program's
			// exit status (or never gets it: a program killed by a
			// signal has none): wait a little for it.
			if s.deadSince.IsZero() {
				s.deadSince = time.Now()
			}
			if time.Since(s.deadSince) < statusGrace && !s.signalled.Load() {
				continue
			}
		}
		if !ok || p.dead {
			ended = append(ended, s)
		}
	}
	l.mu.Unlock()
	for _, s := range ended {
		if !l.claim(s) {
			continue // ended by a failed launch meanwhile
		}
		p, ok := byWindow[s.window]
		switch {
		case !ok:
			s.status = "its window was closed"
		case p.status != "":
			s.status = "exited with status " + p.status
			s.lastLines = l.tmux.capture(ctx, s.window)
		default:
			// Reaped after the list: ask once more.
			if st, _ := l.tmux.run(ctx, "display-message", "-p", "-t", s.window, "#{pane_dead_status}"); strings.TrimSpace(st) != "" {
				s.status = "exited with status " + strings.TrimSpace(st)
			} else {
				s.status = statusUnknown
			}
			s.lastLines = l.tmux.capture(ctx, s.window)
		}
		l.make.Lock()
		if err := l.tmux.kill(ctx, s.window); err != nil {
			l.log.Warn().Err(err).Str("window", s.window).Msg("closing the window of an ended session")
		}
		l.make.Unlock()
		l.mu.Lock()
		stopping, f := s.stopping, s.follower
		l.mu.Unlock()
		close(s.exited)
		l.log.Info().Str("template", s.template).Str("project", s.project).Str("slot", f.Slot).Str("status", s.status).Msg("launched session ended")
		l.publish(events.LaunchEnded, fmt.Sprintf("%s in %s ended (%s)", s.template, s.project, s.status), s, map[string]string{"status": s.status})
		if !stopping {
			l.report(f, fmt.Sprintf("%s in %s ended (%s).", s.template, s.project, s.status))
		}
	}
}

// report parks the thread of f and writes text in it (in the
// background: a provider restarting must not hold the watch).
func (l *Launcher) report(f Follower, text string) {
	if f.BindingKey == "" {
		return
	}
	if l.cfg.Park != nil {
		l.cfg.Park(f.BindingKey, f.InstanceID)
	}
	if l.cfg.Say == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := l.cfg.Say(ctx, f.BindingKey, text); err != nil {
			l.log.Warn().Err(err).Str("binding", f.BindingKey).Msg("reporting a launched session's end in its thread")
		}
	}()
}

func (l *Launcher) publish(kind events.Kind, msg string, s *session, attrs map[string]string) {
	if l.cfg.Publish == nil {
		return
	}
	attrs["template"], attrs["project"], attrs["window"], attrs["launch"] = s.template, s.project, s.window, s.id
	l.mu.Lock()
	if s.follower.BindingKey != "" {
		attrs["binding"] = s.follower.BindingKey
	}
	l.mu.Unlock()
	l.cfg.Publish(events.Event{Kind: kind, Message: msg, Attrs: attrs})
}

// project is Template.Project with the name the project goes by.
func (t Template) project(name string) (string, string, error) {
	if name == "" {
		var err error
		if name, err = t.defaultProject(); err != nil {
			return "", "", err
		}
	}
	dir, err := t.Project(name)
	return name, dir, err
}

// lastLines ends an error with the last non-empty lines of a screen.
func lastLines(screen string) string {
	var lines []string
	for _, ln := range strings.Split(screen, "\n") {
		if s := strings.TrimSpace(ln); s != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "; its last lines: " + strings.Join(lines[max(0, len(lines)-5):], " | ")
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func newID() string {
	b := make([]byte, 10)
	rand.Read(b)
	return "l" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}
