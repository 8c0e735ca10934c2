// Package doctor restarts or upgrades a provider without losing anything
// and without killing anything: observe the owner, close its
// admission (prepare), let it settle, have it exit by itself (commit),
// prove the exit, and see the successor — started through the same
// supervision path as always — healthy and identified. New calls wait in
// the durable outbox meanwhile; inbound updates wait at the platform.
package doctor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/contract"
	"github.com/chatbus/chatbus/internal/proc"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/supervise"
)

// Errors (mapped to codes by the server).
var (
	// ErrBusy: a restart of this provider is already under way.
	ErrBusy = errors.New("a doctor restart of this provider is already under way")
	// ErrAbsent: no child runs for the provider.
	ErrAbsent = errors.New("provider has no running owner")
	// ErrOccupied: commit refused while the owner holds work.
	ErrOccupied = errors.New("owner is occupied")
	// ErrRefused: the owner refused the request (wrong request id, not
	// prepared, another doctor's fence…); the message says why.
	ErrRefused = errors.New("owner refused")
)

// Generation is the provider protocol generation this doctor speaks: an
// owner of another one is UnsupportedProtocol.
const Generation = contract.Generation

// Kind is a restart's typed outcome.
type Kind int

const (
	Restarted Kind = iota + 1
	OwnerUnavailable
	PrepareRefused
	CommitRefused
	OldOwnerExitTimeout
	SuccessorRefused
	// Retired: the owner was drained and exited for good, no successor
	// (Retire: its provider was removed from the config).
	Retired
)

var kindNames = map[Kind]string{Restarted: "restarted", OwnerUnavailable: "owner_unavailable", PrepareRefused: "prepare_refused",
	CommitRefused: "commit_refused", OldOwnerExitTimeout: "old_owner_exit_timeout", SuccessorRefused: "successor_refused",
	Retired: "retired"}

func (k Kind) String() string { return kindNames[k] }

// Reason refines a Kind.
type Reason int

const (
	NoReason Reason = iota
	NoState
	NotConfirmedLive
	UnsupportedProtocol
	WriteFailed
	NotAcknowledged
	StartRefused
	PublicationTimeout
)

var reasonNames = map[Reason]string{NoState: "no_state", NotConfirmedLive: "not_confirmed_live", UnsupportedProtocol: "unsupported_protocol",
	WriteFailed: "write_failed", NotAcknowledged: "not_acknowledged", StartRefused: "start_refused", PublicationTimeout: "publication_timeout"}

func (r Reason) String() string { return reasonNames[r] }

// Owner is a provider's identity and fence as observed.
type Owner struct {
	Provider     string
	Present      bool
	OwnerID      string
	Generation   uint32
	Incarnation  proc.Incarnation
	Phase        providerv1.Phase
	Admitting    bool
	Occupancy    *providerv1.Occupancy
	LeaseExpires time.Time
	RequestID    string
}

// Phase is where a restart is.
type Phase int

const (
	PhaseObserve Phase = iota + 1
	PhasePrepare
	PhaseDrain
	PhaseCommit
	PhaseExitProof
	PhaseSuccessor
	PhaseReady
)

var phaseNames = map[Phase]string{PhaseObserve: "observe", PhasePrepare: "prepare", PhaseDrain: "drain", PhaseCommit: "commit",
	PhaseExitProof: "exit_proof", PhaseSuccessor: "successor", PhaseReady: "ready"}

func (p Phase) String() string { return phaseNames[p] }

// Progress is one step of a restart.
type Progress struct {
	Phase     Phase
	Message   string
	Occupancy *providerv1.Occupancy
	Blockers  []string
	Elapsed   time.Duration
}

// Outcome ends a restart.
type Outcome struct {
	Kind           Kind
	Reason         Reason
	Message        string
	Old, Successor Owner
	Adopted        bool
	ExitProof      string
	Elapsed        time.Duration
	PrepareToReady time.Duration
}

// Providers is what the doctor needs of the supervisor's providers
// (server/providers.Manager).
type Providers interface {
	// Supervisor returns the named provider's supervisor.
	Supervisor(name string) (*supervise.Supervisor, error)
	// Names lists the configured providers.
	Names() []string
	// Attached lists the followers bound through the provider.
	Attached(name string) []string
	// BeginRestart claims the provider for the restart (or retirement)
	// requestID, unless one is under way: then it returns that one's
	// request id (busy). The provider's admission is the one owner of "a
	// restart is under way" and its one guard; the doctor keeps no record
	// of its own. EndRestart ends the claim.
	BeginRestart(name, requestID string) (busy string, err error)
	// HoldCalls holds the provider's calls for the restart requestID
	// under way (durably, until EndRestart).
	HoldCalls(name, requestID string) error
	EndRestart(name, requestID string)
	// DetachAll queues a Detach of every attached follower for the
	// running child.
	DetachAll(name string)
}

// Config configures a Doctor.
type Config struct {
	Providers Providers   // required
	Events    *events.Hub // required
	Logger    zerolog.Logger
	// Metrics counts restart outcomes. If nil, nothing is recorded.
	Metrics *metrics.Metrics
}

// Doctor runs doctor requests against the supervisor's providers. It
// holds no state of its own: which restart is under way is the
// provider's admission's to know (Providers.BeginRestart), the fence the
// child's, a committed child's planned exit its Supervisor's.
type Doctor struct {
	cfg Config
	log zerolog.Logger
}

// New returns a Doctor.
func New(cfg Config) *Doctor {
	return &Doctor{cfg: cfg, log: cfg.Logger.With().Str("component", "doctor").Logger()}
}

// owner is a live child with its client.
type owner struct {
	Owner
	child supervise.Child
	cl    providerv1.ProviderServiceClient
	sup   *supervise.Supervisor
}

// observe identifies the provider's current owner.
func (d *Doctor) observe(ctx context.Context, name string) (owner, Reason, error) {
	sup, err := d.cfg.Providers.Supervisor(name)
	if err != nil {
		return owner{}, NoState, err
	}
	child, ok := sup.Current()
	if !ok {
		return owner{Owner: Owner{Provider: name}, sup: sup}, NoState,
			fmt.Errorf("%w: %s is %s", ErrAbsent, name, sup.Status().State)
	}
	o := owner{Owner: Owner{Provider: name, Present: true}, child: child, sup: sup, cl: providerv1.NewProviderServiceClient(child.Conn)}
	ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	id, err := o.cl.Identify(ictx, &providerv1.IdentifyRequest{})
	if err != nil {
		if status.Code(err) == codes.Unimplemented {
			return o, UnsupportedProtocol, fmt.Errorf("owner does not speak the provider protocol: %v", err)
		}
		return o, NotConfirmedLive, fmt.Errorf("identify: %v", err)
	}
	o.OwnerID, o.Generation = id.GetOwnerId(), id.GetGeneration()
	o.Incarnation = proc.Incarnation{PID: int(id.GetIncarnation().GetPid()), StartTime: id.GetIncarnation().GetStartTime()}
	if o.Generation != Generation {
		return o, UnsupportedProtocol, fmt.Errorf("owner speaks protocol generation %d, this supervisor %d", o.Generation, Generation)
	}
	if o.Incarnation != child.Incarnation {
		return o, NotConfirmedLive, fmt.Errorf("owner says it is %s, the supervisor runs %s", o.Incarnation, child.Incarnation)
	}
	if alive, err := proc.Alive(o.Incarnation); err != nil || !alive {
		return o, NotConfirmedLive, fmt.Errorf("incarnation %s is not running", o.Incarnation)
	}
	if err := d.fillStatus(ctx, &o); err != nil {
		return o, NotConfirmedLive, err
	}
	return o, NoReason, nil
}

func (d *Doctor) fillStatus(ctx context.Context, o *owner) error {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := o.cl.Status(sctx, &providerv1.StatusRequest{})
	if err != nil {
		return fmt.Errorf("status: %v", err)
	}
	o.Phase, o.Admitting, o.Occupancy, o.RequestID = st.GetPhase(), st.GetAdmitting(), st.GetOccupancy(), st.GetRequestId()
	o.LeaseExpires = time.Time{}
	if st.GetLeaseExpiresAt() != nil {
		o.LeaseExpires = st.GetLeaseExpiresAt().AsTime()
	}
	return nil
}

func (o owner) fence(requestID string) *providerv1.Fence {
	return &providerv1.Fence{RequestId: requestID, OwnerId: o.OwnerID, Generation: o.Generation,
		Incarnation: &providerv1.Incarnation{Pid: int32(o.Incarnation.PID), StartTime: o.Incarnation.StartTime}}
}

// Status observes each named provider (all if none).
func (d *Doctor) Status(ctx context.Context, names ...string) ([]Owner, error) {
	if len(names) == 0 {
		names = d.cfg.Providers.Names()
	}
	out := make([]Owner, 0, len(names))
	for _, n := range names {
		o, _, err := d.observe(ctx, n)
		if err != nil && !o.Present && o.Provider == "" {
			return nil, err // unknown provider
		}
		out = append(out, o.Owner)
	}
	return out, nil
}

// Prepare closes the owner's admission under lease.
func (d *Doctor) Prepare(ctx context.Context, name, requestID string, lease time.Duration) (Owner, error) {
	o, _, err := d.observe(ctx, name)
	if err != nil {
		return o.Owner, err
	}
	if _, err := o.cl.Prepare(ctx, &providerv1.PrepareRequest{Fence: o.fence(requestID), Lease: durationpb.New(lease)}); err != nil {
		return o.Owner, refusal(err)
	}
	d.publish(name, "prepared: admission closed", requestID)
	err = d.fillStatus(ctx, &o)
	return o.Owner, err
}

// Commit makes a prepared owner exit by itself. It is refused while the
// owner is occupied (use Restart with a drain to wait it out).
func (d *Doctor) Commit(ctx context.Context, name, requestID string) (Owner, error) {
	o, _, err := d.observe(ctx, name)
	if err != nil {
		return o.Owner, err
	}
	if occ := o.Occupancy; !zero(occ) {
		return o.Owner, fmt.Errorf("%w: %s", ErrOccupied, strings.Join(d.blockers(name, occ), ", "))
	}
	if err := o.sup.ExpectExit(o.Incarnation); err != nil {
		return o.Owner, err
	}
	if _, err := o.cl.Commit(ctx, &providerv1.CommitRequest{Fence: o.fence(requestID)}); err != nil {
		o.sup.CancelExpectExit(o.Incarnation)
		return o.Owner, refusal(err)
	}
	d.publish(name, "committed: the owner exits once settled", requestID)
	return o.Owner, nil
}

// Cancel reopens a prepared owner's admission.
func (d *Doctor) Cancel(ctx context.Context, name, requestID string) (Owner, error) {
	o, _, err := d.observe(ctx, name)
	if err != nil {
		return o.Owner, err
	}
	if _, err := o.cl.Cancel(ctx, &providerv1.CancelRequest{Fence: o.fence(requestID)}); err != nil {
		return o.Owner, refusal(err)
	}
	d.publish(name, "cancelled: admission reopened", requestID)
	err = d.fillStatus(ctx, &o)
	return o.Owner, err
}

// RefusedError is an owner's refusal of a fence request; it matches
// ErrRefused. Code is the gRPC code the owner answered with
// (FailedPrecondition: another request id, not prepared, committed;
// Aborted: another doctor's fence; Unavailable: the owner could not be
// reached), which the server keeps on the way to the caller.
type RefusedError struct {
	Code codes.Code
	Msg  string
}

func (e *RefusedError) Error() string { return ErrRefused.Error() + ": " + e.Msg }

// Is matches ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// refusal is the owner's error answer to a fence request, with its code.
func refusal(err error) error {
	st, _ := status.FromError(err)
	return &RefusedError{Code: st.Code(), Msg: st.Message()}
}

func (d *Doctor) publish(name, msg, requestID string) {
	d.cfg.Events.Publish(events.Event{Kind: events.Doctor, Message: name + ": " + msg,
		Attrs: map[string]string{"provider": name, "request_id": requestID}})
}

func zero(o *providerv1.Occupancy) bool {
	return o.GetAttached() == 0 && o.GetInflight() == 0 && o.GetInbound() == 0 && o.GetOutbound() == 0 && o.GetCleanup() == 0
}

// blockers names what keeps the owner from settling.
func (d *Doctor) blockers(name string, o *providerv1.Occupancy) []string {
	var out []string
	if n := o.GetAttached(); n > 0 {
		ids := d.cfg.Providers.Attached(name)
		out = append(out, fmt.Sprintf("%d follower(s) attached: %s", n, strings.Join(ids, " ")))
	}
	for _, c := range []struct {
		n    uint32
		what string
	}{{o.GetInflight(), "attachment/provisioning call(s) in flight"}, {o.GetInbound(), "inbound update(s) not yet acknowledged"},
		{o.GetOutbound(), "outbound delivery(ies) in flight"}, {o.GetCleanup(), "cleanup call(s) unsettled"}} {
		if c.n > 0 {
			out = append(out, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return out
}

func newRequestID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "restart-" + hex.EncodeToString(b)
}

// healthy reports whether the child serves its provider's health service.
func healthy(ctx context.Context, c supervise.Child, name string) bool {
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	r, err := grpc_health_v1.NewHealthClient(c.Conn).Check(hctx, &grpc_health_v1.HealthCheckRequest{Service: name})
	return err == nil && r.GetStatus() == grpc_health_v1.HealthCheckResponse_SERVING
}
