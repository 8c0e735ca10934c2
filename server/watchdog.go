package server

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/chatbus/chatbus/server/liveness"
)

// WatchdogConfig configures the liveness ping (systemd's WATCHDOG=1).
// Every Interval the supervisor asks each of its own loops whether it is
// alive — the hub's timer loop (pruning, handoff expiry, retention), each
// provider's update pump, the store's committer — and calls Notify only if
// every one answered within Bound. A stalled loop thus stops the pings,
// and systemd restarts the supervisor when WatchdogSec passes without one.
type WatchdogConfig struct {
	// Interval between pings. If zero, no pings.
	Interval time.Duration
	// Bound is how long each loop has to answer. If zero, Interval/2.
	Bound time.Duration
	// Notify sends one ping. Required with Interval.
	Notify func()
}

// pinger is a Store whose committer can be probed (store.Bolt.Ping).
type pinger interface {
	Ping(ctx context.Context) error
}

// Liveness returns the registry of the supervisor's loop probes (tests
// and embedders look at it).
func (s *Server) Liveness() *liveness.Registry { return s.alive }

// watchdog pings while every loop answers, until ctx ends. It logs when
// pings stop (naming the loops that did not answer) and when they resume.
func (s *Server) watchdog(ctx context.Context) {
	w := s.cfg.Watchdog
	if w.Interval <= 0 || w.Notify == nil {
		return
	}
	bound := w.Bound
	if bound <= 0 {
		bound = w.Interval / 2
	}
	log := s.log.With().Str("component", "watchdog").Logger()
	loops := s.alive.Names()
	log.Info().Dur("interval", w.Interval).Dur("bound", bound).Strs("loops", loops).Msg("watchdog pings on")
	t := time.NewTicker(w.Interval)
	defer t.Stop()
	stalled := false
	for {
		// Loops come and go with providers (started, added, removed).
		if now := s.alive.Names(); !slices.Equal(now, loops) {
			loops = now
			log.Info().Strs("loops", loops).Msg("watchdog watches these loops now")
		}
		failures := s.alive.Check(ctx, bound)
		if ctx.Err() != nil {
			return
		}
		switch {
		case len(failures) == 0:
			w.Notify()
			if stalled {
				log.Warn().Msg("every loop answers again: watchdog pings resume")
				stalled = false
			}
		case !stalled:
			why := make([]string, len(failures))
			for i, f := range failures {
				why[i] = f.String()
			}
			log.Error().Str("stalled", strings.Join(why, "; ")).Msg("a supervisor loop does not answer: watchdog pings withheld (systemd restarts supervisord if this lasts)")
			stalled = true
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Shutdown begins a graceful stop, as the end of Run's context does, and
// returns once draining has begun (or ctx ends first).
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	select {
	case <-s.drainingC:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
