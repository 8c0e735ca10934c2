package backoff_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/backoff"
)

const ms = time.Millisecond

func TestDelaySteps(t *testing.T) {
	tests := []struct {
		name string
		p    backoff.Policy
		want []time.Duration // Delay(1), Delay(2), …
	}{
		{name: "doubles to the cap", p: backoff.Policy{Initial: 100 * ms, Max: 5 * time.Second},
			want: []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5 * time.Second, 5 * time.Second}},
		{name: "a cap that is a step", p: backoff.Policy{Initial: 250 * ms, Max: time.Second},
			want: []time.Duration{250 * ms, 500 * ms, time.Second, time.Second}},
		{name: "max below initial", p: backoff.Policy{Initial: time.Second, Max: 10 * ms},
			want: []time.Duration{time.Second, time.Second, time.Second}},
		{name: "max zero", p: backoff.Policy{Initial: 50 * ms},
			want: []time.Duration{50 * ms, 50 * ms}},
		{name: "zero policy", p: backoff.Policy{},
			want: []time.Duration{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.p.New()
			for i, want := range tt.want {
				if got := tt.p.Delay(i + 1); got != want {
					t.Errorf("Delay(%d) = %v, want %v", i+1, got, want)
				}
				if got := b.NextBackOff(); got != want {
					t.Errorf("NextBackOff #%d = %v, want %v", i+1, got, want)
				}
			}
			b.Reset()
			if got := b.NextBackOff(); got != tt.want[0] {
				t.Errorf("after Reset: NextBackOff = %v, want %v", got, tt.want[0])
			}
		})
	}
}

func TestDelayCounts(t *testing.T) {
	p := backoff.Policy{Initial: 100 * ms, Max: 10 * time.Second}
	tests := []struct {
		name string
		n    int
		want time.Duration
	}{
		{name: "zero counts as one", n: 0, want: 100 * ms},
		{name: "negative counts as one", n: -3, want: 100 * ms},
		{name: "last step below the cap", n: 7, want: 6400 * ms},
		{name: "capped", n: 8, want: 10 * time.Second},
		{name: "past any doubling", n: 1 << 40, want: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Delay(tt.n); got != tt.want {
				t.Errorf("Delay(%d) = %v, want %v", tt.n, got, tt.want)
			}
		})
	}
}

func TestJitterSpreadsAroundTheStep(t *testing.T) {
	tests := []struct {
		name   string
		p      backoff.Policy
		n      int
		lo, hi time.Duration
	}{
		{name: "first step ±20%", p: backoff.Policy{Initial: time.Second, Max: 30 * time.Second, Jitter: 0.2}, n: 1, lo: 800 * ms, hi: 1200 * ms},
		{name: "fourth step ±20%", p: backoff.Policy{Initial: time.Second, Max: 30 * time.Second, Jitter: 0.2}, n: 4, lo: 6400 * ms, hi: 9600 * ms},
		{name: "around the cap", p: backoff.Policy{Initial: time.Second, Max: 30 * time.Second, Jitter: 0.2}, n: 9, lo: 24 * time.Second, hi: 36 * time.Second},
		{name: "±25%", p: backoff.Policy{Initial: 200 * ms, Max: 30 * time.Second, Jitter: 0.25}, n: 3, lo: 600 * ms, hi: 1000 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[time.Duration]bool{}
			var below, above bool
			mid := (tt.lo + tt.hi) / 2
			for range 2000 {
				d := tt.p.Delay(tt.n)
				if d < tt.lo || d > tt.hi+1 { // the library's interval is closed: +1ns
					t.Fatalf("Delay(%d) = %v, want within [%v, %v]", tt.n, d, tt.lo, tt.hi)
				}
				seen[d] = true
				below = below || d < mid-(tt.hi-tt.lo)/4
				above = above || d > mid+(tt.hi-tt.lo)/4
			}
			if len(seen) < 100 || !below || !above {
				t.Errorf("2000 delays: %d distinct, some in the lower quarter %v, the upper %v: not spread", len(seen), below, above)
			}
		})
	}
}

func TestSleep(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{name: "the delay passes", ctx: context.Background(), d: ms, want: nil},
		{name: "no delay", ctx: context.Background(), d: 0, want: nil},
		{name: "a context that ended", ctx: ended, d: time.Hour, want: context.Canceled},
		{name: "no delay, a context that ended", ctx: ended, d: 0, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := backoff.Sleep(tt.ctx, tt.d); !errors.Is(err, tt.want) {
				t.Errorf("Sleep = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- backoff.Sleep(ctx, time.Hour) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v, want context.Canceled", err)
	}
}
