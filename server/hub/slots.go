package hub

import (
	"sync"

	"github.com/chatbus/chatbus/server/store"
)

// slotTable is the slot allocator's view of the bindings: the slot each
// binding holds, how many bindings hold each, and how many parked threads
// keep each (an offline binding's thread keeps its slot until a fresh
// binding takes both over: topics.go). With it a fresh registration finds
// a free slot (AllocateSlot's inUse) without listing and decoding every
// binding. The store's allocation cursor and bindings are the truth; the
// table is their cache: empty (not loaded) until first used, then loaded
// from the store, and emptied again by a binding write that failed (it
// may or may not have landed), to be loaded when next used.
//
// Its lock is a leaf: held for the maps, and across the store read that
// loads them, never with another of the hub's locks or across a provider
// call. Registrations read it (fresh, claimParked); every binding write
// updates it (Hub.putBinding).
type slotTable struct {
	mu     sync.Mutex
	slots  map[string]slotHold // by binding key; nil: not loaded
	held   map[slotHold]int    // bindings holding each slot
	kept   map[string]slotHold // the slot each parked thread keeps, by binding key
	keptAt map[slotHold]int    // parked threads keeping each slot
}

// slotHold is the slot a binding holds: none (zero) when it has no slot
// or is offline or failed. A binding whose thread is still being
// provisioned has no target yet: it holds its slot on every provider
// (zero provider).
type slotHold struct {
	provider string
	slot     string
}

func holdOf(b store.Binding) slotHold {
	if b.Slot == "" || b.Status == store.StatusOffline || b.Status == store.StatusFailed {
		return slotHold{}
	}
	if b.Target.IsZero() {
		return slotHold{slot: b.Slot}
	}
	return slotHold{provider: b.Target.Provider, slot: b.Slot}
}

// ensure loads the table from the store's bindings if it is not loaded.
func (s *slotTable) ensure(st store.Store) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slots != nil {
		return nil
	}
	bs, err := st.ListBindings()
	if err != nil {
		return err
	}
	s.slots = make(map[string]slotHold, len(bs))
	s.held = make(map[slotHold]int, len(bs))
	s.kept = make(map[string]slotHold)
	s.keptAt = make(map[slotHold]int)
	for _, b := range bs {
		s.setLocked(b)
	}
	return nil
}

// drop empties the table (loaded again when next used).
func (s *slotTable) drop() {
	s.mu.Lock()
	s.slots, s.held, s.kept, s.keptAt = nil, nil, nil, nil
	s.mu.Unlock()
}

// set records what b holds now, if the table is loaded.
func (s *slotTable) set(b store.Binding) {
	s.mu.Lock()
	if s.slots != nil {
		s.setLocked(b)
	}
	s.mu.Unlock()
}

// setLocked records the slot b holds now and whether its parked thread
// keeps one. s.mu is held.
func (s *slotTable) setLocked(b store.Binding) {
	if old := s.slots[b.Key]; old.slot != "" {
		if s.held[old]--; s.held[old] <= 0 {
			delete(s.held, old)
		}
	}
	hold := holdOf(b)
	s.slots[b.Key] = hold
	if hold.slot != "" {
		s.held[hold]++
	}
	if k, ok := s.kept[b.Key]; ok {
		if s.keptAt[k]--; s.keptAt[k] <= 0 {
			delete(s.keptAt, k)
		}
		delete(s.kept, b.Key)
	}
	if p, ok := parkedOf(b); ok {
		s.kept[b.Key] = p.hold
		s.keptAt[p.hold]++
	}
}

// inUse says whether a binding holds slot on the provider (or on every
// provider, while its thread is provisioned), or a parked thread keeps it
// there. Not loaded (a binding write failed since), it says yes: a slot
// is never handed out twice.
func (s *slotTable) inUse(provider, slot string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slots == nil {
		return true
	}
	at := slotHold{provider: provider, slot: slot}
	return s.held[at] > 0 || s.held[slotHold{slot: slot}] > 0 || s.keptAt[at] > 0
}

// free says whether no binding holds h's slot (on h's provider, or on
// every provider while provisioning): a parked thread keeping it may be
// taken over. Not loaded, it says no.
func (s *slotTable) free(h slotHold) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slots != nil && s.held[h] == 0 && s.held[slotHold{slot: h.slot}] == 0
}
