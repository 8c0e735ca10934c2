// Package journal owns the supervisor's inbound journal on disk: an
// append-only, segmented log of opaque records, kept per key (a binding,
// or "" for the unrouted set). It owns the sequencing (Seq 1, 2, 3… per
// key, never reused), the acknowledgements, retention (per key and across
// all keys), de-duplication of redelivered platform updates, the platform
// cursor of each provider, and crash recovery. What a record means (the
// Update codec) belongs to the caller.
//
// # Durability
//
// One writer goroutine takes everything concurrent callers queued and
// writes it as one batch: one write, one fdatasync (group commit, with no
// fixed delay: an idle journal syncs each Append on its own, a busy one
// lets batches grow by themselves). Append returns once its batch is on
// disk. The batch carries the entries, the provider's cursor and every
// other change decided with them (drops, acks, compaction copies) and ends
// with a commit frame: after a crash, recovery applies a batch whole or
// not at all. So the cursor stored by an Append is never on disk without
// the entries it follows, and an Append that returned is there after any
// crash, exactly once (its entries keep their seqs).
//
// Acks are different: Ack takes effect in memory at once and is written
// with the next batch (or by a periodic flush, Options.AckFlushInterval),
// never with an fdatasync of its own. An ack lost in a crash only means
// that records already handled are delivered again; followers de-duplicate
// by seq.
//
// # Files
//
// Segments are named by the LSN of their first byte and allocated ahead of
// time by a background goroutine (fallocate, then zeros written over it at
// a bounded pace until it is needed), so that an fdatasync never persists
// a size change, and, where the zeros were written, no unwritten-extent
// conversion either (see segment.go for the measurements). A segment is deleted once no live
// record is left in it and its state is in a later checkpoint; a segment
// kept alive by a few records of a slow key is compacted (its live records
// are copied to the head), so that the sealed segments stay within twice
// the live records. Open verifies every frame (CRC-32C), truncates a torn
// tail of the last segment and refuses any other damage, naming the file
// and offset. The format is in format.go.
//
// # Concurrency
//
// Every method is safe for concurrent use. Journal.mu guards the published
// state (what Read, Stats and Ack see: only durable records); the writer
// goroutine is the only one that assigns seqs, decides drops and writes,
// and holds mu while it prepares a batch and while it publishes one. Its
// parts, one file each, with their state in writerState: group commit
// (commit.go), retention (retention.go: which records a batch drops),
// space maintenance (compaction.go: deleting and compacting segments) and
// the reopen after a failed write (reopen.go). A second goroutine
// (segment.go) prepares the next segment file. Lock order: Journal.mu,
// then a key's chMu (its Changed channel), then nothing; segment files are reference counted so that reads from
// disk run without mu. Every file operation goes through Options.FS
// (package vfs).
//
// # Keeping other state consistent with it
//
// The journal is the only place that holds the records, their seqs, the
// acks, the de-duplication windows and the platform cursors: nothing of it
// needs to be committed anywhere else, so nothing can disagree. A caller
// that keeps other state in another store (the supervisor's bindings in
// bbolt) references keys only, and orders its writes so that a crash
// between the two stores leaves something recoverable: commit a binding
// before appending to its key (a crash in between leaves a binding with an
// empty journal); delete a binding, then DeleteKey (a crash in between
// leaves records under a key no binding names, which the caller finds with
// Keys at start and deletes or treats as unrouted); commit a binding, then
// Move the records it claims out of another key (a crash in between leaves
// them where they were, for the caller to move at start: a Move is one
// batch, whole or not at all). Seqs are never reused,
// so a key bound again later continues where it was, and a follower never
// mistakes new records for ones it handled.
//
// The package knows nothing of gRPC or of the Update codec. Errors are
// wrapped with context and match the sentinels below with errors.Is.
package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/journal/vfs"
)

// Sentinel errors. Every error the journal returns for one of these
// conditions wraps the sentinel, so callers test with errors.Is.
var (
	// ErrInvalid: an argument is malformed (empty provider, a key, id or
	// record too long…). Nothing was written.
	ErrInvalid = errors.New("invalid argument")
	// ErrClosed: the journal was closed; nothing was written.
	ErrClosed = errors.New("journal closed")
	// ErrLocked: Open gave up waiting for the directory lock; another
	// process (or another open Journal of the same directory) has it.
	ErrLocked = errors.New("journal locked by another process")
	// ErrCorrupt: a segment holds damage that is not a torn tail (a frame
	// that does not verify in a segment other than the last, or in the last
	// one before a later committed batch), a file that is not a segment of
	// this format, or state the records contradict. The error names the
	// file and offset. Open never repairs such a journal.
	ErrCorrupt = errors.New("journal corrupt")
	// ErrFailed: a write or fdatasync failed. What the failed batch left in
	// the file is unknown (after a failed fdatasync the kernel may have
	// dropped the dirty pages), so the journal accepts no writes until it
	// has reopened itself from disk (reopen.go: with backoff, without the
	// caller; Health says when); it still serves reads meanwhile. The error
	// also wraps the system error (e.g. syscall.ENOSPC). Nothing a failed
	// batch carried was reported durable; retrying an Append is safe for
	// entries with a DedupID.
	ErrFailed = errors.New("journal write failed")
	// ErrAckBeyondLast: an Ack names a seq the journal never assigned (or
	// not yet durably: Append had not returned). Nothing changed.
	ErrAckBeyondLast = errors.New("ack beyond the last journalled record")
	// ErrConflict: Move's source key no longer holds the records the
	// caller read (an Append, an Ack or retention changed it). Nothing
	// changed: read again and retry.
	ErrConflict = errors.New("key changed since it was read")
)

// Entry is one record to append.
type Entry struct {
	// Key is the journal the entry goes to: a binding key, or "" for the
	// unrouted set. At most 1024 bytes.
	Key string
	// DedupID is the platform's id of the update (its event or update id);
	// an entry whose (provider, DedupID) is in the provider's
	// de-duplication window is skipped. "" = never de-duplicated. At most
	// 1024 bytes.
	DedupID string
	// ReceivedAt is when the update arrived; if zero, the journal's clock
	// at Append. Age retention (Limits.MaxAge) uses it.
	ReceivedAt time.Time
	// Data is the record, opaque to the journal; Append copies it. At most
	// 16 MiB.
	Data []byte
}

// Appended is Append's result for one entry, in the order of the entries.
type Appended struct {
	// Seq is the seq assigned in the entry's key; 0 for a duplicate.
	Seq uint64
	// Duplicate: the entry's DedupID was in the de-duplication window (or
	// earlier in the same Append); nothing was stored for it.
	Duplicate bool
}

// Record is one journalled entry as Read returns it.
type Record struct {
	Seq        uint64
	Provider   string
	DedupID    string
	ReceivedAt time.Time
	// Data is shared with the journal's memory: do not modify it. It stays
	// valid after the record is acked or dropped.
	Data []byte
}

// Limits bound one key's journal. When a commit would exceed a bound, the
// oldest pending records are dropped, counted in Stats.Dropped and reported
// to Options.OnDrop. They are the store's bounds, with the same defaults.
type Limits struct {
	// MaxCount is the most pending records. If zero, 10000; negative = no
	// bound.
	MaxCount int
	// MaxBytes is the most bytes of pending records, counted as stored
	// (Stats.Bytes: the frames, about 40 bytes plus key, id and provider
	// above the data). If zero, 64 MiB; negative = no bound.
	MaxBytes int64
	// MaxAge drops records received longer ago than this. If zero, 7 days;
	// negative = no bound. A record appended with a ReceivedAt already past
	// it is stored and dropped in the same commit (and reported).
	MaxAge time.Duration
}

// Default bounds.
const (
	DefaultMaxCount         = 10000
	DefaultMaxBytes         = 64 << 20
	DefaultMaxAge           = 7 * 24 * time.Hour
	DefaultTotalBytes       = 1 << 30
	DefaultSegmentSize      = 64 << 20
	DefaultDedupMaxCount    = 100000
	DefaultDedupMaxAge      = 7 * 24 * time.Hour
	DefaultTailBytes        = 64 << 20
	DefaultAckFlushInterval = time.Second
	DefaultMaxBatchBytes    = 16 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxCount == 0 {
		l.MaxCount = DefaultMaxCount
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxAge == 0 {
		l.MaxAge = DefaultMaxAge
	}
	return l
}

// Drop reasons passed to Options.OnDrop.
const (
	DropCount      = "count"       // Limits.MaxCount exceeded
	DropBytes      = "bytes"       // Limits.MaxBytes exceeded
	DropAge        = "age"         // older than Limits.MaxAge
	DropTotalBytes = "total-bytes" // Options.TotalBytes exceeded (the oldest records of all keys)
	DropKeyDeleted = "key-deleted" // DeleteKey discarded the key's records
)

// Reason codes in drop records (format.go): indexes into dropReasons.
const (
	reasonCount = iota
	reasonBytes
	reasonAge
	reasonTotalBytes
	reasonKeyDeleted
)

var dropReasons = [...]string{
	reasonCount:      DropCount,
	reasonBytes:      DropBytes,
	reasonAge:        DropAge,
	reasonTotalBytes: DropTotalBytes,
	reasonKeyDeleted: DropKeyDeleted,
}

// Options configure a Journal. The zero value is usable.
type Options struct {
	// Limits bound each key's journal (the unrouted set "" included). Zero
	// fields take their defaults.
	Limits Limits
	// TotalBytes bounds the pending records of all keys together (counted
	// like Limits.MaxBytes); beyond it the oldest records of all keys are
	// dropped first (DropTotalBytes). If zero, 1 GiB; negative = no bound.
	TotalBytes int64
	// SegmentSize is the size a segment is preallocated to and rolled at.
	// A batch larger than that gets a segment of its own size. If zero,
	// 64 MiB; at least 64 KiB.
	SegmentSize int64
	// DedupMaxCount is how many DedupIDs per provider are remembered. If
	// zero, 100000; negative = no count bound.
	DedupMaxCount int
	// DedupMaxAge forgets DedupIDs remembered longer ago than this. If
	// zero, 7 days; negative = no age bound. Ids are remembered by age and
	// count, not by comparison with the cursor: a platform may reuse ids
	// after resetting them.
	DedupMaxAge time.Duration
	// TailBytes is how many bytes of the most recently appended records are
	// kept in memory, so a follower that keeps up reads without touching
	// the disk. If zero, 64 MiB; negative = none.
	TailBytes int64
	// AckFlushInterval is how long an ack may wait in memory for a batch
	// to carry it before the writer writes it on its own. If zero, 1s.
	AckFlushInterval time.Duration
	// MaxBatchBytes bounds how much one group commit carries (a single
	// larger Append is written on its own). If zero, 16 MiB.
	MaxBatchBytes int64
	// LockTimeout is how long Open waits for another holder of the
	// directory lock before failing with ErrLocked. If zero, 1s.
	LockTimeout time.Duration
	// OnDrop is told of records retention or DeleteKey discarded: n
	// records of key for reason (Drop*). It runs on the writer goroutine
	// after the commit that dropped them, before the call that caused it
	// returns. It must not block and must not call the journal's writing
	// methods (Append, Move, DeleteKey, ApplyRetention, Flush, Close): the writer
	// would wait for itself. Reads and Ack are fine. If nil, drops are only
	// counted in Stats.Dropped.
	OnDrop func(key string, n int, reason string)
	// Now is the journal's clock. If nil, time.Now.
	Now func() time.Time
	// Logger receives recovery and maintenance events (a torn tail
	// truncated, segments compacted). The zero value logs nothing.
	Logger zerolog.Logger
	// FS is the file system the journal's files are on: every file
	// operation of the journal goes through it. If nil, vfs.Default (the
	// operating system's). Tests put faults under the journal with
	// faultfs.
	FS vfs.FS
}

func (o Options) withDefaults() Options {
	o.Limits = o.Limits.withDefaults()
	if o.TotalBytes == 0 {
		o.TotalBytes = DefaultTotalBytes
	}
	if o.SegmentSize == 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	o.SegmentSize = max(o.SegmentSize, minSegmentSize)
	if o.DedupMaxCount == 0 {
		o.DedupMaxCount = DefaultDedupMaxCount
	}
	if o.DedupMaxAge == 0 {
		o.DedupMaxAge = DefaultDedupMaxAge
	}
	if o.TailBytes == 0 {
		o.TailBytes = DefaultTailBytes
	}
	if o.AckFlushInterval == 0 {
		o.AckFlushInterval = DefaultAckFlushInterval
	}
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	return o
}

// Input bounds (ErrInvalid beyond them).
const (
	maxKeyLen      = 1024
	maxProviderLen = 256
	maxDedupLen    = 1024
	maxDataLen     = 16 << 20
	minSegmentSize = 64 << 10
)

// Stats describes one key's journal.
type Stats struct {
	Pending      int       // records stored and neither acked nor dropped
	Bytes        int64     // bytes of the pending records as stored
	AckedThrough uint64    // highest seq acked (0 = none)
	LastSeq      uint64    // highest seq assigned and durable (0 = none)
	Dropped      uint64    // records dropped by retention or DeleteKey, ever
	OldestAt     time.Time // ReceivedAt of the oldest pending record; zero if none
}

// Space describes the journal's files.
type Space struct {
	Segments int
	// DiskBytes is the size of the segment files: the sealed segments as
	// written, the active one as preallocated.
	DiskBytes int64
	// UsedBytes is what the segments hold: every frame written, live or not.
	UsedBytes int64
	// SealedBytes is UsedBytes less the active segment's.
	SealedBytes int64
	// LiveBytes is the bytes of the pending records of all keys.
	LiveBytes int64
	// Pending is the number of pending records of all keys.
	Pending int
}

// Journal is an open journal directory. See the package doc.
type Journal struct {
	dir  string
	opts Options // with defaults; read-only after Open
	log  zerolog.Logger
	fs   vfs.FS    // opts.FS
	lock io.Closer // the directory's lock (LOCK), released by Close

	mu sync.RWMutex
	// Guarded by mu (the published state):
	keys        map[string]*keyState
	cursors     map[string][]byte // durable platform cursor per provider
	segs        []*segment        // by base; the last is the active one
	pendingAcks map[*keyState]struct{}
	fronts      keyHeap // keys with pending records, by their oldest record
	liveBytes   int64
	livePending int
	tail        tailCache
	// failed is set when a write or sync failed (wraps ErrFailed), and
	// cleared once the writer has reopened the journal from disk
	// (reopen.go); healthChanged is closed (and replaced) at each change
	// of it; reopens counts the reopens.
	failed        error
	healthChanged chan struct{}
	reopens       uint64

	// Owned by the writer goroutine (read under mu only by the writer):
	windows map[string]*window // de-duplication window per provider
	w       writerState

	prep *preparer

	// Requests to the writer. reqs is never closed, so a send cannot
	// panic; a request queued after the writer's last drain is answered
	// ErrClosed by its own caller (see submit).
	reqs       chan *request
	ackKick    chan struct{} // buffered(1): an ack is waiting to be written
	closeOnce  sync.Once
	closing    chan struct{} // closed by Close: the writer drains reqs and exits
	writerDone chan struct{} // closed when the writer has exited
	closeErr   error         // set by the writer before writerDone

	// Group commit's figures: the batches written and the requests they
	// carried, and the requests of the batch being written now (0 between
	// writes).
	commits atomic.Uint64
	batched atomic.Uint64
	writing atomic.Int64
}

// request is one write waiting for the writer.
type request struct {
	kind     reqKind
	ctx      context.Context
	provider string
	// append: the entry frames, contiguous in buf, with what the writer
	// needs to finish each (seal the seq and CRC) and to index it.
	buf    []byte
	ents   []pendingEntry
	cursor []byte // nil = leave the provider's cursor as it is
	key    string // deleteKey; move: the key records leave
	// move: the seqs of key's pending records as the caller read them.
	first, last uint64
	// retention: new bounds to apply first (SetLimits); nil = keep them.
	limits *Limits
	total  int64
	// seed: the state to seed, as a checkpoint, and a bound of its frame.
	seed     *checkpoint
	seedSize int64

	out     []Appended // set by the writer before done (append, move)
	dropped int        // deleteKey: records discarded
	err     error      // set by the writer: the request's own refusal (seed, move)
	done    chan error // buffered(1): the writer never blocks on a gone caller
}

type reqKind uint8

const (
	reqAppend reqKind = iota
	reqDeleteKey
	reqRetention
	reqFlush
	reqSeed
	reqMove
)

// pendingEntry is one entry frame of an append request.
type pendingEntry struct {
	key     string
	dedupID string
	at      int64 // unix ns, 0 = zero time
	off     int   // frame's offset in request.buf
	size    int
	partial uint32 // CRC before the seq (appendEntryFrame)
}

// Append journals entries for provider and stores cursor as the provider's
// platform cursor, in one commit, and returns once that commit is on disk
// (fdatasync). Entries whose (provider, DedupID) is in the provider's
// de-duplication window, or repeats one earlier in entries, are skipped
// (Appended.Duplicate); the others get the next seq of their key and their
// DedupID is remembered. Retention bounds are enforced for the keys
// touched (and TotalBytes), in the same commit. The result has one element
// per entry, in order.
//
// A nil cursor leaves the stored cursor as it is; a non-nil one (even
// empty) replaces it. The cursor is written after the entries, in the same
// commit: it is never on disk without them.
//
// If ctx ends before the commit, Append returns ctx.Err() and the outcome
// is unknown: the entries may or may not have been committed. Retrying with
// the same entries is safe for entries with a DedupID. After Close:
// ErrClosed; after a failed write: ErrFailed (see there).
//
// checkEntry refuses an entry (the i-th of a call) the frames cannot hold.
func checkEntry(i int, key, dedupID string, dataLen int) error {
	switch {
	case len(key) > maxKeyLen:
		return fmt.Errorf("entry %d: key of %d bytes (at most %d): %w", i, len(key), maxKeyLen, ErrInvalid)
	case len(dedupID) > maxDedupLen:
		return fmt.Errorf("entry %d: dedup id of %d bytes (at most %d): %w", i, len(dedupID), maxDedupLen, ErrInvalid)
	case dataLen > maxDataLen:
		return fmt.Errorf("entry %d: %d bytes of data (at most %d): %w", i, dataLen, maxDataLen, ErrInvalid)
	}
	return nil
}

// Append copies entries and cursor: the caller may reuse them at once.
func (j *Journal) Append(ctx context.Context, provider string, entries []Entry, cursor []byte) ([]Appended, error) {
	if err := checkProvider(provider); err != nil {
		return nil, err
	}
	now := j.opts.Now()
	size := 0
	for i := range entries {
		e := &entries[i]
		if err := checkEntry(i, e.Key, e.DedupID, len(e.Data)); err != nil {
			return nil, fmt.Errorf("append: %w", err)
		}
		size += entryFrameSize(provider, e.Key, e.DedupID, len(e.Data))
	}
	r := &request{kind: reqAppend, ctx: ctx, provider: provider, done: make(chan error, 1)}
	if cursor != nil {
		r.cursor = append(make([]byte, 0, len(cursor)), cursor...)
	}
	// Encoded and checksummed here, on the caller's goroutine; the writer
	// only seals the seq and the LSN into each frame.
	r.buf = make([]byte, 0, size)
	r.ents = make([]pendingEntry, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		r.addFrame(provider, e.Key, e.DedupID, e.ReceivedAt, now, e.Data)
	}
	if err := j.submit(r); err != nil {
		return nil, err
	}
	return r.out, nil
}

// addFrame encodes and checksums the entry frame of one record (received
// at at, or now if at is zero) onto r.buf, and notes it in r.ents: on the
// caller's goroutine, so that the writer only seals the seq and the LSN
// into it.
func (r *request) addFrame(provider, key, dedupID string, at, now time.Time, data []byte) {
	if at.IsZero() {
		at = now
	}
	off := len(r.buf)
	var partial uint32
	r.buf, partial = appendEntryFrame(r.buf, provider, key, dedupID, at.UnixNano(), data)
	r.ents = append(r.ents, pendingEntry{key: key, dedupID: dedupID, at: at.UnixNano(), off: off,
		size: len(r.buf) - off, partial: partial})
}

// Cursor returns the provider's platform cursor as last stored by a
// durable Append, nil if none.
func (j *Journal) Cursor(provider string) ([]byte, error) {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.keys == nil {
		return nil, j.errClosed()
	}
	c, ok := j.cursors[provider]
	if !ok {
		return nil, nil
	}
	return append([]byte{}, c...), nil
}

// Ack acknowledges every record of key with seq <= seq and returns the new
// acked-through point. It is cumulative and idempotent: a seq at or below
// the current point changes nothing. A seq beyond the key's LastSeq:
// ErrAckBeyondLast. The records leave memory at once (Read, Stats and
// space accounting see the ack at once); the ack is written with the next
// batch or within Options.AckFlushInterval, never with an fdatasync of its
// own, so after a crash an ack may be lost and its records delivered again.
// Flush makes it durable.
func (j *Journal) Ack(key string, seq uint64) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.keys == nil {
		return 0, j.errClosed()
	}
	ks := j.keys[key]
	var last uint64
	if ks != nil {
		last = ks.lastSeq
	}
	if seq > last {
		return 0, fmt.Errorf("%s: ack of seq %d, last is %d: %w", keyName(key), seq, last, ErrAckBeyondLast)
	}
	if ks == nil || seq <= ks.acked {
		if ks == nil {
			return 0, nil
		}
		return ks.acked, nil
	}
	ks.acked = seq
	j.removeThrough(ks, seq)
	if len(j.pendingAcks) == 0 {
		select {
		case j.ackKick <- struct{}{}:
		default:
		}
	}
	j.pendingAcks[ks] = struct{}{}
	return seq, nil
}

// Read returns up to limit pending records of key with seq > afterSeq, in
// seq order (limit <= 0: all of them; the journal is bounded by Limits).
// Recent records come from memory (Options.TailBytes), older ones from the
// segment files. Only durable records are returned.
func (j *Journal) Read(key string, afterSeq uint64, limit int) ([]Record, error) {
	recs, _, err := j.read(nil, key, afterSeq, limit, true, false)
	return recs, err
}

// ReadData is Read with each record's Provider and DedupID left empty:
// nothing is allocated per record (a follower's stream needs only the
// data).
func (j *Journal) ReadData(key string, afterSeq uint64, limit int) ([]Record, error) {
	recs, _, err := j.read(nil, key, afterSeq, limit, false, false)
	return recs, err
}

// Follow is ReadData for a follower that waits for more once it has what
// there is: it appends the records to dst (which it may reuse: nothing
// else is allocated while they come from memory) and, if they reach the
// key's last record (none beyond limit), also returns the channel
// Changed(key, last seq read, or afterSeq if none) would return, taken
// under the same lock as the read. changed is nil when more records are
// there to read now (and on error). One read and one lock per wake-up,
// where ReadData and Changed take two.
func (j *Journal) Follow(dst []Record, key string, afterSeq uint64, limit int) (recs []Record, changed <-chan struct{}, err error) {
	return j.read(dst, key, afterSeq, limit, false, true)
}

// Changed returns a channel that is closed once key has a record with a seq
// above afterSeq (at once if it has one already), and also when the key's
// records are deleted or the journal is closed; the caller then reads or
// checks again. The cost of waking is per key that got records, not per
// key or waiter in the journal.
//
// It takes the journal's lock shared (exclusively only the first time a
// key is named): the streams of many followers woken by one commit ask
// for their next channel at the same time, and neither wait for one
// another nor hold up Read.
func (j *Journal) Changed(key string, afterSeq uint64) <-chan struct{} {
	j.mu.RLock()
	ks, c := j.changedLocked(key, afterSeq)
	j.mu.RUnlock()
	if ks != nil {
		return c
	}
	j.mu.Lock() // a key never named: make its state
	defer j.mu.Unlock()
	if j.keys == nil {
		return closedChan
	}
	j.key(key)
	_, c = j.changedLocked(key, afterSeq)
	return c
}

// changedLocked is Changed for a key that has a state (nil ks if it has
// none). Caller holds mu, shared or exclusively.
func (j *Journal) changedLocked(key string, afterSeq uint64) (ks *keyState, c <-chan struct{}) {
	if j.keys == nil {
		return &keyState{}, closedChan
	}
	ks = j.keys[key]
	if ks == nil {
		return nil, nil
	}
	if ks.lastSeq > afterSeq {
		return ks, closedChan
	}
	return ks, ks.waitChan()
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Stats describes key's journal; a key never appended to has zero Stats.
func (j *Journal) Stats(key string) (Stats, error) {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.keys == nil {
		return Stats{}, j.errClosed()
	}
	ks := j.keys[key]
	if ks == nil {
		return Stats{}, nil
	}
	st := Stats{
		Pending:      ks.ring.len(),
		Bytes:        ks.bytes,
		AckedThrough: ks.acked,
		LastSeq:      ks.lastSeq,
		Dropped:      ks.dropped,
	}
	if st.Pending > 0 {
		st.OldestAt = fromUnixNano(ks.ring.at(0).at)
	}
	return st, nil
}

// Keys returns every key that was ever appended to, sorted. Keys stay after
// their records are acked or deleted, so that their seqs are never reused.
func (j *Journal) Keys() ([]string, error) {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.keys == nil {
		return nil, j.errClosed()
	}
	out := make([]string, 0, len(j.keys))
	for k, ks := range j.keys {
		if ks.lastSeq > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}

// DeleteKey discards every pending record of key (including those of
// Appends that committed before it) and returns how many, reported to
// OnDrop as DropKeyDeleted and counted in Stats.Dropped. It returns once
// the deletion is durable. The key's seq counter stays: a later Append to
// the same key continues after its LastSeq, so a follower that remembers a
// seq never mistakes new records for ones it handled.
func (j *Journal) DeleteKey(ctx context.Context, key string) (int, error) {
	r := &request{kind: reqDeleteKey, ctx: ctx, key: key, done: make(chan error, 1)}
	if err := j.submit(r); err != nil {
		return 0, err
	}
	return r.dropped, nil
}

// ApplyRetention enforces the Limits on every key and TotalBytes now
// (Append only enforces them on the keys it touches, so the age bound of a
// quiet key needs this). Drops are durable when it returns, and reported
// to OnDrop.
func (j *Journal) ApplyRetention(ctx context.Context) error {
	return j.submit(&request{kind: reqRetention, ctx: ctx, done: make(chan error, 1)})
}

// SetLimits replaces Options.Limits and Options.TotalBytes (zero fields:
// the defaults, as in Options) for every later write and enforces them on
// every key at once, as ApplyRetention does. The bounds are only read by
// the writer, so they change there, between two batches.
func (j *Journal) SetLimits(ctx context.Context, l Limits, totalBytes int64) error {
	l = l.withDefaults()
	if totalBytes == 0 {
		totalBytes = DefaultTotalBytes
	}
	return j.submit(&request{kind: reqRetention, ctx: ctx, limits: &l, total: totalBytes, done: make(chan error, 1)})
}

// Flush writes the acks waiting in memory and returns once they are
// durable and space maintenance (deleting and compacting segments) has
// caught up with them.
func (j *Journal) Flush(ctx context.Context) error {
	return j.submit(&request{kind: reqFlush, ctx: ctx, done: make(chan error, 1)})
}

// Space describes the journal's files.
func (j *Journal) Space() Space {
	j.mu.RLock()
	defer j.mu.RUnlock()
	sp := Space{Segments: len(j.segs), LiveBytes: j.liveBytes, Pending: j.livePending}
	for i, s := range j.segs {
		sp.UsedBytes += s.used
		if i == len(j.segs)-1 {
			sp.DiskBytes += s.fileSize()
		} else {
			sp.DiskBytes += s.used
			sp.SealedBytes += s.used
		}
	}
	return sp
}

// Dir returns the directory the journal was opened from.
func (j *Journal) Dir() string { return j.dir }

// submit queues r for the writer and waits for its outcome (see Append for
// what a ctx that ends means).
func (j *Journal) submit(r *request) error {
	select {
	case <-j.closing:
		return j.errClosed()
	default:
	}
	select {
	case j.reqs <- r:
	case <-r.ctx.Done():
		return r.ctx.Err()
	case <-j.closing:
		return j.errClosed()
	}
	select {
	case err := <-r.done:
		return err
	case <-r.ctx.Done():
		return r.ctx.Err()
	case <-j.writerDone:
		// The writer answers every request it took before it exits, so an
		// empty done means r arrived after its last drain and never ran.
		select {
		case err := <-r.done:
			return err
		default:
			return j.errClosed()
		}
	}
}

// Close stops accepting writes, finishes the ones already accepted, writes
// the acks waiting in memory, and closes the files and the lock. Waiters on
// Changed are woken. Later calls return ErrClosed (Close itself: nil).
func (j *Journal) Close() error {
	first := false
	j.closeOnce.Do(func() {
		first = true
		close(j.closing)
	})
	if !first {
		<-j.writerDone
		return nil
	}
	<-j.writerDone
	err := j.closeErr
	j.prep.stop()
	j.mu.Lock()
	for _, ks := range j.keys {
		ks.wake()
	}
	j.keys = nil // marks the journal closed for the readers
	segs := j.segs
	j.segs = nil
	j.mu.Unlock()
	for _, s := range segs {
		s.release()
	}
	if uerr := j.lock.Close(); uerr != nil && err == nil {
		err = fmt.Errorf("journal %s: unlock: %w", j.dir, uerr)
	}
	return err
}

func (j *Journal) errClosed() error { return fmt.Errorf("journal %s: %w", j.dir, ErrClosed) }

func checkProvider(p string) error {
	if p == "" || len(p) > maxProviderLen || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("provider %q: must be 1 to %d bytes without NUL: %w", p, maxProviderLen, ErrInvalid)
	}
	return nil
}

// keyName names a key's journal in errors.
func keyName(key string) string {
	if key == "" {
		return "unrouted journal"
	}
	return fmt.Sprintf("journal of key %q", key)
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
