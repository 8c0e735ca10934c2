//go:build linux

package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/bench"
)

func TestFloor(t *testing.T) {
	ms := func(v float64) float64 { return v * float64(time.Millisecond) }
	tests := []struct {
		name  string
		f     floor
		u     unit
		total float64
		str   string
	}{
		{name: "durable forward: two hops and an fdatasync", u: unitDuration,
			f:     floor{{Name: "raw stream hop p50", Times: 2, Value: ms(0.221)}, {Name: "fdatasync p50", Times: 1, Value: ms(0.136)}},
			total: ms(0.578), str: "2 × raw stream hop p50 (0.221 ms) + fdatasync p50 (0.136 ms) = 0.578 ms"},
		{name: "one term", u: unitRate, f: floor{{Name: "raw fan-out", Times: 1, Value: 140_000}},
			total: 140_000, str: "raw fan-out (140.0k/s) = 140.0k/s"},
		{name: "memory", u: unitBytes, f: floor{{Name: "bare RSS per connection", Times: 1, Value: 34 * 1024}},
			total: 34 * 1024, str: "bare RSS per connection (34.0 KiB) = 34.0 KiB"},
		{name: "none", u: unitDuration, total: 0, str: " = 0.00 µs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.total(); got < tt.total*0.999999 || got > tt.total*1.000001 {
				t.Errorf("total = %v, want %v", got, tt.total)
			}
			if got := tt.f.String(tt.u); got != tt.str {
				t.Errorf("String = %q, want %q", got, tt.str)
			}
		})
	}
}

// TestGoalAgainstFloor: a figure with a floor takes it as its baseline;
// its goal is the ratio to it, met or missed (a full run), or none (quick).
func TestGoalAgainstFloor(t *testing.T) {
	ms := func(v float64) float64 { return v * float64(time.Millisecond) }
	forward := floor{{Name: "raw stream hop p50", Times: 2, Value: ms(0.221)}, {Name: "fdatasync p50", Times: 1, Value: ms(0.136)}}
	fanout := floor{{Name: "raw server-stream to 1000 streams", Times: 1, Value: 80_000}}
	tests := []struct {
		name    string
		quick   bool
		f       figure
		t       target
		ratio   float64
		verdict string
		goal    string
	}{
		{name: "forward p50 missed", f: figure{Unit: unitDuration, Chatbus: fp(ms(1.14)), Floor: forward}, t: target{RatioMax: 1.5},
			ratio: 1.14 / 0.578, verdict: "MISSED", goal: "≤ 1.5× floor"},
		{name: "forward p50 met", f: figure{Unit: unitDuration, Chatbus: fp(ms(0.80)), Floor: forward}, t: target{RatioMax: 1.5},
			ratio: 0.80 / 0.578, verdict: "met", goal: "≤ 1.5× floor"},
		{name: "fan-out met at exactly half", f: figure{Unit: unitRate, Chatbus: fp(40_000), Floor: fanout}, t: target{RatioMin: 0.5},
			ratio: 0.5, verdict: "met", goal: "≥ 0.5× floor"},
		{name: "fan-out missed", f: figure{Unit: unitRate, Chatbus: fp(39_000), Floor: fanout}, t: target{RatioMin: 0.5},
			ratio: 39.0 / 80, verdict: "MISSED", goal: "≥ 0.5× floor"},
		{name: "not measured", f: figure{Unit: unitRate, NA: "n/a", Floor: fanout}, t: target{RatioMin: 0.5},
			verdict: "not measured", goal: "≥ 0.5× floor"},
		{name: "quick run: the ratio, no verdict", quick: true, f: figure{Unit: unitDuration, Chatbus: fp(ms(1.14)), Floor: forward}, t: target{RatioMax: 1.5},
			ratio: 1.14 / 0.578, verdict: "no goal (quick run)", goal: "≤ 1.5× floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			b := newBencher(options{Quick: tt.quick}, &out, &out)
			b.results.Meta.Durable = true
			tt.f.Name = "the goal"
			b.addFigure(tt.f, tt.t)
			got := b.results.Figures[0]
			if got.Baseline == nil || *got.Baseline != tt.f.Floor.total() || got.BaselineName != "floor" {
				t.Errorf("baseline %v %q, want the floor %v", got.Baseline, got.BaselineName, tt.f.Floor.total())
			}
			if tt.f.Chatbus == nil {
				if got.Ratio != nil {
					t.Errorf("ratio %v without a value", *got.Ratio)
				}
			} else if got.Ratio == nil || *got.Ratio < tt.ratio*0.999999 || *got.Ratio > tt.ratio*1.000001 {
				t.Errorf("ratio %v, want %v", got.Ratio, tt.ratio)
			}
			if v := verdict(got.Met, tt.quick); v != tt.verdict {
				t.Errorf("verdict %q, want %q", v, tt.verdict)
			}
			if got.Target != tt.goal {
				t.Errorf("goal %q, want %q", got.Target, tt.goal)
			}
			b.printFloors(&out)
			row := ""
			for line := range strings.Lines(out.String()) {
				if strings.HasPrefix(line, "the goal ") {
					row = line
				}
			}
			for _, want := range []string{tt.f.Floor.String(tt.f.Unit), tt.goal, tt.verdict} {
				if !strings.Contains(row, want) {
					t.Errorf("floors row %q lacks %q", row, want)
				}
			}
		})
	}
}

// TestP99Growth: where the open loop's p99 goes, stage by stage, in the
// order an update passes them; a stage the run did not trace is left out.
func TestP99Growth(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	st := map[string]bench.Summary{
		"provider send": {P99: ms(40)},
		"pumped":        {P99: ms(45)},
		"durable":       {P99: ms(120)},
		"received":      {P99: ms(118)},
	}
	want := []stageGrowth{{"provider send", ms(40)}, {"pumped", ms(5)}, {"durable", ms(75)}, {"received", ms(-2)}}
	if got := p99Growth(st); !slices.Equal(got, want) {
		t.Errorf("p99Growth = %v, want %v", got, want)
	}
}

// The forward floor's fdatasyncs are paced like the forward's own (an
// fdatasync after an idle gap costs a disk more than one right after
// another): with every > 0, n samples take at least (n+warm-up) × every.
// A lower bound only: sleeping never takes less.
func TestSyncLatenciesPaced(t *testing.T) {
	const n, every = 5, 25 * time.Millisecond
	start := time.Now()
	d, err := syncLatencies(t.TempDir(), n, every, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != n {
		t.Fatalf("got %d samples, want %d", len(d), n)
	}
	if took, least := time.Since(start), (n+50)*every; took < least {
		t.Fatalf("%d paced samples (and 50 unmeasured) took %v, less than %d × %v: not paced", n, took, n+50, every)
	}
}
