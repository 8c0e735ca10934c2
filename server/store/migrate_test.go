package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// TestMigrateSchema1: a state file written by the previous schema (numeric
// chat and thread ids; testdata/schema1.db holds a binding on Telegram
// topic -1001234/42 with two journalled updates, one unrouted update,
// cursor 103, slot A and a sent message 555 with file BQ-file) opens, is
// migrated once, and everything in it is found under the ids as text.
func TestMigrateSchema1(t *testing.T) {
	src, err := os.ReadFile("testdata/schema1.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the second open finds schema 2 and changes nothing
		s := openAt(t, path, Options{})
		tg := Target{Provider: "telegram", Chat: "-1001234", Thread: "42"}
		b, err := s.BindingByTarget(tg)
		if err != nil || b.Key != "manual:1" || b.Target != tg || b.Slot != "A" {
			t.Fatalf("round %d: BindingByTarget = %+v, %v", round, b, err)
		}
		ups := readAll(t, s, "manual:1")
		if len(ups) != 2 || ups[0].Chat != "-1001234" || ups[0].Thread != "42" || ups[0].Sender != "7" || ups[0].Text != "one" || ups[1].Seq != 2 {
			t.Fatalf("round %d: journal = %+v", round, ups)
		}
		un, err := s.ListUnrouted(0)
		if err != nil || len(un) != 1 || un[0].Chat != "-1001234" || un[0].Thread != "" {
			t.Fatalf("round %d: unrouted = %+v, %v", round, un, err)
		}
		if c, err := s.Cursor("telegram"); err != nil || string(c) != "103" {
			t.Fatalf("round %d: cursor = %q, %v", round, c, err)
		}
		if c, err := s.SlotCursor("telegram", ""); err != nil || c != "A" {
			t.Fatalf("round %d: slot cursor = %q, %v", round, c, err)
		}
		refs, err := s.Sent(tg)
		want := []Ref{{RefMessage, "555"}, {RefFile, "BQ-file"}}
		if round == 1 {
			want = append(want, Ref{RefMessage, "556"})
		}
		if err != nil || !slices.Equal(refs, want) {
			t.Fatalf("round %d: sent = %v, %v; want %v", round, refs, err, want)
		}
		if round == 0 {
			// De-duplication still knows the ids journalled before: a
			// redelivery of update 101 is stored once.
			again := Update{BindingKey: "manual:1", PlatformUpdateID: 101, DedupID: "101", Chat: "-1001234", Thread: "42", Text: "two"}
			out, err := s.Append(context.Background(), "telegram", []Update{again}, cur(103))
			if err != nil || len(out) != 0 {
				t.Fatalf("redelivered update after migration: %+v, %v", out, err)
			}
			if err := <-s.RememberSent(tg, []Ref{{RefMessage, "556"}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMigrateSchema2: a state file whose journal is still in bbolt
// (testdata/schema2.db: binding manual:1 on telegram topic -1001234/42 with
// updates u1…u6, MaxCount 4 so u1 and u2 were dropped, acked through seq 3,
// so seqs 4–6 are pending; u200 unrouted from telegram, s1 unrouted from
// slack; telegram's cursor "cursor-206"; a handoff, a sent message 555, a
// queued call k1) opens at schema 3 with the journal moved out once:
// the same seqs, acks, drop count, cursor and de-duplication window. A
// move cut short by a crash (the journal directory written, bbolt still at
// schema 2) starts over.
func TestMigrateSchema2(t *testing.T) {
	src, err := os.ReadFile("testdata/schema2.db")
	if err != nil {
		t.Fatal(err)
	}
	copyOld := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "state.db")
		if err := os.WriteFile(path, src, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// The file's clock: its updates are not past the age bound yet.
	opts := Options{Now: newClock().Now}
	check := func(t *testing.T, s *Bolt, round int) {
		t.Helper()
		ups := readAll(t, s, "manual:1")
		if !slices.Equal(seqs(ups), []uint64{4, 5, 6}) || ups[0].Text != "text 4" || ups[0].DedupID != "u4" ||
			ups[0].SenderName != "Ann" || !slices.Equal(ups[0].Refs, []Ref{{RefMessage, "m4"}}) || string(ups[0].Payload) != `{"x":1}` {
			t.Fatalf("round %d: journal of manual:1 = %+v", round, ups)
		}
		st, _ := s.Stats("manual:1")
		if st.AckedThrough != 3 || st.LastSeq != 6 || st.Dropped != 2 || st.Pending != 3 {
			t.Errorf("round %d: stats %+v", round, st)
		}
		un, _ := s.ListUnrouted(0)
		if len(un) != 2 || un[0].Text != "unrouted" || un[0].Provider != "telegram" || un[1].Provider != "slack" || un[1].Seq != 2 {
			t.Errorf("round %d: unrouted = %+v", round, un)
		}
		if c, _ := s.Cursor("telegram"); string(c) != "cursor-206" {
			t.Errorf("round %d: cursor %q", round, c)
		}
		if c, _ := s.Cursor("slack"); c != nil {
			t.Errorf("round %d: slack cursor %q, want none", round, c)
		}
		if key, err := s.TakeHandoff("tok", time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC)); round == 0 && (err != nil || key != "manual:1") {
			t.Errorf("handoff: %q, %v", key, err)
		}
		if c, err := s.GetCall("manual:1", "k1"); err != nil || c.State != CallQueued {
			t.Errorf("call record: %+v, %v", c, err)
		}
		tg := Target{Provider: "telegram", Chat: "-1001234", Thread: "42"}
		if refs, _ := s.Sent(tg); !slices.Equal(refs, []Ref{{RefMessage, "555"}}) {
			t.Errorf("sent = %v", refs)
		}
	}
	t.Run("once", func(t *testing.T) {
		path := copyOld(t)
		for round := range 2 {
			s := openAt(t, path, opts)
			check(t, s, round)
			if round == 0 {
				// u5 is pending, u1 was dropped: both are remembered.
				again := []Update{{BindingKey: "manual:1", DedupID: "u5", Chat: "-1001234", Thread: "42"},
					{BindingKey: "manual:1", DedupID: "u1", Chat: "-1001234", Thread: "42"}}
				if out, err := s.Append(context.Background(), "telegram", again, nil); err != nil || len(out) != 0 {
					t.Fatalf("redelivered updates after the move: %+v, %v", out, err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_ = db.View(func(tx *bbolt.Tx) error {
			if v := getU64(tx.Bucket(bMeta).Get(kSchema)); v != 3 {
				t.Errorf("schema %d after the move, want 3", v)
			}
			for _, name := range oldTopLevels {
				if tx.Bucket(name) != nil {
					t.Errorf("bucket %q is still there", name)
				}
			}
			return nil
		})
	})
	t.Run("cut short", func(t *testing.T) {
		// A finished move's journal directory, beside a file still at
		// schema 2: what a crash after the journal's commits and before
		// bbolt's leaves (plus the appends of the finished one).
		done := copyOld(t)
		s := openAt(t, done, opts)
		mustAppend(t, s, "telegram", 0, Update{BindingKey: "manual:1", DedupID: "extra", Chat: "-1001234", Thread: "42"})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		path := copyOld(t)
		if err := os.Rename(journalDir(done), journalDir(path)); err != nil {
			t.Fatal(err)
		}
		s = openAt(t, path, opts)
		check(t, s, 0)
	})
}

// TestOrphanedJournalDeleted: records under a key no binding names (a
// DeleteBinding cut short between its bbolt and journal steps) are deleted
// at Open, and never reach a later binding of the same key.
func TestOrphanedJournalDeleted(t *testing.T) {
	s, path := newStore(t, Options{})
	putBinding(t, s, "x", Target{"telegram", "-100", "9"})
	mustAppend(t, s, "telegram", 0, upd("x", 1, "old"), upd("x", 2, "old"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bBindings).Delete([]byte("x")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	drops := &dropLog{}
	s = openAt(t, path, Options{OnDrop: drops.OnDrop})
	if st, _ := s.Stats("x"); st.Pending != 0 || st.LastSeq != 2 {
		t.Errorf("orphaned journal after Open: %+v", st)
	}
	if got := drops.Take(); !slices.Equal(got, []dropCall{{Key: "x", N: 2, Reason: DropBindingDeleted}}) {
		t.Errorf("OnDrop calls = %v", got)
	}
	putBinding(t, s, "x", Target{"telegram", "-100", "9"})
	out := mustAppend(t, s, "telegram", 0, upd("x", 3, "new"))
	if got := readAll(t, s, "x"); len(got) != 1 || got[0].Text != "new" || out[0].Seq != 3 {
		t.Errorf("the new binding x holds %+v", got)
	}
}
