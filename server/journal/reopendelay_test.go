package journal

import (
	"testing"
	"time"
)

// TestReopenDelay: the pause before a reopen doubles per failure in a
// row, from 100ms to 10s.
func TestReopenDelay(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name     string
		failures int
		want     time.Duration
	}{
		{name: "none yet", failures: 0, want: 100 * ms},
		{name: "the first", failures: 1, want: 100 * ms},
		{name: "the second", failures: 2, want: 200 * ms},
		{name: "below the cap", failures: 7, want: 6400 * ms},
		{name: "capped", failures: 8, want: 10 * time.Second},
		{name: "a long outage", failures: 100000, want: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &Journal{}
			j.w.failures = tt.failures
			if got := j.reopenDelay(); got != tt.want {
				t.Errorf("reopenDelay after %d failures = %v, want %v", tt.failures, got, tt.want)
			}
		})
	}
}
