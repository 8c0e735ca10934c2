package supervise

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/paths"
)

// child is one started process. Fields without a note are set before the
// child is shared and never change.
type child struct {
	inc     proc.Incarnation
	cmd     *exec.Cmd
	socket  string
	secret  string // the bearer secret handed to this start in its settings
	spawned time.Time

	stdin  *os.File // our end of its stdin
	stdout *os.File // our end of its stdout
	stderr *os.File // our end of its stderr
	io     sync.WaitGroup
	tail   tail // its last stderr lines

	// handshake receives the first stdout line (or why there is none),
	// exactly once.
	handshake chan handshakeResult

	// waited is closed once wait(2) returned and the output was drained;
	// exitStatus and exitedAt are set before.
	waited     chan struct{}
	exitStatus string
	exitedAt   time.Time

	// gone is closed by Run once the exit is recorded and the child is no
	// longer current: proof "reaped" for WaitExit.
	gone chan struct{}

	// Set by launch under Supervisor.mu when the child becomes RUNNING;
	// read by Run's goroutine (which set them) and under mu.
	conn       *grpc.ClientConn
	ready      time.Time
	stopHealth context.CancelFunc
	healthDone chan struct{}

	// Guarded by Supervisor.mu.
	planned bool
	final   bool // planned and retired: no successor (Retire)
	health  healthpb.HealthCheckResponse_ServingStatus
	healthy bool // health was reported at least once
}

// handshakeResult is the first stdout line, or why there is none: eof
// (stdout closed first; line holds any partial line) or err.
type handshakeResult struct {
	line string
	eof  bool
	err  error
}

func (c *child) public() Child {
	return Child{Incarnation: c.inc, Socket: c.socket, Conn: c.conn, Started: c.spawned}
}

func (s *Supervisor) socketPath(n int) string {
	return filepath.Join(s.spec.SocketDir, s.spec.Name+"-"+strconv.Itoa(n)+".sock")
}

// nextSocket returns a fresh socket path with nothing at it. A stale file
// (nobody answers) is removed; a live socket, perhaps a child left by an
// earlier supervisor, is left alone and skipped.
func (s *Supervisor) nextSocket() (string, error) {
	for range 1000 {
		s.seq++
		p := s.socketPath(s.seq)
		if err := paths.CheckSocket(p); err != nil {
			return "", err
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if conn, err := net.DialTimeout("unix", p, 100*time.Millisecond); err == nil {
			conn.Close()
			s.log.Warn().Str("socket", p).Msg("socket in use by another process; skipping it")
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn().Err(err).Str("socket", p).Msg("remove stale socket")
			continue
		}
		return p, nil
	}
	return "", errors.New("no free socket path")
}

// spawn starts the process with its pipes and goroutines: the stdin writer,
// the two output readers, and the reaper, which closes waited.
func (s *Supervisor) spawn() (_ *child, err error) {
	socket, err := s.nextSocket()
	if err != nil {
		return nil, err
	}
	var files []*os.File
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	defer func() {
		if err != nil {
			for _, f := range files {
				if f != nil {
					f.Close()
				}
			}
		}
	}()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}

	secret := newSecret()
	cmd := exec.Command(s.spec.Path, s.spec.Args...)
	env := s.spec.Env
	if env == nil {
		env = os.Environ()
	}
	// exec keeps the last of duplicate keys: ours win.
	cmd.Env = append(env[:len(env):len(env)], EnvName+"="+s.spec.Name, EnvSocket+"="+socket)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// Its own process group: a terminal's ^C reaches the supervisor, which
	// stops its children in order; and tied to the supervisor's life where
	// the OS can (childAttr, child_<os>.go).
	cmd.SysProcAttr = childAttr()
	if err = cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.spec.Path, err)
	}
	inR.Close()
	outW.Close()
	errW.Close()

	c := &child{
		cmd:        cmd,
		socket:     socket,
		secret:     secret,
		spawned:    time.Now(),
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		handshake:  make(chan handshakeResult, 1),
		waited:     make(chan struct{}),
		gone:       make(chan struct{}),
		healthDone: make(chan struct{}),
	}
	pid := cmd.Process.Pid
	// The child is not reaped yet, so its pid cannot be reused; it may
	// already be a zombie, whose start time /proc no longer tells.
	if c.inc, err = proc.Of(pid); err != nil {
		s.log.Warn().Err(err).Int("pid", pid).Msg("child start time unknown")
		c.inc = proc.Incarnation{PID: pid}
		err = nil
	}

	c.io.Add(3)
	go s.writeConfig(c)
	go s.readStdout(c)
	go func() {
		defer c.io.Done()
		s.copyLines(c, bufio.NewReaderSize(c.stderr, MaxLineBytes), "stderr")
	}()
	go s.reap(c)
	return c, nil
}

func (s *Supervisor) writeConfig(c *child) {
	defer c.io.Done()
	defer c.stdin.Close()
	conf, err := withSecret(s.spec.Config, c.secret)
	if err != nil { // validate checked it: cannot happen
		s.log.Error().Err(err).Int("pid", c.inc.PID).Msg("provider settings")
		return
	}
	if _, err := c.stdin.Write(conf); err != nil {
		s.log.Warn().Err(err).Int("pid", c.inc.PID).Msg("writing config to child stdin")
	}
}

// withSecret returns config (a JSON object; empty is {}) with "secret"
// set.
func withSecret(config []byte, secret string) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(config)) > 0 {
		if err := json.Unmarshal(config, &m); err != nil || m == nil {
			return nil, fmt.Errorf("provider settings must be a JSON object: %v", err)
		}
	}
	m["secret"], _ = json.Marshal(secret)
	return json.Marshal(m)
}

// newSecret returns 32 random bytes in base64url: a bearer secret for one
// child start.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails on Linux
	return base64.RawURLEncoding.EncodeToString(b)
}

// bearer sends "authorization: Bearer <secret>" on every call; the socket
// is private (mode 0600 in a 0700 directory), so no transport security.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

// reap waits for the child, then drains its output and closes waited.
func (s *Supervisor) reap(c *child) {
	err := c.cmd.Wait()
	c.exitedAt = time.Now()
	c.exitStatus = describeExit(c.cmd.ProcessState, err)
	// Unblock a config write the child never read, and bound the drain in
	// case a grandchild holds the output pipes open. Errors only say the
	// file is already closed.
	_ = c.stdin.SetWriteDeadline(c.exitedAt)
	_ = c.stdout.SetReadDeadline(c.exitedAt.Add(drainGrace))
	_ = c.stderr.SetReadDeadline(c.exitedAt.Add(drainGrace))
	c.io.Wait()
	c.stdout.Close()
	c.stderr.Close()
	close(c.waited)
}

func describeExit(ps *os.ProcessState, err error) string {
	if ps != nil {
		return ps.String() // "exit status 2", "signal: killed"
	}
	if err != nil {
		return err.Error()
	}
	return "exited"
}

// readStdout hands the first line to the handshake, then copies the rest.
func (s *Supervisor) readStdout(c *child) {
	defer c.io.Done()
	br := bufio.NewReaderSize(c.stdout, MaxLineBytes)
	line, dropped, err := readLine(br)
	switch {
	case err != nil: // EOF, or the drain deadline after exit
		c.handshake <- handshakeResult{line: line, eof: true}
		return
	case dropped > 0:
		c.handshake <- handshakeResult{err: fmt.Errorf("handshake line longer than %d bytes: %s", MaxLineBytes, clip(line))}
	default:
		c.handshake <- handshakeResult{line: line}
	}
	s.copyLines(c, br, "stdout")
}

// readLine reads one line without its '\n'. Of a line longer than br's
// buffer the first len(buffer) bytes are returned and the rest is read and
// dropped (counted). At EOF or on an error it returns what it has with the
// error.
func readLine(br *bufio.Reader) (line string, dropped int, err error) {
	b, err := br.ReadSlice('\n')
	if err == nil {
		return string(b[:len(b)-1]), 0, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return string(b), 0, err
	}
	line = string(b)
	for {
		b, err = br.ReadSlice('\n')
		if err == nil {
			return line, dropped + len(b) - 1, nil
		}
		dropped += len(b)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, dropped, err
		}
	}
}

// parseHandshake checks line against "1|unix|<socket>|grpc", strictly.
func parseHandshake(line, socket string) error {
	f := strings.Split(line, "|")
	want := fmt.Sprintf("%d|unix|%s|grpc", ProtocolVersion, socket)
	switch {
	case len(f) != 4:
		return fmt.Errorf("bad handshake line %s: want %q", clip(line), want)
	case f[0] != strconv.Itoa(ProtocolVersion):
		return fmt.Errorf("bad handshake line %s: protocol version %q, want %d", clip(line), f[0], ProtocolVersion)
	case f[1] != "unix":
		return fmt.Errorf("bad handshake line %s: network %q, want \"unix\"", clip(line), f[1])
	case f[2] != socket:
		return fmt.Errorf("bad handshake line %s: socket %q, want %q", clip(line), f[2], socket)
	case f[3] != "grpc":
		return fmt.Errorf("bad handshake line %s: protocol %q, want \"grpc\"", clip(line), f[3])
	}
	return nil
}

// clip quotes s for an error message, cut to a readable length.
func clip(s string) string {
	const n = 200
	if len(s) > n {
		return strconv.Quote(s[:n]) + "…"
	}
	return strconv.Quote(s)
}

func dial(socket, secret string) (*grpc.ClientConn, error) {
	return grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(bearer(secret)))
}

// watchHealth follows the child's grpc.health.v1 status until ctx ends,
// re-opening the Watch stream when it breaks.
func (s *Supervisor) watchHealth(ctx context.Context, c *child) {
	defer close(c.healthDone)
	client := healthpb.NewHealthClient(c.conn)
	retry := backoff.Policy{Initial: 50 * time.Millisecond, Max: 2 * time.Second}.New()
	for {
		stream, err := client.Watch(ctx, &healthpb.HealthCheckRequest{Service: s.spec.Name}, grpc.WaitForReady(true))
		for err == nil {
			var resp *healthpb.HealthCheckResponse
			if resp, err = stream.Recv(); err == nil {
				if s.setHealth(c, resp.GetStatus()) {
					// The child is on its way out: our open Watch stream
					// would only hold up its graceful stop.
					s.log.Debug().Int("pid", c.inc.PID).Msg("expected exit under way; health watch ended")
					c.stopHealth()
					return
				}
				retry.Reset()
			}
		}
		if ctx.Err() != nil {
			return
		}
		s.setHealth(c, healthpb.HealthCheckResponse_UNKNOWN)
		if status.Code(err) == codes.Unimplemented {
			s.log.Warn().Err(err).Int("pid", c.inc.PID).Msg("child does not serve grpc.health.v1 Watch; health unknown")
			return
		}
		s.log.Debug().Err(err).Int("pid", c.inc.PID).Msg("health watch broke; retrying")
		if backoff.Sleep(ctx, retry.NextBackOff()) != nil {
			return
		}
	}
}

// setHealth records a health status of c if it is still the running child,
// and reports a change. It returns true when c's exit is expected and it is
// no longer serving: it is shutting down.
func (s *Supervisor) setHealth(c *child, st healthpb.HealthCheckResponse_ServingStatus) (leaving bool) {
	s.mu.Lock()
	leaving = c.planned && st != healthpb.HealthCheckResponse_SERVING
	if s.cur != c || s.state != StateRunning || (c.healthy && c.health == st) {
		s.mu.Unlock()
		return leaving
	}
	c.health, c.healthy = st, true
	s.serving = st == healthpb.HealthCheckResponse_SERVING
	close(s.changed) // Changed's waiters see health changes too
	s.changed = make(chan struct{})
	s.queue(Event{Kind: EventHealth, Child: c.inc, Message: st.String()})
	s.mu.Unlock()
	s.flush()
	return leaving
}
