package hub

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// threadBook is the thread lifecycle's view of the bindings (topics.go):
// the parked threads (offline bindings that still have a thread and a
// slot, which a fresh binding on their provider may take over, and whose
// thread is closed after CloseOfflineAfter) and the closed threads (a
// person writing in one reopens it). The store's bindings are the truth;
// the book is their cache, loaded and emptied as slotTable is: when first
// used, and after a binding write that failed.
//
// Its lock is a leaf: held for the maps, and across the store read that
// loads them, never with another of the hub's locks or across a provider
// call. Fresh registrations read it (claimParked), the lifecycle goroutine
// scans it (closeOffline), the providers' update pumps ask it whether a
// thread is closed (observeThreads, through nClosed first without the
// lock) and mark what updates say, and every binding write updates it
// (Hub.putBinding).
type threadBook struct {
	mu      sync.Mutex
	parked  map[string]parkedThread // by binding key; nil: not loaded
	closed  map[string]store.Target // the closed threads, by binding key
	nClosed atomic.Int64            // len(closed), read without mu
}

// parkedThread is an offline binding's thread, which a fresh binding on
// its provider may take over.
type parkedThread struct {
	key       string
	hold      slotHold // the slot it keeps
	target    store.Target
	since     time.Time // offline since (its last write)
	forgotten bool      // reconciliation forgot its identity
	closed    bool
}

// parkedOf says whether b's thread is parked: b is offline with a thread
// and a slot.
func parkedOf(b store.Binding) (parkedThread, bool) {
	if b.Status != store.StatusOffline || b.Target.IsZero() || b.Slot == "" {
		return parkedThread{}, false
	}
	return parkedThread{
		key: b.Key, hold: slotHold{provider: b.Target.Provider, slot: b.Slot}, target: b.Target, since: b.Updated,
		forgotten: b.LastAction == store.ActionRealityOffline, closed: !b.ThreadClosed.IsZero(),
	}, true
}

// ensure loads the book from the store's bindings if it is not loaded.
func (tb *threadBook) ensure(st store.Store) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.parked != nil {
		return nil
	}
	bs, err := st.ListBindings()
	if err != nil {
		return err
	}
	tb.parked = make(map[string]parkedThread)
	tb.closed = make(map[string]store.Target)
	for _, b := range bs {
		tb.setLocked(b)
	}
	return nil
}

// drop empties the book (loaded again when next used).
func (tb *threadBook) drop() {
	tb.mu.Lock()
	tb.parked, tb.closed = nil, nil
	tb.nClosed.Store(0)
	tb.mu.Unlock()
}

// set records whether b's thread is parked and whether it is closed, if
// the book is loaded.
func (tb *threadBook) set(b store.Binding) {
	tb.mu.Lock()
	if tb.parked != nil {
		tb.setLocked(b)
	}
	tb.mu.Unlock()
}

func (tb *threadBook) setLocked(b store.Binding) {
	delete(tb.parked, b.Key)
	if p, ok := parkedOf(b); ok {
		tb.parked[b.Key] = p
	}
	delete(tb.closed, b.Key)
	if !b.Target.IsZero() && !b.ThreadClosed.IsZero() {
		tb.closed[b.Key] = b.Target
	}
	tb.nClosed.Store(int64(len(tb.closed)))
}

// parkedOn returns the threads parked on provider.
func (tb *threadBook) parkedOn(provider string) []parkedThread {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var out []parkedThread
	for _, p := range tb.parked {
		if p.hold.provider == provider {
			out = append(out, p)
		}
	}
	return out
}

// due returns, sorted, the keys of the parked threads not closed yet
// whose binding has been offline for at least after at now.
func (tb *threadBook) due(now time.Time, after time.Duration) []string {
	tb.mu.Lock()
	var keys []string
	for key, p := range tb.parked {
		if !p.closed && now.Sub(p.since) >= after {
			keys = append(keys, key)
		}
	}
	tb.mu.Unlock()
	sort.Strings(keys)
	return keys
}

// anyClosed reports whether some bound thread is closed (without the
// lock: the fast path of every update).
func (tb *threadBook) anyClosed() bool { return tb.nClosed.Load() > 0 }

// isClosed reports whether the thread t of binding key is closed.
func (tb *threadBook) isClosed(key string, t store.Target) bool {
	tb.mu.Lock()
	ct, ok := tb.closed[key]
	tb.mu.Unlock()
	return ok && ct == t
}

// mark records at once what an update said about thread t of binding key
// (closed by a person, or opened or deleted: no longer closed), before
// the lifecycle goroutine writes it, so that the next update sees it. A
// no-op while the book is not loaded.
func (tb *threadBook) mark(key string, t store.Target, state ThreadState) {
	tb.mu.Lock()
	if tb.closed != nil {
		if state == ThreadClosedByPerson {
			tb.closed[key] = t
		} else {
			delete(tb.closed, key)
		}
		tb.nClosed.Store(int64(len(tb.closed)))
	}
	tb.mu.Unlock()
}
