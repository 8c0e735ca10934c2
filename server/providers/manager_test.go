package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/contract"
	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/outbound"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

// env is a Manager over a real store, running real children (see
// main_test.go), journalling into a recordingIngester.
type env struct {
	m    *Manager
	st   store.Store
	dir  string
	sock string
	ing  *recordingIngester
	sink Ingester // what the pumps journal into: ing, unless newSinkEnv's
	stop func()
}

// spec is a provider of this test's children, scripted by settings.
func spec(name string, settings childSettings) Spec {
	raw, _ := json.Marshal(settings)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return Spec{Name: name, Binary: os.Args[0], Settings: m, StartLimit: 5, BackoffMax: 100 * time.Millisecond,
		StartTimeout: 20 * time.Second}
}

func newEnv(t *testing.T, specs ...Spec) *env {
	t.Helper()
	return newSinkEnv(t, nil, specs...)
}

// newSinkEnv is newEnv whose pumps journal into sink(the store) (nil: the
// recordingIngester).
func newSinkEnv(t *testing.T, sink func(store.Store) Ingester, specs ...Spec) *env {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newStoreEnv(t, st, sink, specs...)
}

// newStoreEnv is newSinkEnv over st (the caller's to close).
func newStoreEnv(t *testing.T, st store.Store, sink func(store.Store) Ingester, specs ...Spec) *env {
	t.Helper()
	e := &env{dir: t.TempDir(), ing: &recordingIngester{}, st: st}
	e.sink = e.ing
	if sink != nil {
		e.sink = sink(st)
	}
	var err error
	e.sock, err = os.MkdirTemp("", "pm")
	if err != nil {
		t.Fatal(err)
	}
	e.start(t, specs...)
	t.Cleanup(func() {
		e.stop()
		os.RemoveAll(e.sock)
	})
	return e
}

// start runs a Manager of specs (another after stop: the same store) and
// waits until each runs.
func (e *env) start(t *testing.T, specs ...Spec) {
	t.Helper()
	e.run(t, specs...)
	for _, s := range specs {
		e.waitRunning(t, s.Name)
	}
}

// run runs a Manager of specs, as start does, without waiting.
func (e *env) run(t *testing.T, specs ...Spec) {
	t.Helper()
	m, err := New(Config{Specs: specs, SocketDir: e.sock, StateDir: filepath.Join(e.dir, "state"), Store: e.st,
		Events: events.NewHub(zerolog.Nop()), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadCalls(); err != nil {
		t.Fatal(err)
	}
	e.m = m
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx, e.sink); close(done) }()
	stopped := false
	e.stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
}

// waitRunning waits until the provider's child runs and has described
// its platform.
func (e *env) waitRunning(t *testing.T, name string) supervise.Child {
	t.Helper()
	sup, err := e.m.Supervisor(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
	defer cancel()
	c, err := sup.WaitRunning(ctx)
	if err != nil {
		t.Fatalf("%s never RUNNING: %v", name, err)
	}
	testkit.Eventually(t, name+" described", func() bool { _, ok := e.m.Description(name); return ok })
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
	t.Cleanup(cancel)
	return ctx
}

var thread = store.Target{Provider: "fake", Chat: "-100", Thread: "7"}

// call makes a sendMessage call scripted by p.
func (e *env) call(ctx context.Context, key string, p callParams) (hub.Result, error) {
	params, _ := json.Marshal(p)
	return e.m.Call(ctx, hub.Call{BindingKey: "b", Target: thread, Method: "sendMessage", Params: params, Key: key})
}

// answered is the child's count of answered calls in a result.
func answered(t *testing.T, res hub.Result) int {
	t.Helper()
	var v struct{ N int }
	if err := json.Unmarshal(res.JSON, &v); err != nil || v.N == 0 {
		t.Fatalf("result %s: %v", res.JSON, err)
	}
	return v.N
}

// TestManagerRunsAChild: a configured provider's child runs, describes its
// platform and is reported; threads are provisioned and closed through it;
// attachments are kept and dropped.
func TestManagerRunsAChild(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{Platform: "fakeplatform"}))
	m := e.m
	if got := m.Names(); len(got) != 1 || got[0] != "fake" {
		t.Errorf("Names = %v", got)
	}
	if m.Default() != "fake" || !m.Configured("fake") || m.Configured("nope") {
		t.Errorf("Default %q, Configured(fake) %v, Configured(nope) %v", m.Default(), m.Configured("fake"), m.Configured("nope"))
	}
	d, _ := m.Description("fake")
	if d.Platform != "fakeplatform" || len(d.Methods) == 0 {
		t.Errorf("Description = %+v", d)
	}
	sts := m.Statuses()
	if len(sts) != 1 || sts[0].Name != "fake" || sts[0].State != supervise.StateRunning || !sts[0].Serving ||
		sts[0].Platform != "fakeplatform" || !sts[0].Default || sts[0].PID == 0 {
		t.Errorf("Statuses = %+v", sts)
	}
	if ok, why := m.Serving("fake"); !ok {
		t.Errorf("Serving: false (%s)", why)
	}
	if _, err := m.Supervisor("nope"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Supervisor(nope): %v", err)
	}

	ctx := ctxT(t)
	got, err := m.Provision(ctx, "fake", "a session", nil)
	if err != nil || got.Provider != "fake" || got.Chat != "-100" || got.Thread == "" {
		t.Fatalf("Provision = %+v, %v", got, err)
	}
	again, err := m.Provision(ctx, "fake", "a session", &got)
	if err != nil || again != got {
		t.Errorf("Provision reusing %+v = %+v, %v", got, again, err)
	}
	if _, err := m.Provision(ctx, "nope", "x", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("Provision on an unknown provider: %v", err)
	}
	if err := m.Attach(ctx, "fake", "i-1", got); err != nil {
		t.Fatal(err)
	}
	if a := m.Attached("fake"); len(a) != 1 || a[0] != "i-1" || m.Statuses()[0].Attached != 1 {
		t.Errorf("Attached = %v", a)
	}
	m.Detach("fake", "i-1")
	testkit.Eventually(t, "the detach", func() bool { return len(m.Attached("fake")) == 0 })
	if err := m.CloseTarget(ctx, got); err != nil {
		t.Errorf("CloseTarget: %v", err)
	}
}

// TestChildOfAnotherGeneration: a child that speaks another generation of
// the provider contract (an old provider binary beside a newer
// supervisor) is refused at its start, before any stream or call reaches
// it: it is stopped, not started again (FATAL at once: another start of
// the same binary would be refused alike), and its status names both
// generations and what to do.
func TestChildOfAnotherGeneration(t *testing.T) {
	e := newEnv(t)
	e.stop()
	old := uint32(contract.Generation - 1)
	e.run(t, spec("fake", childSettings{Push: 3, Generation: old}))
	sup, err := e.m.Supervisor("fake")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sup.WaitRunning(ctxT(t))
	if err == nil {
		t.Fatalf("a child of generation %d runs (%v) under a supervisor of generation %d", old, c.Incarnation, contract.Generation)
	}
	if !errors.Is(err, supervise.ErrFatal) {
		t.Fatalf("WaitRunning: %v, want FATAL", err)
	}
	want := []string{fmt.Sprintf("generation %d", old), fmt.Sprintf("generation %d", contract.Generation), "upgrade the provider binary"}
	st := sup.Status()
	for _, w := range want {
		if !strings.Contains(st.LastError, w) {
			t.Errorf("last error %q does not say %q", st.LastError, w)
		}
	}
	if st.State != supervise.StateFatal || st.Restarts != 0 || st.PID != 0 {
		t.Errorf("status %s, %d restarts, pid %d; want FATAL after one start, no child", st.State, st.Restarts, st.PID)
	}
	if sts := e.m.Statuses(); len(sts) != 1 || sts[0].State != supervise.StateFatal || sts[0].Status.LastError != st.LastError {
		t.Errorf("Statuses = %+v, want FATAL with the refusal", sts)
	}
	e.ing.mu.Lock()
	defer e.ing.mu.Unlock()
	if len(e.ing.batches) != 0 {
		t.Errorf("journalled %v from a refused child", e.ing.batches)
	}
}

// TestInboundPumped: the child's updates are journalled once each, in
// order, with the cursor past each batch, and counted.
func TestInboundPumped(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{Push: 25}))
	testkit.Eventually(t, "25 updates journalled", func() bool { return e.m.Statuses()[0].Ingested == 25 })
	e.ing.mu.Lock()
	defer e.ing.mu.Unlock()
	var all []int64
	for _, b := range e.ing.batches {
		all = append(all, b...)
	}
	if len(all) != 25 {
		t.Fatalf("journalled %v", all)
	}
	for i, id := range all {
		if id != int64(i+1) {
			t.Fatalf("journalled %v, want 1..25 once each", all)
		}
	}
}

// TestCallsAtMostOnce: a keyed call is made once: its repeat answers the
// recorded result; a call without a key goes straight to the child; a
// repeat still answers after the Manager restarted (the record is
// durable) without calling the child again.
func TestCallsAtMostOnce(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	first, err := e.call(ctx, "k1", callParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Refs) != 1 || first.Refs[0].Kind != store.RefMessage {
		t.Errorf("refs %+v", first.Refs)
	}
	again, err := e.call(ctx, "k1", callParams{})
	if err != nil || !bytes.Equal(again.JSON, first.JSON) {
		t.Fatalf("repeat = %s, %v; want %s", again.JSON, err, first.JSON)
	}
	bare, err := e.call(ctx, "", callParams{})
	if err != nil || answered(t, bare) != answered(t, first)+1 {
		t.Fatalf("a call without a key: %s, %v", bare, err)
	}

	e.stop()
	e.start(t, spec("fake", childSettings{}))
	after, err := e.call(ctx, "k1", callParams{})
	if err != nil || !bytes.Equal(after.JSON, first.JSON) {
		t.Fatalf("repeat after a restart = %s, %v; want %s", after.JSON, err, first.JSON)
	}
	next, err := e.call(ctx, "k2", callParams{})
	if err != nil || answered(t, next) != 1 {
		t.Fatalf("a new call to the new child: %s, %v; want its first", next.JSON, err)
	}
}

// TestCallFailuresClassified: each platform failure keeps its class. A
// failure of a call that was made is recorded: its repeat answers the same
// without calling the child. One that certainly was not made (a deleted
// thread, an unreachable platform) is forgotten: its repeat is made. A
// rate limit is waited out: the call is made again once the platform's
// delay passed, within the caller's deadline.
func TestCallFailuresClassified(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	tests := []struct {
		fail     string
		want     error // nil: it succeeds in the end
		recorded bool
	}{
		{"not_found", ErrPlatformNotFound, true},
		{"invalid", ErrPlatformInvalid, true},
		{"denied", ErrPlatformDenied, true},
		{"out_of_scope", ErrPlatformDenied, true},
		{"ambiguous", ErrAmbiguous, true},
		{"target_gone", ErrTargetGone, false},
		{"unavailable", ErrUnavailable, false},
		{"rate_limited", nil, false},
	}
	made := 0 // calls the child answered
	for _, tc := range tests {
		t.Run(tc.fail, func(t *testing.T) {
			res, err := e.call(ctx, "fail-"+tc.fail, callParams{Fail: tc.fail})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("%s: %v, want it made once the delay passed", tc.fail, err)
				}
				made++
				if n := answered(t, res); n != made {
					t.Errorf("the child answered its call %d, want %d", n, made)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("%s: %v, want %v", tc.fail, err, tc.want)
			}
			res, again := e.call(ctx, "fail-"+tc.fail, callParams{})
			switch {
			case tc.recorded && !errors.Is(again, tc.want):
				t.Errorf("repeat: %v, want the recorded %v", again, tc.want)
			case !tc.recorded && again != nil:
				t.Errorf("repeat of a call not made: %v, want it made", again)
			case !tc.recorded:
				made++
				if n := answered(t, res); n != made {
					t.Errorf("the child answered its call %d, want %d", n, made)
				}
			}
		})
	}
	// No recorded repeat reached the child.
	res, err := e.call(ctx, "ok", callParams{})
	if err != nil || answered(t, res) != made+1 {
		t.Fatalf("the next call: %s, %v; want the child's call %d", res.JSON, err, made+1)
	}
}

// TestPlatformPreconditionIsARefusal: a FAILED_PRECONDITION of the
// platform's own (not the doctor fence's, which says so by its reason) is
// the call's failure, recorded: it neither closes the provider's
// admission nor sends the call again, and the next call goes.
func TestPlatformPreconditionIsARefusal(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	if _, err := e.call(ctx, "pre", callParams{Fail: "precondition"}); !errors.Is(err, ErrRefused) {
		t.Fatalf("a platform's precondition: %v, want ErrRefused", err)
	}
	if _, err := e.call(ctx, "", callParams{Fail: "precondition"}); !errors.Is(err, ErrRefused) {
		t.Fatalf("a platform's precondition without a key: %v, want ErrRefused", err)
	}
	p, _ := e.m.get("fake")
	if open, _ := p.adm.state(); !open {
		t.Fatal("a platform's precondition closed the provider's admission")
	}
	if _, err := e.call(ctx, "pre", callParams{}); !errors.Is(err, ErrRefused) {
		t.Fatalf("repeat: %v, want the recorded ErrRefused", err)
	}
	res, err := e.call(ctx, "next", callParams{})
	if err != nil || answered(t, res) != 1 {
		t.Fatalf("the next call: %s, %v; want the child's first answer", res.JSON, err)
	}
}

// TestRateLimitOutlastsDeadline: a call the platform refuses as rate
// limited for 30 s, with 3 s left to its caller, is answered at once as
// refused by the queue with the wait (RESOURCE_EXHAUSTED with a
// RetryInfo), not held until its deadline; with a key, the key is free
// again (nothing was sent).
func TestRateLimitOutlastsDeadline(t *testing.T) {
	for _, key := range []string{"", "k-long"} {
		t.Run("key="+key, func(t *testing.T) {
			e := newEnv(t, spec("fake", childSettings{}))
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_, err := e.call(ctx, key, callParams{Fail: "rate_limited_long"})
			var ce *CallError
			if !errors.Is(err, ErrQueueFull) || !errors.As(err, &ce) || ce.RetryAfter < 25*time.Second {
				t.Fatalf("a call paused past its deadline: %v, want refused with the wait", err)
			}
			if key == "" {
				return
			}
			if rec, err := e.st.GetCall("b", key); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the refused call's record: %+v, %v; want it forgotten", rec, err)
			}
		})
	}
}

// upload uploads content as a.txt with key.
func (e *env) upload(ctx context.Context, key, content string) (hub.Result, error) {
	return e.m.Upload(ctx, thread, hub.Upload{Filename: "a.txt", Key: key, BindingKey: "b"}, strings.NewReader(content))
}

// TestUploadsAtMostOnce: an upload with an idempotency key is made once:
// a repeat of its key (after it settled, or while the first is held)
// answers the first one's outcome, and the child uploaded once.
func TestUploadsAtMostOnce(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	first, err := e.upload(ctx, "u1", "hello")
	if err != nil || answered(t, first) != 1 {
		t.Fatalf("first upload: %s, %v", first.JSON, err)
	}
	again, err := e.upload(ctx, "u1", "hello")
	if err != nil || !bytes.Equal(again.JSON, first.JSON) {
		t.Fatalf("a repeat of its key: %s, %v; want the first's %s", again.JSON, err, first.JSON)
	}
	if rec, err := e.st.GetCall("b", "u1"); err != nil || rec.State != store.CallDone {
		t.Fatalf("the upload's record: %+v, %v", rec, err)
	}
	next, err := e.upload(ctx, "", "world")
	if err != nil || answered(t, next) != 2 {
		t.Fatalf("an upload without a key: %s, %v; want the child's second", next.JSON, err)
	}
}

// TestUploadsHeldAcrossRestart: while a doctor restart holds the
// provider's calls, uploads wait too (with a key, beyond their caller's
// deadline), and are made once it ends; before, an upload went to a child
// that did not admit it and failed.
func TestUploadsHeldAcrossRestart(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	if busy, err := e.m.BeginRestart("fake", "r1"); busy != "" || err != nil {
		t.Fatalf("BeginRestart: %q, %v", busy, err)
	}
	if err := e.m.HoldCalls("fake", "r1"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err := e.upload(short, "held", "kept")
	cancel()
	if !errors.Is(err, ErrHeld) {
		t.Fatalf("an upload during the restart: %v, want ErrHeld", err)
	}
	if st := e.m.Statuses()[0]; st.CallsHeld != 1 {
		t.Errorf("held %d, want the upload", st.CallsHeld)
	}
	e.m.EndRestart("fake", "r1")
	res, err := e.upload(ctx, "held", "dropped: the first one's file is sent")
	if err != nil || answered(t, res) != 1 {
		t.Fatalf("the held upload: %s, %v", res.JSON, err)
	}
	var up struct{ Size int }
	if err := json.Unmarshal(res.JSON, &up); err != nil || up.Size != len("kept") {
		t.Errorf("uploaded %d bytes, want the held file's %d", up.Size, len("kept"))
	}
}

// TestUploadsPaced: uploads count against the limits that count
// "upload": with one a minute, a second upload whose caller has a second
// left is refused at once with the wait (nothing sent).
func TestUploadsPaced(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	p, _ := e.m.get("fake")
	if err := p.sched.SetLimits([]outbound.Limit{{Name: "files", Scope: outbound.ScopeChat, Count: 1, Per: time.Minute, Methods: []string{"upload"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.upload(ctx, "", "one"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := e.upload(short, "p2", "two")
	var ce *CallError
	if !errors.Is(err, ErrQueueFull) || !errors.As(err, &ce) || ce.RetryAfter < 50*time.Second {
		t.Fatalf("a second upload within the minute: %v, want refused with the wait", err)
	}
	if _, err := e.st.GetCall("b", "p2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused upload's record: %v, want it forgotten", err)
	}
}

// TestCallsHeldAcrossRestart: while a doctor restart holds the provider,
// calls are held (the caller's deadline ends its wait, not the call);
// once it ends they are sent, once, in order.
func TestCallsHeldAcrossRestart(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	if busy, err := e.m.BeginRestart("fake", "r1"); busy != "" || err != nil {
		t.Fatalf("BeginRestart: %q, %v", busy, err)
	}
	if busy, _ := e.m.BeginRestart("fake", "r2"); busy != "r1" {
		t.Errorf("a second restart began while r1 is under way (busy %q)", busy)
	}
	if err := e.m.HoldCalls("fake", "r1"); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"h1", "h2"} {
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, err := e.call(short, key, callParams{})
		cancel()
		if !errors.Is(err, ErrHeld) {
			t.Fatalf("a call during the restart: %v, want ErrHeld", err)
		}
	}
	if st := e.m.Statuses()[0]; st.CallsHeld != 2 || st.CallsOpen != 2 {
		t.Errorf("held %d, open %d; want 2, 2", st.CallsHeld, st.CallsOpen)
	}
	e.m.EndRestart("fake", "r1")
	h1, err := e.call(ctx, "h1", callParams{})
	if err != nil {
		t.Fatal(err)
	}
	h2, err := e.call(ctx, "h2", callParams{})
	if err != nil {
		t.Fatal(err)
	}
	if answered(t, h1) != 1 || answered(t, h2) != 2 {
		t.Errorf("held calls answered as %d and %d; want 1 and 2 (sent once, in order)", answered(t, h1), answered(t, h2))
	}
	testkit.Eventually(t, "nothing held", func() bool { st := e.m.Statuses()[0]; return st.CallsHeld == 0 && st.CallsOpen == 0 })
}

// TestChildDiesMidCall: a call whose child died under it has an unknown
// outcome, on every repeat, and is never sent again; the child is
// restarted and takes new calls.
func TestChildDiesMidCall(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	ctx := ctxT(t)
	old := e.waitRunning(t, "fake")
	if _, err := e.call(ctx, "doomed", callParams{Exit: true}); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("a call whose child died: %v, want ErrAmbiguous", err)
	}
	testkit.Eventually(t, "a new child", func() bool {
		st := e.m.Statuses()[0]
		return st.State == supervise.StateRunning && st.PID != old.Incarnation.PID
	})
	e.waitRunning(t, "fake")
	if _, err := e.call(ctx, "doomed", callParams{}); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("repeat: %v, want the recorded ErrAmbiguous", err)
	}
	res, err := e.call(ctx, "after", callParams{})
	if err != nil || answered(t, res) != 1 {
		t.Fatalf("a call to the new child: %s, %v", res.JSON, err)
	}
	if st := e.m.Statuses()[0]; st.Restarts < 1 {
		t.Errorf("restarts %d", st.Restarts)
	}
}

// TestFiles: an upload streams to the child; a download streams its file
// back; a missing file is the platform's not-found.
func TestFiles(t *testing.T) {
	content := strings.Repeat("0123456789", 60_000) // more than one chunk
	e := newEnv(t, spec("fake", childSettings{Files: map[string]string{"f1": content}}))
	ctx := ctxT(t)
	res, err := e.m.Upload(ctx, thread, hub.Upload{Filename: "a.txt", Caption: "c"}, strings.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	var up struct {
		Filename string
		Size     int
	}
	if err := json.Unmarshal(res.JSON, &up); err != nil || up.Filename != "a.txt" || up.Size != len(content) {
		t.Errorf("upload result %s (%v)", res.JSON, err)
	}
	var got bytes.Buffer
	var size int64
	err = e.m.Download(ctx, "fake", "f1", func(chunk []byte, sz int64, _ string) error {
		got.Write(chunk)
		if sz > 0 {
			size = sz
		}
		return nil
	})
	if err != nil || got.String() != content || size != int64(len(content)) {
		t.Errorf("download: %d bytes (size %d), %v", got.Len(), size, err)
	}
	if err := e.m.Download(ctx, "fake", "missing", func([]byte, int64, string) error { return nil }); !errors.Is(err, ErrPlatformNotFound) {
		t.Errorf("download of a missing file: %v", err)
	}
	if err := e.m.Download(ctx, "nope", "f1", func([]byte, int64, string) error { return nil }); !errors.Is(err, ErrUnknown) {
		t.Errorf("download from an unknown provider: %v", err)
	}
}

// TestReload: a provider added while running starts; the default moves;
// a respec'd provider's next child starts from the new spec; a removed
// provider's child is stopped and its name unknown.
func TestReload(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	m := e.m
	if err := m.Add(spec("second", childSettings{Platform: "second-v1"})); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(spec("second", childSettings{})); err == nil {
		t.Error("a provider was added twice")
	}
	first := e.waitRunning(t, "second")
	if d, _ := m.Description("second"); d.Platform != "second-v1" {
		t.Errorf("second describes %q", d.Platform)
	}
	if err := m.SetDefault("second"); err != nil || m.Default() != "second" {
		t.Errorf("SetDefault: %v (default %q)", err, m.Default())
	}
	if err := m.SetDefault("nope"); !errors.Is(err, ErrUnknown) {
		t.Errorf("SetDefault(nope): %v", err)
	}

	if err := m.Respec(spec("second", childSettings{Platform: "second-v2"})); err != nil {
		t.Fatal(err)
	}
	// The running child keeps its spec until it is restarted.
	if err := syscall.Kill(first.Incarnation.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the respec'd child", func() bool { d, _ := m.Description("second"); return d.Platform == "second-v2" })

	if err := m.Remove("second"); err != nil {
		t.Fatal(err)
	}
	if got := m.Names(); len(got) != 1 || got[0] != "fake" {
		t.Errorf("Names after Remove = %v", got)
	}
	if err := m.Remove("second"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Remove twice: %v", err)
	}
	if m.Configured("second") {
		t.Error("a removed provider is still configured")
	}
}
