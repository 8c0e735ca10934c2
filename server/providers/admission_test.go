package providers

import (
	"testing"
)

// TestAdmissionRestart: the admission is the one owner of "a restart is
// under way" and its one guard. A claim alone leaves calls admitted (the
// doctor is still observing the owner); the hold closes admission and
// wakes its waiters; a second claim is refused with the first one's
// request id while the first is under way, in either phase; only the
// restart under way may hold or end; its end reopens admission.
func TestAdmissionRestart(t *testing.T) {
	type step struct {
		name     string
		do       func(a *admission) (busy string, err error)
		wantBusy string
		wantErr  bool
		wantOpen bool
		woken    bool // the waiters of the state before the step are woken
	}
	begin := func(id string) func(*admission) (string, error) {
		return func(a *admission) (string, error) { return a.beginRestart(id), nil }
	}
	hold := func(id string) func(*admission) (string, error) {
		return func(a *admission) (string, error) { return "", a.holdCalls(id) }
	}
	end := func(id string) func(*admission) (string, error) {
		return func(a *admission) (string, error) { a.endRestart(id); return "", nil }
	}
	steps := []step{
		{name: "claimed: calls still admitted", do: begin("r1"), wantOpen: true},
		{name: "a second claim is refused, naming the first", do: begin("r2"), wantBusy: "r1", wantOpen: true},
		{name: "another restart cannot hold the calls", do: hold("r2"), wantErr: true, wantOpen: true},
		{name: "the restart under way holds them", do: hold("r1"), wantOpen: false, woken: true},
		{name: "still one at a time while holding", do: begin("r2"), wantBusy: "r1", wantOpen: false},
		{name: "another restart cannot end it", do: end("r2"), wantOpen: false},
		{name: "its end reopens admission", do: end("r1"), wantOpen: true, woken: true},
		{name: "then another may begin", do: begin("r2"), wantOpen: true},
		{name: "ending a claim that never held wakes nobody", do: end("r2"), wantOpen: true},
	}
	a := newAdmission()
	a.setChild(true, true)
	for _, s := range steps {
		_, before := a.state()
		busy, err := s.do(a)
		open, _ := a.state()
		woken := false
		select {
		case <-before:
			woken = true
		default:
		}
		if busy != s.wantBusy || (err != nil) != s.wantErr || open != s.wantOpen || woken != s.woken {
			t.Errorf("%s: busy %q, err %v, open %v, woken %v; want busy %q, error %v, open %v, woken %v",
				s.name, busy, err, open, woken, s.wantBusy, s.wantErr, s.wantOpen, s.woken)
		}
		if got := a.holdingCalls(); got != !s.wantOpen {
			t.Errorf("%s: holdingCalls %v", s.name, got)
		}
	}
}
