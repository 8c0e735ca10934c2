package storetest

import (
	"slices"
	"testing"

	"github.com/chatbus/chatbus/server/store"
)

// claim: a binding written with a thread takes the updates written
// in that thread while no binding owned it, after its own and before
// those appended later, in their order; the others stay unrouted; an
// update the caller routed before the binding was written goes to it.
func claim(t *testing.T, bk Backend) {
	s, reopen := bk.Open(t, Options{})
	putBinding(t, s, "x", store.Target{Provider: "alpha", Chat: "-100", Thread: "7"})
	mustAppend(t, s, "alpha", 0, upd("x", 1, "x's"), in("8", 2, "a1"), in("9", 3, "b1"), in("8", 4, "a2"))
	wantJournal(t, s, "", 1, "a1", "b1", "a2")

	// x is given thread 8 (its own was deleted): a1 and a2 follow its own.
	if err := s.PutBinding(store.Binding{Key: "x", Status: store.StatusActive, Target: store.Target{Provider: "alpha", Chat: "-100", Thread: "8"}, OwnerKind: store.OwnerManualFollower}); err != nil {
		t.Fatal(err)
	}
	wantJournal(t, s, "x", 1, "x's", "a1", "a2")
	wantUnrouted(t, s, 0, "b1")
	// The caller still routes thread 8 to no binding: it goes to x.
	// Thread 7 has no owner now: what the caller routes to x there goes to
	// x, the rest is unrouted.
	out := mustAppend(t, s, "alpha", 0, in("8", 5, "a3"), upd("x", 6, "x's old thread"), in("7", 7, "unrouted"))
	if k := routes(out); !slices.Equal(k, []string{"x", "x", ""}) || !slices.Equal(seqs(out)[:2], []uint64{4, 5}) || out[2].Seq <= 3 {
		t.Errorf("Append after the claim went to %q seqs %v", k, seqs(out))
	}
	// A new binding of thread 9 takes b1; a write that changes nothing
	// else claims nothing more.
	putBinding(t, s, "y", store.Target{Provider: "alpha", Chat: "-100", Thread: "9"})
	putBinding(t, s, "y", store.Target{Provider: "alpha", Chat: "-100", Thread: "9"})
	wantJournal(t, s, "y", 1, "b1")
	wantUnrouted(t, s, 3, "unrouted")
	if st, _ := s.UnroutedStats(); st.Pending != 1 || st.Dropped != 0 {
		t.Errorf("UnroutedStats %+v, want 1 pending, none dropped", st)
	}
	// Redelivered by the platform: still de-duplicated.
	if out := mustAppend(t, s, "alpha", 0, in("8", 2, "a1 again"), in("9", 3, "b1 again")); len(out) != 0 {
		t.Errorf("redelivered updates stored again: %+v", out)
	}

	s = reopen()
	wantJournal(t, s, "x", 1, "x's", "a1", "a2", "a3", "x's old thread")
	wantJournal(t, s, "y", 1, "b1")
	wantUnrouted(t, s, 3, "unrouted")
}

// wantUnrouted checks the unrouted set's pending updates: their texts,
// and seqs increasing above after. (Which seqs the updates left behind by
// a claim keep is the backend's: Bolt writes them again, etcdstore keeps
// theirs.)
func wantUnrouted(t *testing.T, s store.Store, after uint64, want ...string) {
	t.Helper()
	got := readAll(t, s, "")
	last := after
	for _, u := range got {
		if u.Seq <= last {
			t.Errorf("the unrouted journal holds seqs %v, want them increasing above %d", seqs(got), after)
			break
		}
		last = u.Seq
	}
	if !slices.Equal(texts(got), want) {
		t.Errorf("the unrouted journal holds %q, want %q", texts(got), want)
	}
}
