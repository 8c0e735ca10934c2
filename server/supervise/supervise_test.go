package supervise

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/internal/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) != "" {
		// A fake provider: run only TestHelperProcess, no leak check.
		os.Exit(m.Run())
	}
	goleak.VerifyTestMain(m)
}

const testName = "fake"

// logEntries parses the JSON log lines written to b.
func logEntries(t *testing.T, b *testkit.SyncBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// recorder collects events.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) on(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	close(r.changed)
	r.changed = make(chan struct{})
}

// wait returns the events once ok(events) holds.
func (r *recorder) wait(ctx context.Context, t *testing.T, what string, ok func([]Event) bool) []Event {
	t.Helper()
	for {
		r.mu.Lock()
		ev, ch := append([]Event(nil), r.events...), r.changed
		r.mu.Unlock()
		if ok(ev) {
			return ev
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; events: %s", what, ctx.Err(), kinds(ev))
		}
	}
}

func count(ev []Event, kind string) int {
	n := 0
	for _, e := range ev {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func countIs(kind string, n int) func([]Event) bool {
	return func(ev []Event) bool { return count(ev, kind) >= n }
}

// kinds renders the events without health ones, e.g. "started exited backoff".
func kinds(ev []Event) string {
	var k []string
	for _, e := range ev {
		if e.Kind != EventHealth {
			k = append(k, e.Kind)
		}
	}
	return strings.Join(k, " ")
}

type harness struct {
	s      *Supervisor
	rec    *recorder
	log    *testkit.SyncBuffer
	starts string // file the helper appends one line to per start
	ctx    context.Context
	stop   func() error // cancels Run and returns its error
	halt   func() error // cancels Run with ErrHalt and returns its error
}

// start runs a Supervisor over the helper in mode. It is stopped at the end
// of the test.
func start(t *testing.T, mode string, edit func(*Spec)) *harness {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := &harness{rec: newRecorder(), log: &testkit.SyncBuffer{}, starts: filepath.Join(dir, "starts")}
	sockDir := filepath.Join(dir, "s")
	spec := Spec{
		Name:           testName,
		Path:           exe,
		Args:           []string{"-test.run=^TestHelperProcess$"},
		Env:            helperEnv(mode, envStarts+"="+h.starts),
		SocketDir:      sockDir,
		BackoffInitial: 20 * time.Millisecond,
		BackoffMax:     50 * time.Millisecond,
		Logger:         zerolog.New(h.log),
		OnEvent:        h.rec.on,
	}
	if edit != nil {
		edit(&spec)
	}
	h.s = New(spec)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	h.ctx = ctx
	runCtx, stopRun := context.WithCancelCause(ctx)
	done := make(chan error, 1)
	go func() { done <- h.s.Run(runCtx) }()
	var once sync.Once
	var runErr error
	end := func(cause error) error {
		once.Do(func() {
			stopRun(cause)
			runErr = <-done
		})
		return runErr
	}
	h.stop = func() error { return end(nil) }
	h.halt = func() error { return end(ErrHalt) }
	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
		cancel()
	})
	return h
}

// helperEnv is the environment of a helper process in mode.
func helperEnv(mode string, extra ...string) []string {
	// The race detector sleeps 1s at exit by default.
	env := append(os.Environ(), envHelper+"="+mode, "GORACE=atexit_sleep_ms=0")
	return append(env, extra...)
}

func (h *harness) startCount(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(h.starts)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func checkIncarnation(t *testing.T, c Child) {
	t.Helper()
	now, err := proc.Of(c.Incarnation.PID)
	if err != nil {
		t.Fatalf("proc.Of(%d): %v", c.Incarnation.PID, err)
	}
	if now != c.Incarnation || c.Incarnation.StartTime == 0 {
		t.Fatalf("child incarnation %v, proc.Of says %v", c.Incarnation, now)
	}
}

func TestRunningHandshakeConfigAndLogs(t *testing.T) {
	const cfg = `{"token":"t0k3n","chat":42}`
	h := start(t, modeGood, func(s *Spec) { s.Config = []byte(cfg) })
	c, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkIncarnation(t, c)
	if filepath.Dir(c.Socket) != filepath.Join(filepath.Dir(h.starts), "s") || !strings.HasPrefix(filepath.Base(c.Socket), testName+"-") {
		t.Errorf("socket %s", c.Socket)
	}
	if cur, ok := h.s.Current(); !ok || cur != c {
		t.Errorf("Current = %+v, %v; want %+v", cur, ok, c)
	}
	// Conn is dialled to the child: ask its health directly.
	resp, err := healthpb.NewHealthClient(c.Conn).Check(h.ctx, &healthpb.HealthCheckRequest{Service: testName})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health via Child.Conn: %v, %v", resp, err)
	}
	h.rec.wait(h.ctx, t, "health SERVING", func(ev []Event) bool {
		return len(ev) > 0 && ev[len(ev)-1].Kind == EventHealth && ev[len(ev)-1].Message == "SERVING"
	})
	st := h.s.Status()
	if st.Name != testName || st.State != StateRunning || st.PID != c.Incarnation.PID || !st.Serving || st.Restarts != 0 || st.LastError != "" {
		t.Errorf("Status = %+v", st)
	}
	if err := h.s.Restart(); !errors.Is(err, ErrState) {
		t.Errorf("Restart while RUNNING: %v, want ErrState", err)
	}

	// Stop: SIGTERM, reaped, STOPPED; all output is in the log by then.
	if err := h.stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	st = h.s.Status()
	if st.State != StateStopped || st.LastExit != "exit status 0" || st.PID != 0 || st.Serving {
		t.Errorf("after stop: Status = %+v", st)
	}
	if alive, err := proc.Alive(c.Incarnation); alive || err != nil {
		t.Errorf("child alive after stop: %v, %v", alive, err)
	}
	if _, err := os.Lstat(c.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, ok := h.s.Current(); ok {
		t.Error("Current after stop")
	}
	if _, err := h.s.WaitRunning(h.ctx); !errors.Is(err, ErrStopped) {
		t.Errorf("WaitRunning after stop: %v, want ErrStopped", err)
	}
	ev := h.rec.wait(h.ctx, t, "stopped", countIs(EventStopped, 1))
	if got := kinds(ev); got != "started exited stopped" {
		t.Errorf("events %q", got)
	}
	if ev[0].Child != c.Incarnation || ev[0].Name != testName {
		t.Errorf("started event %+v", ev[0])
	}

	found := map[string]bool{}
	for _, e := range logEntries(t, h.log) {
		msg, _ := e["message"].(string)
		if e["provider"] != testName {
			t.Errorf("log entry without provider tag: %v", e)
		}
		switch {
		case e["stream"] == "stderr" && strings.HasPrefix(msg, "config: "):
			// The settings as given, plus a fresh secret for this start.
			var got map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(msg, "config: ")), &got); err != nil ||
				got["token"] != "t0k3n" || got["chat"] != float64(42) || len(got) != 3 {
				t.Errorf("config on stdin %s, want %s plus a secret", msg, cfg)
			}
			if secret, _ := got["secret"].(string); len(secret) != 43 {
				t.Errorf("secret %q: want 32 random bytes in base64url", secret)
			}
			found["config"] = true
		case e["stream"] == "stderr" && msg == "got SIGTERM":
			if e["level"] != "warn" {
				t.Errorf("plain stderr line at level %v, want warn", e["level"])
			}
			found["sigterm"] = true
		case e["stream"] == "stderr" && msg == "structured":
			// Merged: its level and fields, ours kept, its time dropped.
			if e["level"] != "error" || e["error"] != "boom" || e["n"] != float64(3) ||
				e["child_provider"] != "inner" || e["pid"] != float64(c.Incarnation.PID) || e["time"] == "2026-01-01T00:00:00Z" {
				t.Errorf("structured line logged as %v", e)
			}
			found["structured"] = true
		case e["stream"] == "stderr" && strings.HasPrefix(msg, "stderr-done"):
			found["stderr"] = true
		case e["stream"] == "stdout" && msg == "stdout after handshake":
			if e["level"] != "info" {
				t.Errorf("stdout line at level %v, want info", e["level"])
			}
			found["stdout"] = true
		case e["stream"] == "stderr" && strings.HasPrefix(msg, "xxxx"):
			want := strings.Repeat("x", MaxLineBytes) + " …[truncated]"
			if msg != want || e["truncated"] != true || e["dropped_bytes"] != float64(longLine-MaxLineBytes) {
				t.Errorf("long line: %d bytes, truncated=%v dropped=%v", len(msg), e["truncated"], e["dropped_bytes"])
			}
			found["long"] = true
		}
		if strings.Contains(msg, "1|unix|") && e["stream"] != nil {
			t.Errorf("handshake line copied to the log: %v", e)
		}
	}
	for _, k := range []string{"config", "sigterm", "structured", "stderr", "stdout", "long"} {
		if !found[k] {
			t.Errorf("log lacks %s line", k)
		}
	}
}

func TestKillRestartsWithBackoff(t *testing.T) {
	h := start(t, modeGood, nil)
	c1, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkIncarnation(t, c1)
	if err := syscall.Kill(c1.Incarnation.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p, err := h.s.WaitExit(h.ctx, c1.Incarnation)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != ProofReaped || p.ExitStatus != "signal: killed" || p.Incarnation != c1.Incarnation {
		t.Errorf("proof %+v", p)
	}
	c2, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkIncarnation(t, c2)
	if c2.Incarnation == c1.Incarnation || c2.Socket == c1.Socket {
		t.Errorf("successor %+v same as %+v", c2, c1)
	}
	st := h.s.Status()
	if st.State != StateRunning || st.Restarts != 1 || st.LastExit != "signal: killed" || !strings.Contains(st.LastError, "signal: killed") {
		t.Errorf("Status = %+v", st)
	}
	ev := h.rec.wait(h.ctx, t, "second start", countIs(EventStarted, 2))
	var seq []Event
	for _, e := range ev {
		if e.Kind != EventHealth {
			seq = append(seq, e)
		}
	}
	if got := kinds(seq); got != "started exited backoff started" {
		t.Fatalf("events %q", got)
	}
	if seq[0].Child != c1.Incarnation || seq[1].Child != c1.Incarnation || seq[1].ExitStatus != "signal: killed" || seq[3].Child != c2.Incarnation {
		t.Errorf("events %+v", seq)
	}
	if !strings.Contains(seq[2].Message, "restarting in") {
		t.Errorf("backoff event %+v", seq[2])
	}
	if !seq[3].Time.After(seq[2].Time) {
		t.Errorf("restart not after backoff")
	}
}

func TestStartLimitFatal(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		tail []string // Status.StderrTail once FATAL
	}{
		{"crash after ready", modeCrashAfterReady, []string{"line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10", "line 11", "panic: oh no"}},
		{"bad handshake", modeNoHandshake, []string{"usage: no token given"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const limit = 3
			h := start(t, tc.mode, func(s *Spec) { s.StartLimit = limit })
			h.rec.wait(h.ctx, t, "fatal", countIs(EventFatal, 1))
			if _, err := h.s.WaitRunning(h.ctx); !errors.Is(err, ErrFatal) {
				t.Fatalf("WaitRunning in FATAL: %v, want ErrFatal", err)
			}
			if n := h.startCount(t); n != limit {
				t.Errorf("%d starts, want %d", n, limit)
			}
			st := h.s.Status()
			if st.State != StateFatal || st.Restarts != limit-1 || st.PID != 0 || st.LastError == "" {
				t.Errorf("Status = %+v", st)
			}
			if !slices.Equal(st.StderrTail, tc.tail) {
				t.Errorf("StderrTail = %q, want %q", st.StderrTail, tc.tail)
			}

			// Operator restart: a fresh start limit, and exactly limit more
			// starts; none happened while FATAL.
			if err := h.s.Restart(); err != nil {
				t.Fatal(err)
			}
			ev := h.rec.wait(h.ctx, t, "second fatal", countIs(EventFatal, 2))
			if n := h.startCount(t); n != 2*limit {
				t.Errorf("%d starts, want %d", n, 2*limit)
			}
			if n := count(ev, EventExited); n != 2*limit {
				t.Errorf("%d exits, want %d: %s", n, 2*limit, kinds(ev))
			}
			if n := count(ev, EventBackoff); n != 2*(limit-1) {
				t.Errorf("%d backoffs, want %d: %s", n, 2*(limit-1), kinds(ev))
			}
			if ev[len(ev)-1].Kind != EventFatal {
				t.Errorf("last event %+v", ev[len(ev)-1])
			}
			if st := h.s.Status(); st.State != StateFatal || st.Restarts != 2*limit-1 {
				t.Errorf("Status = %+v", st)
			}
		})
	}
}

func TestFailedStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    string
		edit    func(*Spec)
		wantErr string
		killed  bool
	}{
		{
			name:    "garbage",
			mode:    modeNoHandshake,
			wantErr: `start failed: bad handshake line "hello, I am not a provider": want "1|unix|`,
			killed:  true,
		},
		{
			name:    "slow",
			mode:    modeSlowHandshake,
			edit:    func(s *Spec) { s.StartTimeout = 300 * time.Millisecond },
			wantErr: "start failed: no handshake line within 300ms; killed",
			killed:  true,
		},
		{
			name:    "wrong socket",
			mode:    modeCustomLine,
			edit:    func(s *Spec) { s.Env = append(s.Env, envLine+"=1|unix|/tmp/elsewhere.sock|grpc") },
			wantErr: `socket "/tmp/elsewhere.sock", want`,
			killed:  true,
		},
		{
			name:    "wrong version",
			mode:    modeCustomLine,
			edit:    func(s *Spec) { s.Env = append(s.Env, envLine+"=2|unix|%s|grpc") },
			wantErr: `protocol version "2", want 1`,
			killed:  true,
		},
		{
			name:    "exits before handshake",
			mode:    modeExitEarly,
			wantErr: "start failed: exited before its handshake (exit status 1)",
		},
		{
			name:    "no binary",
			mode:    modeGood,
			edit:    func(s *Spec) { s.Path = "/nonexistent/provider-fake" },
			wantErr: "start failed: start /nonexistent/provider-fake: fork/exec /nonexistent/provider-fake: no such file or directory",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, tc.mode, func(s *Spec) {
				s.StartLimit = 1
				if tc.edit != nil {
					tc.edit(s)
				}
			})
			ev := h.rec.wait(h.ctx, t, "fatal", countIs(EventFatal, 1))
			st := h.s.Status()
			if st.State != StateFatal || !strings.Contains(st.LastError, tc.wantErr) {
				t.Errorf("Status = %+v\nwant LastError containing %q", st, tc.wantErr)
			}
			if count(ev, EventStarted) != 0 {
				t.Errorf("events %s", kinds(ev))
			}
			if tc.killed {
				if st.LastExit != "signal: killed" {
					t.Errorf("LastExit %q, want signal: killed", st.LastExit)
				}
				e := ev[0]
				if e.Kind != EventExited || e.ExitStatus != "signal: killed" || !strings.Contains(e.Message, tc.wantErr) {
					t.Errorf("event %+v", e)
				}
				if alive, _ := proc.Alive(e.Child); alive {
					t.Errorf("%v still alive", e.Child)
				}
			}
			if _, err := h.s.WaitRunning(h.ctx); !errors.Is(err, ErrFatal) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("WaitRunning: %v", err)
			}
		})
	}
}

// TestAccept: Spec.Accept sees each child on its dialled socket before it
// is RUNNING. A refusal (ErrRefused) kills the child and puts the
// provider in FATAL after that one start, with the refusal as its last
// error; any other error is a failed start like a bad handshake (started
// again until StartLimit); nil lets the child run.
func TestAccept(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		starts  int // until FATAL; 0: it runs
		wantErr string
	}{
		{"refused", fmt.Errorf("%w: speaks generation 2, this supervisor 3", ErrRefused), 1, "start failed: child refused: speaks generation 2, this supervisor 3; killed"},
		{"failed", errors.New("no answer"), 3, "start failed: no answer; killed"},
		{"accepted", nil, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var served []healthpb.HealthCheckResponse_ServingStatus
			h := start(t, modeGood, func(s *Spec) {
				s.StartLimit = 3
				s.Accept = func(ctx context.Context, conn *grpc.ClientConn) error {
					res, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: testName}, grpc.WaitForReady(true))
					if err != nil {
						return err
					}
					mu.Lock()
					served = append(served, res.GetStatus())
					mu.Unlock()
					return tc.err
				}
			})
			if tc.starts == 0 {
				c, err := h.s.WaitRunning(h.ctx)
				if err != nil {
					t.Fatal(err)
				}
				checkIncarnation(t, c)
				if n := h.startCount(t); n != 1 {
					t.Errorf("%d starts, want 1", n)
				}
				return
			}
			ev := h.rec.wait(h.ctx, t, "fatal", countIs(EventFatal, 1))
			if n := h.startCount(t); n != tc.starts {
				t.Errorf("%d starts, want %d", n, tc.starts)
			}
			mu.Lock()
			if len(served) != tc.starts {
				t.Errorf("Accept saw %d children answer on their socket (%v), want %d", len(served), served, tc.starts)
			}
			mu.Unlock()
			if n := count(ev, EventStarted); n != 0 {
				t.Errorf("%d children RUNNING: %s", n, kinds(ev))
			}
			st := h.s.Status()
			if st.State != StateFatal || st.PID != 0 || st.LastExit != "signal: killed" || st.LastError != tc.wantErr {
				t.Errorf("Status = %+v\nwant FATAL, killed, LastError %q", st, tc.wantErr)
			}
			if _, err := h.s.WaitRunning(h.ctx); !errors.Is(err, ErrFatal) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("WaitRunning: %v", err)
			}
		})
	}
}

func TestExpectExitRestartsAtOnce(t *testing.T) {
	// A backoff this long would run the test into its deadline.
	h := start(t, modeExitOnRequest, func(s *Spec) {
		s.BackoffInitial = time.Hour
		s.BackoffMax = time.Hour
	})
	c1, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.rec.wait(h.ctx, t, "SERVING", countIs(EventHealth, 1))
	other := proc.Incarnation{PID: c1.Incarnation.PID, StartTime: c1.Incarnation.StartTime + 1}
	if err := h.s.ExpectExit(other); !errors.Is(err, ErrNotCurrent) {
		t.Errorf("ExpectExit(other): %v, want ErrNotCurrent", err)
	}
	if err := h.s.ExpectExit(c1.Incarnation); err != nil {
		t.Fatal(err)
	}
	// The doctor's commit: the child exits by itself.
	if err := syscall.Kill(c1.Incarnation.PID, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	p, err := h.s.WaitExit(h.ctx, c1.Incarnation)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != ProofReaped || p.ExitStatus != "exit status 0" {
		t.Errorf("proof %+v", p)
	}
	c2, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkIncarnation(t, c2)
	if c2.Incarnation == c1.Incarnation {
		t.Fatal("WaitRunning after WaitExit returned the old child")
	}
	// Proven again at once from the record.
	if p2, err := h.s.WaitExit(h.ctx, c1.Incarnation); err != nil || p2 != p {
		t.Errorf("second WaitExit = %+v, %v; want %+v", p2, err, p)
	}
	st := h.s.Status()
	if st.Restarts != 1 || st.LastError != "" || st.LastExit != "exit status 0" {
		t.Errorf("Status = %+v", st)
	}
	ev := h.rec.wait(h.ctx, t, "successor", countIs(EventStarted, 2))
	if got := kinds(ev); got != "started exited started" {
		t.Errorf("events %q", got)
	}
	// The old child's health went SERVING, then NOT_SERVING as it left.
	var health []string
	for _, e := range ev {
		if e.Kind == EventHealth && e.Child == c1.Incarnation {
			health = append(health, e.Message)
		}
	}
	if got := strings.Join(health, " "); got != "SERVING NOT_SERVING" {
		t.Errorf("health of the old child %q", got)
	}
	for _, e := range ev {
		if e.Kind == EventExited && e.Message != "planned exit" {
			t.Errorf("exit event %+v", e)
		}
	}
	// A planned exit is not a death: a later crash starts the count at 1.
	if err := h.s.ExpectExit(c2.Incarnation); err != nil {
		t.Fatal(err)
	}
	h.s.CancelExpectExit(c2.Incarnation)
	if err := syscall.Kill(c2.Incarnation.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ev = h.rec.wait(h.ctx, t, "backoff", countIs(EventBackoff, 1))
	if e := ev[len(ev)-1]; !strings.Contains(e.Message, "(1 quick deaths in a row)") {
		t.Errorf("backoff event %+v", e)
	}
	if st := h.s.Status(); st.State != StateBackoff || !strings.Contains(st.LastError, "signal: killed") {
		t.Errorf("Status = %+v", st)
	}
	// Restart skips the backoff.
	if err := h.s.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.WaitRunning(h.ctx); err != nil {
		t.Fatal(err)
	}
}

func TestWaitExitOtherProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := New(Spec{Name: testName, SocketDir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	t.Run("pid gone", func(t *testing.T) {
		cmd := exec.Command(exe, "-test.run=^TestHelperProcess$")
		cmd.Env = helperEnv(modeSlowHandshake)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		inc, err := proc.Of(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		res := make(chan ExitProof, 1)
		go func() {
			p, err := s.WaitExit(ctx, inc)
			if err != nil {
				t.Error(err)
			}
			res <- p
		}()
		cmd.Process.Kill()
		cmd.Wait()
		if p := <-res; p.Kind != ProofPIDGone || p.Incarnation != inc {
			t.Errorf("proof %+v", p)
		}
	})
	t.Run("pid reused", func(t *testing.T) {
		self, err := proc.Self()
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.WaitExit(ctx, proc.Incarnation{PID: self.PID, StartTime: self.StartTime + 1})
		if err != nil || p.Kind != ProofPIDReused {
			t.Errorf("proof %+v, %v", p, err)
		}
	})
	t.Run("alive until ctx ends", func(t *testing.T) {
		self, err := proc.Self()
		if err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 3*exitPoll)
		defer cancel()
		p, err := s.WaitExit(short, self)
		if !errors.Is(err, context.DeadlineExceeded) || p.Kind != ProofUnknown {
			t.Errorf("proof %+v, %v", p, err)
		}
	})
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	h := start(t, modeIgnoreTerm, func(s *Spec) { s.StopGrace = 300 * time.Millisecond })
	c, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if st := h.s.Status(); st.State != StateStopped || st.LastExit != "signal: killed" {
		t.Errorf("Status = %+v", st)
	}
	if alive, _ := proc.Alive(c.Incarnation); alive {
		t.Error("child alive")
	}
}

// TestHaltKillsAtOnce: a Run halted (ErrHalt) kills its child without
// SIGTERM and its grace, although the child would have stopped on SIGTERM.
func TestHaltKillsAtOnce(t *testing.T) {
	h := start(t, modeGood, func(s *Spec) { s.StopGrace = time.Minute })
	c, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.halt(); err != nil {
		t.Fatal(err)
	}
	if st := h.s.Status(); st.State != StateStopped || st.LastExit != "signal: killed" {
		t.Errorf("Status = %+v", st)
	}
	if alive, _ := proc.Alive(c.Incarnation); alive {
		t.Error("child alive")
	}
	if strings.Contains(h.log.String(), "got SIGTERM") {
		t.Errorf("the halted child got SIGTERM:\n%s", h.log.String())
	}
}

func TestStopWhileStarting(t *testing.T) {
	h := start(t, modeSlowHandshake, nil)
	for h.s.Status().PID == 0 { // spawned: the PID is known from STARTING on
		select {
		case <-h.ctx.Done():
			t.Fatal(h.ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	pid := h.s.Status().PID
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	// The slow helper does not handle SIGTERM: it dies of it.
	if st := h.s.Status(); st.State != StateStopped || st.LastExit != "signal: terminated" {
		t.Errorf("Status = %+v", st)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("pid %d: %v", pid, err)
	}
}

func TestNotServing(t *testing.T) {
	h := start(t, modeNotServing, nil)
	c, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	ev := h.rec.wait(h.ctx, t, "health", countIs(EventHealth, 1))
	st := h.s.Status()
	if st.State != StateRunning || st.Serving || st.PID != c.Incarnation.PID {
		t.Errorf("Status = %+v", st)
	}
	for _, e := range ev {
		if e.Kind == EventHealth && e.Message != "NOT_SERVING" {
			t.Errorf("health event %+v", e)
		}
	}
}

func TestRunMisuse(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	for _, tc := range []struct {
		name string
		spec Spec
		want error
	}{
		{"no name", Spec{SocketDir: t.TempDir()}, ErrBadSpec},
		{"bad name", Spec{Name: "Tele gram", SocketDir: t.TempDir()}, ErrBadSpec},
		{"no socket dir", Spec{Name: testName}, ErrBadSpec},
		{"socket path too long", Spec{Name: testName, SocketDir: long}, ErrBadSpec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.spec)
			if err := s.Run(ctx); !errors.Is(err, tc.want) {
				t.Errorf("Run: %v, want %v", err, tc.want)
			}
			if _, err := s.WaitRunning(context.Background()); !errors.Is(err, ErrStopped) {
				t.Errorf("WaitRunning: %v", err)
			}
		})
	}
	t.Run("socket dir open to others", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := New(Spec{Name: testName, SocketDir: dir}).Run(ctx); !errors.Is(err, ErrBadSpec) {
			t.Errorf("Run: %v", err)
		}
	})
	t.Run("twice", func(t *testing.T) {
		s := New(Spec{Name: testName, SocketDir: filepath.Join(t.TempDir(), "s")})
		if err := s.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Run(ctx); !errors.Is(err, ErrState) {
			t.Errorf("second Run: %v", err)
		}
		if st := s.Status(); st.State != StateStopped {
			t.Errorf("Status = %+v", st)
		}
	})
}

func TestParseHandshake(t *testing.T) {
	const sock = "/run/x/telegram-1.sock"
	for _, tc := range []struct {
		name, line, want string
	}{
		{"ok", "1|unix|" + sock + "|grpc", ""},
		{"empty", "", "want \"1|unix|"},
		{"three fields", "1|unix|" + sock, "want \"1|unix|"},
		{"five fields", "1|unix|" + sock + "|grpc|x", "want \"1|unix|"},
		{"version", "2|unix|" + sock + "|grpc", `protocol version "2"`},
		{"network", "1|tcp|" + sock + "|grpc", `network "tcp"`},
		{"socket", "1|unix|/tmp/other.sock|grpc", `socket "/tmp/other.sock"`},
		{"protocol", "1|unix|" + sock + "|netrpc", `protocol "netrpc"`},
		{"carriage return", "1|unix|" + sock + "|grpc\r", `protocol "grpc\r"`},
		{"spaces", " 1|unix|" + sock + "|grpc", `protocol version " 1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := parseHandshake(tc.line, sock)
			if tc.want == "" {
				if err != nil {
					t.Errorf("%v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		lines   []string
		dropped []int
	}{
		{"plain", "a\nbc\n", []string{"a", "bc"}, []int{0, 0}},
		{"partial at EOF", "a\nbc", []string{"a", "bc"}, []int{0, 0}},
		{"exactly full", "0123456789abcdef\nz\n", []string{"0123456789abcdef", "z"}, []int{0, 0}},
		{"long", "0123456789abcdefXYZ\nz\n", []string{"0123456789abcdef", "z"}, []int{3, 0}},
		{"very long", strings.Repeat("q", 50) + "\nz\n", []string{strings.Repeat("q", 16), "z"}, []int{34, 0}},
		{"long at EOF", strings.Repeat("q", 20), []string{strings.Repeat("q", 16)}, []int{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
			var lines []string
			var dropped []int
			for {
				l, d, err := readLine(br)
				if l != "" || d > 0 {
					lines = append(lines, l)
					dropped = append(dropped, d)
				}
				if err != nil {
					break
				}
			}
			if strings.Join(lines, "|") != strings.Join(tc.lines, "|") || len(dropped) != len(tc.dropped) {
				t.Fatalf("lines %q dropped %v, want %q %v", lines, dropped, tc.lines, tc.dropped)
			}
			for i := range dropped {
				if dropped[i] != tc.dropped[i] {
					t.Errorf("dropped %v, want %v", dropped, tc.dropped)
				}
			}
		})
	}
}

func TestStateString(t *testing.T) {
	for st, want := range map[State]string{
		StateStarting: "STARTING", StateRunning: "RUNNING", StateBackoff: "BACKOFF",
		StateFatal: "FATAL", StateStopped: "STOPPED", State(0): "State(0)",
	} {
		if st.String() != want {
			t.Errorf("%d: %q, want %q", int(st), st.String(), want)
		}
	}
}
