package registry

import (
	"errors"
	"github.com/chatbus/chatbus/internal/testkit"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/server/events"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fakeClock = testkit.Clock

func newTestRegistry(t *testing.T, max int) (*Registry, *fakeClock, *events.Watcher) {
	clock := testkit.NewClock(time.Unix(1000, 0))
	hub := events.NewHub(zerolog.Nop())
	w := hub.Watch(false)
	t.Cleanup(w.Close)
	return New(Config{StaleAfter: 5 * time.Second, MaxFollowers: max, Events: hub, Now: clock.Now}), clock, w
}

func TestTouch(t *testing.T) {
	r, _, _ := newTestRegistry(t, 0)
	a, _, _ := r.Register(Info{InstanceID: "a", PID: 1})
	b, _, _ := r.Register(Info{InstanceID: "b", PID: 2})
	tests := []struct {
		name     string
		instance string
		token    string
		want     error
	}{
		{name: "own token", instance: "a", token: a.Token},
		{name: "foreign token", instance: "a", token: b.Token, want: ErrForeignSession},
		{name: "unknown token", instance: "a", token: "nope", want: ErrSessionUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Touch(tt.instance, tt.token)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReplaceEndsOld(t *testing.T) {
	r, _, w := newTestRegistry(t, 0)
	old, _, _ := r.Register(Info{InstanceID: "a", PID: 1})
	neu, replaced, _ := r.Register(Info{InstanceID: "a", PID: 2})
	if replaced != old {
		t.Errorf("Register returned %v as replaced, want the old registration", replaced)
	}
	select {
	case <-old.Done():
	default:
		t.Fatal("old registration not ended")
	}
	if old.Ended() != Replaced {
		t.Errorf("ended %v, want replaced", old.Ended())
	}
	if _, err := r.Touch("a", old.Token); !errors.Is(err, ErrSessionUnknown) {
		t.Errorf("old token still works: %v", err)
	}
	if _, err := r.Touch("a", neu.Token); err != nil {
		t.Errorf("new token: %v", err)
	}
	if r.Len() != 1 {
		t.Errorf("len %d", r.Len())
	}
	var kinds []events.Kind
	for range 3 {
		kinds = append(kinds, (<-w.C()).Kind)
	}
	want := []events.Kind{events.FollowerRegistered, events.FollowerReplaced, events.FollowerRegistered}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("events %v, want %v", kinds, want)
		}
	}
}

func TestPrune(t *testing.T) {
	r, clock, w := newTestRegistry(t, 0)
	quiet, _, _ := r.Register(Info{InstanceID: "quiet"})
	chatty, _, _ := r.Register(Info{InstanceID: "chatty"})
	<-w.C()
	<-w.C()
	for range 6 {
		clock.Add(time.Second)
		if _, err := r.Touch("chatty", chatty.Token); err != nil {
			t.Fatal(err)
		}
		if pruned := r.Prune(); len(pruned) > 0 && (len(pruned) != 1 || pruned[0] != quiet) {
			t.Fatalf("pruned %v", pruned)
		}
	}
	if quiet.Ended() != Pruned || chatty.Ended() != Live {
		t.Fatalf("quiet %v chatty %v", quiet.Ended(), chatty.Ended())
	}
	if e := <-w.C(); e.Kind != events.FollowerPruned || e.InstanceID != "quiet" {
		t.Errorf("event %+v", e)
	}
}

func TestMaxFollowers(t *testing.T) {
	r, _, _ := newTestRegistry(t, 2)
	r.Register(Info{InstanceID: "a"})
	r.Register(Info{InstanceID: "b"})
	if _, _, err := r.Register(Info{InstanceID: "c"}); !errors.Is(err, ErrFull) {
		t.Errorf("third: %v", err)
	}
	if _, _, err := r.Register(Info{InstanceID: "a"}); err != nil {
		t.Errorf("replacing at the limit: %v", err)
	}
	if err := r.Admits("c"); !errors.Is(err, ErrFull) {
		t.Errorf("admits a third: %v", err)
	}
	if err := r.Admits("a"); err != nil {
		t.Errorf("admits a replacement at the limit: %v", err)
	}
}

// TestCloseAll: after shutdown a live session is told the supervisor is going
// away (retry, keep your thread), not that it is unknown (register afresh).
func TestCloseAll(t *testing.T) {
	r, _, _ := newTestRegistry(t, 0)
	f, _, err := r.Register(Info{InstanceID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if closed := r.CloseAll(); len(closed) != 1 || closed[0] != f {
		t.Errorf("CloseAll returned %v", closed)
	}
	if f.Ended() != Shutdown || !errors.Is(f.Err(), ErrShutdown) {
		t.Errorf("ended %v (%v), want shutdown", f.Ended(), f.Err())
	}
	if _, err := r.Touch("a", f.Token); !errors.Is(err, ErrShutdown) {
		t.Errorf("touch after close: %v, want ErrShutdown", err)
	}
	if _, _, err := r.Register(Info{InstanceID: "b"}); !errors.Is(err, ErrShutdown) {
		t.Errorf("register after close: %v, want ErrShutdown", err)
	}
	if err := r.Admits("b"); !errors.Is(err, ErrShutdown) {
		t.Errorf("admits after close: %v, want ErrShutdown", err)
	}
	if r.Len() != 0 {
		t.Errorf("len %d after close", r.Len())
	}
}

// TestBind: a binding has one live holder; binding it to another follower
// ends the first (TakenOver, told why), and an ended follower is not bound.
func TestBind(t *testing.T) {
	r, _, w := newTestRegistry(t, 0)
	a, _, _ := r.Register(Info{InstanceID: "a", ProfileKey: "manual:1"})
	b, _, _ := r.Register(Info{InstanceID: "b", ProfileKey: "manual:1"})
	<-w.C()
	<-w.C()
	if prev, err := r.Bind(a, "manual:1", "telegram", "unused"); prev != nil || err != nil {
		t.Fatalf("first Bind: %v, %v", prev, err)
	}
	if key, prov := a.Binding(); key != "manual:1" || prov != "telegram" || r.Holder("manual:1") != a {
		t.Fatalf("a holds %q on %q; holder %v", key, prov, r.Holder("manual:1"))
	}
	prev, err := r.Bind(b, "manual:1", "telegram", `profile key "manual:1" registered again by instance "b"`)
	if err != nil || prev != a || a.Ended() != TakenOver || r.Holder("manual:1") != b {
		t.Fatalf("second Bind: prev %v, %v; a %v; holder %v", prev, err, a.Ended(), r.Holder("manual:1"))
	}
	if !errors.Is(a.Err(), ErrTakenOver) || !strings.Contains(a.Err().Error(), `instance "b"`) {
		t.Errorf("a's end: %v", a.Err())
	}
	if e := <-w.C(); e.Kind != events.FollowerReplaced || e.InstanceID != "a" || !strings.Contains(e.Message, `instance "b"`) {
		t.Errorf("event %+v", e)
	}
	if _, err := r.Bind(a, "manual:2", "telegram", ""); !errors.Is(err, ErrSessionUnknown) {
		t.Errorf("binding an ended follower: %v", err)
	}
	if !r.Unregister(b) || r.Holder("manual:1") != nil || r.Unregister(b) {
		t.Errorf("after Unregister the binding still has a holder (or Unregister ended twice)")
	}
}

// TestDelivery: after Suspend nothing more may be sent, and the ack limit
// covers what was (or may have been) sent.
func TestDelivery(t *testing.T) {
	var d Delivery
	if !d.Sending(1) {
		t.Fatal("sending before Suspend refused")
	}
	d.Sent(1)
	if !d.Sending(2) {
		t.Fatal("sending before Suspend refused")
	}
	d.Suspend() // while 2 is being sent
	d.Sent(2)
	if d.Sending(3) || !d.Suspended() || d.AckLimit() != 2 {
		t.Errorf("after Suspend: sending 3 allowed=%v, suspended=%v, ack limit %d (want 2)", !d.Suspended(), d.Suspended(), d.AckLimit())
	}
	select {
	case <-d.SuspendedC():
	default:
		t.Error("SuspendedC not closed")
	}
	d.Suspend() // twice is fine
}
