package store

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"
)

// SetLimits replaces the journal bounds (zero fields: the defaults) for
// every later write, and enforces them on every journal at once (drops are
// reported to OnDrop, as retention's are). The bounds are only read on the
// committer goroutine, so they change there, between two transactions.
func (s *Bolt) SetLimits(ctx context.Context, l Limits) error {
	l = l.withDefaults()
	if err := s.write(ctx, func(*bbolt.Tx) error {
		s.opts.Limits = l
		return nil
	}, nil); err != nil {
		return fmt.Errorf("store %s: set journal bounds: %w", s.path, err)
	}
	return s.ApplyRetention()
}

// Ping returns once the committer has run a (empty) write transaction: it
// proves the one goroutine every write waits for is not stuck. It fails
// with ctx's error if that does not happen before ctx ends.
func (s *Bolt) Ping(ctx context.Context) error {
	return s.write(ctx, func(*bbolt.Tx) error { return nil }, nil)
}
