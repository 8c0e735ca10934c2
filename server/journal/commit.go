package journal

// Group commit: the writer goroutine, the one place that assigns seqs,
// decides drops and writes. It takes everything concurrent callers queued
// and writes it as one batch, with one pwritev and one fdatasync, and
// publishes it; retention (retention.go) and compaction (compaction.go)
// ride on its batches, and a failed write hands over to the reopen
// (reopen.go).
//
// One commit:
//
//  1. take every request queued, without waiting (up to MaxBatchBytes);
//  2. outside mu, read the next chunk of live records of a segment being
//     compacted (prepareCopies);
//  3. under mu, estimate the batch's size (an upper bound) and roll to a new
//     segment if it does not fit (makeRoom; the roll itself happens
//     outside mu);
//  4. under mu, build the batch: the checkpoint if the segment is new, the
//     acks waiting, the compaction copies still live, each request in order
//     (entries sealed with their seq and LSN, cursor, drops), the drops for
//     TotalBytes, the commit frame. Drops take effect in memory here: a
//     dropped record is never read again, whether or not the commit
//     succeeds (if it does not, the journal has failed);
//  5. outside mu, one pwritev of the whole batch and one fdatasync
//     (writeBatch);
//  6. under mu, publish: the new records become readable, Changed channels
//     are closed, cursors move, copied records point to their new place;
//  7. outside mu, OnDrop reports, the callers are answered, and segments
//     with nothing live (as of step 4, so only acks already on disk count)
//     are deleted (settle).
//
// Its figures: Journal.commits and Journal.batched count the batches
// written and the requests they carried; Journal.writing is the requests
// of the batch being written now.

import (
	"encoding/binary"
	"fmt"
	"time"
)

// writerState is owned by the writer goroutine: the active segment and
// each part's own state.
type writerState struct {
	active *segment
	batching
	compaction // compaction.go
	recovery   // reopen.go
}

// batching is group commit's own state.
type batching struct {
	wbuf []byte   // frames the writer encodes (checkpoint, acks, cursors, drops, commit)
	iov  [][]byte // reused for pwritev
	gen  uint64   // marks keys already seen in a request (keyState.mark)

	ackTimer *time.Timer
	ackArmed bool

	flushes []*request // Flush calls waiting for maintenance to catch up
}

// batch is one group commit being built.
type batch struct {
	seg     *segment
	start   uint64 // LSN of the first frame
	size    int64
	frames  uint32 // before the commit frame
	content int    // frames other than the checkpoint
	parts   []part
	now     int64

	reqs       []*request
	touched    []*keyState // keys with fresh entries
	freshOrder []freshRef  // fresh entries in batch order (for TotalBytes)
	freshLive  int64       // bytes of fresh entries not dropped
	cursors    []cursorSet
	copies     []copyDone
	drops      []dropReport
	wake       []*keyState // keys whose records DeleteKey discarded
	deletable  []*segment
}

// part is a run of the batch: bytes of wbuf (own) or of buf.
type part struct {
	own      bool
	buf      []byte
	from, to int
}

type freshRef struct {
	ks  *keyState
	idx int // in ks.fresh
}

type cursorSet struct {
	provider string
	cursor   []byte
}

func (b *batch) lsn() uint64 { return b.start + uint64(b.size) }

func (b *batch) add(p part) {
	if n := len(b.parts); n > 0 {
		last := &b.parts[n-1]
		if last.own == p.own && last.to == p.from && (p.own || &last.buf[0] == &p.buf[0]) {
			last.to = p.to
			return
		}
	}
	b.parts = append(b.parts, p)
}

// addOwn appends a frame encoded by enc to wbuf, at the batch's next LSN.
func (j *Journal) addOwn(b *batch, enc func([]byte) []byte) {
	w := &j.w
	from := len(w.wbuf)
	w.wbuf = enc(w.wbuf)
	finishFrame(w.wbuf[from:], b.lsn())
	b.add(part{own: true, from: from, to: len(w.wbuf)})
	b.size += int64(len(w.wbuf) - from)
	b.frames++
	b.content++
}

// run is the writer goroutine. After Close it commits what is queued,
// writes the acks waiting, and exits.
func (j *Journal) run() {
	defer close(j.writerDone)
	w := &j.w
	w.ackTimer = time.NewTimer(time.Hour)
	w.ackTimer.Stop()
	defer w.ackTimer.Stop()
	w.reopenTimer = time.NewTimer(time.Hour)
	w.reopenTimer.Stop()
	defer w.reopenTimer.Stop()
	var carry *request
	closing := false
	for {
		var reopenC <-chan time.Time
		if w.reopenArmed {
			reopenC = w.reopenTimer.C
		}
		var reqs []*request
		var bytes int64
		take := func(r *request) bool {
			n := int64(len(r.buf))
			if len(reqs) > 0 && bytes+n > j.opts.MaxBatchBytes {
				carry = r
				return false
			}
			reqs = append(reqs, r)
			bytes += n
			return true
		}
		if carry != nil {
			r := carry
			carry = nil
			take(r)
		}
		if len(reqs) == 0 && !closing {
			if j.maintenanceDue() {
				select {
				case r := <-j.reqs:
					take(r)
				case <-j.closing:
					closing = true
				default:
				}
			} else {
				select {
				case r := <-j.reqs:
					take(r)
				case <-j.ackKick:
					if !w.ackArmed {
						w.ackTimer.Reset(j.opts.AckFlushInterval)
						w.ackArmed = true
					}
					continue
				case <-w.ackTimer.C:
					w.ackArmed = false
				case <-reopenC:
					w.reopenArmed = false
					if err := j.reopen(); err != nil {
						w.failures++
						j.log.Error().Err(err).Dur("retry_in", j.reopenDelay()).
							Msg("reopening the journal after a failed write")
					}
					j.armReopen()
					continue
				case <-j.closing:
					closing = true
				}
			}
		}
	drain:
		for carry == nil {
			select {
			case r := <-j.reqs:
				if !take(r) {
					break drain
				}
			default:
				break drain
			}
		}
		j.commit(reqs)
		j.armReopen()
		if closing && carry == nil && len(j.reqs) == 0 {
			j.commit(nil) // the acks that came in meanwhile
			j.answerFlushes(j.failure())
			j.closeErr = j.failure()
			return
		}
	}
}

// commit writes one batch carrying reqs (possibly none: acks, compaction).
func (j *Journal) commit(reqs []*request) {
	live := reqs[:0]
	for _, r := range reqs {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	if err := j.failure(); err != nil {
		j.answer(live, err)
		return
	}
	j.prepareCopies()
	ckpt, err := j.makeRoom(live)
	if err != nil {
		j.answer(live, err)
		return
	}
	b := j.build(live, ckpt)
	j.mu.Unlock()

	if b.content > 0 {
		j.writing.Store(int64(len(live)))
		err = j.writeBatch(b)
		j.writing.Store(0)
		j.commits.Add(1)
		j.batched.Add(uint64(len(live)))
	}
	if err != nil {
		j.answer(live, j.failBatch(b, err))
		return
	}
	j.settle(b, live)
}

// answer answers reqs and the Flush calls waiting with err.
func (j *Journal) answer(reqs []*request, err error) {
	for _, r := range reqs {
		r.done <- err
	}
	j.answerFlushes(err)
}

// makeRoom makes room in the active segment for the batch of reqs:
// extending it if it holds nothing yet, else rolling to a new one. It
// returns the checkpoint frame the batch starts with (nil if the segment
// has one) and holds mu; on failure (no room: a full disk) it holds
// maintenance back a moment and does not hold mu.
func (j *Journal) makeRoom(reqs []*request) ([]byte, error) {
	w := &j.w
	j.mu.Lock()
	for {
		est := j.estimate(reqs)
		var ckpt []byte
		a := w.active
		fits := a.used+est <= a.capacity
		if a.used == 0 || !fits {
			ckpt = appendCheckpointFrame(nil, j.checkpoint(a.base))
			if a.used == 0 {
				fits = int64(len(ckpt))+est <= a.capacity
			}
		}
		if fits {
			return ckpt, nil
		}
		need := est + int64(len(ckpt))
		j.mu.Unlock()
		var err error
		if a.used == 0 {
			err = j.prep.extend(a, max(need, a.capacity))
		} else {
			err = j.roll(need)
		}
		if err != nil {
			err = fmt.Errorf("journal %s: %w", j.dir, err)
			j.log.Error().Err(err).Msg("no room for the next batch")
			w.retryAt = time.Now().Add(time.Second)
			return nil, err
		}
		j.mu.Lock()
	}
}

// settle finishes a batch that was written (or had nothing to write):
// publishes it, deletes the segments it left with nothing live, reports
// its drops and answers its requests (Flush calls once maintenance has
// caught up).
func (j *Journal) settle(b *batch, live []*request) {
	w := &j.w
	j.mu.Lock()
	if b.content > 0 {
		j.publish(b)
		w.failures = 0
	}
	for _, s := range b.deletable {
		j.unlinkSegment(s)
	}
	j.compactionSettledLocked(b)
	j.mu.Unlock()

	if j.opts.OnDrop != nil {
		for _, d := range b.drops {
			j.opts.OnDrop(d.key, d.n, d.reason)
		}
	}
	for _, r := range live {
		if r.kind == reqFlush {
			w.flushes = append(w.flushes, r)
			continue
		}
		r.done <- r.err
	}
	j.removeSegments(b.deletable)
	// After a roll the next segment is asked for at once (roll); after Open
	// only once the active one is half full, so that the preparer's zeros
	// stay away from the appends right after Open.
	if a := w.active; !j.prep.outstanding && a.used >= a.capacity/2 {
		j.prep.start(a.end(), j.opts.SegmentSize)
	}
	if !j.maintenanceDue() {
		j.answerFlushes(nil)
	}
}

func (j *Journal) answerFlushes(err error) {
	for _, r := range j.w.flushes {
		r.done <- err
	}
	clear(j.w.flushes)
	j.w.flushes = j.w.flushes[:0]
}

func ackFrameMax(key string) int64 { return headerSize + binary.MaxVarintLen64 + int64(len(key)) + 8 }

// estimate bounds the size of the batch build would make of reqs (without
// a checkpoint). Caller holds mu.
func (j *Journal) estimate(reqs []*request) int64 {
	est := int64(commitSize)
	for ks := range j.pendingAcks {
		est += ackFrameMax(ks.key)
	}
	for _, c := range j.w.copies {
		est += int64(c.size)
	}
	var appended int64
	for _, r := range reqs {
		switch r.kind {
		case reqAppend:
			est += int64(len(r.buf))
			appended += int64(len(r.buf))
			for _, e := range r.ents {
				est += 4 * dropFrameMax(e.key) // count, bytes, age, total
			}
			if r.cursor != nil {
				est += headerSize + binary.MaxVarintLen64 + int64(len(r.provider)+len(r.cursor))
			}
		case reqDeleteKey:
			est += dropFrameMax(r.key)
		case reqSeed:
			est += r.seedSize
		case reqMove:
			est += int64(len(r.buf)) + r.moveFrameMax()
			appended += int64(len(r.buf))
		case reqRetention:
			for _, ks := range j.keys {
				est += 4 * dropFrameMax(ks.key)
			}
		}
	}
	if t := j.opts.TotalBytes; t > 0 && j.liveBytes+appended > t {
		for _, ks := range j.fronts {
			est += dropFrameMax(ks.key)
		}
	}
	return est
}

// checkpoint returns the state to write at the start of the segment at
// base. Caller holds mu; no batch is being built.
func (j *Journal) checkpoint(base uint64) *checkpoint {
	c := &checkpoint{base: base}
	for _, ks := range j.keys {
		if ks.lastSeq > 0 || ks.dropped > 0 {
			c.keys = append(c.keys, ckptKey{key: ks.key, lastSeq: ks.lastSeq, acked: ks.acked,
				dropThrough: ks.dropThrough, dropped: ks.dropped})
		}
	}
	names := make(map[string]bool, len(j.cursors)+len(j.windows))
	for p := range j.cursors {
		names[p] = true
	}
	for p, w := range j.windows {
		if w.fifo.len() > 0 {
			names[p] = true
		}
	}
	for p := range names {
		cp := ckptProvider{name: p}
		if cur, ok := j.cursors[p]; ok {
			cp.hasCursor, cp.cursor = true, cur
		}
		if w := j.windows[p]; w != nil {
			cp.ids = w.list()
		}
		c.providers = append(c.providers, cp)
	}
	return c
}

// roll seals the active segment and makes a new one with room for need
// bytes the active one. Caller does not hold mu.
func (j *Journal) roll(need int64) error {
	w := &j.w
	old := w.active
	seg, err := j.prep.take(old.end(), max(j.opts.SegmentSize, need))
	if err != nil {
		return err
	}
	// Give back the preallocated rest. If this fails the segment keeps its
	// zeros after the data, which is still a valid sealed segment.
	if err := old.f.Truncate(old.used); err != nil {
		j.log.Warn().Err(err).Str("segment", old.path).Msg("truncating a sealed segment")
	}
	j.mu.Lock()
	old.size = old.used
	j.segs = append(j.segs, seg)
	w.active = seg
	j.mu.Unlock()
	j.prep.start(seg.end(), j.opts.SegmentSize)
	return nil
}

// build makes the batch. Caller holds mu. ckpt is the checkpoint frame to
// start with (nil if the segment has one).
func (j *Journal) build(reqs []*request, ckpt []byte) *batch {
	w := &j.w
	w.wbuf = w.wbuf[:0]
	b := &batch{seg: w.active, start: w.active.base + uint64(w.active.used), now: j.opts.Now().UnixNano(), reqs: reqs}
	if ckpt != nil {
		j.addOwn(b, func(buf []byte) []byte { return append(buf, ckpt...) })
		b.content--
	}
	for ks := range j.pendingAcks {
		j.addOwn(b, func(buf []byte) []byte { return appendAckFrame(buf, ks.key, ks.acked) })
	}
	clear(j.pendingAcks)

	for _, c := range w.copies {
		e := c.ks.entryAt(c.seq)
		if e == nil || e.lsn != c.srcLSN {
			continue // acked or dropped since it was read
		}
		lsn := b.lsn()
		frame := w.copyBuf[c.off : c.off+c.size]
		binary.LittleEndian.PutUint32(frame[5:9], crcLSN(c.partial, lsn))
		b.add(part{buf: w.copyBuf, from: c.off, to: c.off + c.size})
		b.size += int64(c.size)
		b.frames++
		b.content++
		b.copies = append(b.copies, copyDone{ks: c.ks, seq: c.seq, srcLSN: c.srcLSN, lsn: lsn, size: c.size})
	}
	clear(w.copies)
	w.copies = w.copies[:0]

	touchedWindows := map[*window]struct{}{}
	for _, r := range reqs {
		switch r.kind {
		case reqAppend:
			j.buildAppend(b, r, touchedWindows)
		case reqDeleteKey:
			ks := j.keys[r.key]
			if ks == nil || ks.pendingCount() == 0 {
				continue
			}
			n := ks.pendingCount()
			for ks.pendingCount() > 0 {
				j.dropFront(b, ks)
			}
			j.addDrop(b, ks, n, reasonKeyDeleted)
			b.wake = append(b.wake, ks)
			r.dropped = n
		case reqRetention:
			if r.limits != nil {
				j.opts.Limits, j.opts.TotalBytes = *r.limits, r.total
			}
			for _, ks := range j.keys {
				j.enforceLimits(b, ks)
			}
		case reqSeed:
			j.buildSeed(b, r)
		case reqMove:
			j.buildMove(b, r)
		}
	}
	cutoff := j.dedupCutoff(b.now)
	for win := range touchedWindows {
		win.prune(j.opts.DedupMaxCount, cutoff)
	}
	j.enforceTotal(b)

	// Segments with nothing live can go once this batch is on disk: the
	// acks and drops that emptied them are in it or in earlier batches,
	// and their state is in a later segment's checkpoint (this batch's, if
	// it opens the active segment).
	// Only once the active segment holds a checkpoint on disk, though.
	if b.seg.used > 0 || b.content > 0 {
		for _, s := range j.segs[:len(j.segs)-1] {
			if s.live == 0 {
				b.deletable = append(b.deletable, s)
			}
		}
		// Every record of the victim live when this batch began is copied
		// in it (the earlier chunks point elsewhere already); drops in the
		// batch may have taken some of those since.
		if v := w.victim; v != nil && w.victimDone && v.live > 0 && v.live <= len(b.copies) {
			b.deletable = append(b.deletable, v)
		}
	}
	if b.content > 0 {
		j.addOwn(b, func(buf []byte) []byte {
			return appendCommitFrame(buf, commitRec{start: b.start, at: b.now, frames: b.frames})
		})
		b.content-- // the commit frame is not content
		b.frames--
	}
	return b
}

// buildAppend adds an append request's entries, cursor and drops.
func (j *Journal) buildAppend(b *batch, r *request, touched map[*window]struct{}) {
	w := &j.w
	win := j.window(r.provider)
	// Forget ids past the age before looking them up. (The count bound is
	// applied once the batch is built, as recovery does.)
	win.prune(-1, j.dedupCutoff(b.now))
	r.out = make([]Appended, len(r.ents))
	w.gen++
	var keys []*keyState
	for i := range r.ents {
		pe := &r.ents[i]
		if pe.dedupID != "" {
			if win.seen(pe.dedupID) {
				r.out[i].Duplicate = true
				continue
			}
			win.remember(pe.dedupID, b.now)
			touched[win] = struct{}{}
		}
		ks, seq := j.addEntry(b, r, pe)
		r.out[i].Seq = seq
		if ks.mark != w.gen {
			ks.mark = w.gen
			keys = append(keys, ks)
		}
	}
	if r.cursor != nil {
		j.addOwn(b, func(buf []byte) []byte { return appendCursorFrame(buf, r.provider, r.cursor) })
		b.cursors = append(b.cursors, cursorSet{provider: r.provider, cursor: r.cursor})
	}
	for _, ks := range keys {
		j.enforceLimits(b, ks)
	}
}

// addEntry adds the entry frame pe of r to the batch with the next seq of
// its key, and returns the key and the seq.
func (j *Journal) addEntry(b *batch, r *request, pe *pendingEntry) (*keyState, uint64) {
	ks := j.key(pe.key)
	seq := ks.assigned() + 1
	lsn := b.lsn()
	frame := r.buf[pe.off : pe.off+pe.size : pe.off+pe.size]
	sealEntryFrame(frame, pe.partial, seq, lsn)
	b.add(part{buf: r.buf, from: pe.off, to: pe.off + pe.size})
	b.size += int64(pe.size)
	b.frames++
	b.content++
	if len(ks.fresh) == 0 {
		b.touched = append(b.touched, ks)
	}
	ks.fresh = append(ks.fresh, freshEntry{seq: seq, lsn: lsn, at: pe.at, size: uint32(pe.size), frame: frame})
	ks.freshBytes += int64(pe.size)
	b.freshLive += int64(pe.size)
	b.freshOrder = append(b.freshOrder, freshRef{ks: ks, idx: len(ks.fresh) - 1})
	return ks, seq
}

// writeBatch writes b with one pwritev (more only past IOV_MAX parts or
// after a short write) and one fdatasync.
func (j *Journal) writeBatch(b *batch) error {
	w := &j.w
	iov := w.iov[:0]
	for _, p := range b.parts {
		if p.own {
			iov = append(iov, w.wbuf[p.from:p.to])
		} else {
			iov = append(iov, p.buf[p.from:p.to])
		}
	}
	err := b.seg.f.WritevAt(iov, b.seg.used)
	clear(iov)
	w.iov = iov[:0]
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := b.seg.f.SyncData(); err != nil {
		return fmt.Errorf("fdatasync: %w", err)
	}
	return nil
}

// publish makes a written batch visible. Caller holds mu.
func (j *Journal) publish(b *batch) {
	b.seg.used += b.size
	for _, ks := range b.touched {
		for _, f := range ks.fresh[ks.freshDropped:] {
			ks.ring.push(entry{seg: b.seg, lsn: f.lsn, order: f.lsn, at: f.at, size: f.size})
			ks.lastSeq = f.seq
			e := ks.ring.at(ks.ring.len() - 1)
			ks.bytes += int64(f.size)
			b.seg.live++
			b.seg.liveBytes += int64(f.size)
			j.liveBytes += int64(f.size)
			j.livePending++
			j.tail.add(ks, f.seq, e, f.frame)
		}
		ks.lastSeq = max(ks.lastSeq, ks.fresh[len(ks.fresh)-1].seq)
		clear(ks.fresh)
		ks.fresh, ks.freshDropped, ks.freshBytes = ks.fresh[:0], 0, 0
		j.fixFront(ks)
		ks.wake()
	}
	for _, c := range b.cursors {
		j.cursors[c.provider] = c.cursor
	}
	for _, c := range b.copies {
		e := c.ks.entryAt(c.seq)
		if e == nil || e.lsn != c.srcLSN {
			continue // acked while the copy was written
		}
		d := int64(c.size) - int64(e.size)
		e.seg.live--
		e.seg.liveBytes -= int64(e.size)
		e.seg, e.lsn, e.size = b.seg, c.lsn, uint32(c.size)
		b.seg.live++
		b.seg.liveBytes += int64(c.size)
		c.ks.bytes += d
		j.liveBytes += d
	}
	for _, ks := range b.wake {
		ks.wake()
	}
}
