package journal

// In-memory state: per-key rings of pending records (the index rebuilt on
// open), the de-duplication windows, the heap that finds the oldest record
// across keys, and the cache of recent records.

import (
	"container/heap"
	"sync"
)

// ring is a FIFO with random access, grown and shrunk by powers of two.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

func (r *ring[T]) len() int { return r.n }

// at returns the i-th element from the front.
func (r *ring[T]) at(i int) *T { return &r.buf[(r.head+i)&(len(r.buf)-1)] }

func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		r.resize(max(16, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

func (r *ring[T]) popFront() T {
	p := &r.buf[r.head]
	v := *p
	var zero T
	*p = zero // drop references for the GC
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	if len(r.buf) > 64 && r.n <= len(r.buf)/4 {
		r.resize(len(r.buf) / 2)
	}
	return v
}

func (r *ring[T]) resize(size int) {
	buf := make([]T, size)
	for i := range r.n {
		buf[i] = *r.at(i)
	}
	r.buf, r.head = buf, 0
}

// entry locates one pending record.
type entry struct {
	seg   *segment
	lsn   uint64 // where its frame is now
	order uint64 // LSN it was first written at: its age among all records
	at    int64  // ReceivedAt, unix ns
	size  uint32 // frame size
	// frame is the record's frame in memory (see tailCache), nil once
	// evicted; Read then reads it from seg.
	frame []byte
}

// keyState is one key's journal. Guarded by Journal.mu.
type keyState struct {
	key string
	// Counters, as durable (persisted by the batch that changed them),
	// except acked: Ack moves it at once and the next batch persists it.
	lastSeq     uint64 // highest seq published
	acked       uint64
	dropThrough uint64 // highest seq dropped by retention or DeleteKey
	dropped     uint64
	// ring holds the pending records: seqs front()+1 … lastSeq.
	ring    ring[entry]
	bytes   int64 // frame bytes in ring
	heapIdx int   // position in Journal.fronts, -1 if not there
	// changed is closed by wake (under mu held exclusively) and made by
	// Changed under mu held shared: chMu orders the Changed calls of one
	// key among themselves.
	chMu    sync.Mutex
	changed chan struct{}
	mark    uint64 // writerState.gen of the last request that touched it

	// Batch-local, used by the writer while it prepares a batch (under
	// mu): the entries assigned seqs in the batch (after the published
	// ones), how many of them are dropped already, and their live bytes.
	fresh        []freshEntry
	freshDropped int
	freshBytes   int64
}

// freshEntry is a record assigned a seq in the batch being prepared.
type freshEntry struct {
	seq  uint64
	lsn  uint64
	at   int64
	size uint32
	// frame aliases the request's buffer (cached on publish).
	frame []byte
}

// front is the seq through which the key's records are gone (acked or
// dropped).
func (ks *keyState) front() uint64 { return max(ks.acked, ks.dropThrough) }

// assigned is the last seq handed out, including the batch being prepared.
func (ks *keyState) assigned() uint64 {
	if n := len(ks.fresh); n > 0 {
		return ks.fresh[n-1].seq
	}
	return ks.lastSeq
}

// pendingCount and pendingBytes include the batch being prepared.
func (ks *keyState) pendingCount() int { return ks.ring.len() + len(ks.fresh) - ks.freshDropped }

func (ks *keyState) pendingBytes() int64 { return ks.bytes + ks.freshBytes }

// oldestAt is the ReceivedAt of the oldest pending record, with ok false if
// there is none (the batch being prepared included).
func (ks *keyState) oldestAt() (int64, bool) {
	if ks.ring.len() > 0 {
		return ks.ring.at(0).at, true
	}
	if ks.freshDropped < len(ks.fresh) {
		return ks.fresh[ks.freshDropped].at, true
	}
	return 0, false
}

// entryAt returns the pending entry with seq, or nil.
func (ks *keyState) entryAt(seq uint64) *entry {
	if ks.ring.len() == 0 || seq < ks.frontSeq() || seq > ks.lastSeq {
		return nil
	}
	return ks.ring.at(int(seq - ks.frontSeq()))
}

// wake closes the key's Changed channel, if anyone waits. Caller holds
// mu exclusively.
func (ks *keyState) wake() {
	ks.chMu.Lock()
	if ks.changed != nil {
		close(ks.changed)
		ks.changed = nil
	}
	ks.chMu.Unlock()
}

// waitChan returns the channel wake closes next, making it if need be.
// Caller holds mu (shared is enough).
func (ks *keyState) waitChan() chan struct{} {
	ks.chMu.Lock()
	defer ks.chMu.Unlock()
	if ks.changed == nil {
		ks.changed = make(chan struct{})
	}
	return ks.changed
}

// key returns key's state, creating it. Caller holds mu.
func (j *Journal) key(key string) *keyState {
	ks := j.keys[key]
	if ks == nil {
		ks = &keyState{key: key, heapIdx: -1}
		j.keys[key] = ks
	}
	return ks
}

// removeThrough removes the published entries of ks with seq <= seq (acked
// or dropped) from the index and the space accounting, and returns how
// many. Caller holds mu and has moved ks.acked or ks.dropThrough.
func (j *Journal) removeThrough(ks *keyState, seq uint64) int {
	n := 0
	for ks.ring.len() > 0 && ks.frontSeq() <= seq {
		e := ks.ring.popFront()
		ks.bytes -= int64(e.size)
		e.seg.live--
		e.seg.liveBytes -= int64(e.size)
		j.liveBytes -= int64(e.size)
		j.livePending--
		n++
	}
	j.fixFront(ks)
	return n
}

// frontSeq is the seq of the first entry in ks.ring (if any): the ring
// always ends at lastSeq.
func (ks *keyState) frontSeq() uint64 {
	return ks.lastSeq - uint64(ks.ring.len()) + 1
}

// fixFront puts ks in, moves it within, or takes it out of j.fronts after
// its oldest pending record changed. Caller holds mu.
func (j *Journal) fixFront(ks *keyState) {
	switch {
	case ks.ring.len() == 0 && ks.heapIdx >= 0:
		heap.Remove(&j.fronts, ks.heapIdx)
	case ks.ring.len() > 0 && ks.heapIdx < 0:
		heap.Push(&j.fronts, ks)
	case ks.ring.len() > 0:
		heap.Fix(&j.fronts, ks.heapIdx)
	}
}

// keyHeap orders keys by the age (order) of their oldest pending record,
// for TotalBytes: the oldest record of all keys is fronts[0]'s first.
type keyHeap []*keyState

func (h keyHeap) Len() int { return len(h) }
func (h keyHeap) Less(a, b int) bool {
	return h[a].ring.at(0).order < h[b].ring.at(0).order
}
func (h keyHeap) Swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].heapIdx, h[b].heapIdx = a, b
}
func (h *keyHeap) Push(x any) {
	ks := x.(*keyState)
	ks.heapIdx = len(*h)
	*h = append(*h, ks)
}
func (h *keyHeap) Pop() any {
	old := *h
	ks := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	ks.heapIdx = -1
	return ks
}

// seenID is one remembered DedupID.
type seenID struct {
	id string
	at int64 // when it was remembered (commit time, unix ns)
}

// window is one provider's de-duplication window: a map for the lookup and
// a FIFO for forgetting the oldest, so remembering and forgetting are O(1).
// An id may be remembered again after it was forgotten (a platform that
// reset its ids): ids maps it to its newest position, and forgetting an
// older position leaves the map alone. Owned by the writer goroutine.
type window struct {
	ids    map[string]uint64 // id → absolute position in fifo
	fifo   ring[seenID]
	popped uint64 // absolute position of fifo's front
}

func newWindow() *window { return &window{ids: make(map[string]uint64)} }

func (w *window) seen(id string) bool {
	_, ok := w.ids[id]
	return ok
}

func (w *window) remember(id string, at int64) {
	w.ids[id] = w.popped + uint64(w.fifo.len())
	w.fifo.push(seenID{id: id, at: at})
}

// prune forgets the oldest ids beyond maxCount and those remembered before
// cutoff (maxCount < 0: no count bound; cutoff is MinInt64 for no age bound).
func (w *window) prune(maxCount int, cutoff int64) {
	for w.fifo.len() > 0 {
		f := w.fifo.at(0)
		if (maxCount < 0 || w.fifo.len() <= maxCount) && f.at >= cutoff {
			return
		}
		s := w.fifo.popFront()
		if w.ids[s.id] == w.popped {
			delete(w.ids, s.id)
		}
		w.popped++
	}
}

// list returns the remembered ids, oldest first (for a checkpoint).
func (w *window) list() []seenID {
	out := make([]seenID, w.fifo.len())
	for i := range out {
		out[i] = *w.fifo.at(i)
	}
	return out
}

// tailCache keeps the frames of the most recently published records in
// memory, within a byte budget: a FIFO by publication, whatever was acked
// since. Evicting a slot clears the frame of its entry if that entry is
// still pending. Guarded by Journal.mu.
type tailCache struct {
	budget int64
	bytes  int64
	slots  ring[cacheSlot]
}

type cacheSlot struct {
	ks   *keyState
	seq  uint64
	size int64
}

// add caches frame as e's (seq of ks) and evicts the oldest slots beyond
// the budget.
func (c *tailCache) add(ks *keyState, seq uint64, e *entry, frame []byte) {
	if c.budget <= 0 {
		return
	}
	e.frame = frame
	c.slots.push(cacheSlot{ks: ks, seq: seq, size: int64(len(frame))})
	c.bytes += int64(len(frame))
	for c.bytes > c.budget && c.slots.len() > 0 {
		s := c.slots.popFront()
		c.bytes -= s.size
		if old := s.ks.entryAt(s.seq); old != nil {
			old.frame = nil
		}
	}
}
