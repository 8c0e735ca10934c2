package doctor

import (
	"context"
	"fmt"
	"time"
)

// Retire takes a provider out of service for good (it was removed from the
// config): the same protocol as Restart up to the owner's proven exit —
// admission closed, calls held, followers detached, a bounded drain, the
// owner exits by itself once settled — and then no successor: its
// supervision stops (STOPPED). The outcome is Retired, or the Restart
// outcome that stopped it short (then the owner still runs, or, for
// OwnerUnavailable, there was none to drain). Like Restart, the error is
// non-nil only when it could not begin.
func (d *Doctor) Retire(ctx context.Context, name string, opts RestartOptions, progress func(Progress)) (Outcome, error) {
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
	r := &run{d: d, name: name, id: requestID, start: start, progress: progress}
	old, proof, _, fail := r.stopOwner(ctx, opts, true)
	var out Outcome
	if fail != nil {
		out = *fail
	} else {
		d.cfg.Providers.EndRestart(name, requestID)
		out = Outcome{Kind: Retired, Old: old.Owner, ExitProof: proof.Kind,
			Message: fmt.Sprintf("%s exited (%s); no successor", old.Incarnation, proof.Kind)}
	}
	out.Elapsed = time.Since(start)
	d.publish(name, fmt.Sprintf("retire %s: %s %s %s", requestID, out.Kind, out.Reason, out.Message), requestID)
	d.log.Info().Str("provider", name).Str("request_id", requestID).Str("outcome", out.Kind.String()).
		Str("reason", out.Reason.String()).Dur("elapsed", out.Elapsed).Msg(out.Message)
	return out, nil
}
