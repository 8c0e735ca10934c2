// Package store owns the supervisor's durable state: bindings (which
// follower owns which thread), the slot allocation cursors, the inbound
// journal with its per-binding sequence numbers, the platform cursors
// committed with it, session handoff tokens, and the at-most-once records
// of followers' platform calls (which are also the queue of calls held
// while their provider does not admit).
//
// The state sits behind the Store interface so that another backend (etcd,
// for several hosts) can replace the embedded default, Bolt: one bbolt file
// per profile, written by a single committer goroutine that shares
// transactions and fsyncs between concurrent callers (group commit), for
// everything but the journal, and the journal in server/journal (a
// segmented append-only log beside the file: one fdatasync per group
// commit, acks in memory, the newest updates served from memory).
//
// The package knows nothing of gRPC. Errors are wrapped with context and
// match the sentinels below with errors.Is.
package store

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// Sentinel errors. Every error a Store returns for one of these conditions
// wraps the sentinel, so callers test with errors.Is.
var (
	// ErrNotFound: the binding or call record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: an argument is malformed (empty key, provider name with a
	// NUL byte, unknown status, slot name outside the sequence…). Nothing was
	// written.
	ErrInvalid = errors.New("invalid argument")
	// ErrClosed: the store was closed; nothing was written.
	ErrClosed = errors.New("store closed")

	// ErrLocked: Open gave up waiting for the file lock; another process (or
	// another open Bolt of the same file) is using the store.
	ErrLocked = errors.New("locked by another process")
	// ErrCorrupt: the file is not a readable store (bad magic, damaged meta
	// pages, truncated, not written by chatbus, or a consistency check
	// failed). Open never writes to such a file. Calls that meet damage
	// Open did not look at (a data page) return it too.
	ErrCorrupt = errors.New("not a valid store file")
	// ErrUnusable: the path is not a regular file (a directory, a FIFO, a
	// device…). Open never writes to it.
	ErrUnusable = errors.New("not a regular file")
	// ErrSchemaTooNew: the file was written by a newer chatbus with a schema
	// this one does not know. Open refuses it rather than misread it.
	ErrSchemaTooNew = errors.New("store schema is newer than this program")

	// ErrAckBeyondLast: an Ack names a seq the journal never assigned (greater
	// than LastSeq). Nothing was removed.
	ErrAckBeyondLast = errors.New("ack beyond the last journalled update")
	// ErrTargetInUse: PutBinding names a target (thread) that another
	// binding owns. Nothing was written.
	ErrTargetInUse = errors.New("target is bound to another binding")
	// ErrNoFreeSlot: AllocateSlot found every slot of the chat in use.
	ErrNoFreeSlot = errors.New("every slot is in use")
	// ErrHandoffUnknown: no handoff was stored under this token, or it was
	// taken or expired and swept already.
	ErrHandoffUnknown = errors.New("handoff token unknown")
	// ErrHandoffExpired: the handoff token's deadline has passed. The record
	// stays until ExpireHandoffs sweeps it, so the binding is released there.
	ErrHandoffExpired = errors.New("handoff token expired")
	// ErrTooLarge: an update is larger than the store can write in one
	// request (etcd's request limit). Nothing was written.
	ErrTooLarge = errors.New("larger than the store can write")
)

// Target is one thread on one platform, named by the platform's own ids as
// text (whatever they look like on the platform: numbers, channel ids,
// message timestamps). Thread "" is the chat itself. The zero Target means
// "no thread yet".
type Target struct {
	Provider string
	Chat     string
	Thread   string
}

// RefKind says what a platform id names. The numbers are stored (in the
// journal's records and the sent-reference index): never renumber one.
// They are the store's own; the conversion to and from each proto enum is
// a table beside its converter.
type RefKind uint8

const (
	RefMessage     RefKind = 1 // a message
	RefFile        RefKind = 2 // a file
	RefInteraction RefKind = 3 // an interaction to answer (a pressed button)
)

var refKindNames = map[RefKind]string{RefMessage: "message", RefFile: "file", RefInteraction: "interaction"}

// String names k ("message", …), "" for a kind this build does not know.
func (k RefKind) String() string { return refKindNames[k] }

// UpdateKind says what an inbound update is. The numbers are stored in the
// journal's records: never renumber one. 0 is a kind this build does not
// know (a newer provider's).
type UpdateKind int32

const (
	UpdateMessage       UpdateKind = 1 // a new message
	UpdateEditedMessage UpdateKind = 2 // an edit of an earlier message
	UpdateCallbackQuery UpdateKind = 3 // a pressed button
	UpdateReaction      UpdateKind = 4 // a reaction to a message
	UpdateCommand       UpdateKind = 5 // a command to chatbus itself (a slash command)
)

var updateKindNames = map[UpdateKind]string{
	UpdateMessage:       "message",
	UpdateEditedMessage: "edited_message",
	UpdateCallbackQuery: "callback_query", // the name of chatbus.v1 and of the metrics' label
	UpdateReaction:      "reaction",
	UpdateCommand:       "command",
}

// String names k ("message", "edited_message", …), "" for a kind this
// build does not know.
func (k UpdateKind) String() string { return updateKindNames[k] }

// Ref is one platform id a thread has seen: an update or a call result
// made it available, and a later call of the thread may name it.
type Ref struct {
	Kind RefKind
	ID   string
}

// IsZero reports whether t names no thread (its Provider is empty).
func (t Target) IsZero() bool { return t.Provider == "" }

// Status is a binding's lifecycle state.
type Status string

// Binding statuses.
const (
	StatusActive    Status = "active"
	StatusStarting  Status = "starting"
	StatusPending   Status = "pending"
	StatusSuspended Status = "suspended"
	StatusOffline   Status = "offline"
	StatusStale     Status = "stale"
	StatusFailed    Status = "failed"
)

// Valid reports whether s is one of the statuses above.
func (s Status) Valid() bool {
	switch s {
	case StatusActive, StatusStarting, StatusPending, StatusSuspended,
		StatusOffline, StatusStale, StatusFailed:
		return true
	}
	return false
}

// Owner kinds (Binding.OwnerKind).
const (
	OwnerManualFollower = "manual-follower"
	OwnerOperator       = "operator"
)

// Reconcile actions (Binding.LastAction).
const (
	ActionFresh          = "fresh"
	ActionRegisterReuse  = "register-reuse"
	ActionSessionHandoff = "session-handoff"
	ActionRealityOffline = "reality-offline"
	// ActionSuperseded: the binding went offline and a fresh binding of
	// another profile key took its slot and reused its thread; it keeps
	// its journal, but no thread (its profile gets a fresh one if it
	// comes back). LastError says which binding took it.
	ActionSuperseded = "superseded"
	// ActionThreadReplaced: the binding's thread was deleted on the
	// platform and it got a fresh one; its journal is kept.
	ActionThreadReplaced = "thread-replaced"
)

// Binding is one thread's owner record, keyed by the profile key (the
// stable owner identity, e.g. "manual:<parent-pid>").
type Binding struct {
	Key        string // profile key; required
	OwnerKind  string // OwnerManualFollower, OwnerOperator, …
	InstanceID string // "<pid>:<start-ms>" of the current follower, "" if none
	Target     Target // zero while no thread is provisioned
	Slot       string // "A", "B", …, "" if none
	ThreadName string
	Status     Status // required, one of the Status constants
	Created    time.Time
	Updated    time.Time
	LastAction string // ActionFresh, …
	LastError  string
	// ThreadClosed is when the thread was found or made closed on the
	// platform (closed by the supervisor after its binding was offline
	// for a while, or by a person); zero while it is open.
	ThreadClosed time.Time
}

// Update is one inbound platform update as journalled.
type Update struct {
	// Seq is assigned by the store: 1, 2, 3… per binding, and a separate
	// sequence for the unrouted set. Ignored on Append input.
	Seq uint64
	// BindingKey is the binding the update is routed to; "" = unrouted. On
	// Append it is the caller's routing, which the store corrects (see
	// Store.Append); Append's result says where the update went.
	BindingKey string
	// Provider is the platform connection's name; filled from Append's
	// provider argument when empty.
	Provider string
	// PlatformUpdateID is the provider's id of the update on its stream.
	PlatformUpdateID int64
	// DedupID is the platform's own id of the event, the de-duplication
	// key together with Provider. "" falls back to PlatformUpdateID in decimal;
	// with both unset the update is never de-duplicated.
	DedupID    string
	Kind       UpdateKind
	Chat       string
	Thread     string
	FromUserID int64  // the sender as a number, where the platform's ids are numbers
	Sender     string // the sender's platform id as text
	SenderName string
	// Refs are the ids the update makes available to its thread.
	Refs       []Ref
	Text       string
	Payload    []byte    // the platform's raw update, opaque to the store
	ReceivedAt time.Time // if zero on Append, the store's clock
	// Audio is the voice note or audio file the update carries; nil if
	// none. Its transcript is not journalled: a stream adds it as it
	// sends the update (hub.Stream).
	Audio *Audio
}

// Audio describes a voice note or audio file, as its platform said.
type Audio struct {
	FileID   string // also among the update's Refs (RefFile)
	MIME     string
	Duration uint32 // seconds; 0 if not known
	Size     int64  // bytes; 0 if not known
	FileName string
	Voice    bool // recorded as a voice note, not uploaded as a file
}

// dedupKey is the de-duplication key of u, "" if it has none.
func (u *Update) dedupKey() string {
	switch {
	case u.DedupID != "":
		return u.DedupID
	case u.PlatformUpdateID != 0:
		return strconv.FormatInt(u.PlatformUpdateID, 10)
	}
	return ""
}

// Limits bound one binding's journal (and, separately, the unrouted set),
// and TotalBytes all of them together. When an Append would exceed a
// bound, the oldest pending updates are dropped, counted in Stats.Dropped
// and reported to Options.OnDrop.
type Limits struct {
	// MaxCount is the most pending updates. If zero, 10000; negative = no bound.
	MaxCount int
	// MaxBytes is the most encoded bytes of pending updates (see
	// Stats.Bytes). If zero, 64 MiB; negative = no bound.
	MaxBytes int64
	// MaxAge drops updates received longer ago than this. If zero, 7 days;
	// negative = no bound. An update appended with a ReceivedAt already
	// past it is stored and dropped at once (and reported).
	MaxAge time.Duration
	// TotalBytes bounds the pending updates of all journals together
	// (counted as stored: Stats.Bytes); beyond it the oldest updates of all
	// journals are dropped first (DropTotalBytes). If zero, 1 GiB;
	// negative = no bound.
	TotalBytes int64
}

// Default limits.
const (
	DefaultMaxCount   = 10000
	DefaultMaxBytes   = 64 << 20
	DefaultMaxAge     = 7 * 24 * time.Hour
	DefaultTotalBytes = 1 << 30
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
	DropCount          = "count"           // Limits.MaxCount exceeded
	DropBytes          = "bytes"           // Limits.MaxBytes exceeded
	DropAge            = "age"             // older than Limits.MaxAge
	DropTotalBytes     = "total-bytes"     // Limits.TotalBytes exceeded (the oldest of all journals)
	DropBindingDeleted = "binding-deleted" // DeleteBinding discarded the binding's journal
)

// Stats describes one journal (a binding's, or the unrouted set's).
type Stats struct {
	Pending      int       // updates stored and not acknowledged
	Bytes        int64     // size of the pending updates as stored
	AckedThrough uint64    // highest seq acknowledged (0 = none)
	LastSeq      uint64    // highest seq assigned (0 = none)
	Dropped      uint64    // updates dropped by retention, ever (persistent)
	OldestAt     time.Time // ReceivedAt of the oldest pending update; zero if none
}

// JournalSpace describes the journal's files (all journals together).
type JournalSpace struct {
	Segments  int
	DiskBytes int64 // size of the segment files (the active one as preallocated)
	UsedBytes int64 // what the segments hold, live or not
	LiveBytes int64 // the pending updates
	Pending   int   // pending updates of all journals
}

// CallState is where a follower's platform call is. Queued and sending
// calls are open (not settled); the others are final.
type CallState string

const (
	// CallQueued: durable and not yet handed to the provider (its provider
	// was not admitting, or an earlier call of the thread was still
	// queued). It is sent, once, when the provider admits again.
	CallQueued CallState = "queued"
	// CallSending: handed to the provider. A record found sending after a
	// crash may or may not have reached the platform: it becomes unknown.
	CallSending CallState = "sending"
	// CallDone: the platform answered; Result and Refs hold the answer.
	CallDone CallState = "done"
	// CallFailed: the platform (or the provider) refused; Failure holds
	// the error.
	CallFailed CallState = "failed"
	// CallUnknown: the provider died or timed out mid-call: it may or may
	// not have been sent. It is reported as such on every repeat and never
	// sent again.
	CallUnknown CallState = "unknown"
)

// Valid reports whether s is one of the states above.
func (s CallState) Valid() bool {
	switch s {
	case CallQueued, CallSending, CallDone, CallFailed, CallUnknown:
		return true
	}
	return false
}

// Final reports whether s is settled: done, failed or unknown.
func (s CallState) Final() bool { return s == CallDone || s == CallFailed || s == CallUnknown }

// CallRecord is the at-most-once record of one platform call a follower
// made with an idempotency key (or one held while its provider was not
// admitting): one per (binding, key), written before the platform is
// called.
type CallRecord struct {
	BindingKey string // required
	Key        string // the idempotency key; required
	Provider   string // required
	Chat       string // the caller's thread, which the call is scoped to
	Thread     string
	Method     string
	Params     []byte
	State      CallState
	Result     []byte // CallDone: the platform's answer
	Refs       []Ref  // CallDone: the ids the answer made available
	Failure    []byte // CallFailed, CallUnknown: the error, encoded by the caller
	// Order is assigned by BeginCall: increasing per store, so the open
	// calls of a provider list in the order they were made.
	Order   uint64
	Created time.Time
	Updated time.Time
}

// Store is the supervisor's durable state. Every method is safe for
// concurrent use. Methods other than Append take no context: the embedded
// store does not block on anything but its own disk.
//
// A method called after Close returns an error wrapping ErrClosed.
type Store interface {
	// PutBinding creates or replaces b (by b.Key). b.Key and a valid
	// b.Status are required (else ErrInvalid). A zero Created keeps the
	// stored one (or is set to now for a new binding); a zero Updated is set
	// to now. A non-zero b.Target already owned by another binding fails
	// with ErrTargetInUse; the target index follows every change.
	//
	// b claims its thread's unrouted updates: those journalled while no
	// binding owned b.Target (a thread exists on its platform, and people
	// write in it, before the binding that gets it is written) move into
	// b's journal, after its pending updates and before any appended
	// later, in the order they were journalled, with new seqs. A crash
	// never loses or duplicates them: they are moved whole, with the
	// write or after it (the store finishes a move cut short when it is
	// opened again). An error after the write names the binding as
	// written: its next write (or the store's next Open) claims them.
	//
	// A write that changes nothing but the binding's holder (InstanceID
	// and Updated: a reloaded follower taking its binding up again) may
	// be made durable a moment later rather than before PutBinding
	// returns (Bolt: within Options.HolderDelay, or with the binding's
	// next write); every read sees it at once. A crash may lose it: the
	// binding is then as last written, holder included.
	PutBinding(b Binding) error
	// GetBinding returns the binding stored under key, or ErrNotFound.
	GetBinding(key string) (Binding, error)
	// BindingByTarget returns the binding that owns t, or ErrNotFound. It
	// is an index lookup, not a scan.
	BindingByTarget(t Target) (Binding, error)
	// ListBindings returns every binding, ordered by key.
	ListBindings() ([]Binding, error)
	// DeleteBinding removes the binding, its target index entry and its
	// journal. Pending updates so discarded are counted and reported to
	// OnDrop with reason DropBindingDeleted. Unknown key: ErrNotFound.
	DeleteBinding(key string) error

	// AllocateSlot returns the first slot after the chat's cursor in the
	// sequence A…Z, AA…AZ, BA…ZZ… (wrapping to A after the configured
	// maximum) for which inUse is false, and stores it as the new cursor.
	// inUse runs inside the write transaction: it must be quick and must
	// not call the Store. Every slot in use: ErrNoFreeSlot.
	// chat "" is the provider's own chat (the one it provisions in).
	AllocateSlot(provider, chat string, inUse func(slot string) bool) (string, error)
	// RealignCursor stores slot as the chat's cursor, so the next
	// AllocateSlot starts after it; "" resets it so the next starts at A.
	// A slot outside the sequence: ErrInvalid.
	RealignCursor(provider, chat string, slot string) error
	// SlotCursor returns the chat's cursor, "" if none was stored.
	SlotCursor(provider, chat string) (string, error)

	// Append journals updates and stores the provider's platform cursor in
	// one transaction (nil cursor: the stored one is kept). An update
	// whose (provider, dedup key: DedupID, else PlatformUpdateID) was
	// journalled before (even if acknowledged and removed since, within the
	// de-duplication window) is skipped. The others get the next Seq of
	// their binding (or of the unrouted set) and are returned, in input
	// order, with Seq, BindingKey, Provider and ReceivedAt filled in.
	// Retention bounds are enforced for the journals touched.
	//
	// An update goes to the binding that owns its thread (Target of the
	// update's Provider, Chat and Thread) when it is journalled, if one
	// does; else to the binding its BindingKey names, if that exists;
	// else it is unrouted. A caller's routing may be a moment older than
	// the bindings (a binding was given the thread, or deprived of it,
	// since the caller looked): the store's bindings decide.
	//
	// If ctx ends before the write commits, Append returns ctx.Err() and
	// the outcome is unknown: the write may or may not have committed.
	// Retrying with the same updates is safe (de-duplication).
	//
	// A store whose writes are bounded (etcd's request limit) refuses a
	// batch holding an update larger than one write may carry: ErrTooLarge
	// (the error names the update), nothing of the batch written.
	Append(ctx context.Context, provider string, updates []Update, cursor []byte) ([]Update, error)
	// Cursor returns the provider's platform cursor as last stored by
	// Append (opaque bytes; a schema 1 file's numeric cursor in decimal),
	// nil if none.
	Cursor(provider string) ([]byte, error)

	// Read returns up to limit pending updates of the binding ("" = the
	// unrouted set) with Seq > afterSeq, in seq order. limit <= 0 means no
	// limit (the journal is bounded by Limits).
	Read(bindingKey string, afterSeq uint64, limit int) ([]Update, error)
	// Ack removes every update of the binding with Seq <= seq and returns
	// the new ack point. It is cumulative and idempotent: seq at or below
	// the current ack point changes nothing. seq beyond LastSeq:
	// ErrAckBeyondLast. The ack takes effect at once and is made durable
	// with the next journal commit (within a second): after a crash, an
	// ack may be lost and its updates delivered again.
	Ack(bindingKey string, seq uint64) (ackedThrough uint64, err error)
	// Changed returns a channel closed once the binding's journal holds an
	// update with a seq above afterSeq (at once if it does), and also when
	// its updates are deleted or the store closes: the caller then reads or
	// checks again.
	Changed(bindingKey string, afterSeq uint64) <-chan struct{}
	// LastSeq returns the highest seq assigned in the binding's journal.
	LastSeq(bindingKey string) (uint64, error)
	// Stats describes the binding's journal; an unknown key has zero Stats.
	// It is cheap (memory only).
	Stats(bindingKey string) (Stats, error)
	// JournalSpace describes the journal's files. It is cheap (memory only).
	JournalSpace() JournalSpace
	// ListUnrouted is Read("", 0, limit).
	ListUnrouted(limit int) ([]Update, error)
	// UnroutedStats is Stats("").
	UnroutedStats() (Stats, error)
	// ApplyRetention enforces the Limits on every journal now (Append only
	// enforces them on the journals it touches, so the age bound of a quiet
	// binding needs this). Drops are reported to OnDrop.
	ApplyRetention() error

	// PutHandoff stores a one-shot handoff of bindingKey valid until
	// expires. Only the token's SHA-256 is stored. An empty token or key:
	// ErrInvalid.
	PutHandoff(token, bindingKey string, expires time.Time) error
	// TakeHandoff consumes the token and returns its binding key. Unknown
	// (or already taken): ErrHandoffUnknown. now at or after its deadline:
	// ErrHandoffExpired, with the binding key also returned; the record is
	// left for ExpireHandoffs.
	TakeHandoff(token string, now time.Time) (bindingKey string, err error)
	// ExpireHandoffs removes every handoff whose deadline is at or before
	// now and returns their binding keys (one per handoff).
	ExpireHandoffs(now time.Time) ([]string, error)

	// BeginCall stores c (state CallQueued or CallSending) unless a record
	// of (c.BindingKey, c.Key) exists, and returns the record as stored
	// and whether it was created: a repeat of a key gets the first call's
	// record, whatever its state. The write is durable when it returns.
	BeginCall(c CallRecord) (stored CallRecord, created bool, err error)
	// SetCall moves an open record to c.State with c's Result, Refs and
	// Failure. A final record cannot change (ErrInvalid); an unknown one is
	// ErrNotFound.
	SetCall(c CallRecord) error
	// DeleteCall forgets an open record whose call certainly did not reach
	// the platform (refused for a reason that may pass), so that a repeat
	// of its key tries again. Unknown: nothing; final: ErrInvalid.
	DeleteCall(bindingKey, key string) error
	// GetCall returns the record of (bindingKey, key), or ErrNotFound.
	GetCall(bindingKey, key string) (CallRecord, error)
	// OpenCalls returns the provider's queued and sending records in the
	// order they were made.
	OpenCalls(provider string) ([]CallRecord, error)
	// PruneCalls removes final records last updated longer than keep ago,
	// and beyond the newest maxPerBinding final ones of each binding (a
	// bound <= 0 is off), and returns how many. Open records stay.
	PruneCalls(now time.Time, keep time.Duration, maxPerBinding int) (int, error)

	// RememberSent records the ids of what a follower sent into thread t
	// (its messages, their files), so that its call scope survives a
	// restart. The most recent MaxSent entries per thread are kept. It
	// queues the write and returns at once; the channel receives its
	// outcome.
	RememberSent(t Target, refs []Ref) <-chan error
	// Sent returns what RememberSent recorded for t, oldest first.
	Sent(t Target) ([]Ref, error)

	// PutDeadLetters stores dead letters (platform updates their provider
	// could not convert), durably when it returns: the provider's cursor
	// may then move past them. One of the same (Provider, ID) replaces the
	// stored one; Retries never goes down. An empty Provider or ID, or a
	// provider name the store cannot hold: ErrInvalid, nothing written.
	PutDeadLetters(ctx context.Context, dls []DeadLetter) error
	// DeadLetters returns the provider's dead letters ("" = every
	// provider's), ordered by provider, then by when they were received.
	DeadLetters(provider string) ([]DeadLetter, error)
	// GetDeadLetter returns one dead letter, or ErrNotFound.
	GetDeadLetter(provider, id string) (DeadLetter, error)
	// DeleteDeadLetter removes one dead letter; unknown: ErrNotFound.
	DeleteDeadLetter(provider, id string) error

	// Close stops accepting calls, finishes the writes already accepted and
	// closes the backend. Later calls return nil.
	Close() error
}

// DeadLetter is a platform update its provider could not convert (a
// decoding failure, a panic), or that the journal refused as converted,
// set aside so that the updates after it flow, until an operator retries
// it (the provider converts it again; or it is journalled again as
// converted) or drops it. It is the durable record of the update: its
// provider's cursor moves past it.
type DeadLetter struct {
	Provider string
	// ID is its key within the provider: the platform's own id of the
	// event (the update's dedup id), else the provider's update id.
	ID               string
	PlatformUpdateID int64
	Kind             UpdateKind // what the provider knew of it; 0 if nothing
	Error            string     // why the conversion failed, or why the journal refused it
	Payload          []byte     // the platform's update as received
	ReceivedAt       time.Time
	// Retries is how many times an operator retried it (and it failed
	// again).
	Retries int
	// Cause is the step it could not pass.
	Cause DeadLetterCause `json:",omitempty"`
	// Converted is the update as its provider converted it (the wire
	// form of chatbus.provider.v1.Update), when the journal refused it
	// (Cause DeadLetterJournal): a retry journals it again as it is.
	Converted []byte `json:",omitempty"`
}

// DeadLetterCause is the step a dead letter could not pass.
type DeadLetterCause uint8

const (
	// DeadLetterConversion: its provider could not convert it (also
	// every dead letter stored before causes were recorded).
	DeadLetterConversion DeadLetterCause = iota
	// DeadLetterJournal: the journal refused it as converted.
	DeadLetterJournal
)

func (c DeadLetterCause) String() string {
	switch c {
	case DeadLetterConversion:
		return "conversion"
	case DeadLetterJournal:
		return "journal"
	}
	return ""
}
