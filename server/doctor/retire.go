package doctor

import (
	"context"
	"fmt"
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
	return d.runOne(ctx, "retire", name, opts, progress, func(ctx context.Context, r *run) Outcome {
		old, proof, _, fail := r.stopOwner(ctx, opts, true)
		if fail != nil {
			return *fail
		}
		return Outcome{Kind: Retired, Old: old.Owner, ExitProof: proof.Kind,
			Message: fmt.Sprintf("%s exited (%s); no successor", old.Incarnation, proof.Kind)}
	})
}
