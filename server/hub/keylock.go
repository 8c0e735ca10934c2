package hub

import "sync"

// keyLocks is one mutex per binding key, made on first use and dropped
// once nobody holds or waits for it. It serializes the changes of one
// binding that span a provider call: a registration resolving it, a fresh
// registration taking its thread over, the lifecycle closing, reopening
// or replacing its thread. See Hub.locks for the lock order.
type keyLocks struct {
	mu sync.Mutex // guards m and each keyLock's refs
	m  map[string]*keyLock
}

type keyLock struct {
	mu   sync.Mutex
	refs int // holders and waiters
}

// lock takes key's lock, waiting for it; unlock releases it.
func (l *keyLocks) lock(key string) (unlock func()) {
	k := l.ref(key)
	k.mu.Lock()
	return func() { k.mu.Unlock(); l.unref(key, k) }
}

// tryLock takes key's lock if nobody holds it.
func (l *keyLocks) tryLock(key string) (unlock func(), ok bool) {
	k := l.ref(key)
	if !k.mu.TryLock() {
		l.unref(key, k)
		return nil, false
	}
	return func() { k.mu.Unlock(); l.unref(key, k) }, true
}

func (l *keyLocks) ref(key string) *keyLock {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[string]*keyLock)
	}
	k := l.m[key]
	if k == nil {
		k = &keyLock{}
		l.m[key] = k
	}
	k.refs++
	return k
}

func (l *keyLocks) unref(key string, k *keyLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if k.refs--; k.refs == 0 {
		delete(l.m, key)
	}
}
