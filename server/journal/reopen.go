package journal

// Recovering from a failed write without the caller: the writer reopens
// the journal from disk, in place, with backoff.
//
// A write or fdatasync that fails leaves the failed batch's bytes in an
// unknown state: after a failed fdatasync the kernel may have dropped the
// dirty pages or marked them clean without writing them, so the page
// cache can show a batch the disk does not hold, and a later fdatasync can
// report success for it (PostgreSQL's "fsyncgate"). So the journal never
// retries the batch and never trusts what it wrote: it fails (ErrFailed),
// refuses writes, keeps serving reads of what was durable, and the writer
// reopens it from disk:
//
//  1. the failed segment is cut back to where the failed batch began (what
//     precedes it was synced before: durable), the cut is synced, and the
//     segment's cached pages are dropped, so that what follows is read
//     from the disk;
//  2. the directory is scanned as Open does (every frame verified, a torn
//     tail truncated, the active segment preallocated again), into a new
//     state: records, seqs, acks, de-duplication windows (the failed
//     batch's DedupIDs are not in them: the platform sends those updates
//     again and they are taken), cursors (the provider's cursor is the
//     last durable one: what was not durable is fetched again);
//  3. under mu the new state replaces the old one: acks made in memory
//     since the last durable batch are carried over (they are written
//     with the next batch), every Changed channel of the old state is
//     closed, so waiters read again and wait on the new state, and writes
//     are accepted again.
//
// A step that fails (the disk still full, so the tail cannot be
// preallocated again) is retried after a pause that doubles from
// 100ms to 10s (reopenBackoff); the pause grows across write failures too and
// is reset by a batch that is written. Requests that arrive meanwhile are
// answered with the failure at once. The lock on the directory is kept
// throughout: no other process can take the journal in between.

import (
	"fmt"
	"time"

	"github.com/chatbus/chatbus/internal/backoff"
)

// reopenBackoff is the pause before a reopen after a failed write (see
// the file comment): the n-th failure in a row waits its n-th delay.
var reopenBackoff = backoff.Policy{Initial: 100 * time.Millisecond, Max: 10 * time.Second}

// recovery is the reopen's state, owned by the writer goroutine: after a
// failed write, the segment and offset where the failed batch began, the
// failures (of writes and of reopens) since the last batch written, and
// the timer of the next reopen attempt.
type recovery struct {
	failSeg     *segment
	failOff     int64
	failures    int
	reopenTimer *time.Timer
	reopenArmed bool
}

// armReopen starts the pause before the next reopen attempt if the
// journal has failed and none is pending. Writer goroutine.
func (j *Journal) armReopen() {
	w := &j.w
	if w.reopenArmed || j.failure() == nil {
		return
	}
	w.reopenTimer.Reset(j.reopenDelay())
	w.reopenArmed = true
}

// failure returns the write failure the journal is recovering from, nil if
// none.
func (j *Journal) failure() error {
	j.mu.RLock()
	defer j.mu.RUnlock()
	return j.failed
}

// failBatch marks the journal failed by err, the failed write or
// fdatasync of batch b, and returns the error its requests are answered
// with (wrapping ErrFailed and err). Writer goroutine.
func (j *Journal) failBatch(b *batch, err error) error {
	j.mu.Lock()
	err = fmt.Errorf("journal %s: segment %s at offset %d: %w: %w", j.dir, b.seg.path, b.seg.used, ErrFailed, err)
	j.failLocked(b.seg, b.seg.used, err)
	j.mu.Unlock()
	j.log.Error().Err(err).Dur("reopen_in", j.reopenDelay()).
		Msg("a journal write failed: no writes until the journal is reopened from disk")
	return err
}

// Health describes the journal's writes.
type Health struct {
	// Failed is the write failure the journal is recovering from (it wraps
	// ErrFailed and the system error); nil while writes are accepted.
	Failed error
	// Reopens counts the times the journal was reopened from disk after a
	// failed write.
	Reopens uint64
	// Changed is closed at the next change of Failed: a write fails, or
	// the journal is reopened and accepts writes again.
	Changed <-chan struct{}
}

// Health returns the journal's write health. After Close, Failed is the
// failure the journal closed with (nil if none) and Changed never closes.
func (j *Journal) Health() Health {
	j.mu.RLock()
	defer j.mu.RUnlock()
	return Health{Failed: j.failed, Reopens: j.reopens, Changed: j.healthChanged}
}

// failLocked marks the journal failed by err (wrapping ErrFailed) after a
// batch written to seg at off failed. Caller holds mu; writer goroutine.
func (j *Journal) failLocked(seg *segment, off int64, err error) {
	j.failed = err
	j.w.failSeg, j.w.failOff = seg, off
	j.w.failures++
	close(j.healthChanged)
	j.healthChanged = make(chan struct{})
}

// reopenDelay is the pause before the next reopen attempt.
func (j *Journal) reopenDelay() time.Duration { return reopenBackoff.Delay(j.w.failures) }

// reopen reopens the failed journal from disk (see the file comment). On
// an error the journal stays failed and the writer tries again later.
// Writer goroutine.
func (j *Journal) reopen() error {
	start := time.Now()
	w := &j.w
	// The preparer may be writing zeros over the next segment, or hold
	// one ready: stop it (removing that one; it holds nothing) and start
	// a fresh one for the new state.
	j.prep.stop()
	j.prep = startPreparer(j.fs, j.dir)

	if s := w.failSeg; s != nil {
		if err := cutSegment(s, w.failOff); err != nil {
			return err
		}
	}
	n := newState(j.dir, j.opts, j.log)
	if err := n.recover(); err != nil {
		for _, s := range n.segs {
			s.release()
		}
		return err
	}

	j.mu.Lock()
	// Acks made in memory since the last durable batch (and those the
	// failed batch carried) hold: they are written with the next batch.
	carried := 0
	for key, old := range j.keys {
		ks := n.keys[key]
		if ks == nil || old.acked <= ks.acked || old.acked > ks.lastSeq {
			continue
		}
		ks.acked = old.acked
		n.removeThrough(ks, old.acked)
		n.pendingAcks[ks] = struct{}{}
		carried++
	}
	oldKeys, oldSegs := j.keys, j.segs
	j.keys, j.cursors, j.segs, j.pendingAcks = n.keys, n.cursors, n.segs, n.pendingAcks
	j.fronts, j.liveBytes, j.livePending, j.tail = n.fronts, n.liveBytes, n.livePending, n.tail
	j.windows = n.windows
	w.active = j.segs[len(j.segs)-1]
	w.victim, w.victimOff, w.victimDone = nil, 0, false
	clear(w.copies)
	w.copies = w.copies[:0]
	w.retryAt = time.Time{}
	w.failSeg = nil
	failed := j.failed
	j.failed = nil
	j.reopens++
	close(j.healthChanged)
	j.healthChanged = make(chan struct{})
	// Waiters on the old state read again and wait on the new one.
	for _, ks := range oldKeys {
		ks.wake()
	}
	pending, segs := j.livePending, len(j.segs)
	j.mu.Unlock()

	for _, s := range oldSegs {
		s.release() // reads from disk in progress hold their own reference
	}
	if carried > 0 {
		select {
		case j.ackKick <- struct{}{}:
		default:
		}
	}
	j.log.Warn().AnErr("after", failed).Int("pending", pending).Int("segments", segs).
		Int("acks_carried", carried).Dur("took", time.Since(start)).
		Msg("journal reopened from disk after a failed write: it accepts writes again")
	return nil
}

// cutSegment discards what follows off in s (the failed batch and
// anything after it), syncs the cut, and drops the segment's pages from
// the page cache, so that the scan reads what the disk holds.
func cutSegment(s *segment, off int64) error {
	if err := s.f.Truncate(off); err != nil {
		return fmt.Errorf("journal: segment %s: cut the failed batch at %d: %w", s.path, off, err)
	}
	if err := s.f.SyncData(); err != nil {
		return fmt.Errorf("journal: segment %s: sync the cut at %d: %w", s.path, off, err)
	}
	// Clean pages only; after the sync above there are no dirty ones. A
	// filesystem without page cache advice keeps them, which is no worse.
	_ = s.f.DropCache()
	return nil
}
