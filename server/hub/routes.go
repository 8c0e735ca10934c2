package hub

import (
	"errors"
	"sync"

	"github.com/chatbus/chatbus/server/store"
)

// routeCache is the route cache: which binding owns a thread ("" =
// none), so that routing an update costs a map lookup, not a store read.
// It owns nothing but the cache; the store's bindings are the truth.
// Every binding write goes through Hub.putBinding, which clears it (the
// hub is the only writer of bindings); a lookup that missed fills it only
// if no binding was written since it began (gen), so a stale owner is
// never cached.
//
// Its lock is a leaf: held for the map only, never across a store call or
// with another of the hub's locks. The providers' update pumps read it
// (Ingest, observeThreads); whoever writes a binding clears it.
type routeCache struct {
	mu     sync.RWMutex
	routes map[store.Target]string // guarded by mu
	gen    uint64                  // bumped by every invalidate; guarded by mu
}

// lookup returns the cached owner of t, and the generation to hand to
// remember after a miss.
func (c *routeCache) lookup(t store.Target) (key string, gen uint64, ok bool) {
	c.mu.RLock()
	key, ok = c.routes[t]
	gen = c.gen
	c.mu.RUnlock()
	return key, gen, ok
}

// remember caches key as t's owner, read from the store after a lookup
// that returned gen, unless a binding was written since.
func (c *routeCache) remember(t store.Target, key string, gen uint64) {
	c.mu.Lock()
	if c.gen == gen {
		if c.routes == nil {
			c.routes = make(map[store.Target]string)
		}
		c.routes[t] = key
	}
	c.mu.Unlock()
}

// invalidate forgets every route (a binding was written).
func (c *routeCache) invalidate() {
	c.mu.Lock()
	clear(c.routes)
	c.gen++
	c.mu.Unlock()
}

// route returns the binding key that owns t, "" if none.
func (h *Hub) route(t store.Target) (string, error) {
	key, gen, ok := h.routes.lookup(t)
	if ok {
		return key, nil
	}
	b, err := h.store.BindingByTarget(t)
	switch {
	case err == nil:
		key = b.Key
	case !errors.Is(err, store.ErrNotFound):
		return "", err
	}
	h.routes.remember(t, key, gen)
	return key, nil
}
