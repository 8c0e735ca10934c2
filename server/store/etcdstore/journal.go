package etcdstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/store"
)

// Append implements store.Store: the batch's updates (one chunk per
// binding), the queue states they change, their de-duplication ids, what
// retention removed and the cursor, in one fenced transaction (several,
// the cursor in the last, for a batch that touches more bindings than one
// may carry).
func (s *Store) Append(ctx context.Context, provider string, updates []store.Update, cursor []byte) ([]store.Update, error) {
	if err := store.CheckProvider(provider); err != nil {
		return nil, err
	}
	now := s.opts.Now()
	var out []store.Update
	err := s.write(ctx, func() ([]clientv3.Op, func(), error) {
		out = nil
		ss := s.seenOf(provider)
		batchIDs := map[string]struct{}{}
		type part struct {
			q       *queue
			entries []entry
			data    [][]byte
			ids     []string
		}
		parts := map[string]*part{}
		var order []string
		// next seq per touched queue, before anything is applied
		next := map[string]uint64{}
		for i, u := range updates {
			switch {
			case u.Provider == "":
				u.Provider = provider
			case u.Provider != provider:
				return nil, nil, fmt.Errorf("append for provider %q: update %d is from %q: %w", provider, i, u.Provider, store.ErrInvalid)
			}
			// The bounds of Bolt's keys ("" is no key here: unrouted, or
			// no dedup id).
			for _, k := range [...]struct{ what, key string }{{"binding key", u.BindingKey}, {"dedup id", u.DedupID}} {
				if k.key != "" {
					if err := store.CheckKey(k.what, k.key); err != nil {
						return nil, nil, fmt.Errorf("append: update %d: %w", i, err)
					}
				}
			}
			// The caller may reuse its buffer once Append returns; the
			// queue keeps the update.
			u.Payload = bytes.Clone(u.Payload)
			if u.ReceivedAt.IsZero() {
				u.ReceivedAt = now
			}
			u.BindingKey = s.route(&u)
			id := u.DedupKey()
			if id != "" {
				if _, dup := ss.ids[id]; dup {
					continue
				}
				if _, dup := batchIDs[id]; dup {
					continue
				}
				batchIDs[id] = struct{}{}
			}
			v := store.EncodeUpdate(&u) // without Seq: the same once it has one
			if n := s.soloBytes(u.BindingKey, v, id, cursor); n > s.txnBudget() {
				// Written alone it would still be refused: refused
				// now, with the batch, for the caller to set aside.
				return nil, nil, fmt.Errorf("etcdstore: update %d of provider %q is %d bytes, more than one etcd request may carry (%d: max-request-bytes less its envelope): %w",
					u.PlatformUpdateID, provider, len(v), s.txnBudget(), store.ErrTooLarge)
			}
			p := parts[u.BindingKey]
			if p == nil {
				q := s.queues[u.BindingKey]
				if q == nil {
					q = &queue{}
				}
				p = &part{q: q}
				parts[u.BindingKey] = p
				order = append(order, u.BindingKey)
				next[u.BindingKey] = q.Last + 1
			}
			u.Seq = next[u.BindingKey]
			next[u.BindingKey]++
			p.entries = append(p.entries, entry{u: u, size: int64(len(v))})
			p.data = append(p.data, v)
			p.ids = append(p.ids, id) // "" for none: one per entry
			out = append(out, u)
		}
		// One group per transaction: the bindings' chunks and queue
		// states, their de-duplication ids, and in the last group the
		// cursor. A batch fits one transaction unless it touches more
		// bindings than MaxTxnOps allows or its updates pass etcd's
		// request size (MaxRequestBytes: a backlog with raw payloads);
		// then a binding's updates are cut into several chunks, each
		// group is journalled with its ids before the next, and the cursor
		// moves only with the last, so a failure between them leaves
		// updates journalled and de-duplicated that the platform will
		// send again.
		type group struct {
			ops     []clientv3.Op
			bytes   int
			keys    map[string]bool // bindings whose queue state it writes (once each)
			applies []func()
			ids     []string
		}
		budget := s.txnBudget()
		var groups []*group
		g := &group{}
		for _, key := range order {
			p := parts[key]
			// The queue as it will be: a copy, so that a refused write
			// leaves memory as it was.
			nq := *p.q
			nq.pending = append([]entry(nil), p.q.pending...)
			nq.chunks = append([]chunk(nil), p.q.chunks...)
			for start := 0; start < len(p.entries); {
				// As many updates as one chunk may carry beside its
				// queue state (at least one).
				end, size := start, 0
				for end < len(p.entries) && (end == start || size+len(p.data[end])+len(p.ids[end])+2*binary.MaxVarintLen64 <= budget/2) {
					size += len(p.data[end]) + len(p.ids[end]) + 2*binary.MaxVarintLen64
					end++
				}
				run := p.entries[start:end]
				var ids []string
				for _, id := range p.ids[start:end] {
					if id != "" {
						ids = append(ids, id)
					}
				}
				first := run[0].u.Seq
				ck := s.k(pJournal, hexKey(key), "/", fmt.Sprintf("%020d", first))
				nq.pending = append(slices.Clip(nq.pending), run...)
				nq.chunks = append(slices.Clip(nq.chunks), chunk{key: ck, first: first, last: run[len(run)-1].u.Seq})
				for _, e := range run {
					nq.bytes += e.size
				}
				nq.Last = run[len(run)-1].u.Seq
				drops := s.retain(key, &nq, now)
				ops := append([]clientv3.Op{clientv3.OpPut(ck, string(encodeChunk(p.data[start:end])))}, s.queueOps(key, &nq)...)
				cost := opsBytes(ops) + idsBytes(ids)
				if len(g.ops) > 0 && (len(g.ops)+len(ops)+2 > s.opts.MaxTxnOps || g.bytes+cost > budget || g.keys[key]) {
					groups = append(groups, g)
					g = &group{}
				}
				if g.keys == nil {
					g.keys = map[string]bool{}
				}
				g.keys[key] = true
				g.ops = append(g.ops, ops...)
				g.bytes += cost
				g.ids = append(g.ids, ids...)
				q := nq // this chunk's state; the next chunk's copies on
				g.applies = append(g.applies, func() {
					s.queues[key] = &q
					s.dropped = append(s.dropped, drops...)
					s.wake(key, false)
				})
				start = end
			}
		}
		groups = append(groups, g)
		for i, g := range groups {
			if len(g.ids) > 0 {
				ids, n := g.ids, ss.next
				dk := s.k(pDedup, hexKey(provider), "/", fmt.Sprintf("%020d", n))
				op, err := jsonOp(dk, seenRecord{At: now, IDs: ids})
				if err != nil {
					return nil, nil, err
				}
				g.ops = append(g.ops, op)
				g.applies = append(g.applies, func() {
					ss.chunks = append(ss.chunks, seenChunk{key: dk, at: now, ids: ids})
					for _, id := range ids {
						ss.ids[id] = struct{}{}
					}
					ss.count += len(ids)
					ss.next = max(ss.next, n+1)
				})
				ss.next++ // reserved; a failed write leaves a gap, never a reuse
			}
			if i == len(groups)-1 && cursor != nil {
				c := append([]byte(nil), cursor...)
				g.ops = append(g.ops, clientv3.OpPut(s.k(pCursor, provider), string(c)))
				g.applies = append(g.applies, func() { s.cursors[provider] = c })
			}
		}
		for _, g := range groups {
			if err := s.commit(ctx, g.ops); err != nil {
				return nil, nil, err
			}
			for _, a := range g.applies {
				a()
			}
		}
		// The oldest windows beyond the bounds are forgotten, and deleted
		// once the write is done: a window too old, or one the newer
		// windows can do without (they hold SeenMaxCount ids without it:
		// a window is forgotten whole, so the newest SeenMaxCount ids are
		// always remembered, and at most one window's more).
		for len(ss.chunks) > 0 && (ss.count-len(ss.chunks[0].ids) >= s.opts.SeenMaxCount || now.Sub(ss.chunks[0].at) > s.opts.SeenMaxAge) {
			c := ss.chunks[0]
			for _, id := range c.ids {
				delete(ss.ids, id)
			}
			ss.count -= len(c.ids)
			ss.chunks = ss.chunks[1:]
			s.afterCommit = append(s.afterCommit, clientv3.OpDelete(c.key))
		}
		return nil, func() { s.retainTotal(now) }, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// soloBytes is about what the transaction that carries an update encoded
// as v (de-duplication id id, binding key) alone would send: its chunk,
// its queue state, its de-duplication record and the cursor. Caller holds
// mu.
func (s *Store) soloBytes(key string, v []byte, id string, cursor []byte) int {
	n := len(v) + 2*binary.MaxVarintLen64 + idsBytes([]string{id})
	if n <= s.txnBudget()/2 {
		return n // far within: the batch's groups hold it
	}
	keys := len(s.k(pJournal, hexKey(key), "/", fmt.Sprintf("%020d", 0))) + len(s.k(pQueue, hexKey(key))) +
		len(s.k(pDedup, hexKey(""), "/", fmt.Sprintf("%020d", 0))) + len(s.k(pCursor)) + 4*16
	state := 128 // the queue state's JSON but its moved seqs
	if q := s.queues[key]; q != nil {
		state += 21 * len(q.Moved)
	}
	return n + keys + state + len(cursor)
}

// txnBudget is how many bytes of keys and values one transaction may
// carry: etcd's request limit less room for the fence, the framing of each
// operation and the gRPC envelope.
func (s *Store) txnBudget() int { return s.opts.MaxRequestBytes - txnReserve }

// txnReserve is what txnBudget keeps free of a request for the fence and
// the envelope.
const txnReserve = 16 << 10

// opsBytes is the size ops add to a transaction (keys, values, framing).
func opsBytes(ops []clientv3.Op) int {
	n := 0
	for _, op := range ops {
		n += len(op.KeyBytes()) + len(op.ValueBytes()) + 16
	}
	return n
}

// idsBytes is what ids add to a transaction's de-duplication record.
func idsBytes(ids []string) int {
	n := 64
	for _, id := range ids {
		n += len(id) + 4
	}
	return n
}

// queueOps writes q's state; the chunks wholly at or below its floor are
// deleted after the write committed, in as many transactions as they need
// (a chunk partly above stays; what is below the floor in it is skipped at
// load, and a chunk left by a failed delete goes with the next change of
// its queue after a reload). Caller holds mu.
func (s *Store) queueOps(key string, q *queue) []clientv3.Op {
	keep := q.chunks[:0:0]
	for _, c := range q.chunks {
		if c.last <= q.Floor {
			s.afterCommit = append(s.afterCommit, clientv3.OpDelete(c.key))
			continue
		}
		keep = append(keep, c)
	}
	q.chunks = keep
	i := 0
	for i < len(q.Moved) && q.Moved[i] <= q.Floor {
		i++
	}
	q.Moved = slices.Clip(q.Moved[i:]) // a copy's appends never reach the original's
	if len(q.Moved) == 0 {
		q.Moved = nil
	}
	op, _ := jsonOp(s.k(pQueue, hexKey(key)), q) // numbers: never fails
	return []clientv3.Op{op}
}

// retain drops q's oldest pending updates beyond the Limits and returns
// the drops to report.
func (s *Store) retain(key string, q *queue, now time.Time) []drop {
	l := s.opts.Limits
	counts := map[string]int{}
	for len(q.pending) > 0 {
		reason := ""
		switch {
		case l.MaxCount > 0 && len(q.pending) > l.MaxCount:
			reason = store.DropCount
		case l.MaxBytes > 0 && q.bytes > l.MaxBytes:
			reason = store.DropBytes
		case l.MaxAge > 0 && now.Sub(q.pending[0].u.ReceivedAt) > l.MaxAge:
			reason = store.DropAge
		}
		if reason == "" {
			break
		}
		s.dropFirst(q)
		counts[reason]++
	}
	var out []drop
	for _, r := range []string{store.DropCount, store.DropBytes, store.DropAge} {
		if counts[r] > 0 {
			out = append(out, drop{key, counts[r], r})
		}
	}
	return out
}

func (s *Store) dropFirst(q *queue) {
	e := q.pending[0]
	q.pending = q.pending[1:]
	q.bytes -= e.size
	q.Floor = max(q.Floor, e.u.Seq)
	q.Dropped++
}

// retainTotal enforces Limits.TotalBytes across journals after an Append
// committed: the oldest updates of all journals go first. Its removals are
// written at once (best effort: a failure leaves them for the next write,
// and they are dropped from memory either way). Caller holds mu.
func (s *Store) retainTotal(now time.Time) {
	limit := s.opts.Limits.TotalBytes
	if limit <= 0 {
		return
	}
	var total int64
	for _, q := range s.queues {
		total += q.bytes
	}
	touched := map[string]int{}
	for total > limit {
		var oldest string
		var at time.Time
		found := false
		for k, q := range s.queues {
			if len(q.pending) > 0 && (!found || q.pending[0].u.ReceivedAt.Before(at)) {
				oldest, at, found = k, q.pending[0].u.ReceivedAt, true
			}
		}
		if !found {
			break
		}
		q := s.queues[oldest]
		total -= q.pending[0].size
		s.dropFirst(q)
		touched[oldest]++
	}
	var ops []clientv3.Op
	for k, n := range touched {
		ops = append(ops, s.queueOps(k, s.queues[k])...)
		s.dropped = append(s.dropped, drop{k, n, store.DropTotalBytes})
	}
	_ = s.commitSplit(context.Background(), ops)
}

// wake closes the Changed channels of key whose seq was passed (all of
// them when all is set). Caller holds mu.
func (s *Store) wake(key string, all bool) {
	ws := s.waiters[key]
	if len(ws) == 0 {
		return
	}
	var last uint64
	if q := s.queues[key]; q != nil {
		last = q.Last
	}
	keep := ws[:0]
	for _, w := range ws {
		if all || last > w.after {
			close(w.c)
			continue
		}
		keep = append(keep, w)
	}
	if len(keep) == 0 {
		delete(s.waiters, key)
		return
	}
	s.waiters[key] = keep
}

// Cursor implements store.Store.
func (s *Store) Cursor(provider string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return nil, err
	}
	c := s.cursors[provider]
	if c == nil {
		return nil, nil
	}
	return append([]byte(nil), c...), nil
}

// Read implements store.Store.
func (s *Store) Read(bindingKey string, afterSeq uint64, limit int) ([]store.Update, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return nil, err
	}
	q := s.queues[bindingKey]
	if q == nil || afterSeq == math.MaxUint64 {
		return nil, nil
	}
	var out []store.Update
	for _, e := range q.pending {
		if e.u.Seq <= afterSeq {
			continue
		}
		if limit > 0 && len(out) >= limit {
			break
		}
		u := e.u
		u.Refs = append([]store.Ref(nil), u.Refs...)
		out = append(out, u)
	}
	return out, nil
}

// Ack implements store.Store: written at once, in one fenced transaction.
func (s *Store) Ack(bindingKey string, seq uint64) (uint64, error) {
	var acked uint64
	err := s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		q := s.queues[bindingKey]
		var last uint64
		if q != nil {
			last = q.Last
		}
		if seq > last {
			return nil, nil, fmt.Errorf("journal %q: ack %d, last %d: %w", bindingKey, seq, last, store.ErrAckBeyondLast)
		}
		if q == nil || seq <= q.Acked {
			if q != nil {
				acked = q.Acked
			}
			return nil, nil, nil
		}
		nq := *q
		nq.chunks = append([]chunk(nil), q.chunks...)
		nq.Acked = seq
		nq.Floor = max(nq.Floor, seq)
		i := 0
		for i < len(nq.pending) && nq.pending[i].u.Seq <= seq {
			nq.bytes -= nq.pending[i].size
			i++
		}
		nq.pending = nq.pending[i:]
		ops := s.queueOps(bindingKey, &nq)
		acked = seq
		return ops, func() { s.queues[bindingKey] = &nq }, nil
	})
	return acked, err
}

// Changed implements store.Store.
func (s *Store) Changed(bindingKey string, afterSeq uint64) <-chan struct{} {
	c := make(chan struct{})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		close(c)
		return c
	}
	if q := s.queues[bindingKey]; q != nil && q.Last > afterSeq {
		close(c)
		return c
	}
	s.waiters[bindingKey] = append(s.waiters[bindingKey], waiter{after: afterSeq, c: c})
	return c
}

// LastSeq implements store.Store.
func (s *Store) LastSeq(bindingKey string) (uint64, error) {
	st, err := s.Stats(bindingKey)
	return st.LastSeq, err
}

// Stats implements store.Store.
func (s *Store) Stats(bindingKey string) (store.Stats, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.usableRead(); err != nil {
		return store.Stats{}, err
	}
	q := s.queues[bindingKey]
	if q == nil {
		return store.Stats{}, nil
	}
	st := store.Stats{Pending: len(q.pending), Bytes: q.bytes, AckedThrough: q.Acked, LastSeq: q.Last, Dropped: q.Dropped}
	if len(q.pending) > 0 {
		st.OldestAt = q.pending[0].u.ReceivedAt
	}
	return st, nil
}

// JournalSpace implements store.Store: there are no segment files; the
// pending updates are counted.
func (s *Store) JournalSpace() store.JournalSpace {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var js store.JournalSpace
	for _, q := range s.queues {
		js.Pending += len(q.pending)
		js.LiveBytes += q.bytes
	}
	js.UsedBytes = js.LiveBytes
	return js
}

// ListUnrouted implements store.Store.
func (s *Store) ListUnrouted(limit int) ([]store.Update, error) { return s.Read("", 0, limit) }

// UnroutedStats implements store.Store.
func (s *Store) UnroutedStats() (store.Stats, error) { return s.Stats("") }

// ApplyRetention implements store.Store.
func (s *Store) ApplyRetention() error {
	now := s.opts.Now()
	return s.write(context.Background(), func() ([]clientv3.Op, func(), error) {
		var ops []clientv3.Op
		var applies []func()
		for key, q := range s.queues {
			nq := *q
			nq.pending = append([]entry(nil), q.pending...)
			nq.chunks = append([]chunk(nil), q.chunks...)
			drops := s.retain(key, &nq, now)
			if len(drops) == 0 {
				continue
			}
			ops = append(ops, s.queueOps(key, &nq)...)
			applies = append(applies, func() { s.queues[key] = &nq; s.dropped = append(s.dropped, drops...) })
		}
		if len(ops) > s.opts.MaxTxnOps {
			// Each journal's retention stands on its own.
			if err := s.commitSplit(context.Background(), ops); err != nil {
				return nil, nil, err
			}
			ops = nil
		}
		return ops, func() {
			for _, a := range applies {
				a()
			}
		}, nil
	})
}
