package playground

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestIdempotencyForgetsTheOldest: past its bound, the store forgets the
// results it remembered first, never a recent one (a repeat of a recent
// key must still find its result, or the verb is made twice), whatever
// order the keys sort in; and a store written before the order was kept
// is bounded too.
func TestIdempotencyForgetsTheOldest(t *testing.T) {
	dir := t.TempDir()
	st, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Newer keys sort first: an order by key forgets the newest.
	key := func(i int) string { return fmt.Sprintf("7/send/%06d", 3*maxIdempotency-i) }
	n := maxIdempotency + maxIdempotency/4
	const batch = 250 // keys remembered per transaction
	for first := 0; first < n; first += batch {
		err = st.db.Update(func(tx *bolt.Tx) error {
			for i := first; i < min(first+batch, n); i++ {
				if err := st.rememberResult(tx, key(i), []ref{{ID: fmt.Sprint(i)}}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	remembered := func(st *store, i int) bool {
		var ok bool
		st.db.View(func(tx *bolt.Tx) error {
			_, ok, err = st.idempotent(tx, key(i))
			return err
		})
		return ok
	}
	for i := n - maxIdempotency/2; i < n; i++ {
		if !remembered(st, i) {
			t.Fatalf("key %d of %d (one of the newest %d) forgotten", i, n, maxIdempotency/2)
		}
	}
	if remembered(st, 0) {
		t.Errorf("the oldest key still remembered past the bound")
	}
	count := func(st *store) (n int) {
		st.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bIdem).Stats().KeyN; return nil })
		return n
	}
	if c := count(st); c > maxIdempotency {
		t.Errorf("%d results remembered, bound %d", c, maxIdempotency)
	}

	// A store from before the order: its results are taken into it at
	// open, oldest (unknown) first, and bounded from then on.
	st.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bIdem)
		for i := range maxIdempotency {
			b.Put(fmt.Appendf(nil, "9/send/old-%06d", i), []byte("[]"))
		}
		return tx.DeleteBucket(bIdemAge)
	})
	st.close()
	if st, err = openStore(dir); err != nil {
		t.Fatal(err)
	}
	defer st.close()
	st.db.Update(func(tx *bolt.Tx) error { return st.rememberResult(tx, key(n), nil) })
	if !remembered(st, n) {
		t.Errorf("a key remembered after the upgrade is forgotten")
	}
	if c := count(st); c > maxIdempotency {
		t.Errorf("after the upgrade: %d results remembered, bound %d", c, maxIdempotency)
	}
}
