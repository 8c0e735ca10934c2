//go:build linux

package main

// The profiled supervisor's runtime over a phase (runtime/metrics): how
// long its goroutines waited to run once runnable (the scheduler's
// latency), its stop-the-world pauses, and the collector's share of its
// CPU. Beside the per-stage breakdown, they say how much of a tail is the
// Go runtime's own queueing rather than chatbus's.

import (
	"encoding/json"
	"math"
	"os"
	"runtime/metrics"
	"time"
)

// The metrics read (Go 1.22's names).
const (
	metricSchedLatency = "/sched/latencies:seconds"
	metricPauses       = "/sched/pauses/total/gc:seconds"
	metricGCCPU        = "/cpu/classes/gc/total:cpu-seconds"
	metricTotalCPU     = "/cpu/classes/total:cpu-seconds"
)

// runtimeStats is what a phase's runtime did.
type runtimeStats struct {
	SchedLatency histQuantiles `json:"sched_latency"`
	GCPauses     histQuantiles `json:"gc_pauses"`
	// GCCPUShare is the collector's part of the process's CPU time
	// (runtime/metrics' estimate: its marking, assists and pauses).
	GCCPUShare float64 `json:"gc_cpu_share"`
}

// histQuantiles summarises a histogram of durations.
type histQuantiles struct {
	N   uint64        `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

func readRuntime() []metrics.Sample {
	s := []metrics.Sample{{Name: metricSchedLatency}, {Name: metricPauses}, {Name: metricGCCPU}, {Name: metricTotalCPU}}
	metrics.Read(s)
	return s
}

// runtimeBetween is what the runtime did between two readRuntime.
func runtimeBetween(before, after []metrics.Sample) runtimeStats {
	var out runtimeStats
	hist := func(i int) histQuantiles {
		if before[i].Value.Kind() != metrics.KindFloat64Histogram || after[i].Value.Kind() != metrics.KindFloat64Histogram {
			return histQuantiles{}
		}
		return histDelta(before[i].Value.Float64Histogram(), after[i].Value.Float64Histogram())
	}
	out.SchedLatency, out.GCPauses = hist(0), hist(1)
	if before[2].Value.Kind() == metrics.KindFloat64 && before[3].Value.Kind() == metrics.KindFloat64 {
		if total := after[3].Value.Float64() - before[3].Value.Float64(); total > 0 {
			out.GCCPUShare = (after[2].Value.Float64() - before[2].Value.Float64()) / total
		}
	}
	return out
}

// histDelta is the quantiles of what a cumulative histogram counted
// between two readings (same buckets): each quantile is the upper bound
// of the bucket it falls in (the lower one for the last, unbounded
// bucket), so it errs on the long side.
func histDelta(before, after *metrics.Float64Histogram) histQuantiles {
	if len(before.Counts) != len(after.Counts) {
		return histQuantiles{}
	}
	counts := make([]uint64, len(after.Counts))
	var n uint64
	for i := range counts {
		counts[i] = after.Counts[i] - before.Counts[i]
		n += counts[i]
	}
	if n == 0 {
		return histQuantiles{}
	}
	bound := func(i int) time.Duration {
		hi := after.Buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = after.Buckets[i]
		}
		return time.Duration(hi * 1e9)
	}
	q := func(p float64) time.Duration {
		want := uint64(math.Ceil(p * float64(n)))
		var seen uint64
		for i, c := range counts {
			if seen += c; seen >= want && c > 0 {
				return bound(i)
			}
		}
		return 0
	}
	out := histQuantiles{N: n, P50: q(0.5), P99: q(0.99)}
	for i := len(counts) - 1; i >= 0; i-- {
		if counts[i] > 0 {
			out.Max = bound(i)
			break
		}
	}
	return out
}

// writeRuntime writes what the runtime did since before to path (JSON).
func writeRuntime(path string, before []metrics.Sample) {
	if before == nil {
		return
	}
	if js, err := json.MarshalIndent(runtimeBetween(before, readRuntime()), "", "  "); err == nil {
		os.WriteFile(path, js, 0o644)
	}
}
