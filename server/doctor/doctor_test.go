package doctor_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

// The tests run real provider children: this test binary, re-executed,
// serving child.Serve with a providertest.Fake (see TestMain). Its
// settings carry a mode file: "good" serves, "exit" fails to start (an
// upgrade that does not run), "mute" handshakes but never serves health,
// "previous-generation" says it speaks the provider contract's previous
// generation (an old binary).
const childEnv = "CHATBUS_DOCTOR_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	os.Setenv(childEnv, "1") // for the children this process starts
	goleak.VerifyTestMain(m)
}

func runChild() int {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 2
	}
	secret, _, err := child.SplitSettings(raw)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	mode, _ := os.ReadFile(os.Getenv("CHATBUS_DOCTOR_TEST_MODE"))
	switch strings.TrimSpace(string(mode)) {
	case "exit":
		fmt.Fprintln(os.Stderr, "broken upgrade")
		return 1
	case "mute":
		fmt.Printf("1|unix|%s|grpc\n", os.Getenv(child.EnvSocket))
		time.Sleep(time.Hour)
		return 1
	}
	var generation uint32
	if strings.TrimSpace(string(mode)) == "previous-generation" {
		generation = doctor.Generation - 1
	}
	health := provider.NewHealth()
	err = child.Serve(context.Background(), child.Config{
		Name: os.Getenv(child.EnvName), Socket: os.Getenv(child.EnvSocket), Secret: secret,
		Platform: &providertest.Fake{}, Health: health, Logger: zerolog.New(os.Stderr), Generation: generation,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// env is a Doctor over a real provider Manager supervising one child.
type env struct {
	d     *doctor.Doctor
	m     *providers.Manager
	st    *store.Bolt
	mode  string // the children's mode file
	evs   *events.Hub
	stop  func()
	calls sync.WaitGroup
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvMode(t, "good")
}

// newEnvMode is newEnv whose first child runs in mode.
func newEnvMode(t *testing.T, mode string) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{mode: filepath.Join(dir, "mode")}
	e.setMode(t, mode)
	t.Setenv("CHATBUS_DOCTOR_TEST_MODE", e.mode)
	st, err := store.Open(filepath.Join(dir, "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	e.evs = events.NewHub(zerolog.Nop())
	sock, err := os.MkdirTemp("", "dr")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o700)
	e.m, err = providers.New(providers.Config{
		Specs:     []providers.Spec{{Name: "fake", Binary: os.Args[0], StartLimit: 2, BackoffMax: 100 * time.Millisecond, StartTimeout: 5 * time.Second}},
		SocketDir: sock, Store: st, Events: e.evs, Logger: zerolog.Nop(),
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New(registry.Config{Events: e.evs})
	core := hub.New(hub.Config{Store: st, Registry: reg, Providers: e.m, Events: e.evs})
	if err := e.m.LoadCalls(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.m.Run(ctx, core); close(done) }()
	e.stop = func() { cancel(); <-done; e.calls.Wait(); st.Close(); os.RemoveAll(sock) }
	t.Cleanup(e.stop)
	e.d = doctor.New(doctor.Config{Providers: e.m, Events: e.evs, Logger: zerolog.Nop()})
	e.waitRunning(t)
	return e
}

func (e *env) setMode(t *testing.T, mode string) {
	t.Helper()
	if err := os.WriteFile(e.mode, []byte(mode), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (e *env) waitRunning(t *testing.T) {
	t.Helper()
	sup, _ := e.m.Supervisor("fake")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := sup.WaitRunning(ctx); err != nil {
		t.Fatalf("provider never RUNNING: %v", err)
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestRestartIdle: an idle provider is replaced by a successor that is
// proven started after the old one's exit was proven.
func TestRestartIdle(t *testing.T) {
	e := newEnv(t)
	var steps []doctor.Phase
	out, err := e.d.Restart(ctx(t), "fake", doctor.RestartOptions{Drain: 5 * time.Second}, func(p doctor.Progress) { steps = append(steps, p.Phase) })
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != doctor.Restarted || out.Old.Incarnation == out.Successor.Incarnation || out.ExitProof != "reaped" || out.Adopted {
		t.Fatalf("outcome %+v", out)
	}
	if steps[0] != doctor.PhaseObserve || steps[len(steps)-1] != doctor.PhaseReady {
		t.Errorf("steps %v", steps)
	}
}

// TestRestartHoldsCalls: a call made while the restart holds admission is
// sent once, on the successor.
func TestRestartHoldsCalls(t *testing.T) {
	e := newEnv(t)
	c := hub.Call{BindingKey: "manual:1", Key: "k1", Method: "sendMessage", Params: []byte(`{"text":"hi"}`),
		Target: store.Target{Provider: "fake", Chat: "-100", Thread: "1001"}}
	started := make(chan doctor.Progress, 16)
	result := make(chan error, 1)
	go func() {
		_, err := e.d.Restart(ctx(t), "fake", doctor.RestartOptions{}, func(p doctor.Progress) { started <- p })
		result <- err
	}()
	for p := range started {
		if p.Phase == doctor.PhaseCommit {
			break // admission is held from before prepare
		}
	}
	res, err := e.m.Call(ctx(t), c)
	if err != nil {
		t.Fatalf("held call: %v", err)
	}
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	rec, err := e.st.GetCall("manual:1", "k1")
	if err != nil || rec.State != store.CallDone || string(rec.Result) != string(res.JSON) {
		t.Fatalf("record %+v, %v", rec, err)
	}
	again, err := e.m.Call(ctx(t), c)
	if err != nil || string(again.JSON) != string(res.JSON) {
		t.Errorf("repeat after the restart: %s, %v", again.JSON, err)
	}
}

// TestConcurrentRestartRefused: one restart per provider at a time.
func TestConcurrentRestartRefused(t *testing.T) {
	e := newEnv(t)
	first := make(chan doctor.Outcome, 1)
	inDrain := make(chan struct{})
	var once sync.Once
	// Attached: the first restart's drain waits, holding the restart.
	if err := e.m.Attach(ctx(t), "fake", "f-1", store.Target{Provider: "fake", Chat: "-100", Thread: "1001"}); err != nil {
		t.Fatal(err)
	}
	go func() {
		out, _ := e.d.Restart(ctx(t), "fake", doctor.RestartOptions{Drain: 500 * time.Millisecond}, func(p doctor.Progress) {
			if p.Phase == doctor.PhaseDrain {
				once.Do(func() { close(inDrain) })
			}
		})
		first <- out
	}()
	<-inDrain
	if _, err := e.d.Restart(ctx(t), "fake", doctor.RestartOptions{}, nil); !errors.Is(err, doctor.ErrBusy) {
		t.Errorf("second restart: %v, want ErrBusy", err)
	}
	if out := <-first; out.Kind != doctor.Restarted {
		t.Errorf("first restart: %+v", out)
	}
}

// TestPrepareCommitCancel: the steps by hand: commit is refused while a
// follower is attached, naming it; cancel with another request id is
// refused; the right one reopens admission.
func TestPrepareCommitCancel(t *testing.T) {
	e := newEnv(t)
	if err := e.m.Attach(ctx(t), "fake", "f-1", store.Target{Provider: "fake", Chat: "-100", Thread: "1001"}); err != nil {
		t.Fatal(err)
	}
	o, err := e.d.Prepare(ctx(t), "fake", "r1", time.Minute)
	if err != nil || o.Admitting {
		t.Fatalf("prepare: %+v, %v", o, err)
	}
	if _, err := e.d.Commit(ctx(t), "fake", "r1"); !errors.Is(err, doctor.ErrOccupied) || !strings.Contains(err.Error(), "f-1") {
		t.Errorf("commit while attached: %v, want ErrOccupied naming f-1", err)
	}
	// A refusal keeps the owner's code: another request id is a failed
	// precondition, a second doctor's prepare meets a held fence.
	var re *doctor.RefusedError
	if _, err := e.d.Cancel(ctx(t), "fake", "r2"); !errors.Is(err, doctor.ErrRefused) || !errors.As(err, &re) || re.Code != codes.FailedPrecondition {
		t.Errorf("cancel with another request id: %v, want ErrRefused with FailedPrecondition", err)
	}
	if _, err := e.d.Prepare(ctx(t), "fake", "r2", time.Minute); !errors.Is(err, doctor.ErrRefused) || !errors.As(err, &re) || re.Code != codes.Aborted {
		t.Errorf("prepare by a second doctor: %v, want ErrRefused with Aborted", err)
	}
	o, err = e.d.Cancel(ctx(t), "fake", "r1")
	if err != nil || !o.Admitting {
		t.Errorf("cancel: %+v, %v", o, err)
	}
}

// TestSuccessorRefused: an upgrade that does not start, or that never
// serves, ends the restart with successor_refused and its reason.
func TestSuccessorRefused(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		reason doctor.Reason
	}{
		{"exit", doctor.StartRefused},
		{"mute", doctor.PublicationTimeout},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			e := newEnv(t)
			e.setMode(t, tc.mode)
			out, err := e.d.Restart(ctx(t), "fake", doctor.RestartOptions{Deadline: 4 * time.Second}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != doctor.SuccessorRefused || out.Reason != tc.reason {
				t.Errorf("outcome %s{%s}: %s; want successor_refused{%s}", out.Kind, out.Reason, out.Message, tc.reason)
			}
			e.setMode(t, "good") // let supervision bring one up before cleanup
		})
	}
}

// TestSuccessorOfAnotherGeneration: an upgrade to a provider binary of
// the contract's previous generation is refused at its start (the
// supervisor runs no child of another generation), so the restart ends
// with successor_refused{start_refused}, saying both generations and
// what to do.
func TestSuccessorOfAnotherGeneration(t *testing.T) {
	e := newEnv(t)
	e.setMode(t, "previous-generation")
	out, err := e.d.Restart(ctx(t), "fake", doctor.RestartOptions{Deadline: 4 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != doctor.SuccessorRefused || out.Reason != doctor.StartRefused {
		t.Errorf("outcome %s{%s}: %s; want successor_refused{start_refused}", out.Kind, out.Reason, out.Message)
	}
	for _, w := range []string{fmt.Sprintf("generation %d", doctor.Generation-1), fmt.Sprintf("generation %d", doctor.Generation), "upgrade the provider binary"} {
		if !strings.Contains(out.Message, w) {
			t.Errorf("outcome message %q does not say %q", out.Message, w)
		}
	}
}

// TestOwnerUnavailable: a provider with no running child cannot be
// restarted: owner_unavailable{no_state}.
func TestOwnerUnavailable(t *testing.T) {
	e := newEnv(t)
	e.setMode(t, "exit")
	sup, _ := e.m.Supervisor("fake")
	cur, _ := sup.Current()
	p, _ := os.FindProcess(cur.Incarnation.PID)
	p.Kill()
	ctxw, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for sup.Status().State != supervise.StateFatal {
		select {
		case <-sup.Changed():
		case <-ctxw.Done():
			t.Fatalf("never FATAL: %+v", sup.Status())
		}
	}
	out, err := e.d.Restart(ctx(t), "fake", doctor.RestartOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != doctor.OwnerUnavailable || out.Reason != doctor.NoState {
		t.Errorf("outcome %s{%s}: %s", out.Kind, out.Reason, out.Message)
	}
	if _, err := e.d.Restart(ctx(t), "nope", doctor.RestartOptions{}, nil); !errors.Is(err, providers.ErrUnknown) {
		t.Errorf("unknown provider: %v", err)
	}
}
