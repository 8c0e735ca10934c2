package store

// Claims: the unrouted updates of a thread go to the binding that gets
// the thread. A thread exists on its platform (and people write in it) a
// moment before the binding that owns it is stored: while its provider is
// still answering the provisioning, and until the supervisor has written
// the binding. What is written then is journalled as unrouted; when a
// binding is committed with that thread, those updates move into its
// journal, after its pending ones, in the order they were journalled.
//
// The move is one journal commit (journal.Move: the unrouted set's pending
// records written again, each under its new key), made after the bbolt
// commit of the binding, while boundMu (write) holds every Append back:
// no update of the thread is journalled between the two, in either
// journal, so the claimed ones come first. From then on Append routes the
// thread's updates to the binding itself (routeLocked), also those the
// caller routed before the binding was written. A crash between the two
// commits leaves the updates unrouted and the binding committed: Open
// claims them (loadBound). A PutBinding whose claim failed (the journal
// refusing writes) leaves them unrouted and the binding committed too:
// the binding's next write claims them.
//
// strays remembers, per thread, the highest seq of an unrouted update of
// that thread, so that a binding write knows without reading the unrouted
// set whether there is anything to claim. It may name updates acked or
// dropped since (a claim then finds none and forgets them).

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatbus/chatbus/server/journal"
)

// maxClaimTries bounds the reads of the unrouted set a claim makes when
// retention changes it under the claim (journal.ErrConflict).
const maxClaimTries = 3

// noteStray records that unrouted update u, just journalled, is of its
// thread (u.Seq math.MaxUint64: it may have been journalled, Append's
// outcome is unknown). Caller holds boundMu (read).
func (s *Bolt) noteStray(u *Update) {
	t := Target{Provider: u.Provider, Chat: u.Chat, Thread: u.Thread}
	s.strayMu.Lock()
	if s.strays == nil {
		s.strays = make(map[Target]uint64)
	}
	s.strays[t] = max(s.strays[t], u.Seq)
	s.strayMu.Unlock()
}

// strayOf reports whether an unrouted update of t may still be pending;
// it forgets t if none can be (acked or dropped since). Caller holds
// boundMu (read or write).
func (s *Bolt) strayOf(t Target) bool {
	s.strayMu.Lock()
	defer s.strayMu.Unlock()
	seq, ok := s.strays[t]
	if !ok {
		return false
	}
	st, err := s.jr.Stats("")
	if err != nil || seq > st.LastSeq-uint64(st.Pending) {
		return true
	}
	delete(s.strays, t)
	return false
}

// claimLocked moves every pending unrouted update whose thread a binding
// owns into that binding's journal, and rebuilds strays from what stays.
// Caller holds boundMu (write).
func (s *Bolt) claimLocked() error {
	for try := 1; ; try++ {
		recs, err := s.jr.Read("", 0, 0)
		if err != nil {
			return fmt.Errorf("claiming unrouted updates: %w", s.journalErr(err))
		}
		// Those that stay come first, so that their new seqs follow in
		// their order; each binding's in theirs.
		var stay, claimed []journal.MoveEntry
		var strays []stray
		for _, r := range recs {
			e := journal.MoveEntry{Provider: r.Provider, ReceivedAt: r.ReceivedAt, Data: r.Data}
			var t Target
			// One that does not decode names no thread: it stays, as
			// it is (busctl shows it).
			if u, err := decodeUpdate(r.Data); err == nil && u.Thread != "" {
				t = Target{Provider: r.Provider, Chat: u.Chat, Thread: u.Thread}
				e.Key = s.owners[t]
			}
			if e.Key != "" {
				claimed = append(claimed, e)
				continue
			}
			stay = append(stay, e)
			strays = append(strays, stray{t, r.Seq})
		}
		if len(claimed) == 0 {
			s.setStrays(strays)
			return nil
		}
		seqs, err := s.jr.Move(context.Background(), "", recs[0].Seq, recs[len(recs)-1].Seq, append(stay, claimed...))
		if errors.Is(err, journal.ErrConflict) && try < maxClaimTries {
			continue // retention dropped some meanwhile: read again
		}
		if err != nil {
			return fmt.Errorf("claiming %d unrouted update(s): %w", len(claimed), s.journalErr(err))
		}
		for i := range strays {
			strays[i].seq = seqs[i]
		}
		s.setStrays(strays)
		return nil
	}
}

// stray is an unrouted update's thread and seq.
type stray struct {
	t   Target
	seq uint64
}

// setStrays replaces strays with those of the unrouted updates pending.
func (s *Bolt) setStrays(pending []stray) {
	strays := make(map[Target]uint64)
	for _, p := range pending {
		if p.t.Thread != "" {
			strays[p.t] = max(strays[p.t], p.seq)
		}
	}
	s.strayMu.Lock()
	s.strays = strays
	s.strayMu.Unlock()
}
