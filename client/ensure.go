package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/chatbus/chatbus/paths"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// DefaultEnsureTimeout bounds Ensure when EnsureOptions.Timeout is zero.
const DefaultEnsureTimeout = 10 * time.Second

// ensurePoll is how often Ensure looks again at the socket, the lock and the
// process it started.
const ensurePoll = 25 * time.Millisecond

// logTailLines is how much of the supervisor's log an error quotes.
const logTailLines = 20

// EnsureOptions say which supervisor Ensure looks for and how to start it.
// Ensure reads no environment: the caller resolves every path.
type EnsureOptions struct {
	// Socket is the supervisor's socket (required). Its directory is created
	// 0700 and holds the ensure lock, <Socket>.ensure.lock.
	Socket string
	// StateDir is the supervisor's state dir (required): passed as
	// --state-dir, and where the log (supervisord.log) and the secret live.
	StateDir string
	// Profile is passed as --profile. If empty, no --profile is passed and
	// supervisord uses its default profile.
	Profile string
	// SecretFile is read only to ask the running supervisor its pid
	// (GetInfo); readiness needs no secret. If empty, <StateDir>/secret.
	SecretFile string
	// Binary is the supervisord to start. If empty, "supervisord" beside
	// os.Executable(), else "supervisord" from PATH.
	Binary string
	// Args are extra flags, appended after the ones Ensure passes. The
	// supervisor runs in "/", so paths in them should be absolute.
	Args []string
	// Timeout bounds the whole of Ensure: waiting for another ensurer's
	// lock and for the started supervisor to serve. If zero, 10s.
	Timeout time.Duration
	// Env is the started supervisor's environment. If nil, this process's.
	Env []string
}

// Started reports what Ensure found or did.
type Started struct {
	// PID is the serving supervisor's pid; 0 if it could not be learnt
	// (the secret file was unreadable).
	PID int
	// Started is true if this call started the supervisor, false if one
	// was already serving (or another ensurer started it meanwhile).
	Started bool
	// Log is the started supervisor's log file (it rotates it itself:
	// supervisord --log-file).
	Log string
}

// Ensure makes sure a supervisor serves opts.Socket, starting one in the
// background if none does, and returns once it serves (grpc.health.v1 says
// SERVING) or fails.
//
// Concurrent calls, in one process or many, start exactly one supervisor:
// the starter holds an advisory lock, <Socket>.ensure.lock, from its last
// look at the socket until the supervisor serves or fails, and everyone
// else waits for that lock while watching the socket. (The supervisor's own
// startup lock, <Socket>.lock, is a different file: it is held for the
// supervisor's lifetime.)
//
// The supervisor is started as
//
//	<Binary> --profile P --socket S --state-dir D --log-format json --log-file <StateDir>/supervisord.log <Args...>
//
// in a new session, in "/", with stdin from /dev/null. It writes its log
// itself, rotated by size (so the log cannot fill the disk); its stdout
// and stderr, which then carry only what escapes the log (a panic, an
// error before the log is open), go to <StateDir>/supervisord.out,
// emptied at each start (both 0600). It is not a child that
// anyone waits for: Ensure reaps it if it exits before serving, and
// otherwise releases it. A caller that lives on after the supervisor later
// exits holds it as a zombie until the caller exits or reaps it itself.
//
// Errors: a supervisor that exits before serving yields an error quoting
// the last lines of its output and log; one still not serving when the time is up is
// left running and the error says so. Nothing Ensure did not start is ever
// signalled or removed.
func Ensure(ctx context.Context, opts EnsureOptions) (Started, error) {
	e, err := newEnsurer(opts)
	if err != nil {
		return Started{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	res := Started{Log: e.log}

	if pid, ok := e.probe(ctx); ok {
		res.PID = pid
		return res, nil
	}
	bin, err := e.binary()
	if err != nil {
		return res, err
	}
	if err := paths.PrivateDir(filepath.Dir(e.socket)); err != nil {
		return res, err
	}
	lock := flock.New(e.socket+".ensure.lock", flock.SetPermissions(0o600))
	for {
		ok, err := lock.TryLock()
		if err != nil {
			return res, fmt.Errorf("lock %s: %w", lock.Path(), err)
		}
		if ok {
			break
		}
		// Another ensurer is starting it: done as soon as it serves.
		if pid, ok := e.probe(ctx); ok {
			res.PID = pid
			return res, nil
		}
		select {
		case <-ctx.Done():
			return res, fmt.Errorf("supervisord not serving on %s after %s: another process holds %s (it may still be starting one; see %s): %w",
				e.socket, e.elapsed(), lock.Path(), e.log, ctx.Err())
		case <-time.After(ensurePoll):
		}
	}
	// The only release of the lock. Unlock closes the file, which drops the
	// flock even if the explicit unlock failed, so its error says nothing
	// the caller could act on.
	defer lock.Unlock()

	// Another ensurer may have started it between our look and the lock.
	if pid, ok := e.probe(ctx); ok {
		res.PID = pid
		return res, nil
	}
	if err := ctx.Err(); err != nil { // start nothing we could not wait for
		return res, fmt.Errorf("supervisord not serving on %s: %w", e.socket, err)
	}
	return e.start(ctx, bin, res)
}

// ensurer is one Ensure call with its options resolved.
type ensurer struct {
	opts     EnsureOptions
	socket   string
	stateDir string
	secret   string
	log      string // the supervisor's log file
	out      string // its stdout and stderr
	timeout  time.Duration
	begin    time.Time
}

func newEnsurer(opts EnsureOptions) (*ensurer, error) {
	if opts.Socket == "" {
		return nil, errors.New("ensure: socket path is empty")
	}
	if opts.StateDir == "" {
		return nil, errors.New("ensure: state dir is empty")
	}
	socket, err := filepath.Abs(opts.Socket)
	if err != nil {
		return nil, err
	}
	if err := paths.CheckSocket(socket); err != nil {
		return nil, err
	}
	stateDir, err := filepath.Abs(opts.StateDir)
	if err != nil {
		return nil, err
	}
	e := &ensurer{
		opts:     opts,
		socket:   socket,
		stateDir: stateDir,
		secret:   opts.SecretFile,
		log:      filepath.Join(stateDir, "supervisord.log"),
		out:      filepath.Join(stateDir, "supervisord.out"),
		timeout:  opts.Timeout,
		begin:    time.Now(),
	}
	if e.secret == "" {
		e.secret = filepath.Join(stateDir, "secret")
	}
	if e.timeout <= 0 {
		e.timeout = DefaultEnsureTimeout
	}
	return e, nil
}

func (e *ensurer) elapsed() time.Duration { return time.Since(e.begin).Round(time.Millisecond) }

// binary resolves the supervisord to start to an absolute path, so that a
// missing or unusable binary fails here, clearly, and not in the child.
func (e *ensurer) binary() (string, error) {
	bin := e.opts.Binary
	if bin == "" {
		if exe, err := os.Executable(); err == nil {
			sib := filepath.Join(filepath.Dir(exe), "supervisord")
			if fi, err := os.Stat(sib); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return sib, nil
			}
		}
		bin = "supervisord"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("supervisord binary: %w", err)
	}
	return filepath.Abs(path)
}

// start starts the supervisor and waits until it serves, exits, or ctx
// ends. The caller holds the ensure lock.
func (e *ensurer) start(ctx context.Context, bin string, res Started) (Started, error) {
	if err := paths.PrivateDir(e.stateDir); err != nil {
		return res, err
	}
	var logStart int64
	if fi, err := os.Stat(e.log); err == nil {
		logStart = fi.Size()
	}
	outf, err := os.OpenFile(e.out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return res, fmt.Errorf("open %s: %w", e.out, err)
	}
	if fi, err := outf.Stat(); err == nil && fi.Mode().Perm() != 0o600 {
		_ = outf.Chmod(0o600)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		outf.Close()
		return res, err
	}

	args := []string{}
	if e.opts.Profile != "" {
		args = append(args, "--profile", e.opts.Profile)
	}
	args = append(args, "--socket", e.socket, "--state-dir", e.stateDir, "--log-format", "json", "--log-file", e.log)
	args = append(args, e.opts.Args...)
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, outf, outf
	cmd.Env = e.opts.Env
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	// The child has its own copies; os/exec starts no copying goroutines
	// because both are *os.File.
	outf.Close()
	devnull.Close()
	if err != nil {
		return res, fmt.Errorf("start %s: %w", bin, err)
	}
	pid := cmd.Process.Pid
	// We never call Wait: Wait4 below reaps an early exit, and a supervisor
	// that serves lives on without us.
	defer cmd.Process.Release()

	for {
		var ws syscall.WaitStatus
		if wpid, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); wpid == pid || errors.Is(err, syscall.ECHILD) {
			// A supervisor started some other way may have won the race
			// for the socket (ours then exits "already running").
			if spid, ok := e.probe(ctx); ok {
				res.PID = spid
				return res, nil
			}
			return res, fmt.Errorf("supervisord (%s, pid %d) exited before serving (%s); %s",
				bin, pid, describeExit(ws, err), e.tails(logStart))
		}
		if spid, ok := e.probe(ctx); ok {
			switch spid {
			case pid, 0: // 0: the secret was unreadable; the one serving is ours
				res.PID, res.Started = pid, true
			default: // someone else's won the socket; ours exits at once
				res.PID = spid
				e.reapSoon(ctx, pid)
			}
			return res, nil
		}
		select {
		case <-ctx.Done():
			return res, fmt.Errorf("supervisord (pid %d) not serving on %s after %s (%w); it is left running; %s",
				pid, e.socket, e.elapsed(), ctx.Err(), e.tails(logStart))
		case <-time.After(ensurePoll):
		}
	}
}

// tails quotes what the started supervisor printed (supervisord.out) and,
// if that is empty, the last lines it logged since logStart.
func (e *ensurer) tails(logStart int64) string {
	if fi, err := os.Stat(e.out); err == nil && fi.Size() > 0 {
		return fmt.Sprintf("last lines of %s:\n%s", e.out, tailFrom(e.out, 0, logTailLines))
	}
	if fi, err := os.Stat(e.log); err == nil && fi.Size() != logStart {
		return fmt.Sprintf("last lines of %s:\n%s", e.log, tailFrom(e.log, logStart, logTailLines))
	}
	return fmt.Sprintf("it printed nothing (%s is empty) and logged nothing (%s)", e.out, e.log)
}

// reapSoon waits a little, within ctx, for a started supervisor that lost
// the socket to someone else: it exits "already running" at once.
func (e *ensurer) reapSoon(ctx context.Context, pid int) {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var ws syscall.WaitStatus
		if wpid, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); wpid == pid || err != nil {
			return
		}
		time.Sleep(ensurePoll)
	}
}

// probe reports whether a supervisor serves the socket (grpc.health.v1
// SERVING, which needs no secret) and, when the secret is readable, its pid
// (GetInfo). Each probe uses a fresh connection, bounded by ctx and 1s.
func (e *ensurer) probe(ctx context.Context) (pid int, serving bool) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	// Most probes find no socket: a plain dial answers that without a
	// gRPC channel.
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", e.socket)
	if err != nil {
		return 0, false
	}
	conn.Close()

	cc, err := grpc.NewClient("unix://"+e.socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return 0, false
	}
	defer cc.Close()
	hr, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || hr.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return 0, false
	}
	b, err := os.ReadFile(e.secret)
	if err != nil {
		return 0, true
	}
	info, err := chatbusv1.NewAdminServiceClient(cc).GetInfo(ctx, &chatbusv1.GetInfoRequest{},
		grpc.PerRPCCredentials(bearer(strings.TrimSpace(string(b)))))
	if err != nil {
		return 0, true
	}
	return int(info.GetPid()), true
}

func describeExit(ws syscall.WaitStatus, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case ws.Exited():
		return fmt.Sprintf("exit status %d", ws.ExitStatus())
	case ws.Signaled():
		return fmt.Sprintf("killed by %v", ws.Signal())
	}
	return fmt.Sprintf("wait status %#x", uint32(ws))
}

// tailFrom returns the last n lines written to path at or after offset,
// indented, or a note that there are none.
func tailFrom(path string, offset int64, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	defer f.Close()
	const maxTail = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size()-offset > maxTail {
		offset = fi.Size() - maxTail
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "  (" + err.Error() + ")"
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTail))
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	b = bytes.TrimRight(b, "\n")
	if len(bytes.TrimSpace(b)) == 0 {
		return "  (the log is empty: it printed nothing)"
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
