package store

import (
	"path/filepath"
	"slices"
	"testing"

	bbolt "go.etcd.io/bbolt"
)

func keysOf(cs []CallRecord) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.BindingKey+"/"+c.Key)
	}
	return out
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
