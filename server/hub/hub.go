// Package hub is the supervisor's routing core: it resolves a follower's
// registration into a binding (handoff token, reuse, or a fresh thread from
// its provider), journals inbound platform updates and routes them to their
// thread's binding, streams each binding's journal to its live follower,
// scopes outbound calls to the caller's own thread, holds bindings for
// session handoff, reconciles bindings with reality after a restart, and
// keeps each thread's lifecycle (topics.go): a fresh binding reuses the
// thread of an offline one, offline threads are closed after a while, and
// a thread people deleted is replaced.
//
// It knows nothing of gRPC: the server package maps its errors to codes, and
// providers are reached through the Providers interface.
//
// # Parts and locks
//
// The store's bindings are the truth; the Hub is the façade over parts
// that each own one thing, each with its own lock:
//
//   - the binding locks (keylock.Locks): one per binding key,
//     serializing the changes of one binding that span a store or provider
//     call (a registration resolving it, a fresh registration taking its
//     thread over, the lifecycle closing, reopening or replacing it);
//   - the route cache (routeCache, routes.go): which binding owns a thread;
//   - the slot allocator's table (slotTable, slots.go): which slots are
//     held or kept by a parked thread;
//   - the thread lifecycle's book (threadBook, threads.go): which threads
//     are parked and which are closed; the lifecycle goroutine (topics.go)
//     is fed what updates say about threads through threadEvents;
//   - the thread scopes (scopeSet, scope.go): the references each thread
//     has seen;
//   - the move notices (moveNotices, notices.go): what live followers are
//     still to be told of their thread's replacement.
//
// Handoffs and the journal keep no state here (the store holds them).
//
// Lock order: a binding's lock first (a caller holding one only try-locks
// another's), then at most one of the others at a time. Those are leaves:
// held for their own maps only (the slot table and the thread book also
// across the store read that loads them), never across a provider call.
// Every binding write goes through putBinding, which updates the route
// cache, the slot table and the thread book in turn.
//
// Goroutines: the transport handlers' (Register, Heartbeat, Call, Stream
// …), the providers' update pumps (Ingest, observeThreads), and Run's two
// (timers; the lifecycle).
package hub

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/keylock"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/liveness"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/transcribe"
)

// Errors the hub returns (wrapped with context).
var (
	// ErrDetached: the follower has no thread (no provider configured).
	ErrDetached = errors.New("follower is not bound to a thread: no provider is configured")
	// ErrNotActive: the binding exists but cannot carry calls now.
	ErrNotActive = errors.New("binding is not active")
	// ErrUnknownProvider: Register named a provider that is not configured.
	ErrUnknownProvider = errors.New("no such provider")
	// ErrProvision: the provider could not create a thread.
	ErrProvision = errors.New("could not provision a thread")
	// ErrHandoff: the handoff token is unknown, taken or expired.
	ErrHandoff = errors.New("handoff token unknown, already used or expired")
	// ErrHandoffProfile: a handoff successor must keep its predecessor's
	// profile key (the binding's key).
	ErrHandoffProfile = errors.New("handoff successor must register with the predecessor's profile key")
	// ErrMethodNotAllowed: Call named a method the provider did not
	// declare, or a message verb (which has calls of its own).
	ErrMethodNotAllowed = errors.New("method not allowed")
	// ErrVerbUnsupported: the platform of the caller's thread has no such
	// message verb (see Description's verbs).
	ErrVerbUnsupported = errors.New("verb not supported by the platform")
	// ErrProviderNotServing: the provider cannot do its job now (its
	// platform is unreachable, its token revoked, its state store failing);
	// the message names the provider and says why.
	ErrProviderNotServing = errors.New("provider not serving")
	// ErrNotDescribed: the binding's provider has not declared its method
	// set yet (no child of it has come up since the supervisor started).
	ErrNotDescribed = errors.New("provider has not described its platform yet")
	// ErrTargetGone: the binding's thread was deleted on the platform (a
	// provider call found it so, and sent nothing). The hub gives the
	// binding a new thread (topics.go).
	ErrTargetGone = errors.New("thread deleted on the platform")
	// ErrOutOfScope: Call named another chat, thread, message or query.
	ErrOutOfScope = errors.New("call outside the caller's thread")
	// ErrBadParams: Call params are not a JSON object, or lack a required
	// parameter.
	ErrBadParams = errors.New("bad call parameters")
	// ErrNotDelivered: Ack named a seq never delivered.
	ErrNotDelivered = errors.New("seq was never delivered")
	// ErrSuspended: the session suspended for a handoff: its stream ended
	// and nothing more is delivered to it.
	ErrSuspended = errors.New("session suspended for a handoff: nothing more is delivered to it; its successor gets every update after its last ack")
)

// Origin says how a registration got its binding.
type Origin int

const (
	OriginDetached Origin = iota
	OriginFresh
	OriginReuse
	OriginHandoff
)

// Providers is what the hub needs from the provider children.
type Providers interface {
	// Default names the provider fresh followers bind on; "" if none.
	Default() string
	// Configured reports whether a provider of that name is configured.
	Configured(provider string) bool
	// Description returns what the provider declared about its platform
	// (its method set); false while no child of it has described itself.
	Description(provider string) (Description, bool)
	// Provision creates a thread named name in the provider's chat, or
	// reuses reuse (a thread its slot had before) if that still exists:
	// renamed to name and reopened, answered as reuse itself; a thread it
	// answers that is not reuse is a new one (reuse was gone). An error
	// wrapping ErrAmbiguous means the platform may have created it
	// anyway: it is never retried blindly.
	Provision(ctx context.Context, provider, name string, reuse *store.Target) (store.Target, error)
	// CloseTarget closes thread t on its platform; closing a closed one
	// succeeds; a deleted one is an error matching ErrTargetGone.
	CloseTarget(ctx context.Context, t store.Target) error
	// Attach and Detach maintain the provider's "attached" occupancy.
	Attach(ctx context.Context, provider, instanceID string, t store.Target) error
	Detach(provider, instanceID string)
	// Call makes a platform call in c's thread (the provider scopes it
	// there). A call with an idempotency key is made at most once per
	// binding and key; a repeat gets the first one's outcome. Calls wait
	// out a provider restart until ctx ends. An error matching
	// ErrTargetGone: c's thread was deleted, and nothing was sent (the
	// call left no record: a repeat of its key is made anew).
	Call(ctx context.Context, c Call) (Result, error)
	Files
}

// Description is what a provider declares about its platform.
type Description struct {
	Platform     string
	Methods      []Method
	MaxTextChars int
	// CommandPrefix is how a person writes a command to chatbus there,
	// before its name; ThreadLink opens a thread, "{thread}" standing for
	// its id ("" none). See chatbus.provider.v1.DescribeResponse.
	CommandPrefix string
	ThreadLink    string
}

// Method is a platform method followers may call.
type Method struct {
	Name string
	// Params name ids of the thread: a value of that kind the thread never
	// saw is refused.
	Params []Param
	// Idempotent: the platform de-duplicates it by idempotency key, so a
	// call whose outcome is unknown may be sent again with its key.
	Idempotent bool
	// Verb: a message verb (VerbMethod), called through Verb, never Call.
	Verb bool
}

// Param is a call parameter naming an id of the thread: a top-level key
// of the params object, or a dotted path into nested objects
// ("reply.id").
type Param struct {
	Name     string
	Kind     store.RefKind
	Required bool
}

// names lists the declared verbs (verbs) or platform methods.
func (d Description) names(verbs bool) []string {
	var out []string
	for _, m := range d.Methods {
		if m.Verb == verbs {
			out = append(out, m.Name)
		}
	}
	return out
}

// Verbs lists the message verbs the platform has.
func (d Description) Verbs() []string { return d.names(true) }

// method returns the declared method called name.
// HasVerb reports whether the provider declared the message verb name.
func (d Description) HasVerb(name string) bool {
	m, ok := d.method(name)
	return ok && m.Verb
}

func (d Description) method(name string) (Method, bool) {
	for _, m := range d.Methods {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Call is a follower's platform call as the hub hands it on.
type Call struct {
	// BindingKey is the caller's binding: idempotency keys are its own.
	BindingKey string
	Target     store.Target
	Method     string
	Params     json.RawMessage
	// Key is the caller's idempotency key; "" if it gave none.
	Key string
}

// Result is a platform call's answer: the platform's JSON and the ids it
// made available to the thread.
type Result struct {
	JSON json.RawMessage
	Refs []store.Ref
}

// Config configures a Hub.
type Config struct {
	Store     store.Store        // required
	Registry  *registry.Registry // required
	Providers Providers          // required
	Events    *events.Hub        // required
	Logger    zerolog.Logger
	// Metrics records updates received, journalled and delivered. If nil,
	// nothing is recorded.
	Metrics *metrics.Metrics
	// HandoffTTL is how long a suspended binding waits for its successor.
	// If zero, 30s.
	HandoffTTL time.Duration
	// ReconcileGrace is how long after start bindings wait for their
	// followers to come back before reconciliation. If zero, 5s.
	ReconcileGrace time.Duration
	// ReconcileFresh spares bindings refreshed this recently. If zero, 10s.
	ReconcileFresh time.Duration
	// ReadBatch is how many journalled updates a stream reads at a time.
	// If zero, 256.
	ReadBatch int
	// CloseOfflineAfter closes the thread of a binding offline this long
	// (its provider's CloseTarget); it is reopened when it is reused. If
	// zero, 24h; negative: never.
	CloseOfflineAfter time.Duration
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
	// Liveness, if set, gets the probe of Run's loop ("hub": prune,
	// handoff expiry, retention, reconciliation) for the watchdog.
	Liveness *liveness.Registry
	// Trace, if set, is told when each inbound update passes a stage
	// (see Trace). If nil, nothing is traced.
	Trace Trace
	// Transcriber turns voice notes into text (voice.go). If nil, a voice
	// note reaches its follower with the file and a note saying no
	// transcriber is configured.
	Transcriber *transcribe.Transcriber
	// Control, if set, takes the commands people send to chatbus itself
	// (server/control): Take is handed each batch's updates once they are
	// durable (it picks the commands: updates of the chat's control
	// place, thread empty, and of kind COMMAND), NotAllowed each update
	// dropped as from a sender not allowed (it publishes one for a
	// command). Neither may block. If nil, such updates are only held as
	// unrouted.
	Control Control
}

// Control takes the commands of the chat's control place (Config.Control).
type Control interface {
	Take(stored []store.Update)
	NotAllowed(provider string, u store.Update)
}

// Hub routes. Safe for concurrent use. It is the one thing the transport
// handlers talk to for followers: it owns what happens when a session
// begins and ends, over the registry's one record per session.
type Hub struct {
	cfg   Config
	log   zerolog.Logger
	store store.Store
	reg   *registry.Registry

	// locks serializes the changes of one binding that span a store or
	// provider call; taken before any of the parts' locks (package doc).
	locks keylock.Locks

	routes  routeCache  // which binding owns a thread
	slots   slotTable   // which slots are taken
	threads threadBook  // parked and closed threads
	scopes  scopeSet    // what each thread has seen
	moves   moveNotices // thread replacements not yet told

	// threadEvents carries what updates said about their threads to the
	// lifecycle goroutine (topics.go); it never blocks a sender.
	threadEvents chan threadEvent

	droppedNotAllowed atomic.Uint64
	// alive is Run's liveness probe; nil without Config.Liveness.
	alive *liveness.Loop
}

// New returns a Hub. Call Run to start its timers.
func New(cfg Config) *Hub {
	if cfg.HandoffTTL <= 0 {
		cfg.HandoffTTL = 30 * time.Second
	}
	if cfg.ReconcileGrace <= 0 {
		cfg.ReconcileGrace = 5 * time.Second
	}
	if cfg.ReconcileFresh <= 0 {
		cfg.ReconcileFresh = 10 * time.Second
	}
	if cfg.ReadBatch <= 0 {
		cfg.ReadBatch = 256
	}
	if cfg.CloseOfflineAfter == 0 {
		cfg.CloseOfflineAfter = DefaultCloseOfflineAfter
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Hub{
		cfg:          cfg,
		log:          cfg.Logger.With().Str("component", "hub").Logger(),
		store:        cfg.Store,
		reg:          cfg.Registry,
		threadEvents: make(chan threadEvent, 256),
	}
	if cfg.Liveness != nil {
		h.alive = liveness.NewLoop()
		cfg.Liveness.Register("hub", h.alive.Probe)
	}
	return h
}

// Run prunes silent followers, expires handoffs, applies journal retention
// and, once, reconciles bindings after the grace period; its lifecycle
// goroutine closes the threads of bindings offline for CloseOfflineAfter
// and reopens closed threads people write in (topics.go). It returns when
// ctx ends, after the lifecycle goroutine has.
func (h *Hub) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { h.lifecycle(ctx) })
	reconcile := time.NewTimer(h.cfg.ReconcileGrace)
	defer reconcile.Stop()
	prune := time.NewTicker(h.reg.PruneInterval())
	defer prune.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	retention := time.NewTicker(time.Minute)
	defer retention.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.alive.C():
		case <-reconcile.C:
			if _, err := h.Reconcile(); err != nil {
				h.log.Error().Err(err).Msg("reconciliation failed")
			}
		case <-prune.C:
			for _, f := range h.reg.Prune() {
				h.ended(f, registry.Pruned)
			}
		case <-tick.C:
			h.expireHandoffs()
		case <-retention.C:
			if err := h.store.ApplyRetention(); err != nil {
				h.log.Error().Err(err).Msg("journal retention failed")
			}
		}
	}
}

// newToken returns a random token (handoff tokens).
func newToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DroppedNotAllowed counts updates from users not on a provider's
// allow-list, dropped since start.
func (h *Hub) DroppedNotAllowed() uint64 { return h.droppedNotAllowed.Load() }

func (h *Hub) publish(kind events.Kind, instance, msg string, attrs map[string]string) {
	h.cfg.Events.Publish(events.Event{Kind: kind, InstanceID: instance, Message: msg, Attrs: attrs})
}

// putBinding writes b (Updated: now) and brings the parts that cache
// bindings up to it: the route cache forgets its routes, the slot table
// and the thread book record b (or, if the write failed, and so may or
// may not have landed, are emptied, to be loaded again). The hub is the
// only writer of bindings. A write that gives b a thread also learns the
// ids of the updates written in that thread before b owned it, which the
// store moved into b's journal (learnClaimed).
func (h *Hub) putBinding(b store.Binding) error {
	b.Updated = h.cfg.Now()
	var had store.Target // b's thread before the write, if it is known
	if !b.Target.IsZero() {
		if cur, err := h.store.GetBinding(b.Key); err == nil {
			had = cur.Target
		}
	}
	err := h.store.PutBinding(b)
	h.routes.invalidate()
	if err != nil {
		h.slots.drop()
		h.threads.drop()
		return err
	}
	h.slots.set(b)
	h.threads.set(b)
	if !b.Target.IsZero() && b.Target != had {
		h.learnClaimed(b)
	}
	return nil
}
