package store

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"
)

func keysOf(cs []CallRecord) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.BindingKey+"/"+c.Key)
	}
	return out
}

// TestCalls: one record per (binding, key): a repeat gets the first
// record; open records list in the order they were made, per provider,
// and survive a reopen; final ones do not change.
func TestCalls(t *testing.T) {
	s, path := newStore(t, Options{})
	begin := func(binding, key, provider string, st CallState) (CallRecord, bool) {
		t.Helper()
		c, created, err := s.BeginCall(CallRecord{BindingKey: binding, Key: key, Provider: provider, Chat: "-100", Thread: "7",
			Method: "sendMessage", Params: []byte(`{"text":"` + key + `"}`), State: st})
		if err != nil {
			t.Fatalf("BeginCall(%s/%s): %v", binding, key, err)
		}
		return c, created
	}
	a1, created := begin("a", "k1", "telegram", CallSending)
	if !created || a1.State != CallSending || a1.Order == 0 {
		t.Fatalf("first BeginCall = %+v, %v", a1, created)
	}
	begin("a", "k2", "telegram", CallQueued)
	begin("b", "k1", "telegram", CallQueued) // the same key of another binding is another call
	begin("c", "k1", "slack", CallQueued)
	again, created := begin("a", "k1", "telegram", CallQueued)
	if created || again.State != CallSending || again.Order != a1.Order || string(again.Params) != `{"text":"k1"}` {
		t.Fatalf("repeat BeginCall = %+v, %v; want the first record", again, created)
	}
	if open, err := s.OpenCalls("telegram"); err != nil || !slices.Equal(keysOf(open), []string{"a/k1", "a/k2", "b/k1"}) {
		t.Fatalf("OpenCalls(telegram) = %v, %v", keysOf(open), err)
	}
	if open, _ := s.OpenCalls("tele"); len(open) != 0 {
		t.Errorf("OpenCalls of a provider name prefix = %v", keysOf(open))
	}

	done := a1
	done.State, done.Result, done.Refs = CallDone, []byte(`{"message_id":9}`), []Ref{{RefMessage, "9"}}
	if err := s.SetCall(done); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCall(CallRecord{BindingKey: "a", Key: "k1", Provider: "telegram", State: CallFailed}); !errors.Is(err, ErrInvalid) {
		t.Errorf("changing a final record: %v, want ErrInvalid", err)
	}
	if err := s.SetCall(CallRecord{BindingKey: "a", Key: "nope", Provider: "telegram", State: CallDone}); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetCall of an unknown record: %v, want ErrNotFound", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openAt(t, path, Options{})
	got, err := s.GetCall("a", "k1")
	if err != nil || got.State != CallDone || string(got.Result) != `{"message_id":9}` || !slices.Equal(got.Refs, []Ref{{RefMessage, "9"}}) {
		t.Fatalf("GetCall after reopen = %+v, %v", got, err)
	}
	if open, _ := s.OpenCalls("telegram"); !slices.Equal(keysOf(open), []string{"a/k2", "b/k1"}) {
		t.Errorf("open after the first was done: %v", keysOf(open))
	}
	if _, _, err := s.BeginCall(CallRecord{BindingKey: "a", Key: "k9", Provider: "telegram", State: CallDone}); !errors.Is(err, ErrInvalid) {
		t.Errorf("BeginCall of a final state: %v, want ErrInvalid", err)
	}
	for _, bad := range []CallRecord{
		{Key: "k", Provider: "telegram", State: CallQueued},
		{BindingKey: "a", Provider: "telegram", State: CallQueued},
		{BindingKey: "a", Key: "k", State: CallQueued},
		{BindingKey: "a", Key: "k", Provider: "telegram", State: "bogus"},
	} {
		if _, _, err := s.BeginCall(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("BeginCall(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestPruneCalls: final records go after keep, and beyond the newest
// maxPerBinding of a binding; open ones never.
func TestPruneCalls(t *testing.T) {
	clk := newClock()
	s, _ := newStore(t, Options{Now: clk.Now})
	for i, key := range []string{"old", "mid", "new", "open"} {
		c, _, err := s.BeginCall(CallRecord{BindingKey: "a", Key: key, Provider: "telegram", State: CallSending})
		if err != nil {
			t.Fatal(err)
		}
		if key != "open" {
			c.State = CallDone
			if err := s.SetCall(c); err != nil {
				t.Fatal(err)
			}
		}
		clk.Add(time.Duration(i+1) * time.Hour)
	}
	// old: updated at +0, mid: +1h, new: +3h; now +10h.
	n, err := s.PruneCalls(clk.Now(), 9*time.Hour+30*time.Minute, 0)
	if err != nil || n != 1 {
		t.Fatalf("prune by age = %d, %v; want 1 (old)", n, err)
	}
	n, err = s.PruneCalls(clk.Now(), 0, 1)
	if err != nil || n != 1 {
		t.Fatalf("prune by count = %d, %v; want 1 (mid)", n, err)
	}
	for key, want := range map[string]bool{"old": false, "mid": false, "new": true, "open": true} {
		if _, err := s.GetCall("a", key); (err == nil) != want {
			t.Errorf("after pruning, %s present = %v, want %v", key, err == nil, want)
		}
	}
}

// TestMigrateOutbox: calls an older version left pending in its outbox
// become queued call records, in order; the outbox goes.
func TestMigrateOutbox(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openAt(t, path, Options{})
	s.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		ob, _ := tx.CreateBucket(bOutbox)
		entries, _ := ob.CreateBucket(bEntries)
		pending, _ := ob.CreateBucket(bPending)
		for i, k := range []string{"telegram/first", "telegram/second"} {
			entries.Put([]byte(k), []byte(`{"key":"`+k+`","provider":"telegram","chat":"-100","thread":"7","method":"sendMessage","params":"e30="}`))
			pending.Put(append([]byte("telegram\x00"), byte(0), 0, 0, 0, 0, 0, 0, byte(i+1)), []byte(k))
		}
		entries.Put([]byte("telegram/done"), []byte(`{"key":"telegram/done","provider":"telegram","done":true}`))
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, Options{})
	open, err := s.OpenCalls("telegram")
	if err != nil || !slices.Equal(keysOf(open), []string{"outbox:telegram/telegram/first", "outbox:telegram/telegram/second"}) {
		t.Fatalf("OpenCalls after migration = %v, %v", keysOf(open), err)
	}
	if c := open[0]; c.State != CallQueued || c.Chat != "-100" || c.Thread != "7" || string(c.Params) != "{}" {
		t.Errorf("migrated record %+v", c)
	}
	s.Close()
	db, _ = bbolt.Open(path, 0o600, nil)
	defer db.Close()
	db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bOutbox) != nil {
			t.Error("the outbox is still there")
		}
		return nil
	})
}
