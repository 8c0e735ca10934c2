package store

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// queue is one journal (a binding's, or the unrouted set when key is "")
// inside a transaction.
type queue struct {
	key string
	b   *bbolt.Bucket // holds "state" and q/
	q   *bbolt.Bucket // seq → encoded update
	st  queueState
}

// journalName names a journal in errors.
func journalName(key string) string {
	if key == "" {
		return "unrouted journal"
	}
	return fmt.Sprintf("journal of binding %q", key)
}

// openQueue returns the journal of key, creating it if create is set (in a
// write transaction). A journal that does not exist and is not created is
// nil, with no error.
func openQueue(tx *bbolt.Tx, key string, create bool) (*queue, error) {
	var b *bbolt.Bucket
	if key == "" {
		b = tx.Bucket(bUnrouted)
	} else {
		j := tx.Bucket(bJournal)
		if b = j.Bucket([]byte(key)); b == nil && create {
			var err error
			if b, err = j.CreateBucket([]byte(key)); err != nil {
				return nil, err
			}
			if _, err = b.CreateBucket(bQueue); err != nil {
				return nil, err
			}
		}
	}
	if b == nil {
		return nil, nil
	}
	q := b.Bucket(bQueue)
	if q == nil {
		return nil, fmt.Errorf("%s: %w: queue bucket missing", journalName(key), ErrCorrupt)
	}
	st, err := decodeQueueState(b.Get(kState))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", journalName(key), err)
	}
	return &queue{key: key, b: b, q: q, st: st}, nil
}

// push stores u under the next seq and returns it.
// push appends an encoded update (encodeUpdate) and returns its seq.
func (q *queue) push(v []byte) (uint64, error) {
	seq := q.st.lastSeq + 1
	if err := q.q.Put(putU64(nil, seq), v); err != nil {
		return 0, err
	}
	q.st.lastSeq = seq
	q.st.count++
	q.st.bytes += uint64(len(v))
	return seq, nil
}

func (q *queue) save() error { return q.b.Put(kState, q.st.encode()) }

// drop is one OnDrop report.
type drop struct {
	key    string
	n      int
	reason string
}

// enforce drops the oldest entries until the journal is within l: first
// the count bound, then bytes, then age (received before now-MaxAge). It
// appends one drop per reason that dropped anything and reports whether
// the state changed.
func (q *queue) enforce(l Limits, now time.Time, drops *[]drop) bool {
	var nCount, nBytes, nAge int
	cutoff := now.Add(-l.MaxAge)
	c := q.q.Cursor()
	for q.st.count > 0 {
		k, v := c.First()
		if k == nil {
			break
		}
		var reason *int
		switch {
		case l.MaxCount > 0 && q.st.count > uint64(l.MaxCount):
			reason = &nCount
		case l.MaxBytes > 0 && q.st.bytes > uint64(l.MaxBytes):
			reason = &nBytes
		case l.MaxAge > 0:
			if at, ok := entryReceivedAt(v); ok && at.Before(cutoff) {
				reason = &nAge
			}
		}
		if reason == nil {
			break
		}
		size := uint64(len(v))
		if err := c.Delete(); err != nil {
			break // only fails on a read-only tx
		}
		q.st.count--
		q.st.bytes -= min(size, q.st.bytes)
		q.st.dropped++
		*reason++
	}
	for _, d := range []drop{{q.key, nCount, DropCount}, {q.key, nBytes, DropBytes}, {q.key, nAge, DropAge}} {
		if d.n > 0 {
			*drops = append(*drops, d)
		}
	}
	return nCount+nBytes+nAge > 0
}

func (s *Bolt) reportDrops(drops []drop) {
	if s.opts.OnDrop == nil {
		return
	}
	for _, d := range drops {
		s.opts.OnDrop(d.key, d.n, d.reason)
	}
}

// seenSet is one provider's de-duplication window.
type seenSet struct {
	b, ids, order *bbolt.Bucket
	n             uint64
}

func openSeen(tx *bbolt.Tx, provider string) (*seenSet, error) {
	b, err := tx.Bucket(bSeen).CreateBucketIfNotExists([]byte(provider))
	if err != nil {
		return nil, err
	}
	s := &seenSet{b: b}
	if s.ids, err = b.CreateBucketIfNotExists(bSeenIDs); err != nil {
		return nil, err
	}
	if s.order, err = b.CreateBucketIfNotExists(bSeenOrd); err != nil {
		return nil, err
	}
	if v := b.Get(kSeenN); len(v) == 8 {
		s.n = getU64(v)
	}
	return s, nil
}

// remember records id and reports whether it was already remembered.
func (s *seenSet) remember(id string, now time.Time) (dup bool, err error) {
	k := []byte(id)
	if s.ids.Get(k) != nil {
		return true, nil
	}
	o, err := s.order.NextSequence()
	if err != nil {
		return false, err
	}
	ok := putU64(nil, o)
	if err := s.ids.Put(k, ok); err != nil {
		return false, err
	}
	if err := s.order.Put(ok, append(putI64(nil, unixNano(now)), k...)); err != nil {
		return false, err
	}
	s.n++
	return false, nil
}

// prune forgets the oldest ids beyond maxCount and those remembered before
// cutoff (a bound <= 0 is off), then saves the count.
func (s *seenSet) prune(maxCount int, maxAge time.Duration, now time.Time) error {
	cutoff := int64(math.MinInt64)
	if maxAge > 0 {
		cutoff = now.Add(-maxAge).UnixNano()
	}
	c := s.order.Cursor()
	for s.n > 0 {
		k, v := c.First()
		if k == nil || len(v) < 8 {
			break
		}
		over := maxCount > 0 && s.n > uint64(maxCount)
		if !over && getI64(v[:8]) >= cutoff {
			break
		}
		if err := s.ids.Delete(v[8:]); err != nil {
			return err
		}
		if err := c.Delete(); err != nil {
			return err
		}
		s.n--
	}
	return s.b.Put(kSeenN, putU64(nil, s.n))
}

// Append implements Store.Append. It copies the updates before queueing
// them, so the caller may reuse them as soon as it returns, even on a ctx
// error.
func (s *Bolt) Append(ctx context.Context, provider string, updates []Update, cursor []byte) ([]Update, error) {
	if err := checkProvider(provider); err != nil {
		return nil, err
	}
	now := s.opts.Now()
	in := make([]Update, len(updates))
	// Encoded here, on the caller's goroutine, not the committer's; the
	// encoding is also the copy that lets the caller reuse its updates.
	enc := make([][]byte, len(updates))
	for i, u := range updates {
		switch {
		case u.Provider == "":
			u.Provider = provider
		case u.Provider != provider:
			return nil, fmt.Errorf("append for provider %q: update %d is from %q: %w", provider, i, u.Provider, ErrInvalid)
		}
		if len(u.BindingKey) > maxKeyLen || len(u.DedupID) > maxKeyLen {
			return nil, fmt.Errorf("append: update %d: binding key of %d bytes, dedup id of %d: %w", i, len(u.BindingKey), len(u.DedupID), ErrInvalid)
		}
		if u.ReceivedAt.IsZero() {
			u.ReceivedAt = now
		}
		u.Seq = 0
		v := encodeUpdate(&u)
		u.Payload = v[len(v)-len(u.Payload) : len(v) : len(v)] // the payload ends the encoding
		in[i], enc[i] = u, v
	}
	cursor = bytes.Clone(cursor)
	var (
		out   []Update
		drops []drop
	)
	err := s.write(ctx, func(tx *bbolt.Tx) error {
		stored, dr, err := s.appendTx(tx, provider, in, enc, cursor)
		out, drops = stored, dr
		return err
	}, func() { s.reportDrops(drops) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Bolt) appendTx(tx *bbolt.Tx, provider string, in []Update, enc [][]byte, cursor []byte) ([]Update, []drop, error) {
	now := s.opts.Now()
	seen, err := openSeen(tx, provider)
	if err != nil {
		return nil, nil, err
	}
	bindings := tx.Bucket(bBindings)
	out := make([]Update, 0, len(in))
	queues := make(map[string]*queue, 1)
	var order []*queue // touched journals, first touch first
	for i, u := range in {
		if k := u.dedupKey(); k != "" {
			dup, err := seen.remember(k, now)
			if err != nil {
				return nil, nil, err
			}
			if dup {
				continue
			}
		}
		if u.BindingKey != "" && bindings.Get([]byte(u.BindingKey)) == nil {
			u.BindingKey = "" // no such binding: hold it as unrouted
		}
		q := queues[u.BindingKey]
		if q == nil {
			if q, err = openQueue(tx, u.BindingKey, true); err != nil {
				return nil, nil, err
			}
			queues[u.BindingKey] = q
			order = append(order, q)
		}
		if u.Seq, err = q.push(enc[i]); err != nil {
			return nil, nil, err
		}
		out = append(out, u)
	}
	var drops []drop
	for _, q := range order {
		q.enforce(s.opts.Limits, now, &drops)
		if err := q.save(); err != nil {
			return nil, nil, err
		}
	}
	if err := seen.prune(s.opts.SeenMaxCount, s.opts.SeenMaxAge, now); err != nil {
		return nil, nil, err
	}
	if cursor != nil {
		if err := tx.Bucket(bCursors).Put([]byte(provider), cursor); err != nil {
			return nil, nil, err
		}
	}
	return out, drops, nil
}

// Cursor implements Store.Cursor.
func (s *Bolt) Cursor(provider string) ([]byte, error) {
	var c []byte
	err := s.view(func(tx *bbolt.Tx) error {
		c = bytes.Clone(tx.Bucket(bCursors).Get([]byte(provider)))
		return nil
	})
	return c, err
}

// Read implements Store.Read.
func (s *Bolt) Read(bindingKey string, afterSeq uint64, limit int) ([]Update, error) {
	if afterSeq == math.MaxUint64 {
		return nil, nil
	}
	var out []Update
	err := s.view(func(tx *bbolt.Tx) error {
		q, err := openQueue(tx, bindingKey, false)
		if q == nil {
			return err
		}
		c := q.q.Cursor()
		for k, v := c.Seek(putU64(nil, afterSeq+1)); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Next() {
			u, err := decodeUpdate(v)
			if err != nil {
				return fmt.Errorf("%s seq %d: %w", journalName(bindingKey), getU64(k), err)
			}
			u.Seq, u.BindingKey = getU64(k), bindingKey
			out = append(out, u)
		}
		return nil
	})
	return out, err
}

// Ack implements Store.Ack.
func (s *Bolt) Ack(bindingKey string, seq uint64) (uint64, error) {
	// Settle the cases that write nothing without a write transaction.
	st, err := s.Stats(bindingKey)
	if err != nil {
		return 0, err
	}
	if seq > st.LastSeq {
		return 0, fmt.Errorf("%s: ack of seq %d, last is %d: %w", journalName(bindingKey), seq, st.LastSeq, ErrAckBeyondLast)
	}
	if seq <= st.AckedThrough {
		return st.AckedThrough, nil
	}
	var acked uint64
	err = s.write(context.Background(), func(tx *bbolt.Tx) error {
		q, err := openQueue(tx, bindingKey, false)
		if err != nil {
			return err
		}
		if q == nil || seq > q.st.lastSeq { // the binding was deleted since
			return fmt.Errorf("%s: ack of seq %d beyond the last: %w", journalName(bindingKey), seq, ErrAckBeyondLast)
		}
		if seq <= q.st.ackedThrough {
			acked = q.st.ackedThrough
			return nil
		}
		c := q.q.Cursor()
		for k, v := c.First(); k != nil && getU64(k) <= seq; k, v = c.First() {
			q.st.count--
			q.st.bytes -= min(uint64(len(v)), q.st.bytes)
			if err := c.Delete(); err != nil {
				return err
			}
		}
		q.st.ackedThrough = seq
		acked = seq
		return q.save()
	}, nil)
	if err != nil {
		return 0, err
	}
	return acked, nil
}

// LastSeq implements Store.LastSeq.
func (s *Bolt) LastSeq(bindingKey string) (uint64, error) {
	st, err := s.Stats(bindingKey)
	return st.LastSeq, err
}

// Stats implements Store.Stats.
func (s *Bolt) Stats(bindingKey string) (Stats, error) {
	var st Stats
	err := s.view(func(tx *bbolt.Tx) error {
		q, err := openQueue(tx, bindingKey, false)
		if q == nil {
			return err
		}
		st = Stats{
			Pending:      int(q.st.count),
			Bytes:        int64(q.st.bytes),
			AckedThrough: q.st.ackedThrough,
			LastSeq:      q.st.lastSeq,
			Dropped:      q.st.dropped,
		}
		if k, v := q.q.Cursor().First(); k != nil {
			st.OldestAt, _ = entryReceivedAt(v)
		}
		return nil
	})
	return st, err
}

// ListUnrouted implements Store.ListUnrouted.
func (s *Bolt) ListUnrouted(limit int) ([]Update, error) { return s.Read("", 0, limit) }

// UnroutedStats implements Store.UnroutedStats.
func (s *Bolt) UnroutedStats() (Stats, error) { return s.Stats("") }

// ApplyRetention implements Store.ApplyRetention.
func (s *Bolt) ApplyRetention() error {
	var drops []drop
	return s.write(context.Background(), func(tx *bbolt.Tx) error {
		now := s.opts.Now()
		keys := []string{""}
		err := tx.Bucket(bJournal).ForEachBucket(func(k []byte) error {
			keys = append(keys, string(k))
			return nil
		})
		if err != nil {
			return err
		}
		var dr []drop
		for _, key := range keys {
			q, err := openQueue(tx, key, false)
			if err != nil {
				return err
			}
			if q != nil && q.enforce(s.opts.Limits, now, &dr) {
				if err := q.save(); err != nil {
					return err
				}
			}
		}
		drops = dr
		return nil
	}, func() { s.reportDrops(drops) })
}
