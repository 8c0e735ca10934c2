package etcdstore

import (
	"context"
	"fmt"
	"slices"
	"sort"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/store"
)

func targetPath(t store.Target) string {
	return hexKey(t.Provider) + "/" + hexKey(t.Chat) + "/" + hexKey(t.Thread)
}

// PutBinding implements store.Store.
func (s *Store) PutBinding(b store.Binding) error {
	if err := store.CheckBinding(b); err != nil {
		return err
	}
	now := s.opts.Now()
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		rec := b
		old, had := s.bindings[rec.Key]
		if rec.Created.IsZero() {
			rec.Created = now
			if had && !old.Created.IsZero() {
				rec.Created = old.Created
			}
		}
		if rec.Updated.IsZero() {
			rec.Updated = now
		}
		if !rec.Target.IsZero() {
			if owner, ok := s.targets[rec.Target]; ok && owner != rec.Key {
				return nil, nil, fmt.Errorf("binding %q: target %+v belongs to binding %q: %w", rec.Key, rec.Target, owner, store.ErrTargetInUse)
			}
		}
		op, err := jsonOp(s.k(pBinding, hexKey(rec.Key)), rec)
		if err != nil {
			return nil, nil, err
		}
		ops := []clientv3.Op{op}
		leftBehind := had && !old.Target.IsZero() && old.Target != rec.Target
		if leftBehind {
			ops = append(ops, clientv3.OpDelete(s.k(pSent, targetPath(old.Target))))
		}
		// A journal left under a new key (never the new binding's): gone.
		q, stale := s.queues[rec.Key]
		dropStale := !had && stale && len(q.pending) > 0
		// Given a thread: it claims the thread's unrouted updates (claim.go).
		var claim []clientv3.Op
		var claimed func()
		if !rec.Target.IsZero() && (!had || old.Target != rec.Target) {
			base := q // nil if none
			if dropStale {
				// Its updates go as a deletion would take them, its seqs
				// go on.
				base = &queue{Last: q.Last, Acked: q.Last, Floor: q.Last, Dropped: q.Dropped, chunks: q.chunks}
			}
			claim, claimed = s.claimOps(rec.Key, rec.Target, base, now)
		}
		dropStale = dropStale && claimed == nil
		if dropStale {
			ops = append(ops, s.deleteJournalOps(rec.Key)...)
		}
		ops = append(ops, claim...)
		return ops, func() {
			if leftBehind {
				if s.targets[old.Target] == rec.Key {
					delete(s.targets, old.Target)
				}
				delete(s.sent, old.Target)
			}
			if !rec.Target.IsZero() {
				s.targets[rec.Target] = rec.Key
			}
			s.bindings[rec.Key] = rec
			if dropStale {
				delete(s.queues, rec.Key)
			}
			if claimed != nil {
				claimed()
			}
		}, nil
	})
}

// GetBinding implements store.Store.
func (s *Store) GetBinding(key string) (store.Binding, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return store.Binding{}, err
	}
	b, ok := s.bindings[key]
	if !ok {
		return store.Binding{}, fmt.Errorf("binding %q: %w", key, store.ErrNotFound)
	}
	return b, nil
}

// usableRead: reads work until Close (a fenced store still answers from
// memory, for the views of a supervisor on its way down).
func (s *Store) usableRead() error {
	if s.closed {
		return fmt.Errorf("etcdstore: %w", store.ErrClosed)
	}
	return nil
}

// BindingByTarget implements store.Store.
func (s *Store) BindingByTarget(t store.Target) (store.Binding, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return store.Binding{}, err
	}
	if t.IsZero() {
		return store.Binding{}, fmt.Errorf("binding of the zero target: %w", store.ErrNotFound)
	}
	key, ok := s.targets[t]
	if !ok {
		return store.Binding{}, fmt.Errorf("binding of target %+v: %w", t, store.ErrNotFound)
	}
	return s.bindings[key], nil
}

// ListBindings implements store.Store.
func (s *Store) ListBindings() ([]store.Binding, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return nil, err
	}
	out := make([]store.Binding, 0, len(s.bindings))
	for _, b := range s.bindings {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// DeleteBinding implements store.Store: the binding, its target's sent
// ids and its journal in one transaction.
func (s *Store) DeleteBinding(key string) error {
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		b, ok := s.bindings[key]
		if !ok {
			return nil, nil, fmt.Errorf("binding %q: %w", key, store.ErrNotFound)
		}
		ops := []clientv3.Op{clientv3.OpDelete(s.k(pBinding, hexKey(key)))}
		if !b.Target.IsZero() {
			ops = append(ops, clientv3.OpDelete(s.k(pSent, targetPath(b.Target))))
		}
		ops = append(ops, s.deleteJournalOps(key)...)
		return ops, func() {
			delete(s.bindings, key)
			if !b.Target.IsZero() {
				if s.targets[b.Target] == key {
					delete(s.targets, b.Target)
				}
				delete(s.sent, b.Target)
			}
			if q := s.queues[key]; q != nil && len(q.pending) > 0 {
				s.dropped = append(s.dropped, drop{key, len(q.pending), store.DropBindingDeleted})
			}
			delete(s.queues, key)
			s.wake(key, true)
		}, nil
	})
}

// deleteJournalOps deletes a journal's chunks and queue state (a prefix
// delete: one operation).
func (s *Store) deleteJournalOps(key string) []clientv3.Op {
	return []clientv3.Op{
		clientv3.OpDelete(s.k(pJournal, hexKey(key), "/"), clientv3.WithPrefix()),
		clientv3.OpDelete(s.k(pQueue, hexKey(key))),
	}
}

func slotPath(provider, chat string) string { return hexKey(provider) + "/" + hexKey(chat) }

// AllocateSlot implements store.Store.
func (s *Store) AllocateSlot(provider, chat string, inUse func(slot string) bool) (string, error) {
	if err := store.CheckProvider(provider); err != nil {
		return "", err
	}
	var slot string
	err := s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		k := slotPath(provider, chat)
		start := 0
		if i, ok := store.SlotIndex(s.slots[k]); ok && i < s.opts.MaxSlots {
			start = i + 1
		}
		for n := 0; n < s.opts.MaxSlots; n++ {
			name := store.SlotName((start + n) % s.opts.MaxSlots)
			if inUse != nil && inUse(name) {
				continue
			}
			slot = name
			return []clientv3.Op{clientv3.OpPut(s.k(pSlot, k), name)}, func() { s.slots[k] = name }, nil
		}
		return nil, nil, fmt.Errorf("chat %q of %q: all %d slots: %w", chat, provider, s.opts.MaxSlots, store.ErrNoFreeSlot)
	})
	if err != nil {
		return "", err
	}
	return slot, nil
}

// RealignCursor implements store.Store.
func (s *Store) RealignCursor(provider, chat string, slot string) error {
	if err := store.CheckProvider(provider); err != nil {
		return err
	}
	if slot != "" {
		if i, ok := store.SlotIndex(slot); !ok || i >= s.opts.MaxSlots {
			return fmt.Errorf("slot %q: not among the first %d slots: %w", slot, s.opts.MaxSlots, store.ErrInvalid)
		}
	}
	k := slotPath(provider, chat)
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		if slot == "" {
			return []clientv3.Op{clientv3.OpDelete(s.k(pSlot, k))}, func() { delete(s.slots, k) }, nil
		}
		return []clientv3.Op{clientv3.OpPut(s.k(pSlot, k), slot)}, func() { s.slots[k] = slot }, nil
	})
}

// SlotCursor implements store.Store.
func (s *Store) SlotCursor(provider, chat string) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return "", err
	}
	return s.slots[slotPath(provider, chat)], nil
}

type sentRecord struct {
	Target store.Target `json:"target"`
	Refs   []store.Ref  `json:"refs"`
}

// RememberSent implements store.Store: written at once (one transaction),
// the outcome on the channel.
func (s *Store) RememberSent(t store.Target, refs []store.Ref) <-chan error {
	out := make(chan error, 1)
	if err := store.CheckTarget(t); err != nil || t.IsZero() {
		if err == nil {
			err = fmt.Errorf("remember sent ids: no target: %w", store.ErrInvalid)
		}
		out <- err
		return out
	}
	out <- s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		all := slices.Clone(s.sent[t])
		for _, r := range refs {
			if r.ID != "" && r.Kind >= store.RefMessage && r.Kind <= store.RefInteraction {
				all = append(all, r)
			}
		}
		if len(all) > s.opts.MaxSent {
			all = all[len(all)-s.opts.MaxSent:]
		}
		op, err := jsonOp(s.k(pSent, targetPath(t)), sentRecord{Target: t, Refs: all})
		if err != nil {
			return nil, nil, err
		}
		return []clientv3.Op{op}, func() { s.sent[t] = all }, nil
	})
	return out
}

// Sent implements store.Store.
func (s *Store) Sent(t store.Target) ([]store.Ref, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return nil, err
	}
	return slices.Clone(s.sent[t]), nil
}
