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
type moveNotices struct {
	mu       sync.Mutex
	replaced map[*registry.Follower]store.Binding // not told yet
	rewire   map[string]chan struct{}             // by binding key
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
	if ch, ok := n.rewire[b.Key]; ok {
		close(ch)
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
// of binding key.
func (n *moveNotices) changed(key string) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch, ok := n.rewire[key]
	if !ok {
		if n.rewire == nil {
			n.rewire = make(map[string]chan struct{})
		}
		ch = make(chan struct{})
		n.rewire[key] = ch
	}
	return ch
}
