//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/server/hub"
)

// The per-stage latency breakdown of a profiled run (-pprof): the
// profiled supervisor traces each update through its stages (hub.Trace)
// and keeps, per stage, the time from the update's stamp (the send time
// in its text: the scheduled time in the open loop) to the stage, on the
// one clock every process of the bench shares. The follower's own figure
// is the last stage. So where a distribution first grows is where its
// latency goes: provider send (the provider's own wait: its pipeline of
// two batches), pumped (the transport to the supervisor), durable (the
// pump's wait for the journal, and the commit), sent (the stream's wake-up,
// read and send), received (the transport to the follower and the
// follower's client).

// stageOrder is the breakdown's rows, in the order an update passes them:
// the first and the last are the follower's (provider-bench's send time is
// the update's received_at), the others the supervisor's.
var stageOrder = []string{"provider send", "pumped", "durable", "sent", "received"}

// stageTrace is the profiled supervisor's hub.Trace.
type stageTrace struct {
	mu sync.Mutex // guards d, on
	d  [3][]time.Duration
	on bool
}

var _ hub.Trace = (*stageTrace)(nil)

// Update implements hub.Trace.
func (t *stageTrace) Update(stage hub.Stage, _ uint64, text string, at time.Time) {
	stamp, ok := bench.SentAt(text)
	if !ok || int(stage) >= len(t.d) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.on {
		t.d[stage] = append(t.d[stage], at.Sub(stamp))
	}
}

// start clears the samples and records from now on.
func (t *stageTrace) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.d {
		t.d[i] = nil
	}
	t.on = true
}

// stop ends recording and writes the summaries to path (JSON: stage name
// → bench.Summary).
func (t *stageTrace) stop(path string) {
	t.mu.Lock()
	d := t.d
	t.d, t.on = [3][]time.Duration{}, false
	t.mu.Unlock()
	out := map[string]bench.Summary{}
	for i, s := range d {
		if len(s) > 0 {
			out[hub.Stage(i).String()] = bench.Summarize(s)
		}
	}
	if js, err := json.MarshalIndent(out, "", "  "); err == nil && os.WriteFile(path+".tmp", js, 0o644) == nil {
		os.Rename(path+".tmp", path) // whole, for the reader that waits for it
	}
}

// stageBreakdown reads the supervisor's stages of phase (profiled runs
// only), logs them between the follower's own (rec), and keeps them in the
// phase's details under "stages".
func (b *bencher) stageBreakdown(sup *supervisor, phase string, rec *recorder, details map[string]any) {
	if sup.spec.ProfileDir == "" {
		return
	}
	path := filepath.Join(sup.spec.ProfileDir, sup.spec.Name+"-"+phase+".stages.json")
	raw, err := os.ReadFile(path)
	for deadline := time.Now().Add(30 * time.Second); err != nil && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond) // the supervisor writes it as the profile stops
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		b.logf("   stages: %v", err)
		return
	}
	var st map[string]bench.Summary
	if err := json.Unmarshal(raw, &st); err != nil {
		b.logf("   stages: %v", err)
		return
	}
	st["provider send"] = bench.Summarize(rec.sentSamples())
	st["received"] = bench.Summarize(rec.samples())
	b.logf("   where the time went (from the update's stamp, same clock; the supervisor's stages traced while profiled):")
	b.logf("   %-14s %10s %10s %10s %10s %9s  %s", "stage", "p50", "p90", "p99", "max", "n", "p99 added by the stage")
	for i, row := range p99Growth(st) {
		s := st[row.Stage]
		b.logf("   %-14s %10s %10s %10s %10s %9d  %s", row.Stage, fmtDur(s.P50), fmtDur(s.P90), fmtDur(s.P99), fmtDur(s.Max), s.N,
			pick(i == 0, "(from the stamp) ", "")+fmtDur(row.Added))
	}
	if details != nil {
		details["stages"] = st
		details["p99_by_stage"] = p99Growth(st)
	}
	var rt runtimeStats
	if raw, err := os.ReadFile(filepath.Join(sup.spec.ProfileDir, sup.spec.Name+"-"+phase+".runtime.json")); err == nil && json.Unmarshal(raw, &rt) == nil {
		b.logf("   the supervisor's runtime over the phase: waits to run once runnable p50 %s, p99 %s, max %s (%d); stop-the-world pauses p99 %s, max %s (%d); the collector %.0f %% of its CPU",
			fmtDur(rt.SchedLatency.P50), fmtDur(rt.SchedLatency.P99), fmtDur(rt.SchedLatency.Max), rt.SchedLatency.N,
			fmtDur(rt.GCPauses.P99), fmtDur(rt.GCPauses.Max), rt.GCPauses.N, 100*rt.GCCPUShare)
		if details != nil {
			details["supervisor_runtime"] = rt
		}
	}
}

// stageGrowth is how much a stage adds to the p99 from the update's
// stamp: its p99 less the previous stage's (the first: from the stamp).
type stageGrowth struct {
	Stage string        `json:"stage"`
	Added time.Duration `json:"p99_added_ns"`
}

// p99Growth is where the p99 goes: each stage of stageOrder in st with
// what it adds to the p99. A queue shows as the stage whose p99 grows
// most; a negative value is the noise of two distributions measured on
// different updates (the supervisor's stages trace every update, the
// follower's every one it receives).
func p99Growth(st map[string]bench.Summary) []stageGrowth {
	var out []stageGrowth
	var prev time.Duration
	for _, name := range stageOrder {
		s, ok := st[name]
		if !ok {
			continue
		}
		out = append(out, stageGrowth{Stage: name, Added: s.P99 - prev})
		prev = s.P99
	}
	return out
}

func fmtDur(d time.Duration) string { return format(unitDuration, float64(d)) }
