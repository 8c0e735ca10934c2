package botapi

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/chatbus/chatbus/internal/backoff"
)

// State is the health of a [Poller], reported through Poller.OnState.
type State int

const (
	// StateServing: getUpdates succeeds.
	StateServing State = iota + 1
	// StateRetrying: a transient failure (network error, timeout, 5xx,
	// undecodable response, other API error); backing off exponentially.
	StateRetrying
	// StateRateLimited: 429; waiting for the retry_after Telegram asked for.
	StateRateLimited
	// StateConflict: 409; another process is polling with the same token
	// (or a webhook is set). Backing off until it goes away.
	StateConflict
	// StateUnauthorized: 401 (the token is wrong or was revoked) or 403
	// (the bot may not poll). Retrying at the slowest rate in case it is
	// restored: repeating the request fast cannot help.
	StateUnauthorized
	// StateHandlerFailed: Handle returned an error or acknowledged nothing
	// of a batch; the unacknowledged updates will be fetched again after a
	// backoff.
	StateHandlerFailed
)

var stateNames = map[State]string{
	StateServing:       "serving",
	StateRetrying:      "retrying",
	StateRateLimited:   "rate-limited",
	StateConflict:      "conflict",
	StateUnauthorized:  "unauthorized",
	StateHandlerFailed: "handler-failed",
}

func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return "unknown"
}

// ErrNoProgress is reported with StateHandlerFailed when Handle returned
// no error but acknowledged none of the batch it was given.
var ErrNoProgress = errors.New("botapi: handler acknowledged no update of the batch")

// DefaultAllowedUpdates are the update kinds a Poller asks for when
// AllowedUpdates is nil. message_reaction must be named explicitly:
// Telegram does not send it by default. Treat the slice as read-only.
var DefaultAllowedUpdates = []string{KindMessage, KindEditedMessage, KindCallbackQuery, KindMessageReaction}

// Backoff. Each failure class grows from its own first delay, doubling
// per consecutive failure (of any class), up to maxBackoff; jitter takes
// up to a fifth off each step so that competing pollers drift apart, and
// never adds to it, so that maxBackoff holds.
const maxBackoff = 30 * time.Second

var (
	transientBackoff = backoff.Policy{Initial: 250 * time.Millisecond, Max: maxBackoff}
	conflictBackoff  = backoff.Policy{Initial: time.Second, Max: maxBackoff}
)

// rateLimitJitter is the most added to a 429's retry_after.
const rateLimitJitter = 250 * time.Millisecond

// Poller owns the getUpdates loop of one bot token. Telegram allows one
// poller per token, so a process should run at most one Poller per token.
//
// Delivery contract: Telegram forgets an update only when a getUpdates
// call asks for a higher offset. The Poller asks for ackedThrough+1, where
// ackedThrough is what Handle reported as durably stored, and never for
// more. If Handle acknowledges only part of a batch, the next call
// fetches the rest again; so every update reaches Handle at least once,
// in order, and an update that Handle acknowledged is never delivered
// again by this Poller.
//
// Set the fields before Run; do not change them while it runs.
type Poller struct {
	// Client is used for getUpdates. Required.
	Client *Client

	// Timeout is the long-poll timeout, sent in whole seconds (Telegram's
	// unit). If zero, 30s. Values below 1s are raised to 1s, so that an
	// empty answer always means the server waited.
	Timeout time.Duration

	// Limit caps a batch, 1..100. If zero, 100.
	Limit int

	// AllowedUpdates is sent with every call. If nil, DefaultAllowedUpdates.
	AllowedUpdates []string

	// Offset is the offset of the first call: one more than the last
	// update id durably acknowledged before this Poller started. Zero
	// starts at the oldest update Telegram still holds.
	Offset int64

	// Handle receives every non-empty batch, in update-id order, and
	// returns the highest update id it has durably acknowledged (or a
	// lower value, even one below the batch, to acknowledge nothing).
	// Values above the batch's last id are treated as the last id. If it
	// returns an error, what it acknowledged still counts and the rest is
	// fetched again after a backoff. Required.
	Handle func(ctx context.Context, batch []Update) (ackedThrough int64, err error)

	// OnState, if set, is called from Run's goroutine: with StateServing
	// and a nil error after the first successful call and after the
	// first success that follows a failure; and with the failure's state
	// and error after every failure, before the backoff sleep.
	OnState func(State, error)

	// Sleep waits for d or until ctx is done, returning ctx.Err() in the
	// latter case. Tests replace it to observe the backoff without
	// waiting. If nil, a timer-based sleep.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Run polls until ctx is done and then returns ctx.Err(). Platform and
// handler failures never end it: they are reported through OnState and
// retried with backoff. It returns a different error only for an
// incomplete Poller.
func (p *Poller) Run(ctx context.Context) error {
	if p.Client == nil || p.Handle == nil {
		return errors.New("botapi: Poller needs a Client and a Handle func")
	}
	sleep := p.Sleep
	if sleep == nil {
		sleep = backoff.Sleep
	}
	timeout := p.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	params := GetUpdatesParams{
		Offset:         p.Offset,
		Limit:          p.Limit,
		Timeout:        max(int(timeout/time.Second), 1),
		AllowedUpdates: p.AllowedUpdates,
	}
	if params.AllowedUpdates == nil {
		params.AllowedUpdates = DefaultAllowedUpdates
	}
	if params.Limit < 0 || params.Limit > 100 {
		params.Limit = 100
	}

	var (
		failures int  // consecutive failures, for the backoff
		serving  bool // whether StateServing was the last state reported
	)
	fail := func(st State, err error, d time.Duration) error {
		failures++
		serving = false
		p.report(st, err)
		return sleep(ctx, d)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, err := p.Client.GetUpdates(ctx, params)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			st, d := classify(err, failures)
			if err := fail(st, err, d); err != nil {
				return err
			}
			continue
		}
		if !serving {
			serving = true
			p.report(StateServing, nil)
		}
		if len(batch) == 0 {
			failures = 0
			continue
		}
		last := batch[len(batch)-1].UpdateID
		acked, herr := p.Handle(ctx, batch)
		acked = min(acked, last)
		progressed := acked >= params.Offset && acked >= batch[0].UpdateID
		if progressed {
			params.Offset = acked + 1
		}
		if herr == nil && !progressed {
			herr = ErrNoProgress
		}
		if herr != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fail(StateHandlerFailed, herr, retryAfter(transientBackoff, failures)); err != nil {
				return err
			}
			continue
		}
		failures = 0
	}
}

func (p *Poller) report(st State, err error) {
	if p.OnState != nil {
		p.OnState(st, err)
	}
}

// classify maps a getUpdates error to the state to report and the time to
// wait, given the number of consecutive failures before this one.
func classify(err error, failures int) (State, time.Duration) {
	if ra, ok := IsRateLimited(err); ok && ra > 0 {
		return StateRateLimited, ra + rand.N(rateLimitJitter)
	}
	switch {
	case IsConflict(err):
		return StateConflict, retryAfter(conflictBackoff, failures)
	case IsUnauthorized(err), IsForbidden(err):
		return StateUnauthorized, jitter(maxBackoff)
	}
	return StateRetrying, retryAfter(transientBackoff, failures)
}

// retryAfter returns p's step after failures earlier failures, minus
// jitter.
func retryAfter(p backoff.Policy, failures int) time.Duration {
	return jitter(p.Delay(failures + 1))
}

// jitter returns d less a random amount of up to a fifth of d.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	return d - rand.N(d/5+1)
}
