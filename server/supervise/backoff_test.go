package supervise

import (
	"testing"
	"time"
)

// TestBackoffDelay: the delay before a restart is BackoffInitial doubled
// per earlier quick death in a row, ±25%, never above BackoffMax.
func TestBackoffDelay(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name         string
		initial, max time.Duration
		quick        int
		step         time.Duration
	}{
		{name: "a death after a long life", initial: 200 * ms, max: 30 * time.Second, quick: 0, step: 200 * ms},
		{name: "first quick death", initial: 200 * ms, max: 30 * time.Second, quick: 1, step: 200 * ms},
		{name: "third quick death", initial: 200 * ms, max: 30 * time.Second, quick: 3, step: 800 * ms},
		{name: "capped", initial: 200 * ms, max: 30 * time.Second, quick: 9, step: 30 * time.Second},
		{name: "near the cap", initial: 20 * ms, max: 50 * ms, quick: 2, step: 40 * ms},
		{name: "at the cap", initial: 20 * ms, max: 50 * ms, quick: 5, step: 50 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Spec{Name: "x", BackoffInitial: tt.initial, BackoffMax: tt.max})
			s.mu.Lock()
			s.quick = tt.quick
			lo, hi := tt.step*3/4, min(tt.step*5/4, tt.max)
			for range 500 {
				if d := s.backoff(); d < lo || d > hi {
					t.Fatalf("backoff() after %d quick deaths = %v, want within [%v, %v]", tt.quick, d, lo, hi)
				}
			}
			s.mu.Unlock()
		})
	}
}
