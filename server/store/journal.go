package store

// The inbound journal: server/journal (a segmented append-only log, one
// fdatasync per group commit, acks in memory) in a directory beside the
// bbolt file. Bindings, handoffs, slots, sent ids and call records stay in
// bbolt; the journal holds the updates, their seqs and acks, the
// de-duplication windows and the platform cursors, so nothing of the
// journal is committed in two places.
//
// Keeping the two consistent across a crash (the journal's package doc):
//   - a binding is committed (bbolt) before anything is appended to its key:
//     Append routes an update only to a committed binding (Bolt.bound,
//     Bolt.owners: its thread's owner, else the binding the caller named),
//     else it is unrouted;
//   - a binding committed with a thread claims the thread's unrouted
//     updates (claim.go) in a journal commit of its own, after the bbolt
//     one; a crash in between leaves them unrouted, and Open claims them
//     (a journal commit moves them whole or not at all);
//   - DeleteBinding deletes the binding (bbolt), then its key's records
//     (journal.DeleteKey), holding boundMu so that no Append routes to the
//     key in between; a crash in between leaves records under a key no
//     binding names, which Open finds (journal.Keys) and deletes;
//   - the platform cursor is written in the same journal commit as the
//     updates it follows, so it never runs ahead of a durable record.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	bbolt "go.etcd.io/bbolt"

	"github.com/chatbus/chatbus/server/journal"
)

// journalName names a journal in errors.
func journalName(key string) string {
	if key == "" {
		return "unrouted journal"
	}
	return fmt.Sprintf("journal of binding %q", key)
}

// journalDir is the journal directory of the store file at path:
// "state.db" → "state.journal".
func journalDir(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".journal"
}

// Segment sizes: DefaultSegmentSize unless the filesystem is small (a
// segment is preallocated: it takes at most a sixteenth of the free space
// at Open), and never below minSegmentSize.
const (
	DefaultSegmentSize = journal.DefaultSegmentSize
	minSegmentSize     = 256 << 10
)

// segmentSize picks the segment size for a journal in dir.
func segmentSize(dir string, configured int64) int64 {
	if configured > 0 {
		return configured
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(dir), &st); err != nil {
		return DefaultSegmentSize
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	return max(min(DefaultSegmentSize, free/16), minSegmentSize)
}

// journalOptions are the journal's options for the store's.
func (o Options) journalOptions(dir string, onDrop func(key string, n int, reason string)) journal.Options {
	return journal.Options{
		Limits:        journal.Limits{MaxCount: o.Limits.MaxCount, MaxBytes: o.Limits.MaxBytes, MaxAge: o.Limits.MaxAge},
		TotalBytes:    o.Limits.TotalBytes,
		SegmentSize:   segmentSize(dir, o.SegmentSize),
		DedupMaxCount: o.SeenMaxCount,
		DedupMaxAge:   o.SeenMaxAge,
		TailBytes:     o.TailBytes,
		LockTimeout:   o.LockTimeout,
		OnDrop:        onDrop,
		Now:           o.Now,
		Logger:        o.Logger,
		FS:            o.JournalFS,
	}
}

// dropReason is the store's name for a journal drop reason.
func dropReason(r string) string {
	switch r {
	case journal.DropKeyDeleted:
		return DropBindingDeleted
	case journal.DropTotalBytes:
		return DropTotalBytes
	}
	return r // count, bytes, age: the same names
}

// journalErr maps a journal error to the store's sentinels (the journal's
// own error stays in the chain).
func (s *Bolt) journalErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, journal.ErrClosed):
		return fmt.Errorf("store %s: %w: %w", s.path, ErrClosed, err)
	case errors.Is(err, journal.ErrInvalid):
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	case errors.Is(err, journal.ErrAckBeyondLast):
		return fmt.Errorf("%w: %w", ErrAckBeyondLast, err)
	case errors.Is(err, journal.ErrCorrupt):
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("store %s: %w", s.path, err)
}

// openJournal opens the journal beside the bbolt file. fromSchema is the
// file's schema before this Open: below 3, the journal is still in bbolt
// and is moved over (migrateJournal), after removing whatever an
// interrupted earlier move left in the directory.
func (s *Bolt) openJournal(fromSchema uint64) error {
	dir := journalDir(s.path)
	if fromSchema < 3 {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("store %s: remove an unfinished journal move: %w", s.path, err)
		}
	}
	jr, err := journal.Open(dir, s.opts.journalOptions(dir, s.onDrop))
	if err != nil {
		if errors.Is(err, journal.ErrLocked) {
			return fmt.Errorf("store %s: %w: %w", s.path, ErrLocked, err)
		}
		return fmt.Errorf("store %s: %w", s.path, s.journalErr(err))
	}
	s.jr = jr
	if fromSchema < 3 {
		if err := s.migrateJournal(); err != nil {
			_ = jr.Close()
			return fmt.Errorf("store %s: move the journal out of bbolt: %w", s.path, err)
		}
	}
	return s.loadBound()
}

func (s *Bolt) onDrop(key string, n int, reason string) {
	if s.opts.OnDrop != nil {
		s.opts.OnDrop(key, n, dropReason(reason))
	}
}

// loadBound fills the committed bindings and the threads they own,
// deletes the records of journal keys no binding names (DeleteBinding
// crashed between its two steps), and moves the unrouted updates of
// threads a binding owns to it (a claim cut short by a crash).
func (s *Bolt) loadBound() error {
	bound := make(map[string]Target)
	owners := make(map[Target]string)
	err := s.view(func(tx *bbolt.Tx) error {
		return tx.Bucket(bBindings).ForEach(func(k, v []byte) error {
			b, err := decodeBinding(v)
			if err != nil {
				return fmt.Errorf("binding %q: %w", k, err)
			}
			bound[string(k)] = b.Target
			if !b.Target.IsZero() {
				owners[b.Target] = string(k)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	s.bound, s.owners = bound, owners
	keys, err := s.jr.Keys()
	if err != nil {
		return s.journalErr(err)
	}
	for _, k := range keys {
		if _, ok := bound[k]; ok || k == "" {
			continue
		}
		if st, err := s.jr.Stats(k); err != nil || st.Pending == 0 {
			continue
		}
		if _, err := s.jr.DeleteKey(context.Background(), k); err != nil {
			return fmt.Errorf("store %s: delete the journal of deleted binding %q: %w", s.path, k, s.journalErr(err))
		}
	}
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	if err := s.claimLocked(); err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	return nil
}

// isBound reports whether key names a committed binding. Caller holds
// boundMu (read).
func (s *Bolt) isBound(key string) bool {
	_, ok := s.bound[key]
	return ok
}

// routeLocked is the binding u goes to: the committed owner of u's
// thread, if it has one; else the binding u.BindingKey names, if it is
// committed; else "" (unrouted). The caller's routing may be a moment
// older than the bindings (a binding given the thread, or deprived of it,
// since the caller looked): the store's owners, read under boundMu, are
// the truth. Caller holds boundMu (read).
func (s *Bolt) routeLocked(u *Update) string {
	if u.Thread != "" {
		if key, ok := s.owners[Target{Provider: u.Provider, Chat: u.Chat, Thread: u.Thread}]; ok {
			return key
		}
	}
	if u.BindingKey != "" && s.isBound(u.BindingKey) {
		return u.BindingKey
	}
	return ""
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
	ents := make([]journal.Entry, len(updates))
	size := 0
	for i := range updates {
		size += encodedSizeMax(&updates[i])
	}
	buf := make([]byte, 0, size) // every entry's encoding, one after the other
	s.boundMu.RLock()
	defer s.boundMu.RUnlock()
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
		u.BindingKey = s.routeLocked(&u)
		u.Seq = 0
		from := len(buf)
		var at int
		buf, at = appendEntry(buf, &u)
		v := buf[from:len(buf):len(buf)]
		u.Payload = buf[at : at+len(u.Payload) : at+len(u.Payload)]
		in[i] = u
		ents[i] = journal.Entry{Key: u.BindingKey, DedupID: u.dedupKey(), ReceivedAt: u.ReceivedAt, Data: v}
	}
	res, err := s.jr.Append(ctx, provider, ents, cursor)
	if err != nil {
		// The write may have committed (ctx ended first): what would be
		// unrouted may be, and a claim must look (claim.go).
		for i := range in {
			if in[i].BindingKey == "" && in[i].Thread != "" {
				in[i].Seq = math.MaxUint64
				s.noteStray(&in[i])
			}
		}
		return nil, s.journalErr(err)
	}
	out := make([]Update, 0, len(in))
	for i, r := range res {
		if r.Duplicate {
			continue
		}
		in[i].Seq = r.Seq
		out = append(out, in[i])
		if in[i].BindingKey == "" && in[i].Thread != "" {
			s.noteStray(&in[i])
		}
	}
	return out, nil
}

// Cursor implements Store.Cursor.
func (s *Bolt) Cursor(provider string) ([]byte, error) {
	c, err := s.jr.Cursor(provider)
	return c, s.journalErr(err)
}

// Read implements Store.Read.
func (s *Bolt) Read(bindingKey string, afterSeq uint64, limit int) ([]Update, error) {
	if afterSeq == math.MaxUint64 {
		return nil, nil
	}
	recs, err := s.jr.Read(bindingKey, afterSeq, limit)
	if err != nil {
		return nil, s.journalErr(err)
	}
	out := make([]Update, len(recs))
	for i, r := range recs {
		u, err := decodeUpdate(r.Data)
		if err != nil {
			return nil, fmt.Errorf("%s seq %d: %w", journalName(bindingKey), r.Seq, err)
		}
		u.Seq, u.BindingKey = r.Seq, bindingKey
		out[i] = u
	}
	return out, nil
}

// ReadEncoded implements EncodedReader: the journal's own bytes (its
// memory while the follower keeps up), no decode; an entry of an older
// version is decoded and encoded.
func (s *Bolt) ReadEncoded(bindingKey string, afterSeq uint64, limit int) ([]Encoded, error) {
	if afterSeq == math.MaxUint64 {
		return nil, nil
	}
	recs, err := s.jr.ReadData(bindingKey, afterSeq, limit)
	if err != nil {
		return nil, s.journalErr(err)
	}
	return appendEncoded(make([]Encoded, 0, len(recs)), bindingKey, recs)
}

// FollowEncoded implements EncodedFollower: ReadEncoded and Changed
// under one lock of the journal (Journal.Follow), allocating nothing
// while the updates come from its memory and dst has room.
func (s *Bolt) FollowEncoded(dst []Encoded, bindingKey string, afterSeq uint64, limit int) ([]Encoded, <-chan struct{}, error) {
	if afterSeq == math.MaxUint64 {
		return dst, s.jr.Changed(bindingKey, afterSeq), nil
	}
	// The records go through a pooled buffer (not one on the stack: a
	// stream's stack that grows past its 8 KiB keeps twice that while it
	// waits).
	scratch := recordBufs.Get().(*[]journal.Record)
	defer func() {
		clear(*scratch)
		if cap(*scratch) > maxPooledRecords {
			*scratch = nil
		}
		recordBufs.Put(scratch)
	}()
	recs, changed, err := s.jr.Follow((*scratch)[:0], bindingKey, afterSeq, limit)
	*scratch = recs
	if err != nil {
		return dst, nil, s.journalErr(err)
	}
	if dst, err = appendEncoded(dst, bindingKey, recs); err != nil {
		return dst, nil, err
	}
	return dst, changed, nil
}

// recordBufs holds FollowEncoded's buffers of records, each of at most
// maxPooledRecords.
var recordBufs = sync.Pool{New: func() any { return new([]journal.Record) }}

const maxPooledRecords = 256

// appendEncoded appends recs, the journal's records of bindingKey, to dst
// in their wire form.
func appendEncoded(dst []Encoded, bindingKey string, recs []journal.Record) ([]Encoded, error) {
	for _, r := range recs {
		e := Encoded{Seq: r.Seq, ReceivedAt: r.ReceivedAt}
		if w, ok := wireOf(r.Data); ok {
			e.Wire = w
		} else {
			u, err := decodeUpdate(r.Data)
			if err != nil {
				return dst, fmt.Errorf("%s seq %d: %w", journalName(bindingKey), r.Seq, err)
			}
			e.Wire, _ = appendWire(nil, &u)
		}
		dst = append(dst, e)
	}
	return dst, nil
}

// Changed implements Store.Changed.
func (s *Bolt) Changed(bindingKey string, afterSeq uint64) <-chan struct{} {
	return s.jr.Changed(bindingKey, afterSeq)
}

// Ack implements Store.Ack: in memory at once, written with the next
// journal commit (never an fdatasync of its own).
func (s *Bolt) Ack(bindingKey string, seq uint64) (uint64, error) {
	acked, err := s.jr.Ack(bindingKey, seq)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", journalName(bindingKey), s.journalErr(err))
	}
	return acked, nil
}

// LastSeq implements Store.LastSeq.
func (s *Bolt) LastSeq(bindingKey string) (uint64, error) {
	st, err := s.Stats(bindingKey)
	return st.LastSeq, err
}

// Stats implements Store.Stats. It reads memory only.
func (s *Bolt) Stats(bindingKey string) (Stats, error) {
	st, err := s.jr.Stats(bindingKey)
	if err != nil {
		return Stats{}, s.journalErr(err)
	}
	return Stats{Pending: st.Pending, Bytes: st.Bytes, AckedThrough: st.AckedThrough, LastSeq: st.LastSeq,
		Dropped: st.Dropped, OldestAt: st.OldestAt}, nil
}

// ListUnrouted implements Store.ListUnrouted.
func (s *Bolt) ListUnrouted(limit int) ([]Update, error) { return s.Read("", 0, limit) }

// UnroutedStats implements Store.UnroutedStats.
func (s *Bolt) UnroutedStats() (Stats, error) { return s.Stats("") }

// ApplyRetention implements Store.ApplyRetention.
func (s *Bolt) ApplyRetention() error {
	return s.journalErr(s.jr.ApplyRetention(context.Background()))
}

// JournalSpace implements Store.JournalSpace. It reads memory only.
func (s *Bolt) JournalSpace() JournalSpace {
	sp := s.jr.Space()
	return JournalSpace{Segments: sp.Segments, DiskBytes: sp.DiskBytes, UsedBytes: sp.UsedBytes,
		LiveBytes: sp.LiveBytes, Pending: sp.Pending}
}

// FlushJournal writes the acks waiting in memory and returns once they and
// the space maintenance they allow (segments deleted or compacted) are
// done. Tests and benchmarks use it; the journal flushes by itself.
func (s *Bolt) FlushJournal(ctx context.Context) error {
	return s.journalErr(s.jr.Flush(ctx))
}

// deleteJournal discards the binding's records (DeleteBinding's second
// step) and reports them as DropBindingDeleted (the journal's OnDrop).
func (s *Bolt) deleteJournal(key string) error {
	_, err := s.jr.DeleteKey(context.Background(), key)
	return s.journalErr(err)
}

// JournalHealth describes the journal's writes (journal.Health).
type JournalHealth struct {
	// Failed is the write failure the journal is recovering from: it
	// refuses appends until it has reopened itself from disk, which it
	// does by itself, with backoff. nil while appends are accepted. It
	// wraps the system error (e.g. syscall.ENOSPC).
	Failed error
	// Reopens counts the journal's reopens after failed writes.
	Reopens uint64
	// Changed is closed at the next change of Failed.
	Changed <-chan struct{}
}

// JournalHealth returns the journal's write health. It reads memory only.
func (s *Bolt) JournalHealth() JournalHealth {
	h := s.jr.Health()
	return JournalHealth{Failed: s.journalErr(h.Failed), Reopens: h.Reopens, Changed: h.Changed}
}
