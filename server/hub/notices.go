package hub

import (
	"sync"

	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// moveNotices tells live followers that their binding's thread was
// replaced (topics.go: a person deleted it): the notice each one's next
// Heartbeat carries (replaced), and the channel each open stream waits on
// (rewire), closed at the next replacement of its binding's thread.
//
// Its lock is a leaf, never held with another of the hub's locks. The
// goroutine that replaced the thread (a call's, a registration's or the
// lifecycle's) tells; Heartbeat takes the notice; streams wait; a
// session's end forgets its notice.
//
// rewire holds an entry only while a stream waits on it: each changed is
// paired with its release, and the last release of a key drops its
// entry, so the map is bounded by the open streams, not by every binding
// ever streamed.
type moveNotices struct {
	mu       sync.Mutex
	replaced map[*registry.Follower]store.Binding // not told yet
	rewire   map[string]*rewireWait               // by binding key
}

// rewireWait is the channel the streams of one binding wait on, and how
// many of them do.
type rewireWait struct {
	ch   chan struct{}
	refs int
}

// tell records b, with its new thread, for f (nil: no live follower
// holds it) and wakes the streams of b's binding.
func (n *moveNotices) tell(f *registry.Follower, b store.Binding) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if f != nil {
		if n.replaced == nil {
			n.replaced = make(map[*registry.Follower]store.Binding)
		}
		n.replaced[f] = b
	}
	if w, ok := n.rewire[b.Key]; ok {
		close(w.ch)
		delete(n.rewire, b.Key)
	}
}

// take returns, once, the binding whose thread was replaced since f was
// last told.
func (n *moveNotices) take(f *registry.Follower) (store.Binding, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	b, ok := n.replaced[f]
	delete(n.replaced, f)
	return b, ok
}

// forget drops f's notice (its session ended).
func (n *moveNotices) forget(f *registry.Follower) {
	n.mu.Lock()
	delete(n.replaced, f)
	n.mu.Unlock()
}

// changed returns a channel closed at the next replacement of the thread
// of binding key, and release, to be called once the caller no longer
// waits on it.
func (n *moveNotices) changed(key string) (<-chan struct{}, func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	w, ok := n.rewire[key]
	if !ok {
		if n.rewire == nil {
			n.rewire = make(map[string]*rewireWait)
		}
		w = &rewireWait{ch: make(chan struct{})}
		n.rewire[key] = w
	}
	w.refs++
	var once sync.Once
	return w.ch, func() { once.Do(func() { n.release(key, w) }) }
}

// release ends one wait on w, dropping it with the last one (unless a
// replacement dropped it already).
func (n *moveNotices) release(key string, w *rewireWait) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if w.refs--; w.refs == 0 && n.rewire[key] == w {
		delete(n.rewire, key)
	}
}

// waiting is how many bindings' streams wait on a replacement.
func (n *moveNotices) waiting() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.rewire)
}
