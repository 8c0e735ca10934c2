package hub

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/store"
)

// event waits for the next event of kind whose attrs have change.
func (e *env) event(t *testing.T, kind events.Kind, change string) events.Event {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-e.evs.C():
			if ev.Kind == kind && ev.Attrs["change"] == change {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event with change %q", kind, change)
		}
	}
}

// applyThreadEvents applies what observed updates queued for the
// lifecycle goroutine (which these tests do not run).
func (e *env) applyThreadEvents() {
	for {
		select {
		case ev := <-e.h.threadEvents:
			e.h.applyThreadEvent(context.Background(), ev)
		default:
			return
		}
	}
}

func (e *env) binding(key string) store.Binding {
	e.t.Helper()
	b, err := e.st.GetBinding(key)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// TestFreshReusesParkedThreads: registrations come and go, never more than
// three at once; every fresh one takes an offline binding's thread and
// slot, so three threads are ever created. The offline binding whose
// thread is taken keeps its journal under its own key (none of it reaches
// the new binding) and gets it in a fresh thread when its profile returns.
func TestFreshReusesParkedThreads(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	live := map[int]Registration{}
	for i := range 54 {
		if len(live) == 3 {
			e.h.Unregister(live[i-3].Follower)
			delete(live, i-3)
		}
		e.clock.Add(time.Second)
		live[i] = e.register(fmt.Sprint("s-", i), fmt.Sprint("manual:", i), "")
	}
	if e.provs.created != 3 {
		t.Fatalf("%d threads created for 54 registrations, at most 3 at once; want 3", e.provs.created)
	}
	slots := map[string]string{}
	for _, r := range live {
		if r.Origin != OriginFresh || slots[r.Binding.Slot] != "" {
			t.Fatalf("registration %+v (slots %v)", r.Binding, slots)
		}
		slots[r.Binding.Slot] = r.Binding.Target.Thread
	}
	if len(slots) != 3 || slots["A"] == "" || slots["B"] == "" || slots["C"] == "" {
		t.Errorf("slots in use %v, want A, B, C", slots)
	}
	if got := e.provs.reused[len(e.provs.reused)-1]; got != "C · manual:53" {
		t.Errorf("the last reused thread was named %q, want it renamed for its new binding", got)
	}

	// An offline binding with a person's unread message: a fresh
	// registration takes its thread; the message stays with the old key.
	old := live[51]
	e.ingest(1000, old.Binding.Target.Thread, "for the old session")
	e.h.Unregister(old.Follower)
	e.clock.Add(time.Second)
	taker := e.register("t-1", "manual:taker", "")
	if taker.Binding.Target != old.Binding.Target || taker.Binding.Slot != old.Binding.Slot {
		t.Fatalf("fresh %+v, want the offline binding's thread %+v", taker.Binding, old.Binding)
	}
	gone := e.binding("manual:51")
	if gone.Status != store.StatusOffline || !gone.Target.IsZero() || gone.Slot != "" || gone.LastAction != store.ActionSuperseded {
		t.Errorf("superseded binding %+v", gone)
	}
	if st, _ := e.st.Stats("manual:51"); st.Pending != 1 {
		t.Errorf("the superseded binding holds %d updates, want its 1", st.Pending)
	}
	e.ingest(1001, taker.Binding.Target.Thread, "for the new session")
	if got := collect(t, e.h, taker.Follower, 0, 1); got[0].Text != "for the new session" || got[0].Seq != 1 {
		t.Errorf("the new binding got %+v, want only what came after it took the thread", got)
	}
	e.event(t, events.BindingChanged, "superseded")

	// Its profile comes back: a fresh thread, and its journal.
	back := e.register("s-51b", "manual:51", "")
	if back.Origin != OriginFresh || back.Binding.Target.IsZero() || back.Binding.Target == taker.Binding.Target {
		t.Fatalf("came back with %v %+v", back.Origin, back.Binding)
	}
	if got := collect(t, e.h, back.Follower, 0, 1); got[0].Text != "for the old session" {
		t.Errorf("came back to %+v, want its own held update", got)
	}
}

// TestCloseOfflineAfter: the thread of a binding offline for
// CloseOfflineAfter is closed, once; the profile coming back reopens it.
// A thread found deleted on closing is dropped from its binding.
func TestCloseOfflineAfter(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	ctx := context.Background()
	a := e.register("a-1", "manual:a", "")
	b := e.register("b-1", "manual:b", "")
	e.h.Unregister(a.Follower)
	e.h.Unregister(b.Follower)
	e.provs.gone = map[string]bool{b.Binding.Target.Thread: true}

	e.clock.Add(DefaultCloseOfflineAfter - time.Minute)
	if n, err := e.h.closeOffline(ctx); err != nil || n != 0 {
		t.Fatalf("closed %d (%v) before the time", n, err)
	}
	e.clock.Add(time.Minute)
	if n, err := e.h.closeOffline(ctx); err != nil || n != 1 {
		t.Fatalf("closed %d (%v), want 1", n, err)
	}
	if !e.provs.closed[a.Binding.Target.Thread] || e.binding("manual:a").ThreadClosed.IsZero() {
		t.Fatalf("a's thread not closed: %v %+v", e.provs.closed, e.binding("manual:a"))
	}
	e.event(t, events.BindingChanged, "thread_closed")
	if gb := e.binding("manual:b"); !gb.Target.IsZero() || gb.Slot != "" {
		t.Errorf("b's deleted thread is still its: %+v", gb)
	}
	e.clock.Add(DefaultCloseOfflineAfter)
	if n, _ := e.h.closeOffline(ctx); n != 0 {
		t.Errorf("closed %d again", n)
	}

	back := e.register("a-2", "manual:a", "")
	if back.Origin != OriginReuse || back.Binding.Target != a.Binding.Target || !back.Binding.ThreadClosed.IsZero() {
		t.Fatalf("came back with %v %+v", back.Origin, back.Binding)
	}
	if e.provs.closed[a.Binding.Target.Thread] || len(e.provs.reused) != 1 || e.provs.reused[0] != "A · manual:a" {
		t.Errorf("a's thread was not reopened: closed %v reused %v", e.provs.closed, e.provs.reused)
	}

	t.Run("off", func(t *testing.T) {
		e := newEnv(t, "", store.Limits{}, nil, nil)
		e.h.cfg.CloseOfflineAfter = -1
		e.h.Unregister(e.register("a-1", "manual:a", "").Follower)
		e.clock.Add(365 * 24 * time.Hour)
		if n, _ := e.h.closeOffline(ctx); n != 0 || len(e.provs.closed) != 0 {
			t.Errorf("closed %d with closing off", n)
		}
	})
	t.Run("platform refuses", func(t *testing.T) {
		e := newEnv(t, "", store.Limits{}, nil, nil)
		e.provs.closeErr = errors.New("unreachable")
		e.h.Unregister(e.register("a-1", "manual:a", "").Follower)
		e.clock.Add(DefaultCloseOfflineAfter)
		if n, _ := e.h.closeOffline(ctx); n != 0 || !e.binding("manual:a").ThreadClosed.IsZero() {
			t.Fatalf("closed %d though the platform refused", n)
		}
		e.provs.closeErr = nil
		if n, _ := e.h.closeOffline(ctx); n != 1 {
			t.Errorf("closed %d on the next scan, want 1", n)
		}
	})
}

// TestCallIntoDeletedThread: a call that finds its thread deleted gives
// the binding a new thread in its slot, is made once more there, and the
// follower is told once (Heartbeat's notice, its stream's wake-up, an
// event); the journal goes on. A call naming the deleted thread's
// messages is not made again.
func TestCallIntoDeletedThread(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	ctx := context.Background()
	a := e.register("a-1", "manual:a", "")
	old := a.Binding.Target
	e.ingest(1, old.Thread, "one")
	changed, release := e.h.ThreadChanged(a.Follower)
	defer release()
	e.provs.gone = map[string]bool{old.Thread: true}

	res, err := e.h.Call(ctx, a.Follower, "sendMessage", []byte(`{"text":"hi"}`), "k1")
	if err != nil || len(res.Refs) != 1 {
		t.Fatalf("call: %+v %v", res, err)
	}
	nb := e.binding("manual:a")
	if nb.Target == old || nb.Target.IsZero() || nb.Slot != a.Binding.Slot || nb.LastAction != store.ActionThreadReplaced || nb.Status != store.StatusActive {
		t.Fatalf("binding after the call %+v", nb)
	}
	want := []string{"sendMessage " + old.Thread + ` {"text":"hi"}`, "sendMessage " + nb.Target.Thread + ` {"text":"hi"}`}
	if fmt.Sprint(e.provs.calls) != fmt.Sprint(want) {
		t.Errorf("calls %q, want %q", e.provs.calls, want)
	}
	if e.provs.attached["a-1"] != nb.Target {
		t.Errorf("the provider has the follower on %+v, want %+v", e.provs.attached["a-1"], nb.Target)
	}
	select {
	case <-changed:
	default:
		t.Error("the follower's stream was not told")
	}
	if b, ok := e.h.ThreadNotice(a.Follower); !ok || b.Target != nb.Target {
		t.Errorf("notice %v %+v", ok, b)
	}
	if _, ok := e.h.ThreadNotice(a.Follower); ok {
		t.Error("told twice")
	}
	e.event(t, events.BindingChanged, "thread_replaced")

	// Updates of the new thread follow the old one's in the same journal.
	e.ingest(2, nb.Target.Thread, "two")
	if got := collect(t, e.h, a.Follower, 0, 2); got[0].Text != "one" || got[1].Text != "two" || got[1].Seq != 2 {
		t.Errorf("journal %+v", got)
	}

	// An edit of a message of a deleted thread cannot be made in the new
	// one: the error says the thread is gone.
	e.provs.gone[nb.Target.Thread] = true
	_, err = e.h.Call(ctx, a.Follower, "editMessageText", []byte(`{"message_id":2,"text":"x"}`), "k2")
	if !errors.Is(err, ErrTargetGone) {
		t.Fatalf("edit into the deleted thread: %v, want ErrTargetGone", err)
	}
	if n := len(e.provs.calls); n != 3 {
		t.Errorf("%d calls made, want the edit once", n)
	}
	if again := e.binding("manual:a"); again.Target == nb.Target {
		t.Error("the second deleted thread was not replaced")
	}
}

// TestThreadStateFromUpdates: updates saying a person closed or reopened
// the thread mark it so; a person writing in a closed thread reopens it;
// one saying it was deleted replaces it.
func TestThreadStateFromUpdates(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	ctx := context.Background()
	a := e.register("a-1", "manual:a", "")
	th := a.Binding.Target.Thread
	push := func(id int64, state ThreadState, allowed bool) {
		t.Helper()
		batch := []Inbound{{Allowed: allowed, ThreadState: state, Update: store.Update{PlatformUpdateID: id, Chat: chat, Thread: th, Sender: "1", Kind: 1}}}
		if _, err := e.h.Intake().Ingest(ctx, "telegram", batch, nil); err != nil {
			t.Fatal(err)
		}
		e.applyThreadEvents()
	}
	push(1, ThreadClosedByPerson, true)
	if e.binding("manual:a").ThreadClosed.IsZero() {
		t.Fatal("closed by a person: not marked")
	}
	push(2, ThreadOpened, true)
	if !e.binding("manual:a").ThreadClosed.IsZero() {
		t.Fatal("reopened by a person: still marked closed")
	}
	push(3, ThreadClosedByPerson, false) // whoever closed it, it is closed
	push(4, ThreadUnchanged, false)      // a stranger's message does not reopen it
	if e.binding("manual:a").ThreadClosed.IsZero() || len(e.provs.reused) != 0 {
		t.Fatal("a stranger's message reopened the thread")
	}
	push(5, ThreadUnchanged, true)
	if !e.binding("manual:a").ThreadClosed.IsZero() || len(e.provs.reused) != 1 {
		t.Fatalf("a person wrote in the closed thread: not reopened (%v)", e.provs.reused)
	}
	e.event(t, events.BindingChanged, "thread_reopened")
	push(6, ThreadDeleted, true)
	if nb := e.binding("manual:a"); nb.Target.Thread == th || nb.LastAction != store.ActionThreadReplaced {
		t.Fatalf("deleted: binding %+v", nb)
	}
	if _, ok := e.h.ThreadNotice(a.Follower); !ok {
		t.Error("the follower was not told of its new thread")
	}
	if got := collect(t, e.h, a.Follower, 0, 4); got[3].PlatformUpdateID != 6 {
		t.Errorf("journal %+v: every allowed update is kept", got)
	}
}

// TestLifecycleSurvivesAPanic: a thread change whose handling panics (the
// provider answering a reopen with a panic) is given up, and the
// lifecycle goroutine goes on with the next one.
func TestLifecycleSurvivesAPanic(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.h.lifecycle(ctx) }()
	defer func() { cancel(); <-done }()
	a := e.register("a-1", "manual:a", "")
	th := a.Binding.Target.Thread
	push := func(id int64, state ThreadState) {
		t.Helper()
		batch := []Inbound{{Allowed: true, ThreadState: state, Update: store.Update{PlatformUpdateID: id, Chat: chat, Thread: th, Sender: "1", Kind: 1}}}
		if _, err := e.h.Intake().Ingest(ctx, "telegram", batch, nil); err != nil {
			t.Fatal(err)
		}
	}
	waitClosed := func(closed bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for e.binding("manual:a").ThreadClosed.IsZero() == closed {
			if time.Now().After(deadline) {
				t.Fatalf("the thread never became closed=%v", closed)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	push(1, ThreadClosedByPerson)
	waitClosed(true)
	e.provs.mu.Lock()
	e.provs.during = func() { panic("the provider's answer made no sense") }
	e.provs.mu.Unlock()
	push(2, ThreadUnchanged) // a person writes in the closed thread: the reopen panics
	push(3, ThreadOpened)    // the next change is still applied
	waitClosed(false)
}
