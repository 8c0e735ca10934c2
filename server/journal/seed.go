package journal

// Seed: state carried over from another store (the supervisor's bbolt
// journal of an older schema) into a journal that holds none yet.

import (
	"context"
	"fmt"
	"time"
)

// Seed is the state Journal.Seed carries over.
type Seed struct {
	Keys      []SeedKey
	Providers []SeedProvider
}

// SeedKey is one key's counters. Seqs up to Through are gone (acked or
// dropped): the key's next Append gets Through+1, so a store that moves
// its records here appends its pending records in seq order right after.
type SeedKey struct {
	Key     string
	Through uint64
	// Acked is the key's acked-through point (at most Through).
	Acked uint64
	// Dropped is the count of records dropped ever (Stats.Dropped).
	Dropped uint64
}

// SeedProvider is one provider's platform cursor and de-duplication
// window.
type SeedProvider struct {
	Name string
	// Cursor is the platform cursor; nil = none.
	Cursor []byte
	// Seen are the DedupIDs to remember, oldest first, with when they were
	// remembered (the window's age bound counts from there).
	Seen []SeenID
}

// SeenID is one remembered DedupID.
type SeenID struct {
	ID string
	At time.Time
}

// Seed sets the counters of keys, the cursors and the de-duplication
// windows of a journal that holds no state yet (no key appended to, no
// cursor, no DedupID remembered; else ErrInvalid and nothing changes), in
// one durable commit: a checkpoint frame of the seeded state. It returns
// once that commit is on disk. A crash before leaves the journal empty.
func (j *Journal) Seed(ctx context.Context, s Seed) error {
	c := &checkpoint{}
	for i, k := range s.Keys {
		switch {
		case len(k.Key) > maxKeyLen:
			return fmt.Errorf("seed: key %d of %d bytes (at most %d): %w", i, len(k.Key), maxKeyLen, ErrInvalid)
		case k.Acked > k.Through:
			return fmt.Errorf("seed: %s: acked %d beyond %d: %w", keyName(k.Key), k.Acked, k.Through, ErrInvalid)
		}
		c.keys = append(c.keys, ckptKey{key: k.Key, lastSeq: k.Through, acked: k.Acked, dropThrough: k.Through, dropped: k.Dropped})
	}
	for _, p := range s.Providers {
		if err := checkProvider(p.Name); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		cp := ckptProvider{name: p.Name, hasCursor: p.Cursor != nil, cursor: append([]byte(nil), p.Cursor...)}
		for _, id := range p.Seen {
			if len(id.ID) > maxDedupLen {
				return fmt.Errorf("seed: provider %q: dedup id of %d bytes (at most %d): %w", p.Name, len(id.ID), maxDedupLen, ErrInvalid)
			}
			cp.ids = append(cp.ids, seenID{id: id.ID, at: id.At.UnixNano()})
		}
		c.providers = append(c.providers, cp)
	}
	r := &request{kind: reqSeed, ctx: ctx, seed: c, done: make(chan error, 1)}
	r.seedSize = int64(len(appendCheckpointFrame(nil, c))) + 2*headerSize
	return j.submit(r)
}

// buildSeed applies a seed request to the state and adds the checkpoint
// frame that makes it durable. Caller holds mu and builds b.
func (j *Journal) buildSeed(b *batch, r *request) {
	for _, ks := range j.keys {
		if ks.lastSeq > 0 || ks.dropped > 0 || len(ks.fresh) > 0 {
			r.err = fmt.Errorf("seed: %s holds state already: %w", keyName(ks.key), ErrInvalid)
			return
		}
	}
	for p, w := range j.windows {
		if w.fifo.len() > 0 {
			r.err = fmt.Errorf("seed: provider %q has DedupIDs remembered already: %w", p, ErrInvalid)
			return
		}
	}
	if len(j.cursors) > 0 || len(b.cursors) > 0 {
		r.err = fmt.Errorf("seed: the journal holds cursors already: %w", ErrInvalid)
		return
	}
	for _, k := range r.seed.keys {
		ks := j.key(k.key)
		ks.lastSeq, ks.acked, ks.dropThrough, ks.dropped = k.lastSeq, k.acked, k.dropThrough, k.dropped
	}
	for _, p := range r.seed.providers {
		if p.hasCursor {
			b.cursors = append(b.cursors, cursorSet{provider: p.name, cursor: p.cursor})
		}
		w := j.window(p.name)
		for _, s := range p.ids {
			w.remember(s.id, s.at)
		}
	}
	// The checkpoint of the whole state (the seeded state: there was none
	// before), at its own LSN, as recovery expects of every checkpoint.
	c := j.checkpoint(b.lsn())
	for _, cs := range b.cursors {
		c.providers = setCursor(c.providers, cs.provider, cs.cursor)
	}
	j.addOwn(b, func(buf []byte) []byte { return appendCheckpointFrame(buf, c) })
}

// setCursor sets provider's cursor in a checkpoint's provider list.
func setCursor(ps []ckptProvider, provider string, cursor []byte) []ckptProvider {
	for i := range ps {
		if ps[i].name == provider {
			ps[i].hasCursor, ps[i].cursor = true, cursor
			return ps
		}
	}
	return append(ps, ckptProvider{name: provider, hasCursor: true, cursor: cursor})
}
