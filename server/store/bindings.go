package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// bindingRecord is a Binding as stored (JSON: bindings change rarely and
// the format must survive new fields).
type bindingRecord struct {
	Key        string    `json:"key"`
	OwnerKind  string    `json:"owner_kind,omitempty"`
	InstanceID string    `json:"instance_id,omitempty"`
	Provider   string    `json:"provider,omitempty"`
	Chat       string    `json:"chat,omitempty"`
	Thread     string    `json:"thread,omitempty"`
	ChatID     int64     `json:"chat_id,omitempty"`   // schema 1; read only
	ThreadID   int64     `json:"thread_id,omitempty"` // schema 1; read only
	Slot       string    `json:"slot,omitempty"`
	ThreadName string    `json:"thread_name,omitempty"`
	Status     Status    `json:"status"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	LastAction string    `json:"last_action,omitempty"`
	LastError  string    `json:"last_error,omitempty"`
	// ThreadClosed is absent while the thread is open (and in records
	// written before it existed).
	ThreadClosed *time.Time `json:"thread_closed,omitempty"`
}

func encodeBinding(b Binding) ([]byte, error) {
	return json.Marshal(bindingRecord{
		Key: b.Key, OwnerKind: b.OwnerKind, InstanceID: b.InstanceID,
		Provider: b.Target.Provider, Chat: b.Target.Chat, Thread: b.Target.Thread,
		Slot: b.Slot, ThreadName: b.ThreadName, Status: b.Status,
		Created: b.Created, Updated: b.Updated, LastAction: b.LastAction, LastError: b.LastError,
		ThreadClosed: timeOrNil(b.ThreadClosed),
	})
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func decodeBinding(v []byte) (Binding, error) {
	var r bindingRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return Binding{}, fmt.Errorf("%w: binding record: %v", ErrCorrupt, err)
	}
	if r.Chat == "" { // written by schema 1
		r.Chat, r.Thread = idText(r.ChatID), idText(r.ThreadID)
	}
	b := Binding{
		Key: r.Key, OwnerKind: r.OwnerKind, InstanceID: r.InstanceID,
		Target: Target{Provider: r.Provider, Chat: r.Chat, Thread: r.Thread},
		Slot:   r.Slot, ThreadName: r.ThreadName, Status: r.Status,
		Created: r.Created, Updated: r.Updated, LastAction: r.LastAction, LastError: r.LastError,
	}
	if r.ThreadClosed != nil {
		b.ThreadClosed = *r.ThreadClosed
	}
	return b, nil
}

func checkTarget(t Target) error {
	if t.IsZero() {
		if t != (Target{}) {
			return fmt.Errorf("target %+v without a provider: %w", t, ErrInvalid)
		}
		return nil
	}
	if err := checkProvider(t.Provider); err != nil {
		return err
	}
	return checkIDs(t.Chat, t.Thread)
}

// checkIDs refuses chat and thread ids the key layout cannot hold.
func checkIDs(chat, thread string) error {
	if chat == "" || len(chat) > maxIDLen || len(thread) > maxIDLen || strings.IndexByte(chat, 0) >= 0 || strings.IndexByte(thread, 0) >= 0 {
		return fmt.Errorf("chat %q, thread %q: chat required, each at most %d bytes without NUL: %w", chat, thread, maxIDLen, ErrInvalid)
	}
	return nil
}

// PutBinding implements Store.PutBinding.
func (s *Bolt) PutBinding(b Binding) error {
	if err := CheckBinding(b); err != nil {
		return err
	}
	// A binding that is new, gets another thread, or has unrouted updates
	// of its thread left to claim changes where Append routes: it is
	// written under boundMu (write), and claims its thread's unrouted
	// updates (claim.go). Any other is written under boundMu (read), so
	// that none of those comes in between.
	//
	// The key's lock orders the writes of one binding (holders.go needs
	// no other write of it under way while it holds a change); it is
	// taken before boundMu.
	unlock := s.keys.Lock(b.Key)
	defer unlock()
	s.boundMu.RLock()
	cur, known := s.bound[b.Key]
	if known && cur == b.Target && (b.Target.IsZero() || !s.strayOf(b.Target)) {
		defer s.boundMu.RUnlock()
		if s.putHolder(b) {
			return nil
		}
		return s.writeBinding(b)
	}
	s.boundMu.RUnlock()
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	if err := s.writeBinding(b); err != nil {
		return err
	}
	// Committed: appends may route to it now.
	old, known := s.bound[b.Key]
	if !known {
		if st, err := s.jr.Stats(b.Key); err == nil && st.Pending > 0 {
			// Left by a DeleteBinding of the same key whose second step
			// failed: never the new binding's.
			if err := s.deleteJournal(b.Key); err != nil {
				return err
			}
		}
	}
	if !old.IsZero() && s.owners[old] == b.Key {
		delete(s.owners, old)
	}
	s.bound[b.Key] = b.Target
	if b.Target.IsZero() {
		return nil
	}
	s.owners[b.Target] = b.Key
	if !s.strayOf(b.Target) {
		return nil
	}
	if err := s.claimLocked(); err != nil {
		return fmt.Errorf("binding %q written; %w", b.Key, err)
	}
	return nil
}

// writeBinding is PutBinding's bbolt write. It supersedes a held holder
// change of b (holders.go): b is the binding as its caller wants it.
func (s *Bolt) writeBinding(b Binding) error {
	now := s.opts.Now()
	var heldVer uint64
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		heldVer = s.supersedeHeld(tx, b.Key)
		rec := b // fn may run twice: never modify b itself
		bindings, targets := tx.Bucket(bBindings), tx.Bucket(bTargets)
		key := []byte(rec.Key)
		var old *Binding
		if v := bindings.Get(key); v != nil {
			o, err := decodeBinding(v)
			if err != nil {
				return fmt.Errorf("binding %q: %w", rec.Key, err)
			}
			old = &o
		}
		if rec.Created.IsZero() {
			rec.Created = now
			if old != nil && !old.Created.IsZero() {
				rec.Created = old.Created
			}
		}
		if rec.Updated.IsZero() {
			rec.Updated = now
		}
		if !rec.Target.IsZero() {
			tk := targetKey(rec.Target)
			if owner := targets.Get(tk); owner != nil && !bytes.Equal(owner, key) {
				return fmt.Errorf("binding %q: target %+v belongs to binding %q: %w", rec.Key, rec.Target, owner, ErrTargetInUse)
			}
			if err := targets.Put(tk, key); err != nil {
				return err
			}
		}
		if old != nil && !old.Target.IsZero() && old.Target != rec.Target {
			if err := unindexTarget(targets, old.Target, key); err != nil {
				return err
			}
			if err := forgetSent(tx, old.Target); err != nil { // the thread is left behind
				return err
			}
		}
		v, err := encodeBinding(rec)
		if err != nil {
			return err
		}
		return bindings.Put(key, v)
	}, nil)
	s.settleHeld(b.Key, heldVer, true, err == nil)
	return err
}

// unindexTarget removes t's index entry if it points at key.
func unindexTarget(targets *bbolt.Bucket, t Target, key []byte) error {
	tk := targetKey(t)
	if bytes.Equal(targets.Get(tk), key) {
		return targets.Delete(tk)
	}
	return nil
}

// GetBinding implements Store.GetBinding.
func (s *Bolt) GetBinding(key string) (Binding, error) {
	var b Binding
	err := s.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bBindings).Get([]byte(key))
		if v == nil {
			return fmt.Errorf("binding %q: %w", key, ErrNotFound)
		}
		var err error
		if b, err = decodeBinding(v); err != nil {
			return fmt.Errorf("binding %q: %w", key, err)
		}
		s.applyHeld(&b, uint64(tx.ID()))
		return nil
	})
	return b, err
}

// BindingByTarget implements Store.BindingByTarget.
func (s *Bolt) BindingByTarget(t Target) (Binding, error) {
	if t.IsZero() {
		return Binding{}, fmt.Errorf("binding of the zero target: %w", ErrNotFound)
	}
	var b Binding
	err := s.view(func(tx *bbolt.Tx) error {
		key := tx.Bucket(bTargets).Get(targetKey(t))
		var v []byte
		if key != nil {
			v = tx.Bucket(bBindings).Get(key)
		}
		if v == nil {
			return fmt.Errorf("binding of target %+v: %w", t, ErrNotFound)
		}
		var err error
		if b, err = decodeBinding(v); err != nil {
			return fmt.Errorf("binding %q: %w", key, err)
		}
		s.applyHeld(&b, uint64(tx.ID()))
		return nil
	})
	return b, err
}

// ListBindings implements Store.ListBindings.
func (s *Bolt) ListBindings() ([]Binding, error) {
	var out []Binding
	err := s.view(func(tx *bbolt.Tx) error {
		return tx.Bucket(bBindings).ForEach(func(k, v []byte) error {
			b, err := decodeBinding(v)
			if err != nil {
				return fmt.Errorf("binding %q: %w", k, err)
			}
			s.applyHeld(&b, uint64(tx.ID()))
			out = append(out, b)
			return nil
		})
	})
	return out, err
}

// DeleteBinding implements Store.DeleteBinding: the binding goes first
// (bbolt), then its journal (see journal.go for why in this order).
func (s *Bolt) DeleteBinding(key string) error {
	unlock := s.keys.Lock(key)
	defer unlock()
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	var heldVer uint64
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		heldVer = s.supersedeHeld(tx, key)
		bindings := tx.Bucket(bBindings)
		v := bindings.Get([]byte(key))
		if v == nil {
			return fmt.Errorf("binding %q: %w", key, ErrNotFound)
		}
		b, err := decodeBinding(v)
		if err != nil {
			return fmt.Errorf("binding %q: %w", key, err)
		}
		if !b.Target.IsZero() {
			if err := unindexTarget(tx.Bucket(bTargets), b.Target, []byte(key)); err != nil {
				return err
			}
			if err := forgetSent(tx, b.Target); err != nil {
				return err
			}
		}
		return bindings.Delete([]byte(key))
	}, nil)
	s.settleHeld(key, heldVer, true, err == nil)
	if err != nil {
		return err
	}
	if t := s.bound[key]; !t.IsZero() && s.owners[t] == key {
		delete(s.owners, t)
	}
	delete(s.bound, key)
	return s.deleteJournal(key)
}

// slotName is the i-th slot (from 0) of A…Z, AA…AZ, BA…ZZ, AAA…:
// bijective base 26.
func slotName(i int) string {
	var b []byte
	for n := i + 1; n > 0; n = (n - 1) / 26 {
		b = append([]byte{byte('A' + (n-1)%26)}, b...)
	}
	return string(b)
}

// slotIndex is the inverse of slotName; false for anything else.
func slotIndex(name string) (int, bool) {
	if name == "" || len(name) > 6 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 'A' || c > 'Z' {
			return 0, false
		}
		n = n*26 + int(c-'A') + 1
	}
	return n - 1, true
}

// AllocateSlot implements Store.AllocateSlot. A stored cursor outside the
// sequence (MaxSlots was lowered since) restarts at A.
func (s *Bolt) AllocateSlot(provider, chat string, inUse func(slot string) bool) (string, error) {
	if err := checkProvider(provider); err != nil {
		return "", err
	}
	maxSlots := s.opts.MaxSlots
	var slot string
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		slots := tx.Bucket(bSlots)
		k := chatKey(provider, chat)
		start := 0
		if i, ok := slotIndex(string(slots.Get(k))); ok && i < maxSlots {
			start = i + 1
		}
		for n := 0; n < maxSlots; n++ {
			name := slotName((start + n) % maxSlots)
			if inUse != nil && inUse(name) {
				continue
			}
			slot = name
			return slots.Put(k, []byte(name))
		}
		return fmt.Errorf("chat %q of %q: all %d slots: %w", chat, provider, maxSlots, ErrNoFreeSlot)
	}, nil)
	if err != nil {
		return "", err
	}
	return slot, nil
}

// RealignCursor implements Store.RealignCursor.
func (s *Bolt) RealignCursor(provider, chat string, slot string) error {
	if err := checkProvider(provider); err != nil {
		return err
	}
	if slot != "" {
		if i, ok := slotIndex(slot); !ok || i >= s.opts.MaxSlots {
			return fmt.Errorf("slot %q: not among the first %d slots: %w", slot, s.opts.MaxSlots, ErrInvalid)
		}
	}
	return s.write(context.Background(), func(tx *bbolt.Tx) error {
		k := chatKey(provider, chat)
		if slot == "" {
			return tx.Bucket(bSlots).Delete(k)
		}
		return tx.Bucket(bSlots).Put(k, []byte(slot))
	}, nil)
}

// SlotCursor implements Store.SlotCursor.
func (s *Bolt) SlotCursor(provider, chat string) (string, error) {
	var slot string
	err := s.view(func(tx *bbolt.Tx) error {
		slot = string(tx.Bucket(bSlots).Get(chatKey(provider, chat)))
		return nil
	})
	return slot, err
}
