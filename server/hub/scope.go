package hub

import (
	"sync"

	"github.com/chatbus/chatbus/server/store"
)

// scope remembers, per thread and per kind, the platform ids the thread
// has seen (messages, files, interactions: in its updates and in the
// results of its calls), so calls naming ids cannot reach other threads.
// It is bounded: the most recent scopeCap of each kind. What the thread's
// followers sent is also kept in the store and reloaded after a supervisor
// restart (a follower keeps editing its own messages); what arrived before
// a restart is not known after it.
type scope struct {
	load sync.Once // the sent ids from the store
	mu   sync.Mutex
	sets [store.RefInteraction + 1]*ring[string] // by kind; [0] unused
}

const scopeCap = 4096

// scopeSet holds the scope of each thread: the references part of the
// hub. Its lock guards the map only (each scope has its own, taken after
// it is released): a leaf, never held with another of the hub's locks.
// The update pumps (Ingest: learn), calls and downloads (checkCall,
// learnSent) use it; a thread whose owner changes is forgotten (forget).
type scopeSet struct {
	mu sync.Mutex
	m  map[store.Target]*scope // guarded by mu
}

// get returns t's scope, made empty (not loaded) if it had none.
func (ss *scopeSet) get(t store.Target) *scope {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	sc, ok := ss.m[t]
	if !ok {
		if ss.m == nil {
			ss.m = make(map[store.Target]*scope)
		}
		sc = &scope{}
		ss.m[t] = sc
	}
	return sc
}

// forget drops what thread t's scope remembers in memory (its owner
// changed; the store forgot its sent ids when the binding moved).
func (ss *scopeSet) forget(t store.Target) {
	ss.mu.Lock()
	delete(ss.m, t)
	ss.mu.Unlock()
}

// scopeOf returns thread t's scope, with what its followers sent read
// from the store the first time.
func (h *Hub) scopeOf(t store.Target) *scope {
	sc := h.scopes.get(t)
	sc.load.Do(func() {
		refs, err := h.store.Sent(t)
		if err != nil {
			h.log.Error().Err(err).Str("provider", t.Provider).Str("chat", t.Chat).Str("thread", t.Thread).
				Msg("reading what the thread's followers sent: calls naming those messages are refused")
		}
		sc.mu.Lock()
		sc.addLocked(refs, false)
		sc.mu.Unlock()
	})
	return sc
}

// addLocked records refs; with keep, it returns those it did not know
// (without, it allocates nothing). s.mu is held.
func (s *scope) addLocked(refs []store.Ref, keep bool) (added []store.Ref) {
	for _, r := range refs {
		if r.Kind < store.RefMessage || r.Kind > store.RefInteraction || r.ID == "" {
			continue
		}
		set := s.sets[r.Kind]
		if set == nil {
			set = newRing[string](scopeCap)
			s.sets[r.Kind] = set
		}
		if set.add(r.ID) && keep {
			added = append(added, r)
		}
	}
	return added
}

// has reports whether the thread has seen id of kind.
func (s *scope) has(kind store.RefKind, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kind < store.RefMessage || kind > store.RefInteraction || s.sets[kind] == nil {
		return false
	}
	return s.sets[kind].has(id)
}

// learn records the ids an update of thread t made available.
func (h *Hub) learn(t store.Target, refs []store.Ref) {
	if len(refs) == 0 {
		return
	}
	sc := h.scopeOf(t)
	sc.mu.Lock()
	sc.addLocked(refs, false)
	sc.mu.Unlock()
}

// learnClaimed records the ids of the updates of b's thread that b's
// journal holds, just after the write that gave b the thread: those
// written in the thread before b owned it (while its provider was making
// it, or before the binding was stored), which the store moved into b's
// journal (Store.PutBinding), so that b's follower may answer them. Ingest
// learnt nothing of them: they had no binding then. One read of b's
// pending updates, once per thread a binding gets.
func (h *Hub) learnClaimed(b store.Binding) {
	ups, err := h.store.Read(b.Key, 0, 0)
	if err != nil {
		h.log.Warn().Err(err).Str("binding", b.Key).
			Msg("reading the updates written in a thread before its binding: calls naming them are refused")
		return
	}
	t := b.Target
	for i := range ups {
		if u := &ups[i]; u.Provider == t.Provider && u.Chat == t.Chat && u.Thread == t.Thread {
			h.learn(t, u.Refs)
		}
	}
}

// learnSent records the ids a call's result made available in thread t:
// in memory at once, and those not known before (an edit names a message
// remembered already) in the store without waiting for it.
func (h *Hub) learnSent(t store.Target, refs []store.Ref) {
	if len(refs) == 0 {
		return
	}
	sc := h.scopeOf(t)
	sc.mu.Lock()
	added := sc.addLocked(refs, true)
	sc.mu.Unlock()
	if len(added) == 0 {
		return
	}
	done := h.store.RememberSent(t, added)
	go func() {
		if err := <-done; err != nil {
			h.log.Warn().Err(err).Str("thread", t.Thread).
				Msg("remembering a sent message: after a restart it cannot be edited or deleted")
		}
	}()
}

// ring is a bounded set that forgets its oldest members. It grows as
// members arrive: most threads see far fewer than its bound.
type ring[T comparable] struct {
	set   map[T]struct{}
	order []T
	max   int
	next  int
}

func newRing[T comparable](n int) *ring[T] {
	return &ring[T]{set: make(map[T]struct{}), max: n}
}

// add inserts v and reports whether it was new.
func (r *ring[T]) add(v T) bool {
	if _, ok := r.set[v]; ok {
		return false
	}
	if len(r.order) < r.max {
		r.order = append(r.order, v)
	} else {
		delete(r.set, r.order[r.next])
		r.order[r.next] = v
		r.next = (r.next + 1) % len(r.order)
	}
	r.set[v] = struct{}{}
	return true
}

func (r *ring[T]) has(v T) bool { _, ok := r.set[v]; return ok }
