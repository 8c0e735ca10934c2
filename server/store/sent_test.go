package store

import (
	"errors"
	"slices"
	"strconv"
	"testing"
)

func remember(t *testing.T, s *Bolt, tg Target, msgs []int64, files []string) {
	t.Helper()
	if err := <-s.RememberSent(tg, toRefs(msgs, files)); err != nil {
		t.Fatalf("RememberSent %v: %v", tg, err)
	}
}

func toRefs(msgs []int64, files []string) []Ref {
	var refs []Ref
	for _, m := range msgs {
		refs = append(refs, Ref{Kind: RefMessage, ID: strconv.FormatInt(m, 10)})
	}
	for _, f := range files {
		refs = append(refs, Ref{Kind: RefFile, ID: f})
	}
	return refs
}

func sentOf(t *testing.T, s *Bolt, tg Target) (msgs []int64, files []string) {
	t.Helper()
	refs, err := s.Sent(tg)
	if err != nil {
		t.Fatalf("Sent %v: %v", tg, err)
	}
	for _, r := range refs {
		switch r.Kind {
		case RefMessage:
			n, err := strconv.ParseInt(r.ID, 10, 64)
			if err != nil {
				t.Fatalf("Sent %v: message id %q", tg, r.ID)
			}
			msgs = append(msgs, n)
		case RefFile:
			files = append(files, r.ID)
		}
	}
	return msgs, files
}

// TestSent: what a thread's follower sent survives a reopen, per thread,
// bounded to the most recent MaxSent.
func TestSent(t *testing.T) {
	s, path := newStore(t, Options{MaxSent: 4})
	a, b := Target{"telegram", "-100", "7"}, Target{"telegram", "-100", "8"}
	if msgs, files := sentOf(t, s, a); msgs != nil || files != nil {
		t.Fatalf("before anything was sent: %v %v", msgs, files)
	}
	remember(t, s, a, []int64{1, 2}, nil)
	remember(t, s, a, []int64{3}, []string{"f-3", ""}) // an empty file id is no id
	remember(t, s, b, []int64{100}, nil)
	remember(t, s, a, []int64{4}, nil) // a holds 5 now: the oldest goes
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openAt(t, path, Options{MaxSent: 4})
	if msgs, files := sentOf(t, s, a); !slices.Equal(msgs, []int64{2, 3, 4}) || !slices.Equal(files, []string{"f-3"}) {
		t.Errorf("thread a after reopen: %v %v, want [2 3 4] [f-3]", msgs, files)
	}
	if msgs, _ := sentOf(t, s, b); !slices.Equal(msgs, []int64{100}) {
		t.Errorf("thread b: %v, want [100]", msgs)
	}
	if err := <-s.RememberSent(Target{}, toRefs([]int64{1}, nil)); !errors.Is(err, ErrInvalid) {
		t.Errorf("no target: %v, want ErrInvalid", err)
	}
}

// TestSentFollowsBinding: a binding that moves to another thread, or is
// deleted, leaves nothing remembered for the thread it left.
func TestSentFollowsBinding(t *testing.T) {
	s, _ := newStore(t, Options{})
	old, neu := Target{"telegram", "-100", "7"}, Target{"telegram", "-100", "9"}
	putBinding(t, s, "p", old)
	remember(t, s, old, []int64{1}, nil)
	putBinding(t, s, "p", old) // the same thread again: kept
	if msgs, _ := sentOf(t, s, old); len(msgs) != 1 {
		t.Fatalf("rewriting the binding lost its thread's ids: %v", msgs)
	}
	putBinding(t, s, "p", neu)
	if msgs, _ := sentOf(t, s, old); msgs != nil {
		t.Errorf("the thread left behind still has %v", msgs)
	}
	remember(t, s, neu, []int64{2}, nil)
	if err := s.DeleteBinding("p"); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := sentOf(t, s, neu); msgs != nil {
		t.Errorf("a deleted binding's thread still has %v", msgs)
	}
}

// TestRememberSentAfterClose: a closed store refuses, and says so.
func TestRememberSentAfterClose(t *testing.T) {
	s, _ := newStore(t, Options{})
	s.Close()
	if err := <-s.RememberSent(Target{"telegram", "-100", "7"}, toRefs([]int64{1}, nil)); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}
