// Package keylock owns one mutex per string key, made on first use and
// dropped once nobody holds or waits for it: the lock of one record (a
// binding) held across work that spans calls, without a map that grows
// with every key ever locked.
package keylock

import "sync"

// Locks is one mutex per key. The zero value is ready to use; a Locks
// must not be copied after first use.
type Locks struct {
	mu sync.Mutex // guards m and each lock's refs
	m  map[string]*lock
}

type lock struct {
	mu   sync.Mutex
	refs int // holders and waiters
}

// Lock takes key's lock, waiting for it; unlock releases it.
func (l *Locks) Lock(key string) (unlock func()) {
	k := l.ref(key)
	k.mu.Lock()
	return func() { k.mu.Unlock(); l.unref(key, k) }
}

// TryLock takes key's lock if nobody holds it.
func (l *Locks) TryLock(key string) (unlock func(), ok bool) {
	k := l.ref(key)
	if !k.mu.TryLock() {
		l.unref(key, k)
		return nil, false
	}
	return func() { k.mu.Unlock(); l.unref(key, k) }, true
}

func (l *Locks) ref(key string) *lock {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string]*lock)
	}
	k := l.m[key]
	if k == nil {
		k = &lock{}
		l.m[key] = k
	}
	k.refs++
	return k
}

func (l *Locks) unref(key string, k *lock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if k.refs--; k.refs == 0 {
		delete(l.m, key)
	}
}
