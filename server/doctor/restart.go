package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/backoff"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/supervise"
)

// RestartOptions bound a restart.
type RestartOptions struct {
	// Drain waits at most this long for the owner to settle before
	// committing (it then exits once settled). Zero: commit at once.
	Drain time.Duration
	// Deadline bounds the whole restart. If zero, 60s.
	Deadline time.Duration
}

// Restart runs the whole protocol for one provider and returns its typed
// outcome. progress is called at every step. The error is non-nil only
// when the restart could not begin (unknown provider, one already under
// way); everything after that is an Outcome.
func (d *Doctor) Restart(ctx context.Context, name string, opts RestartOptions, progress func(Progress)) (Outcome, error) {
	return d.runOne(ctx, "restart", name, opts, progress, func(ctx context.Context, r *run) Outcome { return r.do(ctx, opts) })
}

// runOne runs body as the one restart (or retirement) of name under way,
// bounded by opts.Deadline, and publishes and logs its outcome.
func (d *Doctor) runOne(ctx context.Context, verb, name string, opts RestartOptions, progress func(Progress), body func(context.Context, *run) Outcome) (Outcome, error) {
	if opts.Deadline <= 0 {
		opts.Deadline = 60 * time.Second
	}
	requestID, release, err := d.begin(name)
	if err != nil {
		return Outcome{}, err
	}
	defer release()

	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()
	out := body(ctx, &run{d: d, name: name, id: requestID, start: start, progress: progress})
	out.Elapsed = time.Since(start)
	d.publish(name, fmt.Sprintf("%s %s: %s %s %s", verb, requestID, out.Kind, out.Reason, out.Message), requestID)
	d.cfg.Metrics.DoctorOutcome(name, out.Kind.String(), out.Reason.String())
	d.log.Info().Str("provider", name).Str("request_id", requestID).Str("outcome", out.Kind.String()).
		Str("reason", out.Reason.String()).Dur("elapsed", out.Elapsed).Dur("prepare_to_ready", out.PrepareToReady).Msg(out.Message)
	return out, nil
}

// begin claims name for a restart (or retirement), one at a time per
// provider (Providers.BeginRestart); release ends the claim, and with it
// the hold of the calls if the restart took one.
func (d *Doctor) begin(name string) (requestID string, release func(), err error) {
	if _, err := d.cfg.Providers.Supervisor(name); err != nil {
		return "", nil, err
	}
	requestID = newRequestID()
	busy, err := d.cfg.Providers.BeginRestart(name, requestID)
	switch {
	case err != nil:
		return "", nil, err
	case busy != "":
		return "", nil, fmt.Errorf("%w (request %s)", ErrBusy, busy)
	}
	return requestID, func() { d.cfg.Providers.EndRestart(name, requestID) }, nil
}

type run struct {
	d        *Doctor
	name, id string
	start    time.Time
	progress func(Progress)
}

func (r *run) step(p Phase, msg string, occ *providerv1.Occupancy, blockers []string) {
	if r.progress != nil {
		r.progress(Progress{Phase: p, Message: msg, Occupancy: occ, Blockers: blockers, Elapsed: time.Since(r.start)})
	}
}

func (r *run) do(ctx context.Context, opts RestartOptions) Outcome {
	old, proof, prepared, fail := r.stopOwner(ctx, opts, false)
	if fail != nil {
		return *fail
	}
	// The calls stay held until the successor is ready, or refused (the
	// restart's end, runOne's release, lets them go).
	r.step(PhaseSuccessor, "exit proven ("+proof.Kind+"); waiting for the successor", nil, nil)
	succ, adopted, reason, err := r.successor(ctx, old)
	if err != nil {
		return Outcome{Kind: SuccessorRefused, Reason: reason, Message: err.Error(), Old: old.Owner, ExitProof: proof.Kind, Successor: succ.Owner}
	}
	ready := time.Since(prepared)
	r.step(PhaseReady, fmt.Sprintf("successor %s healthy and identified", succ.Incarnation), succ.Occupancy, nil)
	return Outcome{Kind: Restarted, Message: fmt.Sprintf("%s replaced by %s", old.Incarnation, succ.Incarnation),
		Old: old.Owner, Successor: succ.Owner, Adopted: adopted, ExitProof: proof.Kind, PrepareToReady: ready}
}

// stopOwner takes the owner through observe, prepare, drain and commit to
// its proven exit, with its calls held (HoldCalls) from prepare on. final
// retires it: no successor is started (Supervisor.Retire). The hold ends
// with the restart (runOne's release): on failure as soon as fail, the
// outcome, is returned.
func (r *run) stopOwner(ctx context.Context, opts RestartOptions, final bool) (old owner, proof supervise.ExitProof, prepared time.Time, fail *Outcome) {
	d := r.d
	failed := func(o Outcome) (owner, supervise.ExitProof, time.Time, *Outcome) {
		return old, proof, prepared, &o
	}
	r.step(PhaseObserve, "observing the owner", nil, nil)
	old, reason, err := d.observe(ctx, r.name)
	if err != nil {
		return failed(Outcome{Kind: OwnerUnavailable, Reason: reason, Message: err.Error(), Old: old.Owner})
	}

	// Calls are held (durably) from here until the restart ends.
	if err := d.cfg.Providers.HoldCalls(r.name, r.id); err != nil {
		return failed(Outcome{Kind: PrepareRefused, Reason: NotAcknowledged, Message: err.Error(), Old: old.Owner})
	}

	r.step(PhasePrepare, "closing admission (prepare "+r.id+")", old.Occupancy, nil)
	prepared = time.Now()
	lease := opts.Deadline + 5*time.Second
	if _, err := old.cl.Prepare(ctx, &providerv1.PrepareRequest{Fence: old.fence(r.id), Lease: durationpb.New(lease)}); err != nil {
		return failed(Outcome{Kind: PrepareRefused, Reason: transportReason(err), Message: err.Error(), Old: old.Owner})
	}
	// The followers stay attached to the provider, not to this owner:
	// detach them from it (through the provider's one detach queue); the
	// successor is given them when it starts.
	d.cfg.Providers.DetachAll(r.name)

	if opts.Drain > 0 {
		if occ, settled := r.drain(ctx, old, opts.Drain); !settled {
			r.step(PhaseDrain, "drain bound reached; committing anyway: the owner exits once settled", occ, d.blockers(r.name, occ))
		}
	}

	r.step(PhaseCommit, "committing: the owner exits by itself once settled", nil, nil)
	expect := old.sup.ExpectExit
	if final {
		expect = old.sup.Retire
	}
	if err := expect(old.Incarnation); err != nil {
		r.cancel(old)
		return failed(Outcome{Kind: CommitRefused, Reason: NotAcknowledged, Message: err.Error(), Old: old.Owner})
	}
	if _, err := old.cl.Commit(ctx, &providerv1.CommitRequest{Fence: old.fence(r.id)}); err != nil {
		old.sup.CancelExpectExit(old.Incarnation)
		r.cancel(old)
		return failed(Outcome{Kind: CommitRefused, Reason: transportReason(err), Message: err.Error(), Old: old.Owner})
	}

	r.step(PhaseExitProof, fmt.Sprintf("waiting for %s to exit", old.Incarnation), nil, nil)
	proof, err = old.sup.WaitExit(ctx, old.Incarnation)
	if err != nil {
		// Nothing is killed: the owner stays committed and exits when it
		// settles; supervision then starts its successor as usual (or,
		// retired, none).
		return failed(Outcome{Kind: OldOwnerExitTimeout, Message: fmt.Sprintf("%s did not exit: %v", old.Incarnation, err), Old: old.Owner})
	}
	return old, proof, prepared, nil
}

// cancel reopens admission after a failed commit (best effort).
func (r *run) cancel(o owner) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := o.cl.Cancel(ctx, &providerv1.CancelRequest{Fence: o.fence(r.id)}); err != nil {
		r.d.log.Warn().Err(err).Str("provider", r.name).Msg("cancel after a refused commit")
	}
}

// drain streams occupancy until it is zero or the bound passes.
func (r *run) drain(ctx context.Context, o owner, bound time.Duration) (*providerv1.Occupancy, bool) {
	dctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	st, err := o.cl.WatchOccupancy(dctx, &providerv1.WatchOccupancyRequest{})
	if err != nil {
		return o.Occupancy, false
	}
	var last *providerv1.Occupancy
	for {
		resp, err := st.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return last, zero(last)
			}
			return last, false
		}
		last = resp.GetOccupancy()
		if zero(last) {
			r.step(PhaseDrain, "settled", last, nil)
			return last, true
		}
		r.step(PhaseDrain, "waiting for the owner to settle", last, r.d.blockers(r.name, last))
	}
}

// successor waits for the next child, healthy and identified. It wakes on
// every change of the supervision state (a child started, its health
// changed); between those it asks again, at a growing interval, only
// while the child runs but does not identify yet (its platform has not
// answered).
func (r *run) successor(ctx context.Context, old owner) (owner, bool, Reason, error) {
	sup := old.sup
	cur, adopted := sup.Current()
	adopted = adopted && cur.Incarnation != old.Incarnation
	for {
		changed := sup.Changed()
		child, err := sup.WaitRunning(ctx)
		if errors.Is(err, supervise.ErrFatal) || errors.Is(err, supervise.ErrStopped) {
			return owner{}, false, StartRefused, fmt.Errorf("successor did not start: %v (last error: %s)", err, sup.Status().LastError)
		}
		if err != nil {
			return owner{}, false, publicationReason(sup), fmt.Errorf("no successor published: %v (last error: %s)", err, sup.Status().LastError)
		}
		if child.Incarnation == old.Incarnation {
			if err := waitChange(ctx, changed, 0); err != nil {
				return owner{}, false, PublicationTimeout, err
			}
			continue
		}
		again := backoff.Policy{Initial: 10 * time.Millisecond, Max: 500 * time.Millisecond}.New()
		for {
			changed := sup.Changed()
			o, _, err := r.d.observe(ctx, r.name)
			if err == nil && o.Incarnation == child.Incarnation && healthy(ctx, child, r.name) {
				return o, adopted, NoReason, nil
			}
			if cur, ok := sup.Current(); !ok || cur.Incarnation != child.Incarnation {
				break // that one died: wait for the next
			}
			if err := waitChange(ctx, changed, again.NextBackOff()); err != nil {
				return o, adopted, PublicationTimeout, fmt.Errorf("successor %s never became healthy and identified", child.Incarnation)
			}
		}
	}
}

// publicationReason: a successor that keeps failing to start is refused;
// one that is just slow timed out.
func publicationReason(sup *supervise.Supervisor) Reason {
	st := sup.Status()
	if st.State == supervise.StateFatal || (st.State == supervise.StateBackoff && st.LastError != "") {
		return StartRefused
	}
	return PublicationTimeout
}

// waitChange waits until changed is closed, or at most d (0: no bound),
// or ctx ends (its error).
func waitChange(ctx context.Context, changed <-chan struct{}, d time.Duration) error {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-changed:
	case <-timeout:
	}
	return nil
}
