package bench

import (
	"math"
	"slices"
	"time"
)

// Summary describes a latency sample.
type Summary struct {
	N    int           `json:"n"`
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	P999 time.Duration `json:"p999_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Summarize sorts d in place and summarizes it. Percentiles are the
// nearest-rank ones: p99 of 1000 samples is the 990th smallest.
func Summarize(d []time.Duration) Summary {
	if len(d) == 0 {
		return Summary{}
	}
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return Summary{
		N:    len(d),
		Mean: sum / time.Duration(len(d)),
		P50:  Percentile(d, 0.50),
		P90:  Percentile(d, 0.90),
		P99:  Percentile(d, 0.99),
		P999: Percentile(d, 0.999),
		Max:  d[len(d)-1],
	}
}

// Percentile returns the nearest-rank q-quantile (0 < q ≤ 1) of sorted d.
func Percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
