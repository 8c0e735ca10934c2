package journal

// Space maintenance: deleting the segments with nothing live, and
// compacting those kept alive by a few records of a slow key, so that the
// sealed segments stay within twice the live records. It runs on the
// writer goroutine, in the group commits (commit.go): prepareCopies reads
// the next chunk of a segment's live records outside mu, the batch carries
// their copies to the head (build), publish points the records to their
// copies, and the segment goes once nothing live is left in it. The
// writer also runs batches of its own for it when no request comes
// (maintenanceDue), and Flush waits for it to catch up.

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"time"
)

// copyChunk bounds the compaction copies one batch carries.
const copyChunk = 1 << 20

// compaction is space maintenance's state, owned by the writer goroutine.
type compaction struct {
	// retryAt holds maintenance back after a batch found no room (a full
	// disk), so that the writer does not spin; requests still run.
	retryAt time.Time

	// Compaction in progress: the segment whose live records are being
	// copied to the head, how far it has been read, and the copies read
	// for the next batch.
	victim     *segment
	victimOff  int64
	victimDone bool
	copies     []prepCopy
	copyBuf    []byte
	readBuf    []byte
}

// prepCopy is a copy frame in writerState.copyBuf, ready but for its CRC.
type prepCopy struct {
	ks      *keyState
	seq     uint64
	srcLSN  uint64 // the frame it copies
	off     int    // in copyBuf
	size    int
	partial uint32 // CRC of the frame without the LSN
}

type copyDone struct {
	ks     *keyState
	seq    uint64
	srcLSN uint64
	lsn    uint64
	size   int
}

// compactionSettledLocked ends the compaction of the victim once batch b
// completed it, or left it with nothing live. Caller holds mu; writer
// goroutine.
func (j *Journal) compactionSettledLocked(b *batch) {
	w := &j.w
	if v := w.victim; v != nil && (w.victimDone || slices.Contains(b.deletable, v)) {
		// Done, or emptied by acks before the copies still prepared
		// (which build skipped as no longer live) were written.
		if !slices.Contains(b.deletable, v) {
			j.log.Warn().Str("segment", v.path).Msg("compaction left records behind; it starts over")
		}
		w.victim, w.victimDone = nil, false
		clear(w.copies)
		w.copies = w.copies[:0]
	}
}

// removeSegments deletes the files of segments unlinked from the journal
// (nothing live in them) and drops the journal's reference to them.
func (j *Journal) removeSegments(segs []*segment) {
	for _, s := range segs {
		if err := j.fs.Remove(s.path); err != nil {
			j.log.Warn().Err(err).Str("segment", s.path).Msg("deleting a segment with nothing live")
		}
		s.release()
	}
}

// unlinkSegment takes s out of the journal's list. Caller holds mu; the
// caller removes the file and drops the reference afterwards.
func (j *Journal) unlinkSegment(s *segment) {
	if i := slices.Index(j.segs, s); i >= 0 {
		j.segs = slices.Delete(j.segs, i, i+1)
	}
}

// maintenanceDue reports whether the writer has space work to do without
// waiting for a request: a compaction in progress or needed, or segments
// with nothing live left to delete.
func (j *Journal) maintenanceDue() bool {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.failed != nil || time.Now().Before(j.w.retryAt) {
		return false
	}
	if j.w.victim != nil || j.needCompaction() {
		return true
	}
	if j.w.active.used == 0 {
		return false // nothing can be deleted before the active segment's checkpoint
	}
	for _, s := range j.segs[:len(j.segs)-1] {
		if s.live == 0 {
			return true
		}
	}
	return false
}

// needCompaction reports whether the sealed segments that hold live
// records hold more than twice the live records. Caller holds mu.
func (j *Journal) needCompaction() bool {
	var used int64
	for _, s := range j.segs[:len(j.segs)-1] {
		if s.live > 0 && !s.noCompact {
			used += s.used
		}
	}
	return used > 2*j.liveBytes
}

// prepareCopies reads, outside mu, the next chunk of live records of the
// segment being compacted, choosing one if compaction is needed, and
// leaves their copy frames in w.copies. Writer goroutine.
func (j *Journal) prepareCopies() {
	w := &j.w
	if len(w.copies) > 0 {
		return // the last batch could not take them (a failed roll)
	}
	j.mu.RLock()
	if w.victim == nil && j.needCompaction() {
		var best *segment
		for _, s := range j.segs[:len(j.segs)-1] {
			if s.live > 0 && !s.noCompact && (best == nil || s.liveBytes*best.used < best.liveBytes*s.used) {
				best = s
			}
		}
		if best != nil {
			w.victim, w.victimOff, w.victimDone = best, 0, false
			j.log.Debug().Str("segment", best.path).Int64("live_bytes", best.liveBytes).
				Int64("used_bytes", best.used).Msg("compacting")
		}
	}
	victim := w.victim
	j.mu.RUnlock()
	if victim == nil || w.victimDone {
		return
	}
	w.copyBuf = w.copyBuf[:0]
	for w.victimOff < victim.used && len(w.copyBuf) < copyChunk {
		if err := j.copyFrom(victim); err != nil {
			// Its records stay where they are (a Read of a damaged one
			// fails with ErrCorrupt); the space bound may not hold.
			j.log.Error().Err(err).Str("segment", victim.path).Msg("cannot compact this segment; leaving it")
			victim.noCompact = true
			w.victim = nil
			clear(w.copies)
			w.copies = w.copies[:0]
			return
		}
	}
	if w.victimOff >= victim.used {
		w.victimDone = true
	}
}

// copyFrom reads the frames of victim from w.victimOff (about 4 MiB, or
// one frame if larger) and turns those still live into copy frames.
func (j *Journal) copyFrom(victim *segment) error {
	w := &j.w
	const window = 4 << 20
	n := min(int64(window), victim.used-w.victimOff)
	var hdr [headerSize]byte
	if _, err := victim.f.ReadAt(hdr[:], w.victimOff); err != nil {
		return err
	}
	if fs := int64(headerSize) + int64(binary.LittleEndian.Uint32(hdr[:])); fs > n {
		n = min(fs, victim.used-w.victimOff)
	}
	if int64(cap(w.readBuf)) < n {
		w.readBuf = make([]byte, n)
	}
	buf := w.readBuf[:n]
	if _, err := victim.f.ReadAt(buf, w.victimOff); err != nil {
		return err
	}
	type cand struct {
		rec  entryRec
		body []byte
		lsn  uint64
		typ  byte
	}
	var cands []cand
	off := 0
	for off < len(buf) {
		lsn := victim.base + uint64(w.victimOff) + uint64(off)
		typ, body, size, ok := checkFrame(buf[off:], lsn)
		if !ok {
			if off == 0 {
				return fmt.Errorf("%w: segment %s offset %d does not verify", ErrCorrupt, victim.path, w.victimOff)
			}
			break // the frame continues past the window
		}
		if typ == recEntry || typ == recCopy {
			rec, err := decodeEntry(body, typ)
			if err != nil {
				return fmt.Errorf("%w: segment %s offset %d: %v", ErrCorrupt, victim.path, w.victimOff+int64(off), err)
			}
			cands = append(cands, cand{rec: rec, body: body, lsn: lsn, typ: typ})
		}
		off += size
	}
	w.victimOff += int64(off)
	j.mu.RLock()
	defer j.mu.RUnlock()
	for _, c := range cands {
		ks := j.keys[string(c.rec.key)]
		if ks == nil {
			continue
		}
		e := ks.entryAt(c.rec.seq)
		if e == nil || e.lsn != c.lsn || e.seg != victim {
			continue
		}
		body := c.body
		if c.typ == recCopy {
			body = body[:len(body)-8] // its order is replaced by the same one below
		}
		from := len(w.copyBuf)
		w.copyBuf = beginFrame(w.copyBuf, recCopy, len(body)+8)
		w.copyBuf = append(w.copyBuf, body...)
		w.copyBuf = appendU64(w.copyBuf, e.order)
		frame := w.copyBuf[from:]
		partial := crc32.Update(crc32.Update(0, castagnoli, frame[:5]), castagnoli, frame[headerSize:])
		w.copies = append(w.copies, prepCopy{ks: ks, seq: c.rec.seq, srcLSN: c.lsn, off: from, size: len(frame), partial: partial})
	}
	return nil
}
