// Package safesocket owns the supervisor's Unix socket: startup exclusion
// with an advisory lock beside the socket, refusing to start over a live
// socket, removing a stale one, and learning who is on the other end of a
// connection (its peer credentials, see proc.PeerCred).
package safesocket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/paths"
)

// ErrAlreadyRunning reports that another process serves the socket.
var ErrAlreadyRunning = errors.New("already running")

// ErrLocked reports that the startup lock stayed held past the timeout.
var ErrLocked = errors.New("startup lock held by another process")

// DefaultLockTimeout is how long Listen waits for the startup lock.
const DefaultLockTimeout = 5 * time.Second

// MaxLockTimeout bounds LockTimeout.
const MaxLockTimeout = 120 * time.Second

// AlreadyRunningError says which process serves the socket.
type AlreadyRunningError struct {
	Socket string
	PID    int // 0 if unknown
}

func (e *AlreadyRunningError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("already running (pid %d) on %s", e.PID, e.Socket)
	}
	return fmt.Sprintf("already running on %s", e.Socket)
}

func (e *AlreadyRunningError) Unwrap() error { return ErrAlreadyRunning }

// Listener is a bound socket plus the startup lock that guards it. Close
// removes the socket file and then releases the lock, exactly once: a
// later Close (gRPC's Stop closes the listener it serves, and so does its
// owner) does nothing, so it cannot remove a successor's socket.
type Listener struct {
	net.Listener
	path string
	lock *flock.Flock

	closeOnce sync.Once
	closeErr  error
}

// Config says where to listen.
type Config struct {
	// Socket is the socket path; its directory is created 0700.
	Socket string
	// Lock is the advisory lock file. If empty, Socket + ".lock".
	Lock string
	// LockTimeout bounds the wait for the lock. If zero, 5s; at most 120s.
	LockTimeout time.Duration
}

// Listen takes the startup lock (retrying until LockTimeout), then dials the
// socket: a live one yields *AlreadyRunningError and is never touched; a
// stale file is removed. It then listens and makes the socket 0600.
func Listen(ctx context.Context, cfg Config) (*Listener, error) {
	if cfg.Lock == "" {
		cfg.Lock = cfg.Socket + ".lock"
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = DefaultLockTimeout
	}
	if cfg.LockTimeout > MaxLockTimeout {
		return nil, fmt.Errorf("lock timeout %s exceeds the maximum %s", cfg.LockTimeout, MaxLockTimeout)
	}
	dir := filepath.Dir(cfg.Socket)
	if err := paths.PrivateDir(dir); err != nil {
		return nil, err
	}

	lock := flock.New(cfg.Lock, flock.SetPermissions(0o600))
	if err := acquire(ctx, lock, cfg); err != nil {
		return nil, err
	}
	ln, err := listenLocked(cfg.Socket)
	if err != nil {
		_ = lock.Unlock()
		return nil, err
	}
	return &Listener{Listener: ln, path: cfg.Socket, lock: lock}, nil
}

// acquire takes lock, failing early when a live supervisor answers on the
// socket (the common case of a second start) instead of waiting it out.
func acquire(ctx context.Context, lock *flock.Flock, cfg Config) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.LockTimeout)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := lock.TryLock()
		if err != nil {
			return fmt.Errorf("lock %s: %w", cfg.Lock, err)
		}
		if ok {
			return nil
		}
		if pid, live := Probe(cfg.Socket); live {
			return &AlreadyRunningError{Socket: cfg.Socket, PID: pid}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s (waited %s; another supervisord is starting for this profile)", ErrLocked, cfg.Lock, cfg.LockTimeout)
		case <-tick.C:
		}
	}
}

// ListenPrivate listens on socket as Listen does, without the startup
// lock (for a second socket of a process that holds its own): a live
// socket there is refused with *AlreadyRunningError and never touched, a
// stale file is removed, and the socket is made 0600. Its directory must
// exist. Closing the listener leaves the file: the caller removes it.
func ListenPrivate(socket string) (net.Listener, error) { return listenLocked(socket) }

func listenLocked(socket string) (net.Listener, error) {
	if pid, live := Probe(socket); live {
		return nil, &AlreadyRunningError{Socket: socket, PID: pid}
	}
	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale socket %s: %w", socket, err)
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", socket, err)
	}
	// The directory is 0700 already, so the window before chmod exposes
	// nothing; the chmod keeps the socket private if the directory is not.
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod %s: %w", socket, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

// Close stops listening, removes the socket file and releases the lock.
// Only the first call does; later ones return its result.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		err := l.Listener.Close()
		if rmErr := os.Remove(l.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
			err = rmErr
		}
		if unErr := l.lock.Unlock(); unErr != nil && err == nil {
			err = unErr
		}
		l.closeErr = err
	})
	return l.closeErr
}

// Probe dials socket and reports whether something answers, with the pid of
// the listening process when the kernel tells it.
func Probe(socket string) (pid int, live bool) {
	conn, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return 0, false
	}
	defer conn.Close()
	cred, err := PeerCred(conn)
	if err != nil {
		return 0, true
	}
	return int(cred.PID), true
}

// PeerCred returns the credentials of the process at the other end of a Unix
// socket connection (see proc.PeerCred).
func PeerCred(conn net.Conn) (*proc.Cred, error) { return proc.PeerCred(conn) }
