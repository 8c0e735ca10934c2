package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// fakeEnv selects the fake supervisord mode of TestEnsureHelperProcess.
const fakeEnv = "CHATBUS_TEST_FAKE_SUPERVISORD"

// fakeAdmin answers GetInfo with pid, if the caller has the secret.
type fakeAdmin struct {
	chatbusv1.UnimplementedAdminServiceServer
	pid    int
	secret string
}

func (f *fakeAdmin) GetInfo(ctx context.Context, _ *chatbusv1.GetInfoRequest) (*chatbusv1.GetInfoResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if !slices.Contains(md.Get("authorization"), "Bearer "+f.secret) {
		return nil, status.Error(codes.Unauthenticated, "wrong bearer secret")
	}
	return &chatbusv1.GetInfoResponse{Pid: int32(f.pid)}, nil
}

// serveFake serves health (SERVING) and GetInfo on socket until stop is
// closed, writing the secret file as the real supervisor does.
func serveFake(socket, stateDir string, pid int, stop <-chan struct{}) error {
	const secret = "test-secret"
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(stateDir, "secret"), []byte(secret+"\n"), 0o600); err != nil {
		return err
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	gs := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	chatbusv1.RegisterAdminServiceServer(gs, &fakeAdmin{pid: pid, secret: secret})
	done := make(chan error, 1)
	go func() { done <- gs.Serve(ln) }()
	<-stop
	gs.Stop()
	return <-done
}

// TestEnsureHelperProcess is not a test: it is the fake supervisord that
// the wrapper script of fakeBinary runs, when fakeEnv names a mode.
func TestEnsureHelperProcess(t *testing.T) {
	mode := os.Getenv(fakeEnv)
	if mode == "" {
		return
	}
	args := os.Args[slices.Index(os.Args, "--")+1:]
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	socket, stateDir := flag("--socket"), flag("--state-dir")
	switch mode {
	case "serve":
		// Count starts, so a test can assert exactly one.
		f, err := os.OpenFile(filepath.Join(stateDir, "starts"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err == nil {
			fmt.Fprintln(f, os.Getpid(), strings.Join(args, " "))
			f.Close()
		}
		time.Sleep(100 * time.Millisecond) // a slow start widens the race
		stop := make(chan struct{})
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		go func() { <-sig; close(stop) }()
		err = serveFake(socket, stateDir, os.Getpid(), stop)
		os.Remove(socket)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "fail":
		fmt.Println("fake: starting")
		fmt.Fprintln(os.Stderr, "fake: cannot start: boom")
		os.Exit(3)
	case "hang":
		fmt.Fprintln(os.Stderr, "fake: thinking")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(2)
}

// fakeBinary writes a script that runs this test binary as a fake
// supervisord (TestEnsureHelperProcess) with the flags Ensure passes.
func fakeBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "supervisord")
	body := fmt.Sprintf("#!/bin/sh\nexec %q -test.run='^TestEnsureHelperProcess$' -- \"$@\"\n", exe)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script
}

// shortDirs returns a socket path short enough for sun_path and a state dir.
func shortDirs(t *testing.T) (socket, stateDir string) {
	t.Helper()
	run, err := os.MkdirTemp("", "cbe")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	return filepath.Join(run, "p", "supervisor.sock"), filepath.Join(t.TempDir(), "state")
}

// stopProcess terminates a process this test process started through
// Ensure and reaps it (Ensure released it, so it is our zombie otherwise).
func stopProcess(t *testing.T, pid int) {
	t.Helper()
	if pid <= 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(pid, syscall.SIGKILL)
		<-done
	}
}

func TestEnsureAlreadyRunning(t *testing.T) {
	socket, stateDir := shortDirs(t)
	os.MkdirAll(filepath.Dir(socket), 0o700)
	stop := make(chan struct{})
	served := make(chan error, 1)
	go func() { served <- serveFake(socket, stateDir, 4242, stop) }()
	t.Cleanup(func() {
		close(stop)
		if err := <-served; err != nil {
			t.Error(err)
		}
	})

	tests := []struct {
		name    string
		secret  string
		wantPID int
	}{
		{name: "pid from GetInfo", wantPID: 4242},
		{name: "unreadable secret: pid unknown", secret: filepath.Join(stateDir, "missing"), wantPID: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st Started
			var err error
			deadline := time.Now().Add(5 * time.Second)
			for {
				// The binary does not exist: the fast path must not need it.
				st, err = Ensure(t.Context(), EnsureOptions{Socket: socket, StateDir: stateDir, SecretFile: tt.secret,
					Binary: "/nonexistent/supervisord", Timeout: time.Second})
				if err == nil || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond) // the fake may not listen yet
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Started{PID: tt.wantPID, Started: false, Log: filepath.Join(stateDir, "supervisord.log")}
			if st != want {
				t.Errorf("Ensure = %+v, want %+v", st, want)
			}
			if _, err := os.Stat(socket + ".ensure.lock"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("fast path touched the ensure lock: %v", err)
			}
		})
	}
}

func TestEnsureConcurrentStartsOne(t *testing.T) {
	socket, stateDir := shortDirs(t)
	t.Cleanup(func() { // every fake that started, even if the test fails
		b, _ := os.ReadFile(filepath.Join(stateDir, "starts"))
		for line := range strings.Lines(string(b)) {
			pid, _ := strconv.Atoi(strings.Fields(line)[0])
			stopProcess(t, pid)
		}
	})
	bin := fakeBinary(t)
	env := append(os.Environ(), fakeEnv+"=serve")
	const n = 8
	results := make([]Started, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = Ensure(t.Context(), EnsureOptions{Socket: socket, StateDir: stateDir, Profile: "p",
				Binary: bin, Env: env, Args: []string{"--log-level", "debug"}})
		})
	}
	wg.Wait()
	var started []Started
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Ensure %d: %v", i, errs[i])
			continue
		}
		if results[i].Started {
			started = append(started, results[i])
		}
	}
	if len(started) != 1 {
		t.Fatalf("%d Ensures started a supervisor, want exactly 1: %+v", len(started), results)
	}
	pid := started[0].PID
	for i, r := range results {
		if r.PID != pid {
			t.Errorf("Ensure %d reports pid %d, want %d", i, r.PID, pid)
		}
	}
	b, err := os.ReadFile(filepath.Join(stateDir, "starts"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], strconv.Itoa(pid)+" ") {
		t.Fatalf("fake supervisord starts:\n%s\nwant exactly one, pid %d", b, pid)
	}
	wantArgs := fmt.Sprintf("--profile p --socket %s --state-dir %s --log-format json --log-file %s --log-level debug",
		socket, stateDir, filepath.Join(stateDir, "supervisord.log"))
	if !strings.HasSuffix(lines[0], wantArgs) {
		t.Errorf("args: %q, want %q", lines[0], wantArgs)
	}
	out := filepath.Join(stateDir, "supervisord.out")
	for path, want := range map[string]os.FileMode{filepath.Dir(socket): 0o700, stateDir: 0o700, out: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want mode %#o", path, err, want)
		}
	}

	// Once it serves, a later Ensure is the fast path.
	st, err := Ensure(t.Context(), EnsureOptions{Socket: socket, StateDir: stateDir, Binary: bin, Env: env})
	if err != nil || st.Started || st.PID != pid {
		t.Errorf("second Ensure = %+v, %v; want already running, pid %d", st, err, pid)
	}
}

func TestEnsureFailures(t *testing.T) {
	bin := fakeBinary(t)
	pidRE := regexp.MustCompile(`\(pid (\d+)\)`)
	tests := []struct {
		name     string
		binary   string
		mode     string
		holdLock bool
		canceled bool
		timeout  time.Duration
		want     []string
	}{
		{name: "missing binary", binary: "/nonexistent/supervisord", want: []string{"/nonexistent/supervisord", "no such file"}},
		{name: "exits before serving", binary: bin, mode: "fail",
			want: []string{"exited before serving (exit status 3)", "supervisord.out", "fake: starting", "fake: cannot start: boom"}},
		// The timeout leaves a race-built test binary on a loaded machine
		// time to start and print before Ensure gives up on it.
		{name: "never serves", binary: bin, mode: "hang", timeout: 3 * time.Second,
			want: []string{"not serving", "left running", "fake: thinking", "deadline exceeded"}},
		{name: "lock held by a stuck ensurer", binary: bin, mode: "serve", holdLock: true, timeout: 300 * time.Millisecond,
			want: []string{"ensure.lock", "deadline exceeded"}},
		{name: "context canceled: starts nothing", binary: bin, mode: "serve", canceled: true,
			want: []string{"not serving", "context canceled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			socket, stateDir := shortDirs(t)
			if tt.holdLock {
				os.MkdirAll(filepath.Dir(socket), 0o700)
				lock := flock.New(socket + ".ensure.lock")
				if err := lock.Lock(); err != nil {
					t.Fatal(err)
				}
				defer lock.Unlock()
			}
			ctx, cancel := context.WithCancel(t.Context())
			if tt.canceled {
				cancel()
			}
			defer cancel()
			st, err := Ensure(ctx, EnsureOptions{Socket: socket, StateDir: stateDir, Binary: tt.binary,
				Env: append(os.Environ(), fakeEnv+"="+tt.mode), Timeout: tt.timeout})
			if m := pidRE.FindStringSubmatch(fmt.Sprint(err)); m != nil {
				pid, _ := strconv.Atoi(m[1])
				stopProcess(t, pid)
			}
			if err == nil {
				stopProcess(t, st.PID)
				t.Fatalf("Ensure = %+v, want an error", st)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			if st.Started {
				t.Errorf("Started = true on error")
			}
			if tt.mode == "serve" {
				if b, err := os.ReadFile(filepath.Join(stateDir, "starts")); err == nil {
					t.Errorf("a supervisor was started:\n%s", b)
				}
			}
		})
	}
}

func TestEnsureBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts EnsureOptions
		want string
	}{
		{name: "no socket", opts: EnsureOptions{StateDir: "/x"}, want: "socket path is empty"},
		{name: "no state dir", opts: EnsureOptions{Socket: "/x.sock"}, want: "state dir is empty"},
		{name: "socket too long", opts: EnsureOptions{Socket: "/" + strings.Repeat("s", 120), StateDir: "/x"}, want: "at most 107"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Ensure(t.Context(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Ensure: %v, want %q", err, tt.want)
			}
		})
	}
}
