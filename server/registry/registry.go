// Package registry owns the live followers of one supervisor — the one
// record per session: who is registered, under which session token, when
// each last spoke, which binding it holds, the state of its update stream,
// and when a silent one is pruned. It knows nothing of gRPC. Its caller
// (the hub) learns of every end from the call that caused it: Register,
// Bind, Unregister, Prune and CloseAll return the followers they ended.
package registry

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatbus/chatbus/server/events"
)

var (
	// ErrSessionUnknown: no live registration holds this token (never issued,
	// pruned, replaced or unregistered). Register again.
	ErrSessionUnknown = errors.New("session unknown: pruned, replaced or never registered")
	// ErrForeignSession: the token belongs to another follower.
	ErrForeignSession = errors.New("session token belongs to another follower")
	// ErrFull: MaxFollowers are registered already.
	ErrFull = errors.New("too many followers")

	// Why a registration ended, as Follower.Err reports it.
	ErrPruned   = errors.New("session pruned: no heartbeat within stale-after; register again")
	ErrReplaced = errors.New("session replaced by a newer registration of the same instance id")
	// ErrTakenOver: another instance took the binding over (registered
	// with the same profile key, or with the handoff token); the error
	// says which and how.
	ErrTakenOver  = errors.New("session taken over")
	ErrShutdown   = errors.New("supervisor shutting down")
	ErrSuperseded = errors.New("stream superseded by a newer Subscribe of the same session")
)

// EndReason says why a registration ended.
type EndReason int32

const (
	Live EndReason = iota
	Pruned
	Replaced
	Unregistered
	Shutdown
	// TakenOver: another instance took the follower's binding over.
	TakenOver
)

func (r EndReason) String() string {
	switch r {
	case Live:
		return "live"
	case Pruned:
		return "pruned"
	case Replaced:
		return "replaced"
	case Unregistered:
		return "unregistered"
	case Shutdown:
		return "shutdown"
	case TakenOver:
		return "taken over"
	}
	return "unknown"
}

// Info is what a follower says about itself when it registers.
type Info struct {
	InstanceID string
	ProfileKey string
	PID        int32
	Cwd        string
	ThreadName string
	// Agent is what the follower is ("claude-code", "pi"; "": a plain
	// follower), as it said.
	Agent string
}

// Follower is one live registration. Its identity fields never change.
type Follower struct {
	Info
	Token       string
	ConnectedAt time.Time

	lastSeen   atomic.Int64 // unix nanoseconds of the last call, or of the end of its last stream
	subscribed atomic.Int32 // open Subscribe streams
	now        func() time.Time
	end        atomic.Int32 // EndReason; set before done is closed
	endDetail  string       // why, for TakenOver; written before done is closed
	done       chan struct{}

	streamMu sync.Mutex    // guards stream
	stream   chan struct{} // closed when the current stream is superseded

	bound atomic.Pointer[bound] // the binding it holds; nil while detached

	wayIn atomic.Pointer[WayInState] // as the follower last said; nil: it never did

	// lastCall and lastMessage are when it last made a call, and a call
	// that said something in its thread (unix nanoseconds; 0 never).
	lastCall, lastMessage atomic.Int64

	stopMk   sync.Once
	stopOnce sync.Once
	stopC    chan struct{} // closed by RequestStop; made on first use under stopMk
	stopBy   atomic.Pointer[StopRequest]

	// Delivery is the state of its update stream, kept by the hub.
	Delivery Delivery
}

// bound is the binding a follower holds.
type bound struct{ key, provider string }

// Binding returns the key of the binding the follower holds and its
// provider; "" while it holds none (detached).
func (f *Follower) Binding() (key, provider string) {
	if b := f.bound.Load(); b != nil {
		return b.key, b.provider
	}
	return "", ""
}

// Delivery is a follower's update stream as the hub keeps it: what was
// sent, and whether the session suspended for a handoff (then its stream
// ends, nothing more is sent to it, and its acks may name only what it was
// sent before). The zero Delivery is ready to use.
type Delivery struct {
	suspendOnce sync.Once
	suspended   chan struct{} // made on first use under suspendOnce's guard
	mkOnce      sync.Once
	isSuspended atomic.Bool
	ackLimit    atomic.Uint64
	// sending is the seq about to be sent, delivered the last one sent:
	// Suspend and the stream write and read them in an order that never
	// lets a seq out after Suspend without it counting as delivered.
	sending   atomic.Uint64
	delivered atomic.Uint64
}

func (d *Delivery) ch() chan struct{} {
	d.mkOnce.Do(func() { d.suspended = make(chan struct{}) })
	return d.suspended
}

// Suspend ends delivery: what the follower may still ack is what it was
// (or may have been) sent.
func (d *Delivery) Suspend() {
	d.suspendOnce.Do(func() {
		d.isSuspended.Store(true)
		d.ackLimit.Store(max(d.delivered.Load(), d.sending.Load()))
		close(d.ch())
	})
}

// Suspended reports whether Suspend was called; SuspendedC is closed then.
func (d *Delivery) Suspended() bool { return d.isSuspended.Load() }

// SuspendedC is closed by Suspend.
func (d *Delivery) SuspendedC() <-chan struct{} { return d.ch() }

// AckLimit is the highest seq a suspended follower may ack.
func (d *Delivery) AckLimit() uint64 { return d.ackLimit.Load() }

// Sending records that seq is about to be sent; it reports false if the
// follower suspended, and then seq must not be sent.
func (d *Delivery) Sending(seq uint64) bool {
	d.sending.Store(seq)
	return !d.isSuspended.Load()
}

// Sent records that seq was sent.
func (d *Delivery) Sent(seq uint64) { d.delivered.Store(seq) }

// Delivered is the last seq sent (0 if none).
func (d *Delivery) Delivered() uint64 { return d.delivered.Load() }

// Done is closed when the registration ends; Ended then says why.
func (f *Follower) Done() <-chan struct{} { return f.done }

// Ended returns why the registration ended, or Live.
func (f *Follower) Ended() EndReason { return EndReason(f.end.Load()) }

// Err returns why the registration ended as an error: nil while live or
// after Unregister, else ErrPruned, ErrReplaced or ErrShutdown.
func (f *Follower) Err() error {
	switch f.Ended() {
	case Pruned:
		return ErrPruned
	case Replaced:
		return ErrReplaced
	case Shutdown:
		return ErrShutdown
	case TakenOver:
		return fmt.Errorf("%w: %s", ErrTakenOver, f.endDetail)
	}
	return nil
}

// AttachStream makes the caller the follower's one update stream. The
// returned channel is closed when a later AttachStream supersedes it; the
// caller must call detach when its stream ends. While a stream is open the
// follower counts as live for Config.SubscribedStaleAfter (the transport's
// keepalive ends the stream of a peer that stopped answering); its end
// counts as the follower's last sign of life, so a follower whose stream
// ended (its process died) is pruned StaleAfter later unless it speaks.
func (f *Follower) AttachStream() (superseded <-chan struct{}, detach func()) {
	ch := make(chan struct{})
	f.streamMu.Lock()
	if f.stream != nil {
		close(f.stream)
	}
	f.stream = ch
	f.streamMu.Unlock()
	f.subscribed.Add(1)
	return ch, func() {
		f.lastSeen.Store(f.now().UnixNano())
		f.subscribed.Add(-1)
		f.streamMu.Lock()
		if f.stream == ch {
			f.stream = nil
		}
		f.streamMu.Unlock()
	}
}

// LastSeen returns the time of the follower's last call.
func (f *Follower) LastSeen() time.Time { return time.Unix(0, f.lastSeen.Load()) }

// Called records a call the follower made at now; message says it said
// something in its thread (a message sent or edited).
func (f *Follower) Called(now time.Time, message bool) {
	f.lastCall.Store(now.UnixNano())
	if message {
		f.lastMessage.Store(now.UnixNano())
	}
}

// LastCall is when it last made a call, LastMessage when it last said
// something in its thread; zero: never.
func (f *Follower) LastCall() time.Time    { return unixTime(f.lastCall.Load()) }
func (f *Follower) LastMessage() time.Time { return unixTime(f.lastMessage.Load()) }

func unixTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// StopRequest is a person's request, from the chat, that a session stop.
type StopRequest struct {
	Provider, By string
}

// RequestStop records that a person asked the follower to stop and wakes
// StopRequested's waiters; false if it was asked already.
func (f *Follower) RequestStop(r StopRequest) bool {
	first := false
	f.stopOnce.Do(func() {
		f.stopBy.Store(&r)
		close(f.stopChan())
		first = true
	})
	return first
}

// StopRequested returns a channel closed once a person asked the follower
// to stop, and, once it is, who asked.
func (f *Follower) StopRequested() (<-chan struct{}, *StopRequest) {
	return f.stopChan(), f.stopBy.Load()
}

func (f *Follower) stopChan() chan struct{} {
	f.stopMk.Do(func() { f.stopC = make(chan struct{}) })
	return f.stopC
}

// Subscribed reports whether an update stream is open.
func (f *Follower) Subscribed() bool { return f.subscribed.Load() > 0 }

// WayIn is how a follower hands the thread's updates to its agent
// session, as the follower says (chatbus-mcp: Claude Code's channel, the
// session's inbox socket, or none). The registry only keeps it for the
// operator; nothing is decided on it.
type WayIn int32

const (
	// WayInUnknown: the follower does not say.
	WayInUnknown WayIn = iota
	WayInChannel
	WayInInbox
	// WayInNone: no way in; the follower holds the updates.
	WayInNone
)

func (w WayIn) String() string {
	switch w {
	case WayInChannel:
		return "channel"
	case WayInInbox:
		return "inbox"
	case WayInNone:
		return "none"
	}
	return ""
}

// WayInState is a follower's way in and why (with WayInNone: what the
// person can do).
type WayInState struct {
	WayIn  WayIn
	Detail string
}

// SetWayIn records what the follower says of its way in and reports
// whether it changed. WayInUnknown leaves it as it was.
func (f *Follower) SetWayIn(w WayInState) (changed bool) {
	if w.WayIn == WayInUnknown {
		return false
	}
	for {
		old := f.wayIn.Load()
		if old != nil && *old == w {
			return false
		}
		if f.wayIn.CompareAndSwap(old, &w) {
			return true
		}
	}
}

// WayIn returns what the follower last said of its way in.
func (f *Follower) WayIn() WayInState {
	if w := f.wayIn.Load(); w != nil {
		return *w
	}
	return WayInState{}
}

// Config tunes a Registry.
type Config struct {
	// StaleAfter is how long a follower may stay silent. If zero, 5s.
	StaleAfter time.Duration
	// SubscribedStaleAfter is how long a follower with an open update
	// stream may stay silent (it heartbeats rarely then). If zero, or less
	// than StaleAfter, StaleAfter.
	SubscribedStaleAfter time.Duration
	// PruneInterval is how often silent followers are looked for. If zero,
	// 1s (or StaleAfter/2 if that is shorter).
	PruneInterval time.Duration
	// MaxFollowers bounds the live registrations. If zero, 16384.
	MaxFollowers int
	// Events receives registry events. Required.
	Events *events.Hub
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// Registry holds the live followers. Safe for concurrent use.
type Registry struct {
	cfg Config

	mu         sync.RWMutex // guards the maps and closed
	byToken    map[string]*Follower
	byInstance map[string]*Follower
	byBinding  map[string]*Follower // the live holder of each binding
	closed     bool                 // CloseAll ran: every session call is told ErrShutdown
}

// New returns an empty Registry.
func New(cfg Config) *Registry {
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = 5 * time.Second
	}
	if cfg.PruneInterval <= 0 {
		cfg.PruneInterval = min(time.Second, cfg.StaleAfter/2)
	}
	cfg.SubscribedStaleAfter = max(cfg.SubscribedStaleAfter, cfg.StaleAfter)
	if cfg.MaxFollowers <= 0 {
		cfg.MaxFollowers = 16384
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Registry{cfg: cfg, byToken: make(map[string]*Follower), byInstance: make(map[string]*Follower), byBinding: make(map[string]*Follower)}
}

// StaleAfter returns the configured silence bound.
func (r *Registry) StaleAfter() time.Duration { return r.cfg.StaleAfter }

// Register adds a follower, detached (Bind gives it its binding). A live
// registration with the same instance id is ended (Replaced) and its token
// dies: it is returned as replaced.
func (r *Registry) Register(info Info) (f, replaced *Follower, err error) {
	now := r.cfg.Now()
	f = &Follower{Info: info, Token: newToken(), ConnectedAt: now, done: make(chan struct{}), now: r.cfg.Now}
	f.lastSeen.Store(now.UnixNano())

	r.mu.Lock()
	if err := r.refusalLocked(info.InstanceID); err != nil {
		r.mu.Unlock()
		return nil, nil, err
	}
	old := r.byInstance[info.InstanceID]
	if old != nil && !r.removeLocked(old, Replaced) {
		old = nil
	}
	r.byToken[f.Token] = f
	r.byInstance[info.InstanceID] = f
	r.mu.Unlock()

	if old != nil {
		r.cfg.Events.Publish(events.Event{Kind: events.FollowerReplaced, InstanceID: info.InstanceID,
			Message: "registration replaced by a new one with the same instance id",
			Attrs:   map[string]string{"old_pid": itoa(old.PID), "pid": itoa(info.PID)}})
	}
	r.cfg.Events.Publish(events.Event{Kind: events.FollowerRegistered, InstanceID: info.InstanceID,
		Message: "follower registered",
		Attrs:   map[string]string{"pid": itoa(info.PID), "profile_key": info.ProfileKey, "thread_name": info.ThreadName}})
	return f, old, nil
}

// Bind makes f the live holder of binding key (on provider). Another live
// follower that held it loses it: it is ended (TakenOver, with why as the
// reason it is told) and returned. A follower that ended meanwhile is not
// bound: ErrSessionUnknown.
func (r *Registry) Bind(f *Follower, key, provider, why string) (prev *Follower, err error) {
	r.mu.Lock()
	if f.Ended() != Live {
		r.mu.Unlock()
		return nil, fmt.Errorf("instance %q: %w", f.InstanceID, ErrSessionUnknown)
	}
	f.bound.Store(&bound{key: key, provider: provider})
	prev = r.byBinding[key]
	if prev == f {
		prev = nil
	}
	if prev != nil {
		prev.endDetail = why
		if !r.removeLocked(prev, TakenOver) {
			prev = nil
		}
	}
	r.byBinding[key] = f
	r.mu.Unlock()
	if prev != nil {
		r.cfg.Events.Publish(events.Event{Kind: events.FollowerReplaced, InstanceID: prev.InstanceID,
			Message: "registration ended: " + why, Attrs: map[string]string{"successor": f.InstanceID, "profile_key": key}})
	}
	return prev, nil
}

// Holder returns the live follower holding binding key, nil if none.
func (r *Registry) Holder(key string) *Follower {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byBinding[key]
}

// Holders returns the keys of the bindings live followers hold.
func (r *Registry) Holders() map[string]bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]bool, len(r.byBinding))
	for k := range r.byBinding {
		out[k] = true
	}
	return out
}

// Admits reports whether Register of instanceID would be refused now
// (ErrShutdown, ErrFull), so that work done before registering (a new
// thread on the platform) is not done for nothing. Register still decides.
func (r *Registry) Admits(instanceID string) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.refusalLocked(instanceID)
}

// refusalLocked says why a registration of instanceID is refused now
// (ErrShutdown, ErrFull), nil if it is not. r.mu is held.
func (r *Registry) refusalLocked(instanceID string) error {
	switch _, replacing := r.byInstance[instanceID]; {
	case r.closed:
		return ErrShutdown
	case !replacing && len(r.byInstance) >= r.cfg.MaxFollowers:
		return fmt.Errorf("%w (limit %d)", ErrFull, r.cfg.MaxFollowers)
	}
	return nil
}

// Touch looks up the live follower holding token for instanceID and records
// that it spoke. It is the check every session call makes.
func (r *Registry) Touch(instanceID, token string) (*Follower, error) {
	r.mu.RLock()
	f, closed := r.byToken[token], r.closed
	r.mu.RUnlock()
	if closed {
		// The session may well be valid: it is the supervisor that is going
		// away, and the follower keeps its thread when it comes back.
		return nil, fmt.Errorf("instance %q: %w", instanceID, ErrShutdown)
	}
	if f == nil {
		return nil, fmt.Errorf("instance %q: %w", instanceID, ErrSessionUnknown)
	}
	if f.InstanceID != instanceID {
		return nil, fmt.Errorf("instance %q: %w", instanceID, ErrForeignSession)
	}
	f.lastSeen.Store(r.cfg.Now().UnixNano())
	return f, nil
}

// Unregister ends f's registration; it reports whether it did (false: it
// had ended already).
func (r *Registry) Unregister(f *Follower) bool {
	r.mu.Lock()
	removed := r.byToken[f.Token] == f && r.removeLocked(f, Unregistered)
	r.mu.Unlock()
	if removed {
		r.cfg.Events.Publish(events.Event{Kind: events.FollowerUnregistered, InstanceID: f.InstanceID, Message: "follower unregistered"})
	}
	return removed
}

// removeLocked ends f with reason; r.mu must be held for writing.
func (r *Registry) removeLocked(f *Follower, reason EndReason) bool {
	if !f.end.CompareAndSwap(int32(Live), int32(reason)) {
		return false
	}
	delete(r.byToken, f.Token)
	if r.byInstance[f.InstanceID] == f {
		delete(r.byInstance, f.InstanceID)
	}
	if key, _ := f.Binding(); key != "" && r.byBinding[key] == f {
		delete(r.byBinding, key)
	}
	close(f.done)
	return true
}

// Prune ends every follower silent for longer than StaleAfter (longer
// than SubscribedStaleAfter while its update stream is open) and returns
// them.
func (r *Registry) Prune() []*Follower {
	now := r.cfg.Now()
	cutoff := now.Add(-r.cfg.StaleAfter).UnixNano()
	subCutoff := now.Add(-r.cfg.SubscribedStaleAfter).UnixNano()
	isStale := func(f *Follower) bool {
		last := f.lastSeen.Load()
		return last < cutoff && (!f.Subscribed() || last < subCutoff)
	}
	var stale []*Follower
	r.mu.RLock()
	for _, f := range r.byInstance {
		if isStale(f) {
			stale = append(stale, f)
		}
	}
	r.mu.RUnlock()
	if len(stale) == 0 {
		return nil
	}
	pruned := stale[:0]
	r.mu.Lock()
	for _, f := range stale {
		// Re-check: it may have spoken since the scan.
		if isStale(f) && r.removeLocked(f, Pruned) {
			pruned = append(pruned, f)
		}
	}
	r.mu.Unlock()
	for _, f := range pruned {
		r.cfg.Events.Publish(events.Event{Kind: events.FollowerPruned, InstanceID: f.InstanceID,
			Message: "follower pruned: no heartbeat within stale-after",
			Attrs: map[string]string{"pid": itoa(f.PID), "silent_for": now.Sub(f.LastSeen()).Round(time.Millisecond).String(),
				"stale_after": r.cfg.StaleAfter.String()}})
	}
	return pruned
}

// PruneInterval is how often Prune should run.
func (r *Registry) PruneInterval() time.Duration { return r.cfg.PruneInterval }

// CloseAll ends every registration, refuses new ones and every later
// session call with ErrShutdown (supervisor shutdown), and returns those it
// ended.
func (r *Registry) CloseAll() []*Follower {
	r.mu.Lock()
	r.closed = true
	var closed []*Follower
	for _, f := range r.byInstance {
		if r.removeLocked(f, Shutdown) {
			closed = append(closed, f)
		}
	}
	r.mu.Unlock()
	return closed
}

// Get returns the live registration of instanceID, if any.
func (r *Registry) Get(instanceID string) (*Follower, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.byInstance[instanceID]
	return f, ok
}

// List returns the live followers ordered by connect time.
func (r *Registry) List() []*Follower {
	r.mu.RLock()
	out := make([]*Follower, 0, len(r.byInstance))
	for _, f := range r.byInstance {
		out = append(out, f)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ConnectedAt.Equal(out[j].ConnectedAt) {
			return out[i].ConnectedAt.Before(out[j].ConnectedAt)
		}
		return out[i].InstanceID < out[j].InstanceID
	})
	return out
}

// Len returns the number of live followers.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byInstance)
}

func newToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }
