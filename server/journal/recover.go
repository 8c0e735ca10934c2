package journal

// Open: locking the directory, scanning and verifying every segment,
// replaying the committed batches into the in-memory state, and truncating
// a torn tail.
//
// Which damage is a torn tail: the writer writes one batch at a time and
// starts the next only after the previous one's fdatasync returned, and it
// writes to a new segment only after the previous segment's last batch was
// synced. So a crash can leave a partly written batch only at the end of
// the last segment that holds anything, and every byte before that batch
// is intact. A frame that does not verify is therefore a torn tail if it
// lies in the last segment's last batch, and damage otherwise. Recovery
// tells the two apart by looking past it: a commit frame of a later batch
// means the bad frame had been synced (damage, refused); nothing, or only
// the commit frame of the bad frame's own batch (whose pages reached the
// disk out of order), means a torn tail, and the batch is discarded: its
// Append never returned. Damage inside the last committed batch itself
// cannot be told from a torn write; it is treated as one, as etcd's WAL,
// SQLite and raft-wal do.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/journal/vfs"
)

// Open opens the journal in dir, creating the directory (0700) and a first
// segment if needed. It takes an exclusive lock on the directory (the file
// LOCK in it), waiting up to Options.LockTimeout (else ErrLocked), then
// scans and verifies every segment and rebuilds the state: per-key seqs,
// acks and counters, the de-duplication windows, the cursors, and the
// index of pending records. A torn tail of the last segment (a batch the
// crash cut short, which no Append returned for) is removed. Any other
// damage is ErrCorrupt, naming the file and offset, and nothing is
// written. Open's cost grows with the segments kept, which compaction
// bounds by twice the live records.
func Open(dir string, opts Options) (*Journal, error) {
	opts = opts.withDefaults()
	fs := opts.FS
	if err := fs.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.LockTimeout)
	lock, err := fs.Lock(ctx, filepath.Join(dir, "LOCK"))
	cancel()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("journal %s is %w (waited %s)", dir, ErrLocked, opts.LockTimeout)
	case err != nil:
		return nil, fmt.Errorf("journal %s: lock: %w", dir, err)
	}
	j := newState(dir, opts, opts.Logger.With().Str("component", "journal").Logger())
	j.lock = lock
	j.healthChanged = make(chan struct{})
	j.reqs = make(chan *request, 1024)
	j.ackKick = make(chan struct{}, 1)
	j.closing = make(chan struct{})
	j.writerDone = make(chan struct{})
	if err := j.recover(); err != nil {
		for _, s := range j.segs {
			s.release()
		}
		_ = lock.Close()
		return nil, err
	}
	j.w.active = j.segs[len(j.segs)-1]
	j.prep = startPreparer(fs, dir)
	go j.run()
	return j, nil
}

// newState returns a Journal holding the empty state that recover fills:
// Open's, or the one a reopen builds beside the failed state (reopen.go).
func newState(dir string, opts Options, log zerolog.Logger) *Journal {
	return &Journal{
		dir:         dir,
		opts:        opts,
		fs:          opts.FS,
		log:         log,
		keys:        make(map[string]*keyState),
		cursors:     make(map[string][]byte),
		pendingAcks: make(map[*keyState]struct{}),
		tail:        tailCache{budget: opts.TailBytes},
		windows:     make(map[string]*window),
	}
}

// corruptAt is damage found at an offset of a segment.
type corruptAt struct {
	off    int
	reason string
}

func (c *corruptAt) Error() string { return fmt.Sprintf("offset %d: %s", c.off, c.reason) }

// recover builds the state from the segments. It fills j.segs (opened
// files), even when it fails, so that Open can close them.
func (j *Journal) recover() error {
	names, err := j.fs.List(j.dir)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.dir, err)
	}
	for _, name := range names {
		base, ok := parseSegmentName(name)
		if !ok {
			if strings.HasSuffix(name, segSuffix) {
				return fmt.Errorf("journal %s: %s is not a segment name (<16 lower-case hex digits>.seg): %w", j.dir, name, ErrCorrupt)
			}
			continue // LOCK, or something of the caller's
		}
		path := filepath.Join(j.dir, name)
		f, err := j.fs.OpenReadWrite(path)
		if err != nil {
			return fmt.Errorf("journal %s: %w", j.dir, err)
		}
		j.segs = append(j.segs, newSegment(j.dir, base, 0, f))
	}
	slices.SortFunc(j.segs, func(a, b *segment) int { return cmpU64(a.base, b.base) })

	// Segments prepared ahead of time that nothing was committed to hold
	// nothing: remove them. The preparer makes one at a time, but be
	// thorough. One before a segment that holds data is damage.
	var data []byte
	for len(j.segs) > 0 {
		s := j.segs[len(j.segs)-1]
		if data, err = readAll(s.f, data); err != nil {
			return fmt.Errorf("journal: segment %s: %w", s.path, err)
		}
		if !isUnused(data, s.base) {
			break
		}
		j.log.Info().Str("segment", s.path).Msg("removing a prepared segment nothing was committed to")
		_ = j.fs.Remove(s.path)
		s.release()
		j.segs = j.segs[:len(j.segs)-1]
	}

	r := replayer{j: j, scanned: make(map[*keyState][]scanEntry)}
	for i, s := range j.segs {
		if data, err = readAll(s.f, data); err != nil {
			return fmt.Errorf("journal: segment %s: %w", s.path, err)
		}
		s.size = int64(len(data))
		if isUnused(data, s.base) {
			return fmt.Errorf("journal: segment %s: %w: holds no checkpoint, but a later segment holds data", s.path, ErrCorrupt)
		}
		tail := i == len(j.segs)-1
		r.seg = s
		end, err := scanSegment(data, s.base, tail, r.apply)
		if err != nil {
			var c *corruptAt
			if errors.As(err, &c) {
				return fmt.Errorf("journal: segment %s: %w at %v", s.path, ErrCorrupt, c)
			}
			return fmt.Errorf("journal: segment %s: %w", s.path, err)
		}
		s.used = int64(end)
		if tail {
			if err := j.truncateTail(s, data); err != nil {
				return err
			}
		}
	}
	// Spans: each segment ends where the next begins.
	for i, s := range j.segs {
		if i+1 < len(j.segs) {
			next := j.segs[i+1]
			if s.base+uint64(s.used) > next.base {
				return fmt.Errorf("journal: segment %s: %w: its %d bytes overlap segment %s", s.path, ErrCorrupt, s.used, next.path)
			}
			s.capacity = int64(next.base - s.base)
		}
	}
	if err := r.finish(); err != nil {
		return fmt.Errorf("journal %s: %w", j.dir, err)
	}
	if cap(data) >= recoveryFreeBytes {
		// Each segment was read whole (preallocated: 64 MiB by
		// default): without a collection now, the heap's goal would
		// carry that buffer, and the supervisor's memory would climb
		// toward twice it before the first collection after the start.
		// (data is not used past here.)
		debug.FreeOSMemory()
	}
	now := j.opts.Now().UnixNano()
	for _, w := range j.windows {
		w.prune(j.opts.DedupMaxCount, j.dedupCutoff(now))
	}
	if len(j.segs) == 0 {
		// The first segment is zeroed now: Open is the one moment that
		// can wait for it.
		s, err := createSegment(j.fs, j.dir, 0, j.opts.SegmentSize, true)
		if err != nil {
			return fmt.Errorf("journal %s: %w", j.dir, err)
		}
		j.segs = append(j.segs, s)
		return nil
	}
	// Segments with nothing live whose state a later checkpoint holds can
	// go now: every segment before the last one that has a checkpoint.
	last := len(j.segs) - 1
	if j.segs[last].used == 0 {
		last--
	}
	kept := j.segs[:0]
	for i, s := range j.segs {
		if i < last && s.live == 0 {
			_ = j.fs.Remove(s.path)
			s.release()
			continue
		}
		kept = append(kept, s)
	}
	clear(j.segs[len(kept):])
	j.segs = kept
	return nil
}

// truncateTail removes what follows the last committed batch of the tail
// segment (a torn batch), makes the segment's capacity at least
// SegmentSize, preallocated (unless the file system reserves nothing ahead
// of writes), and syncs it, so that the next batch goes to zeros that are
// on disk.
func (j *Journal) truncateTail(s *segment, data []byte) error {
	dirty := len(data)
	for dirty > int(s.used) && data[dirty-1] == 0 {
		dirty--
	}
	s.capacity = max(int64(len(data)), j.opts.SegmentSize)
	prealloc, reserved := true, false // reserved: by this call, to be synced
	if s.size < s.capacity {
		var err error
		if prealloc, err = reserve(s.f, s.size, s.capacity); err != nil {
			return fmt.Errorf("journal: segment %s: preallocate to %d: %w", s.path, s.capacity, err)
		}
		if prealloc {
			s.size, reserved = s.capacity, true
		}
	}
	if dirty == int(s.used) && !reserved {
		return nil // nothing torn, nothing reserved
	}
	if dirty > int(s.used) {
		j.log.Warn().Str("segment", s.path).Int64("offset", s.used).Int("bytes", dirty-int(s.used)).
			Msg("truncating a torn tail: a batch the crash cut short, which no Append returned for")
	}
	var err error
	if prealloc {
		err = zeroFill(s.f, s.used, int64(dirty))
	} else {
		err = s.f.Truncate(s.used)
		s.size = s.used
	}
	if err == nil {
		err = s.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("journal: segment %s: truncate the torn tail at %d: %w", s.path, s.used, err)
	}
	return nil
}

// isUnused reports whether a segment image holds nothing committed: it
// starts with zeros (no checkpoint) and holds no commit frame.
func isUnused(data []byte, base uint64) bool {
	if !allZero(data[:min(len(data), headerSize)]) {
		return false
	}
	_, found := findCommit(data, base, 0, func(commitRec) bool { return true })
	return !found
}

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// commitPattern is how a commit frame starts: its body length and type.
var commitPattern = []byte{commitBodySize, 0, 0, 0, recCommit}

// findCommit looks in data after offset from for a verifying commit frame
// that match accepts, and returns its offset.
func findCommit(data []byte, base uint64, from int, match func(commitRec) bool) (int, bool) {
	for p := from; p < len(data); {
		i := bytes.Index(data[p:], commitPattern)
		if i < 0 {
			return 0, false
		}
		p += i
		if typ, body, _, ok := checkFrame(data[p:], base+uint64(p)); ok && typ == recCommit {
			if c, err := decodeCommit(body); err == nil && match(c) {
				return p, true
			}
		}
		p++
	}
	return 0, false
}

// scanBatch is one committed batch as scanSegment hands it to apply.
type scanBatch struct {
	frames []scanFrame
	commit commitRec
}

type scanFrame struct {
	typ  byte
	body []byte // aliases the segment image
	lsn  uint64
	off  int
	size int
}

// scanSegment parses the image of the segment at base and calls apply for
// each committed batch, in order. It returns the offset after the last
// committed batch. In a segment other than the last (tail false), any frame
// that does not verify, or a batch without its commit frame, is a
// *corruptAt; in the last one, that is a torn tail (see the file comment)
// unless a later batch's commit frame follows it. An error from apply is
// returned as it is.
func scanSegment(data []byte, base uint64, tail bool, apply func(*scanBatch) error) (int, error) {
	var b scanBatch
	batchOff, off := 0, 0
	// bad handles a frame at 'at' that ends the committed data.
	bad := func(at int, reason string) (int, error) {
		if !tail {
			return 0, &corruptAt{off: at, reason: reason}
		}
		start := base + uint64(batchOff)
		if p, found := findCommit(data, base, at+1, func(c commitRec) bool { return c.start != start }); found {
			return 0, &corruptAt{off: at, reason: fmt.Sprintf("%s, before a batch committed at offset %d", reason, p)}
		}
		return batchOff, nil // a torn tail: discard the batch begun at batchOff
	}
	for {
		if len(data)-off < headerSize || allZero(data[off:off+headerSize]) {
			switch {
			case !allZero(data[off:min(len(data), off+headerSize)]):
				return bad(off, "a truncated frame")
			case len(b.frames) > 0:
				return bad(batchOff, "a batch without its commit frame")
			}
			// The clean end of the data. In the last segment, a commit
			// after it (other than of a batch begun here) is damage.
			if !tail {
				return off, nil
			}
			return bad(off, "zeros where a committed batch was")
		}
		lsn := base + uint64(off)
		typ, body, size, ok := checkFrame(data[off:], lsn)
		switch {
		case !ok:
			return bad(off, "a frame that does not verify (CRC or length)")
		case off == 0 && typ != recCheckpoint:
			return bad(off, "the segment does not start with a checkpoint")
		case typ == recCommit:
			c, err := decodeCommit(body)
			if err != nil || c.start != base+uint64(batchOff) || c.frames != uint32(len(b.frames)) {
				return bad(off, "a commit frame that does not match its batch")
			}
			b.commit = c
			if err := apply(&b); err != nil {
				return 0, err
			}
			b.frames = b.frames[:0]
			off += size
			batchOff = off
			continue
		case typ < recCheckpoint || typ > recDrop:
			return bad(off, fmt.Sprintf("unknown record type %d", typ))
		}
		b.frames = append(b.frames, scanFrame{typ: typ, body: body, lsn: lsn, off: off, size: size})
		off += size
	}
}

// scanEntry is a record found while replaying, before the final state says
// whether it is pending.
type scanEntry struct {
	seq   uint64
	lsn   uint64
	order uint64
	at    int64
	size  uint32
	seg   *segment
}

// replayer applies committed batches to the Journal being opened.
type replayer struct {
	j       *Journal
	seg     *segment
	scanned map[*keyState][]scanEntry // every entry and copy seen, per key
}

func (r *replayer) corrupt(f *scanFrame, format string, args ...any) error {
	return &corruptAt{off: f.off, reason: fmt.Sprintf(format, args...)}
}

// apply replays one committed batch.
func (r *replayer) apply(b *scanBatch) error {
	j := r.j
	touched := map[*window]struct{}{}
	for i := range b.frames {
		f := &b.frames[i]
		switch f.typ {
		case recCheckpoint:
			c, err := decodeCheckpoint(f.body)
			if err != nil {
				return r.corrupt(f, "checkpoint: %v", err)
			}
			if c.base != f.lsn {
				return r.corrupt(f, "checkpoint for LSN %d at LSN %d", c.base, f.lsn)
			}
			if err := r.applyCheckpoint(c); err != nil {
				return r.corrupt(f, "checkpoint: %v", err)
			}
		case recEntry, recCopy:
			e, err := decodeEntry(f.body, f.typ)
			if err != nil {
				return r.corrupt(f, "entry: %v", err)
			}
			ks := j.keys[string(e.key)]
			order := f.lsn
			if f.typ == recEntry {
				if ks == nil {
					ks = j.key(string(e.key))
				}
				if e.seq != ks.lastSeq+1 {
					return r.corrupt(f, "%s: seq %d after %d", keyName(ks.key), e.seq, ks.lastSeq)
				}
				ks.lastSeq = e.seq
				if len(e.dedupID) > 0 {
					w := j.window(string(e.provider))
					w.remember(string(e.dedupID), b.commit.at)
					touched[w] = struct{}{}
				}
			} else {
				if ks == nil || e.seq > ks.lastSeq {
					return r.corrupt(f, "copy of seq %d of %s, which was never appended", e.seq, keyName(string(e.key)))
				}
				order = e.order
			}
			r.scanned[ks] = append(r.scanned[ks], scanEntry{seq: e.seq, lsn: f.lsn, order: order, at: e.at,
				size: uint32(f.size), seg: r.seg})
		case recCursor:
			p, c, err := decodeCursor(f.body)
			if err != nil {
				return r.corrupt(f, "cursor: %v", err)
			}
			j.cursors[string(p)] = append([]byte{}, c...)
		case recAck:
			key, seq, err := decodeAck(f.body)
			if err != nil {
				return r.corrupt(f, "ack: %v", err)
			}
			ks := j.keys[string(key)]
			if ks == nil || seq > ks.lastSeq {
				return r.corrupt(f, "ack of seq %d of %s beyond its last", seq, keyName(string(key)))
			}
			ks.acked = max(ks.acked, seq)
		case recDrop:
			d, err := decodeDrop(f.body)
			if err != nil {
				return r.corrupt(f, "drop: %v", err)
			}
			ks := j.keys[string(d.key)]
			if ks == nil || d.through > ks.lastSeq {
				return r.corrupt(f, "drop through seq %d of %s beyond its last", d.through, keyName(string(d.key)))
			}
			ks.dropThrough = max(ks.dropThrough, d.through)
			ks.dropped += d.n
		}
	}
	for w := range touched {
		w.prune(j.opts.DedupMaxCount, j.dedupCutoff(b.commit.at))
	}
	return nil
}

// applyCheckpoint replaces the counters, cursors and windows with the
// checkpoint's. The entries scanned so far stay; finish keeps those the
// final counters say are pending.
func (r *replayer) applyCheckpoint(c *checkpoint) error {
	j := r.j
	in := make(map[string]bool, len(c.keys))
	for _, k := range c.keys {
		ks := j.key(k.key)
		if k.lastSeq < ks.lastSeq || k.acked > k.lastSeq || k.dropThrough > k.lastSeq {
			return fmt.Errorf("%s: last seq %d (acked %d, dropped through %d) after %d",
				keyName(k.key), k.lastSeq, k.acked, k.dropThrough, ks.lastSeq)
		}
		ks.lastSeq, ks.acked, ks.dropThrough, ks.dropped = k.lastSeq, k.acked, k.dropThrough, k.dropped
		in[k.key] = true
	}
	for key, ks := range j.keys {
		if !in[key] && ks.lastSeq > 0 {
			return fmt.Errorf("%s (last seq %d) is missing", keyName(key), ks.lastSeq)
		}
	}
	clear(j.cursors)
	clear(j.windows)
	for _, p := range c.providers {
		if p.hasCursor {
			j.cursors[p.name] = p.cursor
		}
		w := j.window(p.name)
		for _, s := range p.ids {
			w.remember(s.id, s.at)
		}
	}
	return nil
}

// finish builds each key's ring from the entries scanned: the newest copy
// of each seq (the highest LSN), those the counters say are pending, which
// must be all of them.
func (r *replayer) finish() error {
	j := r.j
	for _, ks := range j.keys {
		list := r.scanned[ks]
		slices.SortFunc(list, func(a, b scanEntry) int {
			if a.seq != b.seq {
				return cmpU64(a.seq, b.seq)
			}
			return cmpU64(a.lsn, b.lsn)
		})
		front := ks.front()
		want := front + 1
		for i, e := range list {
			if e.seq <= front || (i+1 < len(list) && list[i+1].seq == e.seq) {
				continue // gone, or an older copy of the same record
			}
			if e.seq != want {
				break
			}
			ks.ring.push(entry{seg: e.seg, lsn: e.lsn, order: e.order, at: e.at, size: e.size})
			ks.bytes += int64(e.size)
			e.seg.live++
			e.seg.liveBytes += int64(e.size)
			j.liveBytes += int64(e.size)
			j.livePending++
			want++
		}
		if want != ks.lastSeq+1 {
			return fmt.Errorf("%s: %w: seqs %d to %d are pending but in no segment", keyName(ks.key), ErrCorrupt, want, ks.lastSeq)
		}
		j.fixFront(ks)
	}
	return nil
}

// window returns provider's de-duplication window, creating it. Writer
// goroutine (or Open).
func (j *Journal) window(provider string) *window {
	w := j.windows[provider]
	if w == nil {
		w = newWindow()
		j.windows[provider] = w
	}
	return w
}

// dedupCutoff is the remembered-at before which ids are forgotten at now.
func (j *Journal) dedupCutoff(now int64) int64 {
	if j.opts.DedupMaxAge < 0 {
		return -1 << 63
	}
	return now - int64(j.opts.DedupMaxAge)
}

// recoveryFreeBytes is the recovery read buffer from which Open collects
// it at once (recover).
const recoveryFreeBytes = 8 << 20

// readAll reads the whole file into buf (reused if large enough).
func readAll(f vfs.File, buf []byte) ([]byte, error) {
	size, err := f.Size()
	if err != nil {
		return nil, err
	}
	n := int(size)
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf, nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
