package keylock

import (
	"sync"
	"testing"
)

// TestLocks: one key's holders exclude each other, other keys do not
// wait, TryLock fails while the key is held, and a key nobody holds or
// waits for leaves the map.
func TestLocks(t *testing.T) {
	var l Locks
	unlockA := l.Lock("a")
	if _, ok := l.TryLock("a"); ok {
		t.Fatal("TryLock of a held key succeeded")
	}
	unlockB, ok := l.TryLock("b")
	if !ok {
		t.Fatal("TryLock of another key failed")
	}
	unlockB()

	// Holders of one key run one at a time: the counter is never seen
	// above one, under -race as well.
	var (
		wg     sync.WaitGroup
		inside int
		mu     sync.Mutex
		most   int
	)
	for range 8 {
		wg.Go(func() {
			for range 100 {
				unlock := l.Lock("c")
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				mu.Lock()
				inside--
				mu.Unlock()
				unlock()
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d holders of one key at once, want 1", most)
	}

	unlockA()
	l.mu.Lock()
	left := len(l.m)
	l.mu.Unlock()
	if left != 0 {
		t.Errorf("%d keys left in the map after every unlock, want 0", left)
	}
}
