//go:build linux

package main

import (
	"math"
	"runtime/metrics"
	"testing"
	"time"
)

// TestHistDelta: the quantiles of what a cumulative runtime histogram
// counted between two readings, each the upper bound of its bucket.
func TestHistDelta(t *testing.T) {
	buckets := []float64{0, 1e-6, 1e-3, 1e-2, math.Inf(1)} // s: [0,1µs) [1µs,1ms) [1ms,10ms) [10ms,∞)
	tests := []struct {
		name          string
		before, after []uint64
		want          histQuantiles
	}{
		{name: "nothing between", before: []uint64{5, 5, 5, 5}, after: []uint64{5, 5, 5, 5}},
		{name: "all fast", before: []uint64{10, 0, 0, 0}, after: []uint64{110, 0, 0, 0},
			want: histQuantiles{N: 100, P50: time.Microsecond, P99: time.Microsecond, Max: time.Microsecond}},
		{name: "a tail", before: []uint64{1000, 7, 0, 0}, after: []uint64{1000, 97, 9, 0},
			want: histQuantiles{N: 99, P50: time.Millisecond, P99: 10 * time.Millisecond, Max: 10 * time.Millisecond}},
		{name: "the unbounded bucket: its lower bound", before: []uint64{0, 0, 0, 0}, after: []uint64{0, 50, 0, 50},
			want: histQuantiles{N: 100, P50: time.Millisecond, P99: 10 * time.Millisecond, Max: 10 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := histDelta(&metrics.Float64Histogram{Counts: tt.before, Buckets: buckets}, &metrics.Float64Histogram{Counts: tt.after, Buckets: buckets})
			if got != tt.want {
				t.Errorf("histDelta = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRuntimeBetween reads this process's runtime twice around some
// garbage: the scheduler's latencies and the pauses are counted.
func TestRuntimeBetween(t *testing.T) {
	before := readRuntime()
	var keep [][]byte
	for i := range 2000 {
		keep = append(keep, make([]byte, 64<<10))
		if i%100 == 0 {
			keep = nil
		}
	}
	_ = keep
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
	rt := runtimeBetween(before, readRuntime())
	if rt.SchedLatency.N == 0 || rt.GCPauses.N == 0 {
		t.Errorf("runtimeBetween = %+v: no scheduling or no pause counted", rt)
	}
	if rt.GCCPUShare <= 0 || rt.GCCPUShare > 1 {
		t.Errorf("the collector's share %v", rt.GCCPUShare)
	}
}
