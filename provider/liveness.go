package provider

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Liveness turns what a platform's round trips say into [Health], so that
// a provider reports NOT_SERVING when it cannot do its job and SERVING
// again by itself once it can. A Platform feeds it:
//
//   - [Liveness.Succeeded] after a round trip that worked (a poll answered);
//   - [Liveness.Failed] after one that failed for a passing reason (the
//     platform unreachable, a 5xx, a timeout, a rate limit). One failure
//     is not an outage: the provider turns NOT_SERVING once MaxFailures
//     round trips in a row failed, or the failures have gone on for
//     MaxFailing, whichever comes first;
//   - [Liveness.Refused] when the platform refused the connection itself
//     (a revoked token, another poller holding it): NOT_SERVING at once,
//     until a round trip succeeds;
//   - [Liveness.Block] for a standing problem no round trip clears (the
//     configured chat cannot be used), [Liveness.Unblock] once it is gone.
//
// It is serving when nothing is refused, nothing is blocked and the
// failures are within the bound; the reason reported is the refusal, else
// the first block, else the failures. Safe for concurrent use.
type Liveness struct {
	h           *Health
	maxFailures int
	maxFailing  time.Duration
	now         func() time.Time

	mu           sync.Mutex // guards below
	failures     int        // round trips failed in a row
	failingSince time.Time  // first failure of the current run
	failWhy      string     // the last failure's reason
	refused      string     // set by Refused until Succeeded
	blocks       []block    // standing problems, in the order they came
}

type block struct{ key, why string }

// LivenessConfig tunes a [Liveness].
type LivenessConfig struct {
	// MaxFailures is how many round trips in a row may fail before the
	// provider is NOT_SERVING. If zero, 3.
	MaxFailures int
	// MaxFailing is how long round trips may keep failing before the
	// provider is NOT_SERVING, however few they were. If zero, 10s.
	MaxFailing time.Duration
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// NewLiveness returns a Liveness that reports to h (which may already be
// attached to a server).
func NewLiveness(h *Health, cfg LivenessConfig) *Liveness {
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = 3
	}
	if cfg.MaxFailing <= 0 {
		cfg.MaxFailing = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Liveness{h: h, maxFailures: cfg.MaxFailures, maxFailing: cfg.MaxFailing, now: cfg.Now}
}

// Succeeded records a round trip that worked: the failures and a refusal
// are over.
func (l *Liveness) Succeeded() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures, l.failingSince, l.failWhy, l.refused = 0, time.Time{}, "", ""
	l.publishLocked()
}

// Failed records a round trip that failed for a passing reason; why says
// what happened ("Bot API unreachable: connection refused").
func (l *Liveness) Failed(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failures == 0 {
		l.failingSince = l.now()
	}
	l.failures++
	l.failWhy = why
	l.publishLocked()
}

// Refused records that the platform refused the connection itself; it is
// NOT_SERVING with why until a round trip succeeds.
func (l *Liveness) Refused(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused = why
	l.publishLocked()
}

// Block records a standing problem under key ("chat"); a second Block of
// the same key replaces its reason.
func (l *Liveness) Block(key, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.IndexFunc(l.blocks, func(b block) bool { return b.key == key }); i >= 0 {
		l.blocks[i].why = why
	} else {
		l.blocks = append(l.blocks, block{key, why})
	}
	l.publishLocked()
}

// Unblock clears the problem under key, if any.
func (l *Liveness) Unblock(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.blocks = slices.DeleteFunc(l.blocks, func(b block) bool { return b.key == key })
	l.publishLocked()
}

// publishLocked sets the Health from the state; l.mu is held. (Health
// has its own lock and never calls back: the order is l.mu, then h.mu.)
func (l *Liveness) publishLocked() {
	switch {
	case l.refused != "":
		l.h.Set(false, l.refused)
	case len(l.blocks) > 0:
		l.h.Set(false, l.blocks[0].why)
	case l.failures >= l.maxFailures || (l.failures > 0 && l.now().Sub(l.failingSince) >= l.maxFailing):
		l.h.Set(false, fmt.Sprintf("%s (%d attempts in a row failed over %s)", l.failWhy, l.failures,
			l.now().Sub(l.failingSince).Round(100*time.Millisecond)))
	default:
		l.h.Set(true, "")
	}
}
