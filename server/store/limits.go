package store

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/chatbus/chatbus/server/journal"
)

// SetLimits replaces the journal bounds (zero fields: the defaults) for
// every later write, and enforces them on every journal at once (drops are
// reported to OnDrop, as retention's are). The journal's writer applies
// them between two of its batches.
func (s *Bolt) SetLimits(ctx context.Context, l Limits) error {
	l = l.withDefaults()
	err := s.jr.SetLimits(ctx, journal.Limits{MaxCount: l.MaxCount, MaxBytes: l.MaxBytes, MaxAge: l.MaxAge}, l.TotalBytes)
	if err != nil {
		return fmt.Errorf("set journal bounds: %w", s.journalErr(err))
	}
	return nil
}

// Ping returns once the committer has run a (empty) write transaction: it
// proves the one goroutine every write waits for is not stuck. It fails
// with ctx's error if that does not happen before ctx ends.
func (s *Bolt) Ping(ctx context.Context) error {
	return s.write(ctx, func(*bbolt.Tx) error { return nil }, nil)
}
