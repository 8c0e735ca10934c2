package hub

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestRetiredBindingKeepsItsUpdates: a follower that does not come back
// within the grace after a restart has its binding retired by
// reconciliation; what a person writes in its thread meanwhile, and while
// the follower registers again (its thread being reopened, renamed or
// replaced), reaches it when it comes back: nothing is unrouted. It comes
// back to its own thread (REUSE), whatever happened to the thread while
// it was away, and can still answer the messages held for it and edit
// what it sent before.
func TestRetiredBindingKeepsItsUpdates(t *testing.T) {
	tests := []struct {
		name    string
		closed  bool // its thread was closed while it was offline
		deleted bool // and/or deleted by a person
	}{
		{name: "thread open"},
		{name: "thread closed while offline", closed: true},
		{name: "thread deleted while offline", deleted: true},
		{name: "thread closed, then deleted", closed: true, deleted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, c := restarts(t)
			first := start()
			a := first.register("a-1", "manual:a", "")
			thread := a.Binding.Target.Thread
			if _, err := first.h.Call(context.Background(), a.Follower, "sendMessage", []byte(`{"text":"working…"}`), ""); err != nil {
				t.Fatal(err) // the platform answers message 777
			}
			first.close() // the supervisor dies; the follower does not come back in time

			c.Add(time.Minute)
			second := start()
			c.Add(5 * time.Second)
			if n, err := second.h.Reconcile(); err != nil || n != 1 {
				t.Fatalf("reconcile: %d %v, want 1 retired", n, err)
			}
			second.ingest(1, thread, "while offline")
			if tt.closed {
				c.Add(DefaultCloseOfflineAfter)
				if n, err := second.h.closeOffline(context.Background()); err != nil || n != 1 {
					t.Fatalf("closing the offline thread: %d %v", n, err)
				}
			}
			if tt.deleted {
				second.provs.mu.Lock()
				second.provs.gone = map[string]bool{thread: true}
				second.provs.mu.Unlock()
			}

			// A person writes while the follower registers again: during
			// the provisioning of its thread if there is one, else
			// right after.
			wrote := false
			second.provs.during = func() {
				if !wrote {
					wrote = true
					second.ingest(2, thread, "while it comes back")
				}
			}
			back := second.register("a-2", "manual:a", "")
			second.provs.during = nil
			if !wrote {
				second.ingest(2, thread, "while it comes back")
			}
			if back.Origin != OriginReuse {
				t.Errorf("came back with %v, want REUSE of its parked thread", back.Origin)
			}
			if st, _ := second.st.UnroutedStats(); st.Pending != 0 {
				un, _ := second.st.ListUnrouted(0)
				t.Fatalf("%d update(s) unrouted: %+v", st.Pending, un)
			}
			got := collect(t, second.h, back.Follower, 0, 2)
			if got[0].Text != "while offline" || got[1].Text != "while it comes back" || got[0].Seq != 1 || got[1].Seq != 2 {
				t.Errorf("got %q seq %d, %q seq %d; want both, in order", got[0].Text, got[0].Seq, got[1].Text, got[1].Seq)
			}
			if tt.deleted {
				return // its thread is new: nothing of the old one is in scope
			}
			for _, call := range []string{
				`{"text":"re","reply_parameters":{"message_id":1}}`,   // a held message
				`{"text":"re","reply_parameters":{"message_id":777}}`, // what it sent before
			} {
				if _, err := second.h.Call(context.Background(), back.Follower, "sendMessage", []byte(call), ""); err != nil {
					t.Errorf("sendMessage %s: %v", call, err)
				}
			}
		})
	}
}

// TestRetiredThreadTakenOver: a retired binding's thread goes to a fresh
// follower that comes first (it is the newcomer's now, with what the
// person writes there from then on); the retired profile coming back gets
// a new thread and what was written for it before the takeover.
func TestRetiredThreadTakenOver(t *testing.T) {
	start, c := restarts(t)
	first := start()
	a := first.register("a-1", "manual:a", "")
	if _, err := first.h.Call(context.Background(), a.Follower, "sendMessage", []byte(`{"text":"working…"}`), ""); err != nil {
		t.Fatal(err)
	}
	first.close()
	c.Add(time.Minute)
	second := start()
	c.Add(5 * time.Second)
	if _, err := second.h.Reconcile(); err != nil {
		t.Fatal(err)
	}
	second.ingest(1, a.Binding.Target.Thread, "for a")
	taker := second.register("n-1", "manual:newcomer", "")
	if taker.Origin != OriginFresh || taker.Binding.Target != a.Binding.Target {
		t.Fatalf("newcomer %v %+v, want the retired thread %+v", taker.Origin, taker.Binding.Target, a.Binding.Target)
	}
	second.ingest(2, a.Binding.Target.Thread, "for the newcomer")
	if msgs, _ := second.st.Sent(a.Binding.Target); msgs != nil {
		t.Errorf("the thread still remembers what the retired session sent: %v", msgs)
	}
	if _, err := second.h.Call(context.Background(), taker.Follower, "editMessageText", []byte(`{"message_id":777,"text":"x"}`), ""); !errors.Is(err, ErrOutOfScope) {
		t.Errorf("the newcomer edits the retired session's message: %v, want ErrOutOfScope", err)
	}
	back := second.register("a-2", "manual:a", "")
	if back.Origin != OriginFresh || back.Binding.Target == a.Binding.Target || back.Binding.Target.IsZero() {
		t.Fatalf("came back with %v %+v, want a new thread", back.Origin, back.Binding.Target)
	}
	second.ingest(3, back.Binding.Target.Thread, "in its new thread")
	for _, w := range []struct {
		f    Registration
		want []string
	}{{back, []string{"for a", "in its new thread"}}, {taker, []string{"for the newcomer"}}} {
		got := collect(t, second.h, w.f.Follower, 0, len(w.want))
		for i := range w.want {
			if got[i].Text != w.want[i] {
				t.Errorf("%s got %q, want %q", w.f.Binding.Key, fmt.Sprint(got), w.want)
				break
			}
		}
	}
}
