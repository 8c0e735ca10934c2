package store

import (
	"context"
	"errors"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Holders: a binding's InstanceID and Updated say which follower instance
// took it up last, and when. A follower that reloads takes its binding up
// again with a new instance id (REUSE) and nothing else of the binding
// changes: that write is the whole cost of a registration's store work
// (a bbolt commit, two fdatasyncs), for a fact a restart does not need.
// After a restart no follower is live (the registry is empty) and the
// stored InstanceID only names who held the binding last; Updated only
// keeps a binding whose follower is reconnecting from reconciliation for
// ReconcileFresh (10 s by default).
//
// So PutBinding writes such a change (same thread, status, slot, name,
// actions, everything but InstanceID and Updated) to memory only, and
// the store writes it within Options.HolderDelay, in one transaction with
// every other held change, or with the binding's next write, whichever
// comes first, and at Close. Until then every read (GetBinding,
// BindingByTarget, ListBindings) sees it. A crash loses at most the
// holder changes of the last HolderDelay: the file keeps the binding as
// it was last written, a state that was true a moment before and that a
// restart recovers from like any other (the binding still owns its
// thread, with its status and slot).
//
// The one subtlety is a durable write of a binding with a held change
// committing while a read is in progress: a read must apply the held
// change to the record as it was before that write, and not to the
// record the write stored (which carries its own InstanceID). Every
// write that supersedes a held change marks it with the id of its
// transaction (heldChange.until, set inside the transaction), and a read
// applies a held change only to a snapshot older than that id. The mark
// is removed with the change once the write committed, and reset if it
// failed.

// defaultHolderDelay is Options.HolderDelay's zero value: well inside
// reconciliation's freshness window, and few enough transactions that
// followers reloading one after another cost the disk nothing.
const defaultHolderDelay = 100 * time.Millisecond

// heldChange is a binding's holder as last put, not yet written.
type heldChange struct {
	instanceID string
	updated    time.Time
	ver        uint64 // s.heldVer when it was put: who may remove it
	// until: the id of the write transaction superseding it (a binding
	// write, or the flush that writes it); 0 while none is under way. A
	// read of a snapshot with a transaction id at or above it has the
	// superseding write already.
	until uint64
	// written: until is a write of the binding itself, which the flush
	// leaves alone (it would put the held holder over the one written).
	written bool
}

// holderOnly reports whether b differs from cur in its holder only
// (InstanceID, Updated): nothing that says where updates go, what the
// binding's lifecycle is, or what a person sees. A zero b.Created keeps
// cur's (PutBinding's contract).
func holderOnly(cur, b Binding) bool {
	if b.Created.IsZero() {
		b.Created = cur.Created
	}
	b.InstanceID, b.Updated = cur.InstanceID, cur.Updated
	return b.Key == cur.Key && b.OwnerKind == cur.OwnerKind && b.Target == cur.Target &&
		b.Slot == cur.Slot && b.ThreadName == cur.ThreadName && b.Status == cur.Status &&
		b.Created.Equal(cur.Created) && b.LastAction == cur.LastAction && b.LastError == cur.LastError &&
		b.ThreadClosed.Equal(cur.ThreadClosed)
}

// putHolder is PutBinding for a binding whose thread (and strays) did not
// change: it holds the change in memory if it is a holder change only,
// and reports whether it did. b's key lock is held, so no other write of
// b is under way. A read error is not the caller's: the binding is then
// written as usual (false).
func (s *Bolt) putHolder(b Binding) bool {
	if s.opts.HolderDelay < 0 {
		return false
	}
	cur, err := s.GetBinding(b.Key)
	if err != nil || !holderOnly(cur, b) {
		return false
	}
	if b.Updated.IsZero() {
		b.Updated = s.opts.Now()
	}
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if s.heldClosed {
		return false // Close is writing what is held: this one is written itself
	}
	s.heldVer++
	s.held[b.Key] = heldChange{instanceID: b.InstanceID, updated: b.Updated, ver: s.heldVer}
	if s.heldTimer == nil {
		s.heldTimer = time.AfterFunc(s.opts.HolderDelay, s.flushHeldLater)
	}
	return true
}

// applyHeld gives b its held holder change, if it has one that the
// snapshot of transaction txid does not include. It runs inside the read
// transaction; heldMu is a leaf.
func (s *Bolt) applyHeld(b *Binding, txid uint64) {
	s.heldMu.Lock()
	h, ok := s.held[b.Key]
	s.heldMu.Unlock()
	if ok && (h.until == 0 || txid < h.until) {
		b.InstanceID, b.Updated = h.instanceID, h.updated
	}
}

// supersedeHeld marks key's held change, if any, as superseded by write
// transaction tx (which writes the binding itself), and returns its
// version (0: none). It runs inside the transaction, which may run twice.
func (s *Bolt) supersedeHeld(tx *bbolt.Tx, key string) uint64 {
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	h, ok := s.held[key]
	if !ok {
		return 0
	}
	h.until, h.written = uint64(tx.ID()), true
	s.held[key] = h
	return h.ver
}

// settleHeld ends a superseding write of key's held change of version
// ver (written: a write of the binding itself, else the flush):
// committed, the change is dropped (the record has it, or the write
// replaced it); failed, it is held again as before (a failed flush leaves
// the mark of a binding write under way). A change put since (another
// version) stays.
func (s *Bolt) settleHeld(key string, ver uint64, written, committed bool) {
	if ver == 0 {
		return
	}
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	h, ok := s.held[key]
	switch {
	case !ok || h.ver != ver:
	case committed:
		delete(s.held, key)
	case written || !h.written:
		h.until, h.written = 0, false
		s.held[key] = h
	}
}

// flushHeldLater is the HolderDelay timer: it writes what is held. A
// failed write keeps the changes held and tries again after another
// HolderDelay; a closed store has written them in Close.
func (s *Bolt) flushHeldLater() {
	s.heldMu.Lock()
	s.heldTimer = nil
	s.heldMu.Unlock()
	err := s.flushHeld()
	if err == nil || errors.Is(err, ErrClosed) {
		return
	}
	s.opts.Logger.Warn().Err(err).Msg("writing the holders of bindings; they stay in memory and are tried again")
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if s.heldTimer == nil && !s.heldClosed {
		s.heldTimer = time.AfterFunc(s.opts.HolderDelay, s.flushHeldLater)
	}
}

// flushHeld writes every held holder change into its binding's record in
// one transaction and waits for it.
func (s *Bolt) flushHeld() error {
	var flushed map[string]uint64 // key → version written; set by the last run of fn
	err := s.write(context.Background(), func(tx *bbolt.Tx) error {
		flushed = map[string]uint64{}
		s.heldMu.Lock()
		changes := make(map[string]heldChange, len(s.held))
		for k, h := range s.held {
			if h.written {
				continue
			}
			h.until = uint64(tx.ID())
			s.held[k] = h
			changes[k] = h
		}
		s.heldMu.Unlock()
		bindings := tx.Bucket(bBindings)
		for k, h := range changes {
			flushed[k] = h.ver
			v := bindings.Get([]byte(k))
			if v == nil {
				continue // deleted meanwhile
			}
			b, err := decodeBinding(v)
			if err != nil {
				return err
			}
			b.InstanceID, b.Updated = h.instanceID, h.updated
			if v, err = encodeBinding(b); err != nil {
				return err
			}
			if err := bindings.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	for k, ver := range flushed {
		s.settleHeld(k, ver, false, err == nil)
	}
	return err
}

// closeHeld stops holding changes and writes those held (Close).
func (s *Bolt) closeHeld() error {
	s.heldMu.Lock()
	s.heldClosed = true
	if s.heldTimer != nil {
		s.heldTimer.Stop()
		s.heldTimer = nil
	}
	n := len(s.held)
	s.heldMu.Unlock()
	if n == 0 {
		return nil
	}
	return s.flushHeld()
}
