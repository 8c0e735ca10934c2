package store

// Bolt keeps the state in one bbolt file per profile, and the inbound
// journal in the journal directory beside it (journal.go). Key layout of
// the bbolt file (bucket per concern; "i64" keys are big-endian with the
// sign bit flipped and "u64" keys plain big-endian, so cursors iterate in
// numeric order):
//
//	meta/
//	  "schema"                            → u64 schema version (schemaVersion)
//	bindings/
//	  <binding key>                       → JSON bindingRecord
//	targets/                              index for BindingByTarget
//	  <provider> 0x00 <chat> 0x00 <thread> → binding key
//	slots/                                allocation cursors
//	  <provider> 0x00 <chat>              → last slot handed out ("C")
//	handoffs/
//	  <sha256(token)>                     → i64 deadline (unix ns), binding key
//	calls/                                followers' call records (calls.go)
//	  entries/ <binding key> 0x00 <idempotency key> → JSON callRecord
//	  open/    <provider> 0x00 <order u64> → entry key (queued or sending)
//
// Schema 2 files also held the journal (cursors/, seen/, journal/,
// unrouted/: see migrate_journal.go); Open moves it into the journal
// directory once.
//
// Every bbolt write goes through one committer goroutine (group commit):
// it takes the first queued request, drains the requests already queued
// without waiting, runs them in one bbolt transaction (one commit: bbolt's
// fdatasync of the pages, then of the meta page) and answers each caller.
// If that transaction fails, each request is retried in its own, so one
// bad request cannot fail its neighbours. Reads are plain bbolt read
// transactions and run concurrently with the committer.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/chatbus/chatbus/internal/keylock"
	"github.com/chatbus/chatbus/server/journal"
	"github.com/chatbus/chatbus/server/journal/vfs"
)

// schemaVersion is the layout above. Open refuses files with a higher one,
// migrates schema 1 files (numeric chat and thread ids) to 2 once, and
// moves a schema 2 file's journal out of bbolt once.
const schemaVersion = 3

// maxBatch bounds the requests one transaction carries.
const maxBatch = 512

// Bucket and key names.
var (
	bMeta     = []byte("meta")
	bBindings = []byte("bindings")
	bTargets  = []byte("targets")
	bSlots    = []byte("slots")
	// The journal's buckets of schema 1 and 2 files, read by the
	// migrations only.
	bCursors  = []byte("cursors")
	bSeen     = []byte("seen")
	bJournal  = []byte("journal")
	bUnrouted = []byte("unrouted")
	bHandoffs = []byte("handoffs")
	// bOutbox held calls for a restarting provider before the call
	// records did; migrateOutbox moves what an older file has and drops it.
	bOutbox = []byte("outbox")
	// bSent is created by the first RememberSent: files made before it
	// existed stay valid, and older programs ignore it.
	bSent = []byte("sent")

	kSchema   = []byte("schema")
	kState    = []byte("state")
	bQueue    = []byte("q")
	bSeenIDs  = []byte("ids")
	bSeenOrd  = []byte("order")
	bEntries  = []byte("entries")
	bPending  = []byte("pending")
	topLevels = [][]byte{bMeta, bBindings, bTargets, bSlots, bHandoffs}
	// oldTopLevels are the buckets files before schema 3 must have.
	oldTopLevels = [][]byte{bCursors, bSeen, bJournal, bUnrouted}
)

// Options configure a Bolt store. The zero value is usable.
type Options struct {
	// Limits bound each binding's journal and, separately, the unrouted
	// set, and all of them together. Zero fields take their defaults (see
	// Limits).
	Limits Limits
	// SeenMaxCount is how many platform update ids per provider are
	// remembered for de-duplication after their update was stored. If
	// zero, 100000.
	SeenMaxCount int
	// SeenMaxAge forgets remembered ids older than this. If zero, 7 days
	// (platforms keep unconfirmed updates for a day or so).
	SeenMaxAge time.Duration
	// SegmentSize is the journal's segment size (preallocated). If zero,
	// 64 MiB, or a sixteenth of the free space of the filesystem at Open if
	// that is less (at least 256 KiB).
	SegmentSize int64
	// TailBytes is how many bytes of the newest updates the journal keeps
	// in memory, so a follower that keeps up is served without reading the
	// disk. If zero, 64 MiB; negative = none.
	TailBytes int64
	// Logger receives the journal's recovery and maintenance events. The
	// zero value logs nothing.
	Logger zerolog.Logger
	// JournalFS is the file system under the journal's files (every file
	// operation of the journal goes through it). If nil, the operating
	// system's. Tests put faults under it (faultfs).
	JournalFS vfs.FS
	// MaxSent is how many sent ids RememberSent keeps per thread. If zero,
	// 4096.
	MaxSent int
	// MaxSlots is the length of the slot sequence before AllocateSlot wraps
	// to A. If zero, 702 (26*27: A…Z, AA…ZZ).
	MaxSlots int
	// LockTimeout is how long Open waits for another holder of the file
	// lock before failing with ErrLocked. If zero, 1s.
	LockTimeout time.Duration
	// Verify runs bbolt's full consistency check at Open (reads every page;
	// cost grows with the file). A failure is ErrCorrupt.
	Verify bool
	// OnDrop is told of every update retention or DeleteBinding discarded:
	// n updates of bindingKey ("" = unrouted) for reason (DropCount,
	// DropBytes, DropAge, DropBindingDeleted). It runs on the committer
	// goroutine after the transaction committed, before the call that
	// caused it returns. It must not block, and must not call the Store's
	// write methods: the committer would wait for itself. (Reads are
	// fine.) If nil, drops are only counted in Stats.Dropped.
	// It runs on the journal's writer goroutine (DropBindingDeleted: on
	// the caller's, after the deletion is durable).
	OnDrop func(bindingKey string, n int, reason string)
	// Now is the store's clock. If nil, time.Now.
	Now func() time.Time
	// OnCommit, if set, is told of every write transaction the committer
	// ran: how many requests it carried, how long it took (its page writes
	// and fdatasyncs included) and its error. It runs on the committer
	// goroutine and must not block.
	OnCommit func(requests int, took time.Duration, err error)

	// HolderDelay is how long a binding's new holder (a PutBinding that
	// changes only its InstanceID and Updated, as a reloaded follower's
	// registration does) may be held in memory before it is written; it
	// is written sooner with the binding's next write, and at Close.
	// Reads see it at once; a crash loses the holder changes of the last
	// HolderDelay (holders.go says why that is safe). If zero, 100ms;
	// negative: every PutBinding is written before it returns.
	HolderDelay time.Duration

	// testHookBeforeTx, if set, runs on the committer goroutine before each
	// write transaction with the number of requests it carries.
	testHookBeforeTx func(requests int)
}

func (o Options) withDefaults() Options {
	o.Limits = o.Limits.withDefaults()
	if o.SeenMaxCount == 0 {
		o.SeenMaxCount = 100000
	}
	if o.SeenMaxAge == 0 {
		o.SeenMaxAge = 7 * 24 * time.Hour
	}
	if o.MaxSlots == 0 {
		o.MaxSlots = 26 * 27
	}
	if o.MaxSent == 0 {
		o.MaxSent = 4096
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HolderDelay == 0 {
		o.HolderDelay = defaultHolderDelay
	}
	return o
}

// Bolt is the embedded Store: one bbolt file, one committer goroutine, and
// the journal.
type Bolt struct {
	path string
	db   *bbolt.DB
	jr   *journal.Journal
	opts Options // with defaults; read-only after Open but for Limits (SetLimits)

	// boundMu guards bound and owners: the committed bindings, each with
	// its thread, and which binding owns each thread. Append holds it
	// (read) from routing through its journal commit; DeleteBinding
	// (write) across both of its steps, so that nothing is appended to a
	// deleted binding's key; PutBinding (write) when a binding is new,
	// changes thread or has its thread's unrouted updates to claim, across
	// its write and the claim (claim.go), so that no update of the thread
	// is appended between the two (read, for any other write). Lock order: boundMu, then strayMu, the
	// committer and the journal.
	boundMu sync.RWMutex
	bound   map[string]Target
	owners  map[Target]string

	// strayMu guards strays: per thread, the highest seq of an unrouted
	// update of that thread (claim.go). A leaf: Append takes it under
	// boundMu (read) to add, claims under boundMu (write) to replace.
	strayMu sync.Mutex
	strays  map[Target]uint64

	// No mutex: the committer goroutine owns every write transaction and
	// the channels below carry everything else. reqs is never closed, so a
	// send cannot panic; a request sent after the committer's last drain
	// is answered ErrClosed by its own caller (see write). bbolt itself
	// makes Close wait for read transactions in progress and fail later
	// ones.
	reqs      chan *request
	closeOnce sync.Once
	closing   chan struct{} // closed by Close: the committer drains reqs and exits
	loopDone  chan struct{} // closed when the committer has exited

	// keys is one lock per binding key, held across PutBinding and
	// DeleteBinding: the writes of one binding are one at a time. Taken
	// before boundMu.
	keys keylock.Locks

	// heldMu guards held, heldVer, heldTimer and heldClosed: the holder
	// changes of bindings not yet written (holders.go). A leaf, taken
	// inside transactions (read and write) and never held across
	// anything that waits.
	heldMu     sync.Mutex
	held       map[string]heldChange
	heldVer    uint64
	heldTimer  *time.Timer // writes what is held; nil while none is due
	heldClosed bool        // Close began: nothing more is held

	txs      atomic.Uint64 // write transactions run by the committer
	requests atomic.Uint64 // write requests the committer answered after running them
}

var _ Store = (*Bolt)(nil)

// request is one write waiting for the committer.
type request struct {
	ctx context.Context
	// fn does the whole write inside tx. It may run twice (once in a
	// shared transaction that failed, once alone), so it must only set its
	// caller's results, never accumulate into them. An error rolls back.
	fn func(tx *bbolt.Tx) error
	// after, if set, runs after the transaction committed (OnDrop reports).
	after func()
	done  chan error // buffered(1): the committer never blocks on a gone caller
}

// Open opens the store file at path, creating it (mode 0600) if it does
// not exist; its directory must exist. It refuses, without writing a byte,
// a path that is not a regular file (ErrUnusable), a file its owner may not
// read and write (fs.ErrPermission, also when running as root), a file that
// is not an intact chatbus store (ErrCorrupt: bad magic or checksums,
// truncated, another program's bbolt file), a file of a newer schema
// (ErrSchemaTooNew), and a file locked by another process for longer than
// Options.LockTimeout (ErrLocked). Every such error names the file.
//
// An existing empty (zero-byte) file is treated as new: it holds no state
// to lose.
func Open(path string, opts Options) (*Bolt, error) {
	opts = opts.withDefaults()
	if err := checkPath(path); err != nil {
		return nil, err
	}
	db, err := openDB(path, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	from, err := initSchema(db, path)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if opts.Verify {
		if err := verify(db, path); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	s := &Bolt{
		path:     path,
		db:       db,
		opts:     opts,
		held:     map[string]heldChange{},
		reqs:     make(chan *request, maxBatch),
		closing:  make(chan struct{}),
		loopDone: make(chan struct{}),
	}
	go s.commitLoop()
	if err := s.openJournal(from); err != nil {
		s.closeBolt()
		return nil, err
	}
	return s, nil
}

// checkPath refuses, before anything opens it, a path that exists but is
// not a regular file its owner can read and write. Stat follows symlinks:
// a symlinked store file is fine.
func checkPath(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // Open creates it
	case err != nil:
		return fmt.Errorf("store %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("store %s: is a directory: %w", path, ErrUnusable)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("store %s: is a %s: %w", path, fileType(fi.Mode()), ErrUnusable)
	case fi.Mode().Perm()&0o600 != 0o600:
		// Checked explicitly so the answer does not depend on running as
		// root, which would open a 0000 file regardless.
		return fmt.Errorf("store %s: mode %04o does not let its owner read and write it: %w",
			path, fi.Mode().Perm(), fs.ErrPermission)
	}
	return nil
}

func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// openDB opens the file with bbolt. bbolt's OpenFile hook takes the file
// lock (lockFile) and then validates the file (validateFile) on the very
// file descriptor bbolt goes on to use, so the check sees no writer at work
// and bbolt never maps a truncated file (a SIGBUS) or writes to a foreign
// one. bbolt's own flock of that descriptor then succeeds at once (flock
// belongs to the open file description). A panic inside bbolt (a damaged
// page it trusts) becomes ErrCorrupt.
func openDB(path string, lockTimeout time.Duration) (db *bbolt.DB, err error) {
	var file *os.File
	bopts := &bbolt.Options{
		Timeout:      lockTimeout,
		FreelistType: bbolt.FreelistMapType,
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, mode)
			if err != nil {
				return nil, err
			}
			if err := lockFile(f, lockTimeout); err != nil {
				_ = f.Close()
				return nil, err
			}
			if err := validateFile(f); err != nil {
				_ = f.Close() // also drops the lock
				return nil, err
			}
			file = f
			return f, nil
		},
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			// bbolt's half-open DB is lost with the panic. Closing the file
			// is all that can be done: if bbolt had mapped it already, the
			// mapping (and with it the flock) stays until this process
			// exits. validateFile checks what bbolt reads at Open so that
			// this is a last resort.
			if file != nil {
				_ = file.Close()
			}
			db, err = nil, fmt.Errorf("store %s: %w: bbolt failed reading it: %v (the file may stay locked until this process exits)", path, ErrCorrupt, p)
		}
	}()
	db, err = bbolt.Open(path, 0o600, bopts)
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, ErrLocked), errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("store %s is %w (waited %s)", path, ErrLocked, lockTimeout)
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrUnusable):
		return nil, fmt.Errorf("store %s: %w", path, err)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch),
		errors.Is(err, berrors.ErrChecksum):
		return nil, fmt.Errorf("store %s: %w: %v", path, ErrCorrupt, err)
	}
	return nil, fmt.Errorf("store %s: %w", path, err)
}

// lockFile takes an exclusive flock of f, retrying until timeout; another
// holder past the timeout is ErrLocked.
func lockFile(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("lock: %w", err)
		case time.Now().After(deadline):
			return ErrLocked
		}
		time.Sleep(min(50*time.Millisecond, timeout/10+time.Millisecond))
	}
}

// initSchema creates the buckets of a new file, or checks the schema of an
// existing one (migrating schema 1 to 2), and returns the schema the file
// had (schemaVersion for a new one). An intact existing store of this
// schema is only read, never written.
func initSchema(db *bbolt.DB, path string) (schema uint64, err error) {
	schema = schemaVersion
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store %s: %w: reading the schema panicked: %v", path, ErrCorrupt, p)
		}
	}()
	fresh, migrate, hasOutbox := false, false, false
	err = db.View(func(tx *bbolt.Tx) error {
		m := tx.Bucket(bMeta)
		if m == nil {
			empty := true
			_ = tx.ForEach(func([]byte, *bbolt.Bucket) error { empty = false; return nil })
			if !empty {
				return fmt.Errorf("store %s: %w: a bbolt file without a chatbus schema (another program's?)", path, ErrCorrupt)
			}
			fresh = true
			return nil
		}
		v := m.Get(kSchema)
		if len(v) != 8 {
			return fmt.Errorf("store %s: %w: schema key missing or malformed", path, ErrCorrupt)
		}
		ver := getU64(v)
		schema = ver
		switch {
		case ver > schemaVersion:
			return fmt.Errorf("store %s: schema %d, this program knows up to %d: %w", path, ver, schemaVersion, ErrSchemaTooNew)
		case ver == 0:
			return fmt.Errorf("store %s: %w: schema version 0", path, ErrCorrupt)
		case ver == 1:
			migrate = true
		}
		need := topLevels
		if ver < 3 {
			need = append(slices.Clone(topLevels), oldTopLevels...)
		}
		for _, name := range need {
			if tx.Bucket(name) == nil {
				return fmt.Errorf("store %s: %w: bucket %q missing", path, ErrCorrupt, name)
			}
		}
		hasOutbox = tx.Bucket(bOutbox) != nil
		return nil
	})
	if err == nil && migrate {
		if err = db.Update(migrateV1); err != nil {
			return schema, fmt.Errorf("store %s: migrate schema 1 to 2: %w", path, err)
		}
		schema = 2
	}
	if err == nil && hasOutbox {
		if err = db.Update(migrateOutbox); err != nil {
			return schema, fmt.Errorf("store %s: move the outbox into the call records: %w", path, err)
		}
	}
	if err != nil || !fresh {
		return schema, err
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, name := range topLevels {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Put(kSchema, putU64(nil, schemaVersion))
	})
	if err != nil {
		return schema, fmt.Errorf("store %s: initialise: %w", path, err)
	}
	return schema, nil
}

// verify runs bbolt's consistency check over the whole file.
func verify(db *bbolt.DB, path string) error {
	return db.View(func(tx *bbolt.Tx) error {
		var first error
		n := 0
		for err := range tx.Check() { // drain: Check's goroutine sends until done
			if first == nil {
				first = err
			}
			n++
		}
		if first != nil {
			return fmt.Errorf("store %s: %w: consistency check: %v (%d problems)", path, ErrCorrupt, first, n)
		}
		return nil
	})
}

// Path returns the file the store was opened from.
func (s *Bolt) Path() string { return s.path }

// CommitStats returns how many write transactions the committer ran and
// how many write requests it answered after running them. Under
// concurrency txs < requests (group commit); a lone caller pays one
// transaction per request. A batch that failed and was retried request by
// request counts one transaction more per request.
func (s *Bolt) CommitStats() (txs, requests uint64) {
	return s.txs.Load(), s.requests.Load()
}

// Close stops accepting calls, lets the committer and the journal finish
// every write already queued (the journal writes the acks it holds, the
// store the holders of bindings it holds: holders.go), and
// closes the files (after any read in progress). Later calls return nil.
func (s *Bolt) Close() error {
	// The held holder changes first, while the committer still takes
	// writes (a concurrent Close finds nothing held, or writes it too).
	herr := s.closeHeld()
	if herr != nil && !errors.Is(herr, ErrClosed) {
		herr = fmt.Errorf("store %s: write the holders of bindings: %w", s.path, herr)
	} else {
		herr = nil
	}
	first := false
	s.closeOnce.Do(func() { first = true; close(s.closing) })
	if !first {
		<-s.loopDone
		return nil
	}
	var jerr error
	if s.jr != nil {
		if err := s.jr.Close(); err != nil {
			jerr = fmt.Errorf("store %s: close the journal: %w", s.path, err)
		}
	}
	if err := s.closeBolt(); err != nil {
		return err
	}
	return errors.Join(herr, jerr)
}

// closeBolt stops the committer and closes the bbolt file.
func (s *Bolt) closeBolt() error {
	s.closeOnce.Do(func() { close(s.closing) })
	<-s.loopDone
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store %s: close: %w", s.path, err)
	}
	return nil
}

func (s *Bolt) errClosed() error { return fmt.Errorf("store %s: %w", s.path, ErrClosed) }

// write submits fn to the committer and waits for its outcome. If ctx ends
// first, write returns ctx.Err(); a request whose ctx ended before its
// transaction began is not run.
func (s *Bolt) write(ctx context.Context, fn func(tx *bbolt.Tx) error, after func()) error {
	r, err := s.submit(ctx, fn, after)
	if err != nil {
		return err
	}
	return s.wait(ctx, r)
}

// writeAsync submits fn to the committer like write, but returns once it is
// queued; the channel receives the outcome. It waits only while the queue
// is full.
func (s *Bolt) writeAsync(fn func(tx *bbolt.Tx) error) <-chan error {
	out := make(chan error, 1)
	r, err := s.submit(context.Background(), fn, nil)
	if err != nil {
		out <- err
		return out
	}
	go func() { out <- s.wait(r.ctx, r) }()
	return out
}

// submit queues fn for the committer, unless the store is closing or ctx
// ends first.
func (s *Bolt) submit(ctx context.Context, fn func(tx *bbolt.Tx) error, after func()) (*request, error) {
	select {
	case <-s.closing:
		return nil, s.errClosed()
	default:
	}
	r := &request{ctx: ctx, fn: fn, after: after, done: make(chan error, 1)}
	select {
	case s.reqs <- r:
		return r, nil
	case <-s.closing:
		return nil, s.errClosed()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wait returns the outcome of a queued request.
func (s *Bolt) wait(ctx context.Context, r *request) error {
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-s.loopDone:
		// The committer answers before it exits, so an empty done means
		// the request arrived after its last drain and never ran.
		select {
		case err := <-r.done:
			return err
		default:
			return s.errClosed()
		}
	}
}

// view runs fn in a read transaction. A panic in bbolt (a damaged page)
// becomes ErrCorrupt.
func (s *Bolt) view(fn func(tx *bbolt.Tx) error) (err error) {
	select {
	case <-s.closing:
		return s.errClosed()
	default:
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store %s: %w: read panicked: %v", s.path, ErrCorrupt, p)
		}
	}()
	err = s.db.View(fn)
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return s.errClosed()
	}
	return err
}

// commitLoop is the committer goroutine. After Close it commits what is
// queued and exits.
func (s *Bolt) commitLoop() {
	defer close(s.loopDone)
	batch := make([]*request, 0, maxBatch)
	for {
		select {
		case r := <-s.reqs:
			batch = append(batch[:0], r)
		case <-s.closing:
			batch = batch[:0]
		}
		// Take whatever else is queued, without waiting for more.
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-s.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		if len(batch) == 0 { // closing, and nothing left
			return
		}
		s.commit(batch)
		clear(batch) // drop references for the GC
	}
}

// commit runs one batch: requests whose caller has given up are answered
// without running; the others share one transaction, or, if it fails, run
// one transaction each.
func (s *Bolt) commit(batch []*request) {
	live := batch[:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	err := s.runTx(live)
	if err != nil && len(live) > 1 {
		for _, r := range live {
			s.finish(r, s.runTx([]*request{r}))
		}
		return
	}
	for _, r := range live {
		s.finish(r, err)
	}
}

func (s *Bolt) finish(r *request, err error) {
	if err == nil && r.after != nil {
		r.after()
	}
	s.requests.Add(1)
	r.done <- err
}

// runTx runs the requests' fns in one write transaction. A panic in a fn
// (a damaged page, a panicking inUse callback) rolls back and becomes the
// error.
func (s *Bolt) runTx(batch []*request) (err error) {
	if h := s.opts.OnCommit; h != nil {
		defer func(start time.Time) { h(len(batch), time.Since(start), err) }(time.Now())
	}
	s.txs.Add(1)
	if h := s.opts.testHookBeforeTx; h != nil {
		h(len(batch))
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store %s: write transaction panicked: %v", s.path, p)
		}
	}()
	err = s.db.Update(func(tx *bbolt.Tx) error {
		for _, r := range batch {
			if err := r.fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && !isOwnError(err) {
		err = fmt.Errorf("store %s: write: %w", s.path, err)
	}
	return err
}

// isOwnError reports whether err is one of this package's outcomes (already
// phrased for the caller) rather than a bbolt failure.
func isOwnError(err error) bool {
	for _, e := range []error{ErrNotFound, ErrInvalid, ErrAckBeyondLast, ErrTargetInUse,
		ErrNoFreeSlot, ErrHandoffUnknown, ErrHandoffExpired, ErrCorrupt} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
