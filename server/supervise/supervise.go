// Package supervise keeps one provider child process alive. It starts the
// provider binary, reads its one-line handshake, dials its gRPC socket,
// watches its health, observes its exit with wait(2) and restarts it with
// exponential backoff, until StartLimit quick deaths in a row (or a child
// that Spec.Accept refuses) put it in FATAL. It knows nothing of the bus:
// the server runs one Supervisor per provider and talks to the child
// through Child.Conn.
//
// # Child contract
//
// The Supervisor runs Spec.Path (by default the binary "provider-<name>"
// looked up in PATH, so that ps shows which provider it is) with Spec.Args,
// in its own process group, with Spec.Env plus
//
//	CHATBUS_PROVIDER_NAME=<name>
//	CHATBUS_PROVIDER_SOCKET=<absolute path of a Unix socket to listen on>
//
// The socket path is fresh for every start (<SocketDir>/<name>-<n>.sock);
// nothing exists at it when the child starts, and the Supervisor removes
// the file after it has reaped the child. Spec.Config is written to the
// child's stdin, which is then closed (an empty Config gives an empty
// stdin). The child must listen on the socket first and then print exactly
// one line on stdout:
//
//	1|unix|<socket path>|grpc\n
//
// (protocol version 1, network unix, the socket path exactly as given,
// protocol grpc; no other text, no '\r') within Spec.StartTimeout, and serve
// chatbus.provider.v1.ProviderService and grpc.health.v1 (service name =
// provider name) on the socket until it exits. Everything the child writes
// to stderr, and to stdout after the handshake line, is copied line by line
// into Spec.Logger (fields provider=<name>, stream=stdout|stderr, pid): a
// line that is a structured (JSON) log record is merged into the
// supervisor's record at its own level, any other stderr line is a warning
// (see copyLines), and the last lines of stderr are kept for
// Status.StderrTail. A line longer than MaxLineBytes is cut there, marked
// " …[truncated]" and logged with truncated=true. On SIGTERM the child should exit promptly (the
// Supervisor waits Spec.StopGrace, then sends SIGKILL).
//
// A child is RUNNING once its handshake line is valid, its socket is
// dialled and Spec.Accept (if set) accepted it. Health is reported, not
// required: Status.Serving follows the grpc.health.v1 Watch stream, and a
// child that never says SERVING stays RUNNING with Serving false.
//
// # What is signalled
//
// A Supervisor only ever signals its own, not yet reaped children, and only
// in two cases: a child that failed its start (no valid handshake line
// within StartTimeout, its socket could not be dialled, or Spec.Accept
// refused it) gets SIGKILL, since it never became a provider; and when
// Run's context ends, the current child gets SIGTERM, then SIGKILL after
// StopGrace. An unhealthy child, a child whose exit is expected
// (ExpectExit), and any incarnation passed to WaitExit are never signalled.
package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/internal/contract"
	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/paths"
)

// Environment variables the child is started with.
const (
	EnvName   = contract.EnvName
	EnvSocket = contract.EnvSocket
)

// ProtocolVersion is the handshake version this package speaks.
const ProtocolVersion = contract.HandshakeVersion

// MaxLineBytes bounds one line of child output copied into the log; the
// handshake line is bounded by it too.
const MaxLineBytes = 64 << 10

// Defaults for the zero values of Spec.
const (
	DefaultStartTimeout   = 10 * time.Second
	DefaultBackoffInitial = 200 * time.Millisecond
	DefaultBackoffMax     = 30 * time.Second
	DefaultStartLimit     = 5
	DefaultQuickDeath     = 10 * time.Second
	DefaultStopGrace      = 5 * time.Second
)

// drainGrace is how long child output is still read after the child was
// reaped: output it wrote before exiting is already in the pipe and is
// read at once; only a grandchild holding the pipe open can make the
// readers wait this long.
const drainGrace = time.Second

// recentExits bounds the reaped incarnations remembered for WaitExit.
const recentExits = 32

// Errors. Supervisor methods wrap them with the provider name.
var (
	// ErrFatal: the provider hit its start limit, or its child was
	// refused; only Restart starts it again.
	ErrFatal = errors.New("provider is FATAL")
	// ErrStopped: Run has returned (or failed to begin); no child will run.
	ErrStopped = errors.New("supervisor stopped")
	// ErrNotCurrent: the incarnation is not the Supervisor's current child.
	ErrNotCurrent = errors.New("not the current child")
	// ErrState: the operation does not apply in the current state.
	ErrState = errors.New("wrong state")
	// ErrBadSpec: the Spec cannot be run.
	ErrBadSpec = errors.New("bad spec")
	// ErrHalt, as the cause of Run's context (context.WithCancelCause),
	// stops the child at once: SIGKILL, no StopGrace. For a child whose
	// work can no longer count (its supervisor lost the right to it): a
	// graceful stop would only let it go on calling its platform.
	ErrHalt = errors.New("halt the provider at once")
	// ErrRefused, wrapped by Spec.Accept's error: the child is not one
	// this supervisor can use, and another start of the same binary
	// would be refused alike, so the provider goes FATAL at once.
	ErrRefused = errors.New("child refused")
)

// Spec says which provider to run and how. Zero values are documented per
// field.
type Spec struct {
	// Name of the provider, as configured: [a-z0-9][a-z0-9_-]*, at most 64
	// bytes. Required. It names the binary, the socket, the health service
	// and the log lines.
	Name string
	// Path of the binary. If empty, "provider-<Name>", looked up in PATH.
	Path string
	// Args are the child's arguments, not including argv[0].
	Args []string
	// Env is the child's environment. If nil, the Supervisor's own.
	// EnvName and EnvSocket are always set, overriding entries in Env.
	Env []string
	// Config is written to the child's stdin, which is then closed: a JSON
	// object (or empty, for {}), to which the key "secret" is added with a
	// fresh random bearer secret per start. The child must refuse calls
	// that do not carry it; Child.Conn sends it on every call.
	Config []byte
	// SocketDir is where child sockets are made. Required. It is created
	// 0700 if missing and must not be accessible to group or others. Keep it
	// short: a socket path holds at most 107 bytes.
	SocketDir string
	// StartTimeout bounds the wait for the handshake line, and Accept. If
	// zero, 10s.
	StartTimeout time.Duration
	// Accept, if set, is asked about each child once its socket is
	// dialled, before it becomes RUNNING: nothing else has used it yet.
	// ctx ends when StartTimeout has passed since the start, or Run's
	// context ends. An error refuses the child: it is killed and the
	// start failed; if the error wraps ErrRefused, the provider goes
	// FATAL at once instead of starting it again. Accept must not keep
	// conn.
	Accept func(ctx context.Context, conn *grpc.ClientConn) error
	// BackoffInitial is the delay before the first restart after a death;
	// it doubles with every further quick death in a row (with ±25% jitter).
	// If zero, 200ms.
	BackoffInitial time.Duration
	// BackoffMax caps the backoff delay. If zero, 30s.
	BackoffMax time.Duration
	// StartLimit is how many quick deaths in a row put the provider in
	// FATAL. A failed start counts as a quick death. If zero, 5.
	StartLimit int
	// QuickDeath: a child that dies sooner than this after becoming RUNNING
	// counts as a quick death; one that lived longer resets the count. If
	// zero, 10s.
	QuickDeath time.Duration
	// StopGrace is how long Run waits after SIGTERM before SIGKILL when its
	// context ends. If zero, 5s.
	StopGrace time.Duration
	// Logger receives the Supervisor's log and the child's output, tagged
	// provider=<Name>. The zero value discards.
	Logger zerolog.Logger
	// OnEvent, if set, is called for every Event, in order, from one
	// goroutine at a time, and never with a lock held (it may call Status).
	// It must not block: it runs on the supervision path. Copy the event into
	// a buffered channel or a non-blocking hub.
	OnEvent func(Event)
}

// State of a supervised provider.
type State int

// States. A Supervisor is STOPPED before Run and after Run returns.
const (
	// StateStarting: a child is being started and has not handshaken yet.
	StateStarting State = iota + 1
	// StateRunning: the child handshook and its socket is dialled.
	StateRunning
	// StateBackoff: waiting to start again after a death or a failed start.
	StateBackoff
	// StateFatal: StartLimit quick deaths in a row, or a child refused
	// (Spec.Accept); nothing more is started until Restart.
	StateFatal
	// StateStopped: not running (before Run, after Run).
	StateStopped
)

func (s State) String() string {
	switch s {
	case StateStarting:
		return "STARTING"
	case StateRunning:
		return "RUNNING"
	case StateBackoff:
		return "BACKOFF"
	case StateFatal:
		return "FATAL"
	case StateStopped:
		return "STOPPED"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Child is a RUNNING provider child.
type Child struct {
	Incarnation proc.Incarnation
	// Socket is the Unix socket the child serves on.
	Socket string
	// Conn is dialled to Socket. The Supervisor owns it and closes it once
	// the child has exited; callers must not close it.
	Conn *grpc.ClientConn
	// Started is when the process was started.
	Started time.Time
}

// Status is a snapshot of a Supervisor.
type Status struct {
	Name  string
	State State
	// PID of the current child (starting or running); 0 if none.
	PID int
	// Since is when State was entered; for RUNNING, when the current child
	// became ready.
	Since time.Time
	// Restarts counts the starts after the first one, of any kind.
	Restarts int
	// LastExit is how the last child ended, as wait(2) told it: "exit status
	// 2", "signal: killed"; "" if no child has ended yet.
	LastExit string
	// LastError is the last failed start or unplanned death, kept after a
	// later success; "" if none.
	LastError string
	// Serving is the last grpc.health.v1 status of the running child.
	Serving bool
	// StderrTail is the last lines (at most TailLines, oldest first) the
	// child that LastError describes wrote to stderr; nil if none.
	StderrTail []string
}

// Event kinds.
const (
	// EventStarted: a child became RUNNING.
	EventStarted = "started"
	// EventExited: a child was reaped (ExitStatus says how it ended).
	EventExited = "exited"
	// EventBackoff: the next start waits (Message says how long and why).
	EventBackoff = "backoff"
	// EventFatal: the start limit was hit.
	EventFatal = "fatal"
	// EventHealth: the running child's health status changed (Message is
	// the grpc.health.v1 status name, or UNKNOWN when the watch broke).
	EventHealth = "health"
	// EventStopped: Run stopped.
	EventStopped = "stopped"
)

// Event is one thing that happened to a provider.
type Event struct {
	Time       time.Time
	Name       string
	Kind       string
	Message    string
	Child      proc.Incarnation // zero if no child is concerned
	ExitStatus string           // for "exited"
	// Planned: an "exited" the Supervisor asked for (a doctor's planned
	// exit, or the stop at the end of Run), not a death.
	Planned bool
}

// Proof kinds: how WaitExit knows an incarnation is gone.
const (
	// ProofReaped: the Supervisor reaped it (wait(2) returned).
	ProofReaped = "reaped"
	// ProofPIDGone: no live process has its pid (absent or a zombie).
	ProofPIDGone = "pid-gone"
	// ProofPIDReused: its pid now belongs to a process with another start
	// time.
	ProofPIDReused = "pid-reused"
	// ProofUnknown: it could not be told. Never returned as proof.
	ProofUnknown = "unknown"
)

// ExitProof is positive proof that an incarnation is gone.
type ExitProof struct {
	Kind        string // ProofReaped, ProofPIDGone or ProofPIDReused
	Incarnation proc.Incarnation
	ExitStatus  string    // for ProofReaped: "exit status 0", "signal: killed"
	Time        time.Time // when the exit was observed
}

// Supervisor keeps one provider child alive. Create it with New and call
// Run once; the other methods are safe for concurrent use at any time.
type Supervisor struct {
	spec Spec
	log  zerolog.Logger

	// restart carries Restart's request to Run. A token is only sent with mu
	// held in FATAL or BACKOFF, and drained with mu held on entering
	// STARTING, so a stale token never skips a later FATAL.
	restart chan struct{}

	// seq numbers child sockets; used only by Run's goroutine.
	seq int

	// emitMu serialises OnEvent calls. Lock order: emitMu, then mu.
	emitMu sync.Mutex

	mu       sync.Mutex // guards everything below
	ran      bool       // Run was called
	done     bool       // Run returned
	state    State
	since    time.Time
	changed  chan struct{} // closed and replaced when state changes
	cur      *child        // starting or running child; nil otherwise
	starts   int
	quick    int // quick deaths in a row
	lastExit string
	lastErr  string
	lastTail []string // stderr tail of the child lastErr describes
	serving  bool
	exits    map[proc.Incarnation]ExitProof // recently reaped children
	exitFIFO []proc.Incarnation
	events   []Event // queued for OnEvent
	next     *Launch // set by Respec, taken by the next start
}

// New returns a Supervisor for spec, filling in defaults. It starts nothing;
// see Run.
func New(spec Spec) *Supervisor {
	if spec.Path == "" {
		spec.Path = "provider-" + spec.Name
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&spec.StartTimeout, DefaultStartTimeout)
	def(&spec.BackoffInitial, DefaultBackoffInitial)
	def(&spec.BackoffMax, DefaultBackoffMax)
	def(&spec.QuickDeath, DefaultQuickDeath)
	def(&spec.StopGrace, DefaultStopGrace)
	if spec.BackoffMax < spec.BackoffInitial {
		spec.BackoffMax = spec.BackoffInitial
	}
	if spec.StartLimit <= 0 {
		spec.StartLimit = DefaultStartLimit
	}
	return &Supervisor{
		spec:    spec,
		log:     spec.Logger.With().Str("provider", spec.Name).Logger(),
		restart: make(chan struct{}, 1),
		state:   StateStopped,
		since:   time.Now(),
		changed: make(chan struct{}),
		exits:   make(map[proc.Incarnation]ExitProof),
	}
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// validate checks the spec and prepares SocketDir.
func (s *Supervisor) validate() error {
	if !nameRE.MatchString(s.spec.Name) {
		return fmt.Errorf("%w: provider name %q: want [a-z0-9][a-z0-9_-]*, at most 64 bytes", ErrBadSpec, s.spec.Name)
	}
	if s.spec.SocketDir == "" {
		return fmt.Errorf("%w: no SocketDir", ErrBadSpec)
	}
	dir, err := filepath.Abs(s.spec.SocketDir)
	if err != nil {
		return fmt.Errorf("%w: SocketDir: %v", ErrBadSpec, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%w: SocketDir: %v", ErrBadSpec, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%w: SocketDir: %v", ErrBadSpec, err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: SocketDir %s is %v; want a directory with mode 0700", ErrBadSpec, dir, fi.Mode())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: SocketDir %s is owned by uid %d, not %d", ErrBadSpec, dir, st.Uid, os.Getuid())
	}
	s.spec.SocketDir = dir
	if _, err := withSecret(s.spec.Config, "x"); err != nil {
		return fmt.Errorf("%w: %v", ErrBadSpec, err)
	}
	if err := paths.CheckSocket(s.socketPath(999999)); err != nil {
		return fmt.Errorf("%w: %v", ErrBadSpec, err)
	}
	return nil
}

// Run supervises the provider until ctx ends: start, handshake, RUNNING,
// wait(2), then restart immediately (planned exit), after a backoff, or not
// at all (FATAL, until Restart). When ctx ends it stops the child (SIGTERM,
// StopGrace, SIGKILL; SIGKILL at once if ctx's cause is ErrHalt), reaps
// it, enters STOPPED and returns nil. It returns
// an error at once only if the Spec is unusable (ErrBadSpec) or Run was
// already called (ErrState). Run may be called once.
func (s *Supervisor) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.ran {
		s.mu.Unlock()
		return fmt.Errorf("provider %s: Run called twice: %w", s.spec.Name, ErrState)
	}
	s.ran = true
	s.mu.Unlock()
	if err := s.validate(); err != nil {
		s.mu.Lock()
		s.lastErr = err.Error()
		s.done = true
		s.setState(StateStopped)
		s.mu.Unlock()
		return fmt.Errorf("provider %s: %w", s.spec.Name, err)
	}
	s.log.Info().Str("path", s.spec.Path).Msg("supervising provider")

	for {
		c, err := s.launch(ctx)
		if ctx.Err() != nil {
			s.shutdown(ctx, c)
			return nil
		}
		if err == nil {
			select {
			case <-c.waited:
			case <-ctx.Done():
				s.shutdown(ctx, c)
				return nil
			}
		}
		next, delay := s.settle(c, err)
		switch next {
		case StateStopped: // a retired child's final exit
			s.shutdown(ctx, nil)
			return nil
		case StateStarting:
			continue
		case StateBackoff:
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-s.restart:
				t.Stop()
			case <-ctx.Done():
				t.Stop()
				s.shutdown(ctx, nil)
				return nil
			}
		case StateFatal:
			select {
			case <-s.restart:
			case <-ctx.Done():
				s.shutdown(ctx, nil)
				return nil
			}
		}
	}
}

// launch starts a child and takes it to RUNNING. On a failed start it
// returns the error and the child (nil if none was started), reaped. If ctx
// ends meanwhile it returns the child as it is, for Run to shut down.
func (s *Supervisor) launch(ctx context.Context) (*child, error) {
	s.mu.Lock()
	select {
	case <-s.restart: // a Restart that raced with the backoff timer
	default:
	}
	s.starts++
	s.applyNextLocked()
	s.setState(StateStarting)
	s.mu.Unlock()

	c, err := s.spawn()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.cur = c
	s.mu.Unlock()
	s.log.Debug().Int("pid", c.inc.PID).Str("socket", c.socket).Msg("child started, waiting for handshake")

	deadline := time.Now().Add(s.spec.StartTimeout)
	t := time.NewTimer(s.spec.StartTimeout)
	defer t.Stop()
	handshake := c.handshake
	for handshake != nil {
		select {
		case <-ctx.Done():
			return c, ctx.Err()
		case <-c.waited:
			return c, fmt.Errorf("exited before its handshake (%s)", c.exitStatus)
		case <-t.C:
			s.kill(c)
			return c, fmt.Errorf("no handshake line within %s; killed", s.spec.StartTimeout)
		case h := <-handshake:
			switch {
			case h.eof:
				// Most likely it is exiting: wait (up to StartTimeout) to
				// say how.
				handshake = nil
				if h.line != "" {
					s.log.Warn().Int("pid", c.inc.PID).Str("partial", clip(h.line)).Msg("stdout closed in the handshake line")
				}
				select {
				case <-c.waited:
					return c, fmt.Errorf("exited before its handshake (%s)", c.exitStatus)
				case <-t.C:
					s.kill(c)
					return c, errors.New("closed stdout without a handshake line; killed")
				case <-ctx.Done():
					return c, ctx.Err()
				}
			case h.err != nil:
				s.kill(c)
				return c, fmt.Errorf("%w; killed", h.err)
			}
			if err := parseHandshake(h.line, c.socket); err != nil {
				s.kill(c)
				return c, fmt.Errorf("%w; killed", err)
			}
			handshake = nil
		}
	}

	conn, err := dial(c.socket, c.secret)
	if err != nil {
		s.kill(c)
		return c, fmt.Errorf("dial %s: %w; killed", c.socket, err)
	}
	if s.spec.Accept != nil {
		actx, cancel := context.WithDeadline(ctx, deadline)
		err := s.spec.Accept(actx, conn)
		cancel()
		if err != nil {
			conn.Close()
			if ctx.Err() != nil {
				return c, ctx.Err()
			}
			s.kill(c)
			return c, fmt.Errorf("%w; killed", err)
		}
	}
	hctx, cancel := context.WithCancel(context.Background())
	now := time.Now()
	s.mu.Lock()
	c.conn = conn
	c.ready = now
	c.stopHealth = cancel
	s.serving = false
	s.setState(StateRunning)
	s.since = now
	s.queue(Event{Kind: EventStarted, Child: c.inc, Message: "running on " + c.socket})
	s.mu.Unlock()
	s.flush()
	go s.watchHealth(hctx, c)
	return c, nil
}

// kill ends a child that failed its start and reaps it. This and shutdown
// are the only places that signal a child.
func (s *Supervisor) kill(c *child) {
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.log.Error().Err(err).Int("pid", c.inc.PID).Msg("kill failed start")
	}
	<-c.waited
}

// release closes what the Supervisor holds for an exited child.
func (s *Supervisor) release(c *child) {
	if c.stopHealth != nil {
		c.stopHealth()
		<-c.healthDone
	}
	if c.conn != nil {
		c.conn.Close()
	}
	if err := os.Remove(c.socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn().Err(err).Str("socket", c.socket).Msg("remove child socket")
	}
}

// settle records the end of a child (c, reaped, may be nil if none could be
// started; startErr non-nil if the start failed) and decides what comes
// next: StateStarting (planned exit: at once), StateBackoff (after delay),
// StateFatal, or StateStopped (a retired child's final exit: Run stops).
func (s *Supervisor) settle(c *child, startErr error) (State, time.Duration) {
	if c != nil {
		s.release(c)
	}
	now := time.Now()
	s.mu.Lock()
	planned := c != nil && c.planned
	refused := errors.Is(startErr, ErrRefused)
	msg := ""
	switch {
	case planned:
		msg = "planned exit"
	case startErr != nil:
		s.quick++
		s.lastErr = "start failed: " + startErr.Error()
		s.lastTail = nil
		if c != nil {
			s.lastTail = c.tail.get()
		}
		msg = s.lastErr
	default:
		lived := now.Sub(c.ready)
		if lived < s.spec.QuickDeath {
			s.quick++
		} else {
			s.quick = 0
		}
		s.lastErr = fmt.Sprintf("exited after %s: %s", lived.Round(time.Millisecond), c.exitStatus)
		s.lastTail = c.tail.get()
		msg = s.lastErr
	}
	if c != nil {
		s.recordExit(c)
		s.queue(Event{Kind: EventExited, Child: c.inc, ExitStatus: c.exitStatus, Message: msg, Planned: planned})
	}
	s.cur = nil
	s.serving = false

	var next State
	var delay time.Duration
	switch {
	case planned && c.final:
		next = StateStopped // shutdown enters it
	case planned:
		next = StateStarting
		s.setState(StateStarting)
	case refused:
		next = StateFatal
		s.setState(StateFatal)
		s.queue(Event{Kind: EventFatal, Message: "refused; not restarting: " + s.lastErr})
	case s.quick >= s.spec.StartLimit:
		next = StateFatal
		s.setState(StateFatal)
		s.queue(Event{Kind: EventFatal, Message: fmt.Sprintf("%d quick deaths in a row; not restarting: %s", s.quick, s.lastErr)})
	default:
		next = StateBackoff
		delay = s.backoff()
		s.setState(StateBackoff)
		s.queue(Event{Kind: EventBackoff, Message: fmt.Sprintf("restarting in %s (%d quick deaths in a row)", delay.Round(time.Millisecond), s.quick)})
	}
	if c != nil {
		close(c.gone)
	}
	s.mu.Unlock()
	s.flush()
	return next, delay
}

// backoff is the delay before the next start: BackoffInitial doubled per
// earlier quick death in a row, ±25%, never above BackoffMax. s.mu held.
func (s *Supervisor) backoff() time.Duration {
	p := backoff.Policy{Initial: s.spec.BackoffInitial, Max: s.spec.BackoffMax, Jitter: 0.25}
	return min(p.Delay(s.quick), s.spec.BackoffMax)
}

// shutdown stops c (if any) at the end of Run: SIGTERM, StopGrace, SIGKILL,
// reap; SIGKILL and reap if ctx was halted (ErrHalt). Then STOPPED.
func (s *Supervisor) shutdown(ctx context.Context, c *child) {
	if c != nil && errors.Is(context.Cause(ctx), ErrHalt) {
		select {
		case <-c.waited:
		default:
			s.log.Info().Int("pid", c.inc.PID).Msg("halting child: SIGKILL")
			s.kill(c)
		}
	}
	if c != nil {
		// End our health watch first, so that a child stopping gracefully
		// does not wait for our stream.
		if c.stopHealth != nil {
			c.stopHealth()
			<-c.healthDone
		}
		select {
		case <-c.waited:
		default:
			s.log.Info().Int("pid", c.inc.PID).Msg("stopping child: SIGTERM")
			if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
				s.log.Error().Err(err).Msg("SIGTERM")
			}
			t := time.NewTimer(s.spec.StopGrace)
			select {
			case <-c.waited:
				t.Stop()
			case <-t.C:
				s.log.Warn().Int("pid", c.inc.PID).Dur("grace", s.spec.StopGrace).Msg("child ignored SIGTERM: SIGKILL")
				if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
					s.log.Error().Err(err).Msg("SIGKILL")
				}
				<-c.waited
			}
		}
		s.release(c)
	}
	s.mu.Lock()
	if c != nil {
		s.recordExit(c)
		s.queue(Event{Kind: EventExited, Child: c.inc, ExitStatus: c.exitStatus, Message: "stopped", Planned: true})
	}
	s.cur = nil
	s.serving = false
	s.done = true
	s.setState(StateStopped)
	s.queue(Event{Kind: EventStopped, Message: "supervisor stopped"})
	if c != nil {
		close(c.gone)
	}
	s.mu.Unlock()
	s.flush()
}

// recordExit remembers a reaped child for WaitExit. s.mu held.
func (s *Supervisor) recordExit(c *child) {
	s.lastExit = c.exitStatus
	s.exits[c.inc] = ExitProof{Kind: ProofReaped, Incarnation: c.inc, ExitStatus: c.exitStatus, Time: c.exitedAt}
	s.exitFIFO = append(s.exitFIFO, c.inc)
	if len(s.exitFIFO) > recentExits {
		delete(s.exits, s.exitFIFO[0])
		s.exitFIFO = s.exitFIFO[1:]
	}
}

// setState enters st and wakes waiters. s.mu held.
func (s *Supervisor) setState(st State) {
	s.state = st
	s.since = time.Now()
	close(s.changed)
	s.changed = make(chan struct{})
}

// queue logs e and queues it for OnEvent. s.mu held; call flush after
// unlocking.
func (s *Supervisor) queue(e Event) {
	e.Time = time.Now()
	e.Name = s.spec.Name
	var l *zerolog.Event
	switch e.Kind {
	case EventFatal:
		l = s.log.Error()
	case EventExited:
		if e.Planned {
			l = s.log.Info()
		} else {
			l = s.log.Warn()
		}
	default:
		l = s.log.Info()
	}
	if e.Child.PID != 0 {
		l = l.Int("pid", e.Child.PID).Str("incarnation", e.Child.String())
	}
	if e.ExitStatus != "" {
		l = l.Str("exit", e.ExitStatus)
	}
	l.Str("event", e.Kind).Msg(e.Message)
	if s.spec.OnEvent != nil {
		s.events = append(s.events, e)
	}
}

// flush delivers queued events to OnEvent, in order, one call at a time.
func (s *Supervisor) flush() {
	if s.spec.OnEvent == nil {
		return
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	for {
		s.mu.Lock()
		if len(s.events) == 0 {
			s.mu.Unlock()
			return
		}
		e := s.events[0]
		s.events = s.events[1:]
		s.mu.Unlock()
		s.spec.OnEvent(e)
	}
}

// Status returns a snapshot.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Name:       s.spec.Name,
		State:      s.state,
		Since:      s.since,
		Restarts:   max(s.starts-1, 0),
		LastExit:   s.lastExit,
		LastError:  s.lastErr,
		StderrTail: slices.Clone(s.lastTail),
		Serving:    s.serving,
	}
	if s.cur != nil {
		st.PID = s.cur.inc.PID
	}
	return st
}

// Current returns the RUNNING child, if there is one.
func (s *Supervisor) Current() (Child, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateRunning || s.cur == nil {
		return Child{}, false
	}
	return s.cur.public(), true
}

// WaitRunning returns the RUNNING child, waiting until there is one. It
// fails at once with ErrFatal in FATAL and ErrStopped once Run has
// returned, and with ctx's error when ctx ends. After WaitExit proved an
// incarnation gone, WaitRunning never returns that incarnation.
func (s *Supervisor) WaitRunning(ctx context.Context) (Child, error) {
	for {
		s.mu.Lock()
		st, ch := s.state, s.changed
		switch {
		case st == StateRunning && s.cur != nil:
			c := s.cur.public()
			s.mu.Unlock()
			return c, nil
		case st == StateFatal:
			err := fmt.Errorf("provider %s: %w: %s", s.spec.Name, ErrFatal, s.lastErr)
			s.mu.Unlock()
			return Child{}, err
		case s.done:
			s.mu.Unlock()
			return Child{}, fmt.Errorf("provider %s: %w", s.spec.Name, ErrStopped)
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Child{}, fmt.Errorf("provider %s: waiting for RUNNING (now %s): %w", s.spec.Name, st, ctx.Err())
		}
	}
}

// Changed returns a channel closed at the next change of the supervision
// state: a child starts, becomes RUNNING, exits, backs off, goes FATAL, Run
// returns, or the running child's health changes.
func (s *Supervisor) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Restart starts a FATAL provider again, with a fresh start limit; in
// BACKOFF it starts at once. It is an operator action and never touches a
// child. It fails with ErrState in any other state.
func (s *Supervisor) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || (s.state != StateFatal && s.state != StateBackoff) {
		return fmt.Errorf("provider %s is %s: %w", s.spec.Name, s.state, ErrState)
	}
	s.quick = 0
	select {
	case s.restart <- struct{}{}:
	default:
	}
	s.log.Info().Str("from", s.state.String()).Msg("restart requested")
	return nil
}

// ExpectExit declares that the next exit of inc, the current child, is
// planned (a doctor commit): it is not counted as a death and the successor
// is started at once, without backoff. It is a fact about this child, kept
// for as long as the child lives, which may outlast the doctor's restart
// (a committed owner that exits once settled, after the restart gave up
// waiting, still exits as planned); whether a restart is under way is not
// the Supervisor's to know (the provider's admission owns that). Once the child then reports anything
// but SERVING, the Supervisor ends its health Watch stream, so that the
// child's graceful stop does not wait for it. It signals nothing. It fails with
// ErrNotCurrent if inc is not the current child (for instance because it
// has already exited). CancelExpectExit undoes it.
func (s *Supervisor) ExpectExit(inc proc.Incarnation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil || s.cur.inc != inc {
		return fmt.Errorf("provider %s: incarnation %s: %w", s.spec.Name, inc, ErrNotCurrent)
	}
	s.cur.planned = true
	s.log.Info().Str("incarnation", inc.String()).Msg("exit expected")
	return nil
}

// CancelExpectExit withdraws ExpectExit for inc (a doctor cancelled); its
// exit counts as a death again. A no-op if inc is not the current child.
func (s *Supervisor) CancelExpectExit(inc proc.Incarnation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil && s.cur.inc == inc {
		s.cur.planned, s.cur.final = false, false
	}
}

// exitPoll is how often WaitExit looks at /proc for a process that is not
// the Supervisor's child.
const exitPoll = 100 * time.Millisecond

// WaitExit returns once inc is proven gone. For the Supervisor's own
// children (current or recently reaped) the proof is ProofReaped, given
// after the Supervisor has recorded the exit; for any other process it is
// read from /proc: ProofPIDGone or ProofPIDReused. When /proc cannot tell,
// it keeps waiting. It signals nothing. It fails only when ctx ends.
func (s *Supervisor) WaitExit(ctx context.Context, inc proc.Incarnation) (ExitProof, error) {
	s.mu.Lock()
	if p, ok := s.exits[inc]; ok {
		s.mu.Unlock()
		return p, nil
	}
	if c := s.cur; c != nil && c.inc == inc {
		s.mu.Unlock()
		select {
		case <-c.gone:
		case <-ctx.Done():
			return ExitProof{Kind: ProofUnknown, Incarnation: inc}, fmt.Errorf("provider %s: waiting for %s to exit: %w", s.spec.Name, inc, ctx.Err())
		}
		return ExitProof{Kind: ProofReaped, Incarnation: inc, ExitStatus: c.exitStatus, Time: c.exitedAt}, nil
	}
	s.mu.Unlock()

	t := time.NewTicker(exitPoll)
	defer t.Stop()
	for {
		st, err := proc.StartTime(inc.PID)
		switch {
		case errors.Is(err, proc.ErrGone):
			return ExitProof{Kind: ProofPIDGone, Incarnation: inc, Time: time.Now()}, nil
		case err == nil && st != inc.StartTime:
			return ExitProof{Kind: ProofPIDReused, Incarnation: inc, Time: time.Now()}, nil
		case err != nil:
			s.log.Debug().Err(err).Str("incarnation", inc.String()).Msg("exit unknown; still waiting")
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return ExitProof{Kind: ProofUnknown, Incarnation: inc}, fmt.Errorf("provider %s: waiting for %s to exit: %w", s.spec.Name, inc, ctx.Err())
		}
	}
}
