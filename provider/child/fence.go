package child

import (
	"github.com/chatbus/chatbus/provider"

	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/enumtab"
	"github.com/chatbus/chatbus/internal/proc"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Lease bounds for Prepare.
const (
	// DefaultLease is used when Prepare names no lease.
	DefaultLease = 30 * time.Second
	// MaxLease caps a Prepare lease; a longer one is shortened (the
	// response says when it really expires).
	MaxLease = 10 * time.Minute
)

// Phase is the state of the doctor fence.
type Phase int

const (
	// PhaseIdle: admission open, no doctor request holds the fence.
	PhaseIdle Phase = iota + 1
	// PhasePrepared: admission closed under a lease.
	PhasePrepared
	// PhaseCommitted: admission closed for good; Serve returns once
	// occupancy is zero.
	PhaseCommitted
)

func (p Phase) String() string {
	switch p {
	case PhaseIdle:
		return "idle"
	case PhasePrepared:
		return "prepared"
	case PhaseCommitted:
		return "committed"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// phases maps Phase onto the contract's Phase.
var phases = enumtab.New(map[Phase]providerv1.Phase{
	PhaseIdle:      providerv1.Phase_PHASE_IDLE,
	PhasePrepared:  providerv1.Phase_PHASE_PREPARED,
	PhaseCommitted: providerv1.Phase_PHASE_COMMITTED,
})

// Proto converts p to its wire form (PHASE_UNSPECIFIED for a value that
// is no Phase).
func (p Phase) Proto() providerv1.Phase { return phases.Proto(p) }

// fenceReq is the owner a doctor request is addressed to.
type fenceReq struct {
	// RequestID names the doctor request; Prepare, Commit and Cancel of one
	// restart carry the same id.
	RequestID string
	// OwnerID must equal this provider's Identity.OwnerID when set.
	OwnerID string
	// Generation must equal this provider's generation when non-zero.
	Generation uint32
	// Incarnation must equal this process exactly; nil is refused, so a
	// doctor can never fence a process it did not observe.
	Incarnation *proc.Incarnation
}

// FenceStatus is the state of the fence and the occupancy.
type FenceStatus struct {
	Phase     Phase
	Admitting bool
	Occupancy Occupancy
	// LeaseExpires is when admission reopens by itself; zero unless
	// prepared.
	LeaseExpires time.Time
	// RequestID is the doctor request holding the fence, if any.
	RequestID string
}

// gate is the fence and the occupancy counters under one mutex, so that
// admitting work and counting it is one step: whatever Prepare did not
// refuse is in the occupancy Prepare returns.
type gate struct {
	now        func() time.Time
	log        zerolog.Logger
	inc        proc.Incarnation
	generation uint32

	mu           sync.Mutex // guards everything below
	occ          Occupancy
	attached     map[string]provider.Target // by instance id
	phase        Phase
	requestID    string
	leaseExpires time.Time
	leaseTimer   *time.Timer
	leaseSeq     uint64 // bumped whenever the lease timer is replaced or void
	stopping     bool   // the provider is shutting down: admit nothing, ever
	changed      chan struct{}
	settled      chan struct{} // closed once committed and occupancy is zero
	isSettled    bool
}

func newGate(now func() time.Time, log zerolog.Logger, inc proc.Incarnation, generation uint32) *gate {
	return &gate{
		now:        now,
		log:        log,
		inc:        inc,
		generation: generation,
		attached:   make(map[string]provider.Target),
		phase:      PhaseIdle,
		changed:    make(chan struct{}),
		settled:    make(chan struct{}),
	}
}

// admit counts n units of work of kind c if admission is open; the
// returned release (idempotent) uncounts them.
func (g *gate) admit(c counter, n uint32) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expireLocked()
	if err := g.closedLocked(); err != nil {
		return nil, err
	}
	g.addLocked(c, n)
	return g.releaser(c, n), nil
}

// begin counts cleanup work: it is admitted while prepared or committed
// (it settles state rather than adding it) but not once shutting down.
func (g *gate) begin(c counter) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping || g.isSettled {
		return nil, &provider.AdmissionClosedError{RequestID: g.requestID, ShuttingDown: true}
	}
	g.addLocked(c, 1)
	return g.releaser(c, 1), nil
}

func (g *gate) addLocked(c counter, n uint32) {
	*g.occ.field(c) += n
	g.notifyLocked()
}

func (g *gate) releaser(c counter, n uint32) func() {
	var once sync.Once
	return func() { once.Do(func() { g.release(c, n) }) }
}

func (g *gate) release(c counter, n uint32) {
	if n == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	f := g.occ.field(c)
	if *f < n {
		panic(fmt.Sprintf("provider: occupancy underflow: releasing %d from %d", n, *f))
	}
	*f -= n
	g.notifyLocked()
	g.settleLocked()
}

// closedLocked returns the refusal for new work, nil if admission is open.
func (g *gate) closedLocked() error {
	switch {
	case g.stopping || g.isSettled:
		return &provider.AdmissionClosedError{RequestID: g.requestID, ShuttingDown: true}
	case g.phase == PhasePrepared:
		return &provider.AdmissionClosedError{RequestID: g.requestID}
	case g.phase == PhaseCommitted:
		return &provider.AdmissionClosedError{RequestID: g.requestID, Committed: true}
	}
	return nil
}

// attach records instance id as attached; attaching an attached id again
// updates its target and counts nothing new.
func (g *gate) attach(id string, t provider.Target) error {
	if id == "" {
		return fmt.Errorf("attach: empty instance id: %w", provider.ErrInvalid)
	}
	release, err := g.admit(cInflight, 1)
	if err != nil {
		return err
	}
	defer release()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attached[id] = t
	g.setAttachedLocked()
	return nil
}

// detach forgets instance id and reports whether it was attached; an
// unknown id is a no-op. It is never refused: detaching is how a doctor's
// drain reaches zero.
func (g *gate) detach(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.attached[id]; !ok {
		return false
	}
	delete(g.attached, id)
	g.setAttachedLocked()
	g.settleLocked()
	return true
}

func (g *gate) setAttachedLocked() {
	if n := uint32(len(g.attached)); n != g.occ.Attached {
		g.occ.Attached = n
		g.notifyLocked()
	}
}

// checkOwner refuses a fence for another owner (no lock needed: it reads
// only fields fixed at construction).
func (g *gate) checkOwner(f fenceReq, ownerID string) error {
	switch {
	case f.Incarnation == nil:
		return fmt.Errorf("%w: the fence names no incarnation (this owner is %s)", provider.ErrFenceMismatch, g.inc)
	case *f.Incarnation != g.inc:
		return fmt.Errorf("%w: incarnation %s, this owner is %s", provider.ErrFenceMismatch, *f.Incarnation, g.inc)
	case f.OwnerID != "" && f.OwnerID != ownerID:
		return fmt.Errorf("%w: owner id %q, this owner is %q", provider.ErrFenceMismatch, f.OwnerID, ownerID)
	case f.Generation != 0 && f.Generation != g.generation:
		return fmt.Errorf("%w: generation %d, this owner speaks %d", provider.ErrFenceMismatch, f.Generation, g.generation)
	}
	return nil
}

// prepare closes admission for f.RequestID under lease (zero: DefaultLease;
// capped at MaxLease). The same request id again renews the lease; another
// one is refused while the fence is held. ownerID is this provider's
// identity, needed only when f.OwnerID is set.
func (g *gate) prepare(f fenceReq, ownerID string, lease time.Duration) (FenceStatus, error) {
	if lease < 0 {
		return FenceStatus{}, fmt.Errorf("lease %s: %w", lease, provider.ErrInvalid)
	}
	if lease == 0 {
		lease = DefaultLease
	}
	lease = min(lease, MaxLease)
	if err := g.checkOwner(f, ownerID); err != nil {
		return FenceStatus{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expireLocked()
	switch g.phase {
	case PhaseIdle:
		if g.stopping {
			return FenceStatus{}, provider.ErrShuttingDown
		}
		g.phase = PhasePrepared
		g.requestID = f.RequestID
		g.armLocked(lease)
		g.notifyLocked()
		g.log.Info().Str("request_id", f.RequestID).Dur("lease", lease).
			Stringer("occupancy", g.occ).Msg("doctor prepared; admission closed")
	case PhasePrepared:
		if f.RequestID != g.requestID {
			return FenceStatus{}, fmt.Errorf("%w: doctor %s prepared this owner; refusing %s", provider.ErrFenceHeld, g.requestID, f.RequestID)
		}
		g.armLocked(lease)
		g.log.Debug().Str("request_id", f.RequestID).Dur("lease", lease).Msg("doctor lease renewed")
	case PhaseCommitted:
		if f.RequestID != g.requestID {
			return FenceStatus{}, fmt.Errorf("%w: doctor %s committed this owner; refusing %s", provider.ErrFenceHeld, g.requestID, f.RequestID)
		}
	}
	return g.statusLocked(), nil
}

// commit moves a prepared fence to committed: admission stays closed, the
// lease no longer applies, and settled closes once occupancy is zero.
// Committing again with the same request id is a no-op.
func (g *gate) commit(f fenceReq, ownerID string) (Occupancy, error) {
	if err := g.checkOwner(f, ownerID); err != nil {
		return Occupancy{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expireLocked()
	switch {
	case g.phase == PhaseIdle:
		return g.occ, fmt.Errorf("doctor %s: %w (it never prepared, or its lease expired)", f.RequestID, provider.ErrNotPrepared)
	case f.RequestID != g.requestID:
		return g.occ, fmt.Errorf("doctor %s: %w (doctor %s holds the fence)", f.RequestID, provider.ErrNotPrepared, g.requestID)
	case g.phase == PhasePrepared:
		g.phase = PhaseCommitted
		g.stopLeaseLocked()
		g.notifyLocked()
		g.log.Info().Str("request_id", f.RequestID).Stringer("occupancy", g.occ).
			Msg("doctor committed; exiting once occupancy is zero")
		g.settleLocked()
	}
	return g.occ, nil
}

// cancel reopens admission closed by f.RequestID. With nothing prepared it
// is a no-op (the lease may have expired already); another request's fence
// and a committed one are refused.
func (g *gate) cancel(f fenceReq, ownerID string) error {
	if err := g.checkOwner(f, ownerID); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expireLocked()
	switch {
	case g.phase == PhaseIdle:
		return nil
	case f.RequestID != g.requestID:
		return fmt.Errorf("doctor %s: %w (doctor %s holds the fence)", f.RequestID, provider.ErrNotPrepared, g.requestID)
	case g.phase == PhaseCommitted:
		return fmt.Errorf("doctor %s: %w", f.RequestID, provider.ErrCommitted)
	}
	g.reopenLocked()
	g.log.Info().Str("request_id", f.RequestID).Msg("doctor cancelled; admission reopened")
	return nil
}

func (g *gate) status() FenceStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expireLocked()
	return g.statusLocked()
}

func (g *gate) statusLocked() FenceStatus {
	return FenceStatus{
		Phase:        g.phase,
		Admitting:    g.closedLocked() == nil,
		Occupancy:    g.occ,
		LeaseExpires: g.leaseExpires,
		RequestID:    g.requestID,
	}
}

func (g *gate) occupancy() Occupancy {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.occ
}

// watchStatus returns the fence and occupancy now and a channel closed at
// the next change of the gate's state. An expired lease is expired first.
func (g *gate) watchStatus() (FenceStatus, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expireLocked()
	return g.statusLocked(), g.changed
}

// done is closed once a commit has settled.
func (g *gate) done() <-chan struct{} { return g.settled }

// stop refuses all new work from now on (the provider is shutting down)
// and voids the lease timer.
func (g *gate) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopping = true
	if g.leaseTimer != nil {
		g.leaseTimer.Stop()
	}
	g.leaseSeq++
	g.notifyLocked()
}

func (g *gate) notifyLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

func (g *gate) settleLocked() {
	if g.phase == PhaseCommitted && !g.isSettled && g.occ.Zero() {
		g.isSettled = true
		close(g.settled)
		g.log.Info().Str("request_id", g.requestID).Msg("doctor commit settled: occupancy zero; shutting down")
	}
}

// armLocked (re)starts the lease.
func (g *gate) armLocked(lease time.Duration) {
	g.leaseExpires = g.now().Add(lease)
	g.startTimerLocked(lease)
}

func (g *gate) startTimerLocked(d time.Duration) {
	if g.leaseTimer != nil {
		g.leaseTimer.Stop()
	}
	g.leaseSeq++
	seq := g.leaseSeq
	g.leaseTimer = time.AfterFunc(d, func() { g.onLeaseTimer(seq) })
}

func (g *gate) stopLeaseLocked() {
	if g.leaseTimer != nil {
		g.leaseTimer.Stop()
		g.leaseTimer = nil
	}
	g.leaseSeq++
	g.leaseExpires = time.Time{}
}

// onLeaseTimer expires the lease if it is due by the gate's clock (which
// tests may fake); otherwise it waits for the rest.
func (g *gate) onLeaseTimer(seq uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq != g.leaseSeq || g.phase != PhasePrepared || g.stopping {
		return
	}
	if !g.expireLocked() {
		g.startTimerLocked(max(g.leaseExpires.Sub(g.now()), time.Millisecond))
	}
}

// expireLocked reopens admission if a Prepare's lease has run out, so a
// doctor that died never strands the owner. Every fence operation and every
// admission check calls it, so an expired lease is honoured even before
// the timer fires.
func (g *gate) expireLocked() bool {
	if g.phase != PhasePrepared || g.now().Before(g.leaseExpires) {
		return false
	}
	id := g.requestID
	g.reopenLocked()
	g.log.Warn().Str("request_id", id).Msg("lease expired; admission reopened")
	return true
}

func (g *gate) reopenLocked() {
	g.phase = PhaseIdle
	g.requestID = ""
	g.stopLeaseLocked()
	g.notifyLocked()
}
