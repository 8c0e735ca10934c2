package journal

// Move: records that leave one key for others in one commit. The journal
// removes records only from the front of a key (acks and drops), so a
// caller that takes some records out of a key (the supervisor's unrouted
// set, whose updates of one thread go to the binding that got the thread)
// writes all of the key's pending records again: those that go elsewhere
// under their new keys, the others under the same key, after its last seq.

import (
	"context"
	"fmt"
	"time"
)

// MoveEntry is one record Move appends.
type MoveEntry struct {
	// Key is the journal the record goes to (may be Move's from).
	Key string
	// Provider is the provider the record came from.
	Provider string
	// ReceivedAt is when the record arrived (keep the original's: age
	// retention counts from it); if zero, the journal's clock.
	ReceivedAt time.Time
	// Data is the record; Move copies it.
	Data []byte
}

// Move removes from's pending records, which must be exactly seqs first
// through last (as the caller read them), and appends entries, each to its
// own Key with the next seq of that key, in order, in one commit: after a
// crash, either all of it happened or none of it did. It returns the seq
// of each entry once the commit is on disk.
//
// The removed records count as acknowledged (Stats.AckedThrough of from
// is last): they are not dropped, and OnDrop is not told of them. Entries
// are not de-duplicated and remember no DedupID: the records they carry
// were de-duplicated when they were first appended. Retention bounds are
// enforced on the keys entries go to, as Append does. A record written
// again keeps its data and ReceivedAt but is, to TotalBytes, as recent as
// the Move.
//
// If from's pending records are no longer first through last (an Append,
// an Ack or retention changed the key since it was read), Move returns
// ErrConflict and nothing changes: the caller reads again. first > last,
// or an entry beyond the input bounds: ErrInvalid. After Close: ErrClosed;
// after a failed write: ErrFailed. If ctx ends before the commit, Move
// returns ctx.Err() and the outcome is unknown (read the keys to find it).
func (j *Journal) Move(ctx context.Context, from string, first, last uint64, entries []MoveEntry) ([]uint64, error) {
	if first == 0 || first > last {
		return nil, fmt.Errorf("move: seqs %d to %d of %s: %w", first, last, keyName(from), ErrInvalid)
	}
	now := j.opts.Now()
	size := 0
	for i := range entries {
		e := &entries[i]
		if err := checkEntry(i, e.Key, "", len(e.Data)); err != nil {
			return nil, fmt.Errorf("move: %w", err)
		}
		if err := checkProvider(e.Provider); err != nil {
			return nil, fmt.Errorf("move: entry %d: %w", i, err)
		}
		size += entryFrameSize(e.Provider, e.Key, "", len(e.Data))
	}
	r := &request{kind: reqMove, ctx: ctx, key: from, first: first, last: last, done: make(chan error, 1)}
	r.buf = make([]byte, 0, size)
	r.ents = make([]pendingEntry, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		r.addFrame(e.Provider, e.Key, "", e.ReceivedAt, now, e.Data)
	}
	if err := j.submit(r); err != nil {
		return nil, err
	}
	seqs := make([]uint64, len(r.out))
	for i, o := range r.out {
		seqs[i] = o.Seq
	}
	return seqs, nil
}

// moveFrameMax bounds what buildMove writes besides the entries.
func (r *request) moveFrameMax() int64 {
	est := ackFrameMax(r.key)
	for _, e := range r.ents {
		est += 4 * dropFrameMax(e.key) // count, bytes, age, total
	}
	return est
}

// buildMove adds a move request to the batch: the ack that removes from's
// records, then the entries, then the drops retention makes. A from that
// changed since the caller read it refuses the request (r.err). Caller
// holds mu and builds b.
func (j *Journal) buildMove(b *batch, r *request) {
	ks := j.keys[r.key]
	if ks == nil || len(ks.fresh) > 0 || ks.front()+1 != r.first || ks.lastSeq != r.last {
		var front, lastSeq uint64
		if ks != nil {
			front, lastSeq = ks.front(), ks.assigned()
		}
		r.err = fmt.Errorf("move: %s holds seqs %d to %d, not %d to %d: %w", keyName(r.key), front+1, lastSeq, r.first, r.last, ErrConflict)
		return
	}
	ks.acked = r.last
	j.removeThrough(ks, r.last)
	j.addOwn(b, func(buf []byte) []byte { return appendAckFrame(buf, ks.key, r.last) })
	b.wake = append(b.wake, ks)

	r.out = make([]Appended, len(r.ents))
	j.w.gen++
	var keys []*keyState
	for i := range r.ents {
		dst, seq := j.addEntry(b, r, &r.ents[i])
		r.out[i].Seq = seq
		if dst.mark != j.w.gen {
			dst.mark = j.w.gen
			keys = append(keys, dst)
		}
	}
	for _, dst := range keys {
		j.enforceLimits(b, dst)
	}
}
