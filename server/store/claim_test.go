package store

import (
	"errors"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/chatbus/chatbus/server/journal/vfs"
	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
)

// in is upd in thread th, routed as the caller saw it: to no binding.
func in(th string, id int64, text string) Update {
	u := upd("", id, text)
	u.Thread = th
	return u
}

func texts(ups []Update) []string {
	out := []string{}
	for _, u := range ups {
		out = append(out, u.Text)
	}
	return out
}

func routes(ups []Update) []string {
	out := []string{}
	for _, u := range ups {
		out = append(out, u.BindingKey)
	}
	return out
}

// wantJournal checks key's pending updates: their texts, and seqs from
// first on.
func wantJournal(t *testing.T, s Store, key string, first uint64, want ...string) {
	t.Helper()
	got := readAll(t, s, key)
	wantSeqs := []uint64{}
	for i := range want {
		wantSeqs = append(wantSeqs, first+uint64(i))
	}
	if !slices.Equal(texts(got), want) || !slices.Equal(seqs(got), wantSeqs) {
		t.Errorf("%s holds %q seqs %v, want %q seqs %v", journalName(key), texts(got), seqs(got), want, wantSeqs)
	}
}

// TestClaim: a binding written with a thread takes the updates written
// in that thread while no binding owned it, after its own and before
// those appended later, in their order; the others stay unrouted; an
// update the caller routed before the binding was written goes to it.
func TestClaim(t *testing.T) {
	s, path := newStore(t, Options{})
	putBinding(t, s, "x", Target{"telegram", "-100", "7"})
	mustAppend(t, s, "telegram", 0, upd("x", 1, "x's"), in("8", 2, "a1"), in("9", 3, "b1"), in("8", 4, "a2"))
	wantJournal(t, s, "", 1, "a1", "b1", "a2")

	// x is given thread 8 (its own was deleted): a1 and a2 follow its own.
	if err := s.PutBinding(Binding{Key: "x", Status: StatusActive, Target: Target{"telegram", "-100", "8"}, OwnerKind: OwnerManualFollower}); err != nil {
		t.Fatal(err)
	}
	wantJournal(t, s, "x", 1, "x's", "a1", "a2")
	wantJournal(t, s, "", 4, "b1")
	// The caller still routes thread 8 to no binding: it goes to x.
	// Thread 7 has no owner now: what the caller routes to x there goes to
	// x, the rest is unrouted.
	out := mustAppend(t, s, "telegram", 0, in("8", 5, "a3"), upd("x", 6, "x's old thread"), in("7", 7, "unrouted"))
	if k := routes(out); !slices.Equal(k, []string{"x", "x", ""}) || !slices.Equal(seqs(out), []uint64{4, 5, 5}) {
		t.Errorf("Append after the claim went to %q seqs %v", k, seqs(out))
	}
	// A new binding of thread 9 takes b1; a write that changes nothing
	// else claims nothing more.
	putBinding(t, s, "y", Target{"telegram", "-100", "9"})
	putBinding(t, s, "y", Target{"telegram", "-100", "9"})
	wantJournal(t, s, "y", 1, "b1")
	wantJournal(t, s, "", 6, "unrouted") // written again when b1 left
	if st, _ := s.UnroutedStats(); st.Pending != 1 || st.Dropped != 0 {
		t.Errorf("UnroutedStats %+v, want 1 pending, none dropped", st)
	}
	// Redelivered by the platform: still de-duplicated.
	if out := mustAppend(t, s, "telegram", 0, in("8", 2, "a1 again"), in("9", 3, "b1 again")); len(out) != 0 {
		t.Errorf("redelivered updates stored again: %+v", out)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, Options{})
	wantJournal(t, s, "x", 1, "x's", "a1", "a2", "a3", "x's old thread")
	wantJournal(t, s, "y", 1, "b1")
	wantJournal(t, s, "", 6, "unrouted") // written again when b1 left
}

// TestClaimCutShort: the binding is committed but the claim's journal
// commit fails (as a crash between the two would leave it): PutBinding
// says so, and the next Open claims the updates, once, however often it
// is opened.
func TestClaimCutShort(t *testing.T) {
	var fail atomic.Bool
	fs := faultfs.New(vfs.Default, func(op faultfs.Op, run func() error) error {
		if fail.Load() && op.Kind == faultfs.WritevAt {
			return errors.New("injected: the disk refuses the write")
		}
		return run()
	})
	path := filepath.Join(t.TempDir(), "state.db")
	s := openAt(t, path, Options{JournalFS: fs})
	mustAppend(t, s, "telegram", 0, in("8", 1, "a1"), in("9", 2, "b1"), in("8", 3, "a2"))
	fail.Store(true)
	err := s.PutBinding(Binding{Key: "x", Status: StatusActive, Target: Target{"telegram", "-100", "8"}, OwnerKind: OwnerManualFollower})
	if err == nil {
		t.Fatal("PutBinding with the journal refusing writes: no error")
	}
	if b, gerr := s.GetBinding("x"); gerr != nil || b.Target.Thread != "8" {
		t.Fatalf("binding after the failed claim: %+v %v (PutBinding: %v), want it written", b, gerr, err)
	}
	_ = s.Close() // the journal failed: its error is no news
	fail.Store(false)

	for range 2 {
		s = openAt(t, path, Options{JournalFS: fs})
		wantJournal(t, s, "x", 1, "a1", "a2")
		wantJournal(t, s, "", 4, "b1")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s = openAt(t, path, Options{})
	if out := mustAppend(t, s, "telegram", 0, in("8", 4, "a3")); len(out) != 1 || out[0].BindingKey != "x" || out[0].Seq != 3 {
		t.Errorf("Append after reopening: %+v, want x's seq 3", out)
	}
}
