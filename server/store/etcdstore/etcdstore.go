// Package etcdstore is the clustered Store: the supervisor's durable state
// (bindings, slot cursors, each binding's journal, the platform cursors,
// de-duplication windows, handoffs, call records, sent ids, dead letters
// and the outbound pacing windows) kept in etcd
// under one key prefix, shared by every supervisord of a cluster.
//
// A Store is opened by the leader of the cluster's provider only, after it
// won the election (server/cluster), and is fenced on that leadership:
// every write is one etcd transaction that first compares the create
// revision of the leader's election key (Fence). Once the leadership is
// gone (the lease expired while the process was paused or cut off, or it
// resigned), the key is gone or another's, every write is refused with
// store.ErrFenced, nothing of it is applied, and OnFenced is called once:
// the owner must stop (its provider child with it). A deposed leader can
// therefore never write over its successor's state.
//
// Since only the leader writes, the Store loads everything under its prefix
// at Open and serves reads from memory; each write goes to etcd first and
// changes memory only once the transaction succeeded. One etcd transaction
// per call: Append (a pump batch, the group commit) writes its updates,
// their binding's queue state, the de-duplication ids and the platform
// cursor in one transaction, so the cursor never runs ahead of a durable
// update. Journal updates are stored per Append batch and binding (a
// chunk), so a transaction's operation count grows with the bindings a
// batch touches, not with its updates; a batch beyond etcd's
// --max-txn-ops (Options.MaxTxnOps) is written in several transactions,
// the cursor with the last.
//
// The package knows nothing of gRPC; errors match the store's sentinels.
package etcdstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/server/store"
)

// DefaultMaxRequestBytes is etcd's default --max-request-bytes (1.5 MiB).
const DefaultMaxRequestBytes = 3 << 19

// Fence is the leadership every write is conditioned on: the election key
// and its create revision (concurrency.Election's Key and Rev).
type Fence struct {
	Key string
	Rev int64
}

// Options configure a Store.
type Options struct {
	// Prefix is the key prefix of the cluster's state, e.g.
	// "/chatbus/<cluster>/state/". Required; it should end with "/".
	Prefix string
	// Fence is the leadership writes are conditioned on. Required.
	Fence Fence
	// Limits bound each journal (zero fields: store's defaults).
	Limits store.Limits
	// SeenMaxCount and SeenMaxAge bound the de-duplication window per
	// provider. If zero, 100000 and 7 days.
	SeenMaxCount int
	SeenMaxAge   time.Duration
	// MaxSlots: see store.Options. If zero, 702.
	MaxSlots int
	// MaxSent: see store.Options. If zero, 4096.
	MaxSent int
	// MaxTxnOps is the most operations one transaction may carry (etcd's
	// --max-txn-ops). Writes that need more are split (an Append's
	// cursor goes with its last transaction). If zero, 128.
	MaxTxnOps int
	// MaxRequestBytes is the largest request etcd takes (its
	// --max-request-bytes): a write larger than it is split as for
	// MaxTxnOps. One update larger than it cannot be written. If zero,
	// 1.5 MiB, etcd's default.
	MaxRequestBytes int
	// Timeout bounds each etcd transaction of a call without a context,
	// its tries again included. If zero, 10s.
	Timeout time.Duration
	// TryTimeout bounds one try of a transaction, well below etcd's own
	// request timeout (7s by default): a try that etcd does not answer
	// (a member whose raft leader died, an endpoint that stopped
	// answering) is tried again, on the client's next endpoint, so that a
	// dead etcd leader costs about one etcd election (a request that
	// reached a member still following the dead leader is lost with it).
	// After three tries that timed out, each next one may take half as
	// long again (a large write on a slow disk still goes through). If
	// zero, 500ms.
	TryTimeout time.Duration
	// OnDrop: see store.Options. It runs after the write committed, on the
	// caller's goroutine, without the Store's lock.
	OnDrop func(bindingKey string, n int, reason string)
	// OnCommit, if set, is told of every transaction: its operations, how
	// long it took (its tries again included) and its error.
	OnCommit func(ops int, took time.Duration, err error)
	// OnRetry, if set, is told each time a transaction is tried again,
	// with the error of the try before.
	OnRetry func(err error)
	// OnFenced, if set, is called once, the first time a write is refused
	// by the fence.
	OnFenced func()
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// Key layout under Prefix (binding keys and tokens hex-encoded, so that
// no "/" in them can reach into another record):
//
//	b/<key>                    binding (JSON)
//	s/<provider>/<chat>        slot cursor
//	q/<key>                    journal queue state (JSON); key "" = unrouted: "q/-"
//	j/<key>/<first seq %020d>  journal chunk: the updates of one Append batch
//	c/<provider>               platform cursor
//	d/<provider>/<n %020d>     de-duplication ids of one Append batch (JSON)
//	h/<sha256 of token>        handoff (JSON)
//	k/<binding key>/<key>      call record (JSON)
//	t/<provider>/<chat>/<thread> sent ids (JSON)
//	x/<provider>/<id>          dead letter (store.EncodeDeadLetter)
//	w/<provider>               outbound pacing windows (JSON []store.PaceWindow)
const (
	pBinding = "b/"
	pSlot    = "s/"
	pQueue   = "q/"
	pJournal = "j/"
	pCursor  = "c/"
	pDedup   = "d/"
	pHandoff = "h/"
	pCall    = "k/"
	pSent    = "t/"
	pDead    = "x/"
	pPacing  = "w/"
)

func hexKey(k string) string {
	if k == "" {
		return "-"
	}
	return hex.EncodeToString([]byte(k))
}

func unhexKey(h string) (string, error) {
	if h == "-" {
		return "", nil
	}
	b, err := hex.DecodeString(h)
	return string(b), err
}

// Store is the etcd-backed store.Store.
type Store struct {
	cli   *clientv3.Client
	opts  Options
	fence clientv3.Cmp
	// deposed is cancelled by Depose: every write, waiting or not, is
	// refused with ErrFenced from then on.
	deposed context.Context
	depose  context.CancelFunc

	// mu guards everything below. Writes hold it across their etcd
	// transaction (the leader's writes are serialized: chat rates are
	// small); reads take it shared.
	mu       sync.RWMutex
	closed   bool
	fenced   bool
	bindings map[string]store.Binding
	targets  map[store.Target]string
	slots    map[string]string // provider + "/" + chat → slot
	cursors  map[string][]byte
	queues   map[string]*queue
	seen     map[string]*seenSet
	handoffs map[string]handoff // by token hash
	calls    map[string]*store.CallRecord
	order    uint64
	sent     map[store.Target][]store.Ref
	dead     map[string]store.DeadLetter // by deadKey
	pacing   map[string][]byte           // by provider: its windows as JSON
	// waiters: Changed channels by binding key.
	waiters map[string][]waiter
	dropped []drop // drops to report once the lock is released
	// afterCommit are deletions of records the committed write made
	// unreachable (journal chunks below a queue's floor), run after it.
	afterCommit []clientv3.Op

	// saves queues SavePacing's writes (pacing.go); its own lock.
	saves pacingSaves
}

type waiter struct {
	after uint64
	c     chan struct{}
}

type drop struct {
	key    string
	n      int
	reason string
}

// queue is one binding's journal (or the unrouted set's) in memory.
type queue struct {
	Last    uint64 `json:"last"`
	Acked   uint64 `json:"acked"`
	Floor   uint64 `json:"floor"` // every seq at or below is gone (acked or dropped)
	Dropped uint64 `json:"dropped"`
	// Moved are seqs above Floor that left this queue for a binding's
	// (the unrouted set's updates a binding claimed: claim.go); their
	// chunks still hold them, and loading skips them. In seq order; those
	// at or below Floor are forgotten with the next write of the state.
	Moved []uint64 `json:"moved,omitempty"`

	pending []entry
	bytes   int64
	chunks  []chunk // in seq order
}

type entry struct {
	u    store.Update
	size int64
}

// chunk is one stored journal key: the seqs first..last of one batch.
type chunk struct {
	key         string
	first, last uint64
}

type seenSet struct {
	ids    map[string]struct{}
	chunks []seenChunk
	next   uint64
	count  int
}

type seenChunk struct {
	key string
	at  time.Time
	ids []string
}

type seenRecord struct {
	At  time.Time `json:"at"`
	IDs []string  `json:"ids"`
}

type handoff struct {
	Key     string    `json:"key"`
	Expires time.Time `json:"expires"`
}

// Open loads the state under opts.Prefix and returns a Store whose writes
// are fenced on opts.Fence. The client stays the caller's (Close does not
// close it).
func Open(ctx context.Context, cli *clientv3.Client, opts Options) (*Store, error) {
	if opts.Prefix == "" || opts.Fence.Key == "" {
		return nil, fmt.Errorf("etcdstore: Prefix and Fence are required: %w", store.ErrInvalid)
	}
	opts.Limits = opts.Limits.WithDefaults()
	if opts.SeenMaxCount == 0 {
		opts.SeenMaxCount = store.DefaultSeenMaxCount
	}
	if opts.SeenMaxAge == 0 {
		opts.SeenMaxAge = 7 * 24 * time.Hour
	}
	if opts.MaxSlots == 0 {
		opts.MaxSlots = store.DefaultMaxSlots
	}
	if opts.MaxSent == 0 {
		opts.MaxSent = store.DefaultMaxSent
	}
	if opts.MaxTxnOps == 0 {
		opts.MaxTxnOps = 128
	}
	if opts.MaxRequestBytes == 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.TryTimeout == 0 {
		opts.TryTimeout = 500 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ctxDeposed, depose := context.WithCancel(context.Background())
	s := &Store{
		cli: cli, opts: opts,
		deposed: ctxDeposed, depose: depose,
		fence:    clientv3.Compare(clientv3.CreateRevision(opts.Fence.Key), "=", opts.Fence.Rev),
		bindings: map[string]store.Binding{},
		targets:  map[store.Target]string{},
		slots:    map[string]string{},
		cursors:  map[string][]byte{},
		queues:   map[string]*queue{},
		seen:     map[string]*seenSet{},
		handoffs: map[string]handoff{},
		calls:    map[string]*store.CallRecord{},
		sent:     map[store.Target][]store.Ref{},
		dead:     map[string]store.DeadLetter{},
		pacing:   map[string][]byte{},
		waiters:  map[string][]waiter{},
	}
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	// As Bolt does at open: a journal under a key no binding names (its
	// binding's deletion was cut short) is nobody's.
	err := s.write(ctx, func() ([]clientv3.Op, func(), error) {
		var ops []clientv3.Op
		var orphans []string
		for key := range s.queues {
			if _, ok := s.bindings[key]; key != "" && !ok {
				ops = append(ops, s.deleteJournalOps(key)...)
				orphans = append(orphans, key)
			}
		}
		if err := s.commitSplit(ctx, ops); err != nil {
			return nil, nil, err
		}
		return nil, func() {
			for _, key := range orphans {
				delete(s.queues, key)
			}
		}, nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// load reads every key under the prefix into memory, at one revision.
func (s *Store) load(ctx context.Context) error {
	resp, err := s.cli.Get(ctx, s.opts.Prefix, clientv3.WithPrefix())
	if err != nil {
		return fmt.Errorf("etcdstore: load: %w", err)
	}
	type chunkKV struct {
		key string
		v   []byte
	}
	var journal []chunkKV
	for _, kv := range resp.Kvs {
		k := strings.TrimPrefix(string(kv.Key), s.opts.Prefix)
		if err := s.loadKV(k, kv.Value, func(k string, v []byte) { journal = append(journal, chunkKV{k, v}) }); err != nil {
			return fmt.Errorf("etcdstore: load %q: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
	}
	// Chunks after queue states: a chunk's updates at or below the queue's
	// floor are gone.
	for _, c := range journal {
		if err := s.loadChunk(c.key, c.v); err != nil {
			return fmt.Errorf("etcdstore: load %q: %w: %v", c.key, store.ErrCorrupt, err)
		}
	}
	for _, q := range s.queues {
		sort.Slice(q.chunks, func(i, j int) bool { return q.chunks[i].first < q.chunks[j].first })
		sort.Slice(q.pending, func(i, j int) bool { return q.pending[i].u.Seq < q.pending[j].u.Seq })
	}
	for _, ss := range s.seen {
		sort.Slice(ss.chunks, func(i, j int) bool { return ss.chunks[i].key < ss.chunks[j].key })
	}
	return nil
}

func (s *Store) loadKV(k string, v []byte, later func(string, []byte)) error {
	switch {
	case strings.HasPrefix(k, pBinding):
		var b store.Binding
		if err := json.Unmarshal(v, &b); err != nil {
			return err
		}
		s.bindings[b.Key] = b
		if !b.Target.IsZero() {
			s.targets[b.Target] = b.Key
		}
	case strings.HasPrefix(k, pSlot):
		s.slots[strings.TrimPrefix(k, pSlot)] = string(v)
	case strings.HasPrefix(k, pQueue):
		key, err := unhexKey(strings.TrimPrefix(k, pQueue))
		if err != nil {
			return err
		}
		q := &queue{}
		if err := json.Unmarshal(v, q); err != nil {
			return err
		}
		s.queues[key] = q
	case strings.HasPrefix(k, pJournal):
		later(k, v)
	case strings.HasPrefix(k, pCursor):
		s.cursors[strings.TrimPrefix(k, pCursor)] = v
	case strings.HasPrefix(k, pDedup):
		rest := strings.TrimPrefix(k, pDedup)
		i := strings.LastIndexByte(rest, '/')
		if i < 0 {
			return fmt.Errorf("dedup key %q", k)
		}
		provider, err := unhexKey(rest[:i])
		if err != nil {
			return err
		}
		n, err := strconv.ParseUint(rest[i+1:], 10, 64)
		if err != nil {
			return err
		}
		var r seenRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		ss := s.seenOf(provider)
		ss.chunks = append(ss.chunks, seenChunk{key: k, at: r.At, ids: r.IDs})
		for _, id := range r.IDs {
			ss.ids[id] = struct{}{}
		}
		ss.count += len(r.IDs)
		ss.next = max(ss.next, n+1)
	case strings.HasPrefix(k, pHandoff):
		var h handoff
		if err := json.Unmarshal(v, &h); err != nil {
			return err
		}
		s.handoffs[strings.TrimPrefix(k, pHandoff)] = h
	case strings.HasPrefix(k, pCall):
		var c store.CallRecord
		if err := json.Unmarshal(v, &c); err != nil {
			return err
		}
		s.calls[callID(c.BindingKey, c.Key)] = &c
		s.order = max(s.order, c.Order)
	case strings.HasPrefix(k, pSent):
		var r sentRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		s.sent[r.Target] = r.Refs
	case strings.HasPrefix(k, pPacing):
		provider, err := unhexKey(strings.TrimPrefix(k, pPacing))
		if err != nil {
			return err
		}
		s.pacing[provider] = v
	case strings.HasPrefix(k, pDead):
		d, err := store.DecodeDeadLetter(v)
		if err != nil {
			return err
		}
		s.dead[deadKey(d.Provider, d.ID)] = d
	}
	return nil
}

func (s *Store) loadChunk(k string, v []byte) error {
	rest := strings.TrimPrefix(k, pJournal)
	i := strings.LastIndexByte(rest, '/')
	if i < 0 {
		return fmt.Errorf("journal key %q", k)
	}
	key, err := unhexKey(rest[:i])
	if err != nil {
		return err
	}
	first, err := strconv.ParseUint(rest[i+1:], 10, 64)
	if err != nil {
		return err
	}
	us, err := decodeChunk(v)
	if err != nil {
		return err
	}
	q := s.queueOf(key)
	c := chunk{key: k, first: first, last: first + uint64(len(us)) - 1}
	q.chunks = append(q.chunks, c)
	for j, data := range us {
		seq := first + uint64(j)
		if seq <= q.Floor {
			continue
		}
		if _, moved := slices.BinarySearch(q.Moved, seq); moved {
			continue
		}
		u, err := store.DecodeUpdate(data)
		if err != nil {
			return err
		}
		u.Seq, u.BindingKey = seq, key
		q.pending = append(q.pending, entry{u: u, size: int64(len(data))})
		q.bytes += int64(len(data))
	}
	return nil
}

// chunk encoding: uvarint count, then each update as uvarint length + bytes.
func encodeChunk(us [][]byte) []byte {
	var b []byte
	b = appendUvarint(b, uint64(len(us)))
	for _, u := range us {
		b = appendUvarint(b, uint64(len(u)))
		b = append(b, u...)
	}
	return b
}

func decodeChunk(b []byte) ([][]byte, error) {
	n, b, err := readUvarint(b)
	if err != nil {
		return nil, err
	}
	if n == 0 || n > uint64(len(b))+1 {
		return nil, fmt.Errorf("chunk of %d updates in %d bytes", n, len(b))
	}
	out := make([][]byte, 0, n)
	for range n {
		var l uint64
		if l, b, err = readUvarint(b); err != nil {
			return nil, err
		}
		if l > uint64(len(b)) {
			return nil, fmt.Errorf("update of %d bytes, %d left", l, len(b))
		}
		out = append(out, b[:l:l])
		b = b[l:]
	}
	return out, nil
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func readUvarint(b []byte) (uint64, []byte, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, b[i+1:], nil
		}
	}
	return 0, nil, fmt.Errorf("bad varint")
}

func (s *Store) queueOf(key string) *queue {
	q := s.queues[key]
	if q == nil {
		q = &queue{}
		s.queues[key] = q
	}
	return q
}

func (s *Store) seenOf(provider string) *seenSet {
	ss := s.seen[provider]
	if ss == nil {
		ss = &seenSet{ids: map[string]struct{}{}}
		s.seen[provider] = ss
	}
	return ss
}

func callID(bindingKey, key string) string { return bindingKey + "\x00" + key }

func (s *Store) k(parts ...string) string { return s.opts.Prefix + strings.Join(parts, "") }

// usable returns the error for a Store that may not be used. Caller holds mu.
func (s *Store) usable() error {
	switch {
	case s.closed:
		return fmt.Errorf("etcdstore: %w", store.ErrClosed)
	case s.fenced || s.deposed.Err() != nil:
		return fmt.Errorf("etcdstore: %w", store.ErrFenced)
	}
	return nil
}

// commit runs ops as one transaction fenced on the leadership. Caller
// holds mu (exclusive).
func (s *Store) commit(ctx context.Context, ops []clientv3.Op) error {
	if err := s.usable(); err != nil {
		return err
	}
	if len(ops) == 0 {
		return nil
	}
	if len(ops) > s.opts.MaxTxnOps {
		return fmt.Errorf("etcdstore: a write of %d operations, at most %d: %w", len(ops), s.opts.MaxTxnOps, store.ErrInvalid)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.deposed, cancel)()
	start := time.Now()
	tryFor, timeouts := s.opts.TryTimeout, 0
	try := func() (*clientv3.TxnResponse, error) {
		// A member without a leader refuses at once (rather than hold
		// the request until etcd's own timeout): tried again, it goes
		// through as soon as etcd has elected.
		tctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), tryFor)
		defer cancel()
		resp, err := s.cli.Txn(tctx).If(s.fence).Then(ops...).Commit()
		if err != nil && ctx.Err() == nil && tctx.Err() != nil {
			// This try's own bound, not the caller's: etcd did not
			// answer in time; as unavailable. After three such tries
			// each may take longer (a large write on a slow disk still
			// goes through).
			err = status.Errorf(codes.Unavailable, "etcd did not answer within %s: %v", tryFor, err)
			if timeouts++; timeouts >= 3 {
				tryFor += tryFor / 2
			}
		}
		return resp, err
	}
	resp, err := try()
	// etcd unavailable for a moment (no leader, an election, a request
	// timed out, a try not answered within its bound): the same
	// transaction is tried again until the deadline. A try that did land
	// is written again unchanged (its operations are puts and deletes of
	// whole values, under the same fence), and the fence still refuses it
	// if the leadership went meanwhile.
	retry := backoff.Policy{Initial: 50 * time.Millisecond, Max: 250 * time.Millisecond}.New()
	for err != nil && retryable(err) && ctx.Err() == nil {
		if s.opts.OnRetry != nil {
			s.opts.OnRetry(err)
		}
		if backoff.Sleep(ctx, retry.NextBackOff()) == nil {
			resp, err = try()
		}
	}
	if err != nil && s.deposed.Err() != nil {
		err = fmt.Errorf("etcdstore: leadership %s@%d given up: %w", s.opts.Fence.Key, s.opts.Fence.Rev, store.ErrFenced)
	}
	if err == nil && !resp.Succeeded {
		err = fmt.Errorf("etcdstore: leadership %s@%d gone: %w", s.opts.Fence.Key, s.opts.Fence.Rev, store.ErrFenced)
		if !s.fenced {
			s.fenced = true
			if s.opts.OnFenced != nil {
				go s.opts.OnFenced()
			}
		}
	}
	if s.opts.OnCommit != nil {
		s.opts.OnCommit(len(ops), time.Since(start), err)
	}
	return err
}

// retryable says whether a transaction that failed with err may be tried
// again: etcd answered Unavailable (no leader, leader changed, request
// timed out; clientv3 gives these as errors with a Code, others as gRPC
// statuses). A context's end is not: its caller gave up.
func retryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var coded interface{ Code() codes.Code }
	if errors.As(err, &coded) {
		return coded.Code() == codes.Unavailable
	}
	return status.Code(err) == codes.Unavailable
}

// commitSplit runs ops in as many fenced transactions as MaxTxnOps needs:
// for writes whose parts stand on their own (pruning).
func (s *Store) commitSplit(ctx context.Context, ops []clientv3.Op) error {
	for len(ops) > 0 {
		n := min(len(ops), s.opts.MaxTxnOps)
		if err := s.commit(ctx, ops[:n]); err != nil {
			return err
		}
		ops = ops[n:]
	}
	return nil
}

// write runs fn under the exclusive lock; fn returns the operations to
// commit and what to apply to memory once they did. Drops collected meanwhile
// are reported after the lock is released.
func (s *Store) write(ctx context.Context, fn func() ([]clientv3.Op, func(), error)) error {
	s.mu.Lock()
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.afterCommit = nil
	ops, apply, err := fn()
	if err == nil {
		err = s.commit(ctx, ops)
	}
	if err == nil && apply != nil {
		apply()
	}
	if err == nil && len(s.afterCommit) > 0 {
		// Unreachable already: a failure leaves garbage, never a wrong state.
		_ = s.commitSplit(context.Background(), s.afterCommit)
	}
	s.afterCommit = nil
	drops := s.dropped
	s.dropped = nil
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if s.opts.OnDrop != nil {
		for _, d := range drops {
			s.opts.OnDrop(d.key, d.n, d.reason)
		}
	}
	return nil
}

// Ping reads one key from etcd: the watchdog's check that the store
// answers.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.cli.Get(ctx, s.opts.Fence.Key, clientv3.WithCountOnly())
	return err
}

// Fenced reports whether a write was refused by the fence.
func (s *Store) Fenced() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.fenced
}

// Close stops accepting calls and wakes every Changed waiter. The etcd
// client is the caller's.
// Depose tells the store that its owner no longer leads (it learned so
// without a write being refused: its lease ended, or its deadline passed):
// a write waiting for etcd gives up at once, and every write from now on
// is refused with ErrFenced, without asking etcd. It does not wait for
// the store's lock. Idempotent.
func (s *Store) Depose() { s.depose() }

func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for k, ws := range s.waiters {
		for _, w := range ws {
			close(w.c)
		}
		delete(s.waiters, k)
	}
	return nil
}

func jsonOp(k string, v any) (clientv3.Op, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return clientv3.Op{}, err
	}
	return clientv3.OpPut(k, string(b)), nil
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

var _ store.Store = (*Store)(nil)
