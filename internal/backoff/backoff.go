// Package backoff owns chatbus's one exponential backoff: how long a loop
// that retries waits before its next try. The sequence is
// github.com/cenkalti/backoff/v5's ExponentialBackOff with a multiplier of
// 2: the first delay is Policy.Initial, each further one doubles, up to
// Policy.Max, each spread by Policy.Jitter (the library's
// RandomizationFactor). A Policy is walked in one of two ways: New, for a
// loop that asks for the next delay before each wait and resets after a
// success; or Delay, for a loop that counts its failures itself. Sleep is
// the wait itself, on a context.
//
// A leaf: it imports nothing of this module, so the client, the provider
// SDK and the providers may use it as the supervisor does.
package backoff

import (
	"context"
	"time"

	cenkalti "github.com/cenkalti/backoff/v5"
)

// ExponentialBackOff is the library's stateful backoff: NextBackOff returns
// the delay before the next try and advances, Reset starts over. Not safe
// for concurrent use.
type ExponentialBackOff = cenkalti.ExponentialBackOff

// maxSteps bounds the doublings Delay walks: from 1ns, 64 doublings pass
// any Duration, so the step has reached Max by then.
const maxSteps = 64

// Policy is an exponential backoff. The zero value waits not at all.
type Policy struct {
	// Initial is the first delay (its step before jitter).
	Initial time.Duration
	// Max caps the step: each delay's step is Initial doubled once per
	// earlier delay, at most Max. The jitter spreads around the capped
	// step, so a delay may be up to Max·(1+Jitter). Below Initial it
	// counts as Initial.
	Max time.Duration
	// Jitter spreads each delay uniformly over [step·(1−Jitter),
	// step·(1+Jitter)]; 0.2 is ±20%. Zero: every delay is its step. It
	// must be below 1.
	Jitter float64
}

// New returns p's delays in order, reset: its first NextBackOff is p's
// first delay.
func (p Policy) New() *ExponentialBackOff {
	b := &ExponentialBackOff{
		InitialInterval:     p.Initial,
		RandomizationFactor: p.Jitter,
		Multiplier:          2,
		MaxInterval:         max(p.Max, p.Initial),
	}
	b.Reset()
	return b
}

// Delay returns p's n-th delay (n from 1; below 1 counts as 1): the one the
// n-th NextBackOff after a reset of New would return.
func (p Policy) Delay(n int) time.Duration {
	b := p.New()
	jitter := b.RandomizationFactor
	b.RandomizationFactor = 0 // walk the steps; spread only the last
	for i := 1; i < n && i <= maxSteps; i++ {
		if b.NextBackOff() >= b.MaxInterval {
			break // at the cap: every later step is the same
		}
	}
	b.RandomizationFactor = jitter
	return b.NextBackOff()
}

// Sleep waits d, or until ctx ends; it returns ctx.Err() if ctx ended
// first (or had ended), nil if d passed.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
