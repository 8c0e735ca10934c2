package safesocket

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/internal/testkit"
)

// The tests use real sockets and, where another process matters, real
// processes: this test binary re-executed with childEnv set to a mode
// (see TestMain).
const childEnv = "CHATBUS_SAFESOCKET_TEST_CHILD"

// otherUID is the uid the other-user tests' child runs as (nobody).
const otherUID = 65534

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		goleak.VerifyTestMain(m)
	case "listen":
		os.Exit(childListen(os.Args[len(os.Args)-1]))
	case "dial":
		os.Exit(childDial(os.Args[len(os.Args)-1]))
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode", os.Getenv(childEnv))
		os.Exit(2)
	}
}

// childListen starts like a supervisor on socket and says how it went on
// stdout ("listening", "already-running <pid>", "locked", or "error …");
// a listening child serves until its stdin closes, then closes.
func childListen(socket string) int {
	l, err := Listen(context.Background(), Config{Socket: socket, LockTimeout: MaxLockTimeout})
	var running *AlreadyRunningError
	switch {
	case err == nil:
		fmt.Println("listening")
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := l.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close:", err)
			return 1
		}
		return 0
	case errors.As(err, &running):
		fmt.Println("already-running", running.PID)
	case errors.Is(err, ErrLocked):
		fmt.Println("locked")
	default:
		fmt.Println("error", err)
	}
	return 0
}

// childDial connects to socket (as whatever user it was started as), says
// "connected" and holds the connection until its stdin closes.
func childDial(socket string) int {
	c, err := net.Dial("unix", socket)
	if err != nil {
		fmt.Println("error", err)
		return 0
	}
	defer c.Close()
	fmt.Println("connected")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// child is a started helper process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

func startChild(t *testing.T, mode, arg string, attr *syscall.SysProcAttr, bin string) *child {
	t.Helper()
	if bin == "" {
		bin = os.Args[0]
	}
	cmd := exec.Command(bin, "-test.run=^$", arg)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.SysProcAttr = attr
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() { c.stop(t) })
	return c
}

// line is the child's next line of output ("" at its end).
func (c *child) line() string {
	if c.lines.Scan() {
		return c.lines.Text()
	}
	return ""
}

// stop closes the child's stdin and waits for it to exit.
func (c *child) stop(t *testing.T) {
	if c.stdin == nil {
		return
	}
	c.stdin.Close()
	c.stdin = nil
	for c.lines.Scan() { // what it still says, up to its exit
	}
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("child %d: %v", c.cmd.Process.Pid, err)
	}
}

// sockDir is a short directory for sockets (sun_path holds 107 bytes).
func sockDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ss")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// staleSocket leaves a socket file at path that nobody serves: a
// listener closed without unlinking it, as a killed supervisor leaves.
func staleSocket(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("no stale socket at %s: %v", path, err)
	}
	if _, live := Probe(path); live {
		t.Fatal("the stale socket answers")
	}
}

// fileID names the file at path: its inode and its modification time (an inode
// number alone is reused at once by a file created after a removal).
func fileID(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%d@%d", st.Ino, fi.ModTime().UnixNano())
}

func mustListen(t *testing.T, cfg Config) *Listener {
	t.Helper()
	l, err := Listen(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestStaleSocketRemovedUnderTheLock: a socket file nobody answers on is
// left alone while another starter holds the lock (Listen gives up with
// ErrLocked), and replaced by a live, private socket once the lock is
// free.
func TestStaleSocketRemovedUnderTheLock(t *testing.T) {
	dir := sockDir(t)
	sock := filepath.Join(dir, "s.sock")
	staleSocket(t, sock)
	before := fileID(t, sock)

	holder := flock.New(sock + ".lock")
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	_, err := Listen(context.Background(), Config{Socket: sock, LockTimeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Listen while another holds the lock: %v, want ErrLocked", err)
	}
	if got := fileID(t, sock); got != before {
		t.Fatal("the stale socket was touched without the lock")
	}
	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}

	l := mustListen(t, Config{Socket: sock})
	fi, err := os.Lstat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v (%v), want 0600", fi.Mode(), err)
	}
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("dial the new socket: %v", err)
	}
	c.Close()
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
}

// TestLiveSocketRefused: a socket something answers on is never removed
// or replaced: a second start is refused as already running, naming the
// pid of the process that serves it (another process here), whether it
// meets the lock held (the same lock file) or not (another one).
func TestLiveSocketRefused(t *testing.T) {
	dir := sockDir(t)
	sock := filepath.Join(dir, "s.sock")
	owner := startChild(t, "listen", sock, nil, "")
	if got := owner.line(); got != "listening" {
		t.Fatalf("owner: %q", got)
	}
	before := fileID(t, sock)
	for _, tc := range []struct{ name, lock string }{
		{"same lock, held", ""},
		{"another lock, free", filepath.Join(dir, "other.lock")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Listen(context.Background(), Config{Socket: sock, Lock: tc.lock})
			var running *AlreadyRunningError
			if !errors.As(err, &running) || !errors.Is(err, ErrAlreadyRunning) {
				t.Fatalf("Listen over a live socket: %v, want AlreadyRunningError", err)
			}
			if running.PID != owner.cmd.Process.Pid {
				t.Errorf("PID %d, want the owner's %d", running.PID, owner.cmd.Process.Pid)
			}
			if !strings.Contains(err.Error(), strconv.Itoa(owner.cmd.Process.Pid)) {
				t.Errorf("error %q does not name the pid", err)
			}
			if fileID(t, sock) != before {
				t.Fatal("the live socket was replaced")
			}
			if _, live := Probe(sock); !live {
				t.Fatal("the owner no longer answers")
			}
		})
	}
	// ListenPrivate (no lock) refuses it too.
	if _, err := ListenPrivate(sock); !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("ListenPrivate over a live socket: %v", err)
	}
	// Once the owner closed, the socket is gone and the lock free: a new
	// start succeeds at once.
	owner.stop(t)
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the owner's Close left %s: %v", sock, err)
	}
	mustListen(t, Config{Socket: sock, LockTimeout: 100 * time.Millisecond})
}

// TestLockRaceProcesses: starters in separate processes race for one
// socket: exactly one listens, every other is refused as already running,
// naming the winner.
func TestLockRaceProcesses(t *testing.T) {
	const starters = 6
	dir := sockDir(t)
	sock := filepath.Join(dir, "s.sock")
	staleSocket(t, sock) // a crashed predecessor's, to make it harder
	kids := make([]*child, starters)
	for i := range kids {
		kids[i] = startChild(t, "listen", sock, nil, "")
	}
	outs := make([]string, starters)
	for i, k := range kids {
		outs[i] = k.line()
	}
	var winner *child
	for i, out := range outs {
		if out == "listening" {
			if winner != nil {
				t.Fatalf("two starters listen: %q", outs)
			}
			winner = kids[i]
		}
	}
	if winner == nil {
		t.Fatalf("no starter listens: %q", outs)
	}
	want := "already-running " + strconv.Itoa(winner.cmd.Process.Pid)
	for i, out := range outs {
		if kids[i] != winner && out != want {
			t.Errorf("starter %d: %q, want %q", i, out, want)
		}
	}
}

// TestLockRaceGoroutines: the same within one process, each starter with
// its own lock file descriptor (flock locks belong to the open file, so
// they exclude each other as separate processes do).
func TestLockRaceGoroutines(t *testing.T) {
	const starters = 8
	dir := sockDir(t)
	sock := filepath.Join(dir, "s.sock")
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		listeners []*Listener
		refused   int
		other     []error
	)
	start := make(chan struct{})
	for range starters {
		wg.Go(func() {
			<-start
			l, err := Listen(context.Background(), Config{Socket: sock, LockTimeout: MaxLockTimeout})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				listeners = append(listeners, l)
			case errors.Is(err, ErrAlreadyRunning):
				refused++
			default:
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	for _, l := range listeners {
		defer l.Close()
	}
	if len(listeners) != 1 || refused != starters-1 || len(other) > 0 {
		t.Fatalf("%d listen, %d refused as already running, others: %v", len(listeners), refused, other)
	}
}

// TestCloseReleasesOnce: Close removes the socket and releases the lock;
// a second Close does not take either from a successor.
func TestCloseReleasesOnce(t *testing.T) {
	dir := sockDir(t)
	sock := filepath.Join(dir, "s.sock")
	first, err := Listen(context.Background(), Config{Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}
	next := mustListen(t, Config{Socket: sock, LockTimeout: 100 * time.Millisecond})
	_ = first.Close() // again: an error perhaps, but no harm to next
	if _, live := Probe(sock); !live {
		t.Fatal("a second Close of the first listener removed its successor's socket")
	}
	if ok, err := flock.New(sock + ".lock").TryLock(); ok || err != nil {
		t.Fatalf("a second Close released its successor's lock (TryLock: %v, %v)", ok, err)
	}
	_ = next
}

// TestListenRefusesBadConfig: a lock timeout beyond the maximum, and a
// socket directory of another user's, are refused before anything is
// created.
func TestListenRefusesBadConfig(t *testing.T) {
	dir := sockDir(t)
	if _, err := Listen(context.Background(), Config{Socket: filepath.Join(dir, "s"), LockTimeout: MaxLockTimeout + time.Second}); err == nil {
		t.Error("a lock timeout beyond the maximum was taken")
	}
	if _, err := os.Lstat(filepath.Join(dir, "s.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused Listen created its lock: %v", err)
	}
}

// TestPeerCredentialsOfAnotherUser: the handshake of PeerCredentials
// reports the uid and pid of the process at the other end as the kernel
// saw them, here a process of another user (the child runs as nobody; the
// test needs root to start it so). The supervisor's interceptor refuses
// such a uid (server's TestForeignUIDRefused checks the refusal).
func TestPeerCredentialsOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		msg := "starting a process as another user needs root"
		if os.Getenv("CHATBUS_REQUIRE_OTHER_UID_TEST") == "1" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPED, not run: " + msg + " (CI runs it: CHATBUS_REQUIRE_OTHER_UID_TEST=1)")
	}
	// A directory nobody may enter, a socket nobody may connect to, and a
	// copy of this test binary nobody may run.
	dir := sockDir(t)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "child")
	testkit.CopyFile(t, os.Args[0], bin, 0o755)
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		attr *syscall.SysProcAttr
		uid  uint32
	}{
		{"another user", &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: otherUID, Gid: otherUID}}, otherUID},
		{"this user", nil, uint32(os.Getuid())},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			peer := startChild(t, "dial", sock, tc.attr, bin)
			if got := peer.line(); got != "connected" {
				t.Fatalf("child: %q", got)
			}
			conn, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_, auth, err := PeerCredentials().ServerHandshake(conn)
			if err != nil {
				t.Fatal(err)
			}
			info := auth.(PeerInfo)
			if info.Cred == nil {
				t.Fatalf("no credentials: %v", info.Err)
			}
			if info.Cred.UID != tc.uid || int(info.Cred.PID) != peer.cmd.Process.Pid {
				t.Errorf("peer uid %d pid %d, want uid %d pid %d", info.Cred.UID, info.Cred.PID, tc.uid, peer.cmd.Process.Pid)
			}
		})
	}
}
