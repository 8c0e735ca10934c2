package store

import (
	"context"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// storedBinding reads key's record as the file holds it, without the
// held holder changes.
func storedBinding(t *testing.T, s *Bolt, key string) Binding {
	t.Helper()
	var b Binding
	if err := s.db.View(func(tx *bbolt.Tx) error {
		var err error
		b, err = decodeBinding(tx.Bucket(bBindings).Get([]byte(key)))
		return err
	}); err != nil {
		t.Fatalf("read the stored record of %q: %v", key, err)
	}
	return b
}

// TestHolderChangeIsHeld: a PutBinding that changes only the holder
// (InstanceID, Updated) makes no transaction, and every read sees it at
// once; any other change is written before PutBinding returns.
func TestHolderChangeIsHeld(t *testing.T) {
	tg := Target{"telegram", "-100", "7"}
	base := Binding{Key: "k", OwnerKind: OwnerManualFollower, InstanceID: "1:1", Target: tg, Slot: "A",
		ThreadName: "repo", Status: StatusActive, LastAction: ActionRegisterReuse}
	tests := []struct {
		name   string
		change func(b *Binding)
		held   bool
	}{
		{name: "new instance", change: func(b *Binding) { b.InstanceID = "2:2" }, held: true},
		{name: "new instance, Created left zero", change: func(b *Binding) { b.InstanceID, b.Created = "2:2", time.Time{} }, held: true},
		{name: "same instance again", change: func(*Binding) {}, held: true},
		{name: "status", change: func(b *Binding) { b.InstanceID, b.Status = "2:2", StatusOffline }},
		{name: "last action", change: func(b *Binding) { b.InstanceID, b.LastAction = "2:2", ActionSessionHandoff }},
		{name: "last error cleared", change: func(b *Binding) { b.LastError = "" }},
		{name: "thread closed", change: func(b *Binding) { b.ThreadClosed = time.Unix(1e9, 0) }},
		{name: "thread name", change: func(b *Binding) { b.InstanceID, b.ThreadName = "2:2", "other" }},
		{name: "slot", change: func(b *Binding) { b.Slot = "B" }},
		{name: "thread", change: func(b *Binding) { b.InstanceID, b.Target.Thread = "2:2", "8" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			s, _ := newStore(t, Options{Now: clk.Now, HolderDelay: time.Hour})
			first := base
			if tc.name == "last error cleared" {
				first.LastError = "was failing"
			}
			if err := s.PutBinding(first); err != nil {
				t.Fatal(err)
			}
			clk.Add(time.Minute)
			b, err := s.GetBinding("k")
			if err != nil {
				t.Fatal(err)
			}
			tc.change(&b)
			b.Updated = time.Time{} // set by the store: now
			txs0, _ := s.CommitStats()
			if err := s.PutBinding(b); err != nil {
				t.Fatal(err)
			}
			txs, _ := s.CommitStats()
			if held := txs == txs0; held != tc.held {
				t.Errorf("held in memory = %v (%d transactions), want %v", held, txs-txs0, tc.held)
			}
			// Every read sees the write, whether held or written.
			got, err := s.GetBinding("k")
			if err != nil {
				t.Fatal(err)
			}
			if got.InstanceID != b.InstanceID || !got.Updated.Equal(clk.Now()) || got.Status != b.Status || got.Target != b.Target {
				t.Errorf("GetBinding = %+v, want %+v updated %v", got, b, clk.Now())
			}
			if byT, err := s.BindingByTarget(b.Target); err != nil || byT.InstanceID != b.InstanceID {
				t.Errorf("BindingByTarget = %+v, %v; want instance %q", byT, err, b.InstanceID)
			}
			if all, err := s.ListBindings(); err != nil || len(all) != 1 || all[0].InstanceID != b.InstanceID || !all[0].Updated.Equal(clk.Now()) {
				t.Errorf("ListBindings = %+v, %v; want instance %q", all, err, b.InstanceID)
			}
			stored := storedBinding(t, s, "k")
			if tc.held && stored.InstanceID != first.InstanceID {
				t.Errorf("the file holds instance %q before the holder was written; want the last written %q", stored.InstanceID, first.InstanceID)
			}
			if !tc.held && stored.InstanceID != b.InstanceID {
				t.Errorf("the file holds instance %q after a written change; want %q", stored.InstanceID, b.InstanceID)
			}
		})
	}
}

// TestHolderWritten: a held holder is written within HolderDelay, at
// Close, and a later write of the binding replaces it.
func TestHolderWritten(t *testing.T) {
	tg := Target{"telegram", "-100", "7"}
	base := Binding{Key: "k", OwnerKind: OwnerManualFollower, InstanceID: "1:1", Target: tg, Status: StatusActive}
	// holdSecond writes base, then puts its holder change to instance
	// 2:2 (held), and returns the binding as put.
	holdSecond := func(t *testing.T, s *Bolt) Binding {
		t.Helper()
		if err := s.PutBinding(base); err != nil {
			t.Fatal(err)
		}
		b := base
		b.InstanceID = "2:2"
		if err := s.PutBinding(b); err != nil {
			t.Fatal(err)
		}
		return b
	}

	t.Run("within HolderDelay", func(t *testing.T) {
		commits := make(chan int, 16)
		s, _ := newStore(t, Options{HolderDelay: time.Millisecond, OnCommit: func(n int, _ time.Duration, err error) {
			if err == nil {
				commits <- n
			}
		}})
		holdSecond(t, s)
		<-commits // base's
		<-commits // the timer's transaction
		if got := storedBinding(t, s, "k"); got.InstanceID != "2:2" {
			t.Errorf("the file holds instance %q after the delay's write, want 2:2", got.InstanceID)
		}
	})

	t.Run("at Close", func(t *testing.T) {
		s, path := newStore(t, Options{HolderDelay: time.Hour})
		holdSecond(t, s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openAt(t, path, Options{})
		if got, err := s.GetBinding("k"); err != nil || got.InstanceID != "2:2" {
			t.Errorf("after Close and Open: %+v, %v; want instance 2:2", got, err)
		}
	})

	t.Run("replaced by a later write", func(t *testing.T) {
		s, path := newStore(t, Options{HolderDelay: time.Hour})
		b := holdSecond(t, s)
		b.InstanceID, b.Status, b.LastAction = "", StatusOffline, ActionRealityOffline
		if err := s.PutBinding(b); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.GetBinding("k"); got.InstanceID != "" || got.Status != StatusOffline {
			t.Errorf("after the later write: %+v, want it as written", got)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openAt(t, path, Options{})
		if got, _ := s.GetBinding("k"); got.InstanceID != "" || got.Status != StatusOffline {
			t.Errorf("after Close and Open: %+v; the held holder must not come back over the later write", got)
		}
	})

	t.Run("deleted", func(t *testing.T) {
		s, path := newStore(t, Options{HolderDelay: time.Hour})
		holdSecond(t, s)
		if err := s.DeleteBinding("k"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openAt(t, path, Options{})
		if got, err := s.GetBinding("k"); err == nil {
			t.Errorf("deleted binding came back: %+v", got)
		}
	})
}

// TestHolderReadDuringWrite: a read while a write of the binding is in
// its transaction sees the held holder on the record as it was; a read
// after that write committed sees the record as written, even before
// the held change is dropped.
func TestHolderReadDuringWrite(t *testing.T) {
	tg := Target{"telegram", "-100", "7"}
	base := Binding{Key: "k", OwnerKind: OwnerManualFollower, InstanceID: "1:1", Target: tg, Status: StatusActive}
	s, _ := newStore(t, Options{HolderDelay: time.Hour})
	if err := s.PutBinding(base); err != nil {
		t.Fatal(err)
	}
	held := base
	held.InstanceID = "2:2"
	if err := s.PutBinding(held); err != nil {
		t.Fatal(err)
	}
	written := base
	written.InstanceID, written.Status = "", StatusOffline
	v, err := encodeBinding(written)
	if err != nil {
		t.Fatal(err)
	}
	// A binding write as writeBinding makes it, with a read inside its
	// transaction (another goroutine: a concurrent reader's snapshot).
	var during Binding
	var ver uint64
	err = s.write(context.Background(), func(tx *bbolt.Tx) error {
		ver = s.supersedeHeld(tx, "k")
		if err := tx.Bucket(bBindings).Put([]byte("k"), v); err != nil {
			return err
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			during, _ = s.GetBinding("k")
		}()
		<-done
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if during.InstanceID != "2:2" || during.Status != StatusActive {
		t.Errorf("read during the write: instance %q status %q; want the held 2:2 on the record as it was (active)", during.InstanceID, during.Status)
	}
	// Committed, not yet settled: the held change must not apply.
	if got, _ := s.GetBinding("k"); got.InstanceID != "" || got.Status != StatusOffline {
		t.Errorf("read after the commit: instance %q status %q; want the record as written", got.InstanceID, got.Status)
	}
	s.settleHeld("k", ver, true, true)
	if got, _ := s.GetBinding("k"); got.InstanceID != "" || got.Status != StatusOffline {
		t.Errorf("read after settling: instance %q status %q; want the record as written", got.InstanceID, got.Status)
	}
}
