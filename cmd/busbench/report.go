//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// unit says how a figure's values are printed.
type unit string

const (
	unitDuration unit = "ns"      // time.Duration nanoseconds
	unitRate     unit = "per_s"   // operations per second
	unitBytes    unit = "bytes"   // bytes
	unitPercent  unit = "percent" // percent of one core
)

// target is a design target: on the chatbus value (Max or Min), and/or on
// the ratio chatbus ÷ baseline (RatioMax or RatioMin). Zero fields don't
// apply; every one that applies must hold.
type target struct {
	Max, Min           float64
	RatioMax, RatioMin float64
	// Floor: the baseline is the figure's floor (floors.go).
	Floor bool
}

func (t target) of() string { return pick(t.Floor, "floor", "baseline") }

func (t target) String(u unit) string {
	var parts []string
	if t.Max != 0 {
		parts = append(parts, "≤ "+format(u, t.Max))
	}
	if t.Min != 0 {
		parts = append(parts, "≥ "+format(u, t.Min))
	}
	if t.RatioMax != 0 {
		parts = append(parts, fmt.Sprintf("≤ %.3g× %s", t.RatioMax, t.of()))
	}
	if t.RatioMin != 0 {
		parts = append(parts, fmt.Sprintf("≥ %.3g× %s", t.RatioMin, t.of()))
	}
	return strings.Join(parts, " and ")
}

// met reports whether every bound of t holds; nil if t has none or a value
// it bounds is missing.
func (t target) met(v, ratio *float64) *bool {
	ok, any := true, false
	for _, c := range []struct {
		on    bool
		value *float64
		holds func(float64) bool
	}{
		{t.Max != 0, v, func(x float64) bool { return x <= t.Max }},
		{t.Min != 0, v, func(x float64) bool { return x >= t.Min }},
		{t.RatioMax != 0, ratio, func(x float64) bool { return x <= t.RatioMax }},
		{t.RatioMin != 0, ratio, func(x float64) bool { return x >= t.RatioMin }},
	} {
		if !c.on {
			continue
		}
		if c.value == nil {
			return nil
		}
		any = true
		ok = ok && c.holds(*c.value)
	}
	if !any {
		return nil
	}
	return &ok
}

// figure is one row of the table.
type figure struct {
	ID           string   `json:"id"`
	Name         string   `json:"figure"`
	Unit         unit     `json:"unit"`
	Chatbus      *float64 `json:"chatbus"`
	Baseline     *float64 `json:"baseline,omitempty"`
	BaselineName string   `json:"baseline_name,omitempty"`
	// Ratio is chatbus ÷ baseline.
	Ratio           *float64 `json:"ratio,omitempty"`
	Target          string   `json:"target,omitempty"`
	Met             *bool    `json:"met,omitempty"`
	Samples         int      `json:"samples,omitempty"`
	BaselineSamples int      `json:"baseline_samples,omitempty"`
	// NA replaces the chatbus value when it could not be measured.
	NA   string `json:"na,omitempty"`
	Note string `json:"note,omitempty"`
	// Floor, if set, is the figure's baseline: what the machine allows,
	// composed of raw figures of the same run (floors.go). Its goal is a
	// ratio to it.
	Floor floor `json:"floor,omitempty"`
}

func fp(v float64) *float64 { return &v }

// addFigure completes f (ratio, target check) and records it.
func (b *bencher) addFigure(f figure, t target) {
	if len(f.Floor) > 0 {
		f.Baseline, f.BaselineName, t.Floor = fp(f.Floor.total()), "floor", true
	}
	if f.Chatbus != nil && f.Baseline != nil && *f.Baseline != 0 {
		f.Ratio = fp(*f.Chatbus / *f.Baseline)
	}
	if !b.results.Meta.Durable && strings.Contains(f.Name, "durable") {
		f.Name = strings.Replace(f.Name, "durable", "NOT durable ("+b.results.Meta.StateFS+")", 1)
	}
	f.Target = t.String(f.Unit)
	if !b.opts.Quick { // quick mode has no thresholds
		f.Met = t.met(f.Chatbus, f.Ratio)
	}
	b.results.Figures = append(b.results.Figures, f)
	val := f.NA
	if f.Chatbus != nil {
		val = format(f.Unit, *f.Chatbus)
	}
	b.logf("   %s: %s", f.Name, val)
}

// format prints a value of unit u.
func format(u unit, v float64) string {
	switch u {
	case unitDuration:
		d := time.Duration(math.Abs(v))
		switch {
		case d < 10*time.Microsecond:
			return fmt.Sprintf("%.2f µs", v/1e3)
		case d < time.Millisecond:
			return fmt.Sprintf("%.3f ms", v/1e6)
		case d < time.Second:
			return fmt.Sprintf("%.2f ms", v/1e6)
		}
		return fmt.Sprintf("%.2f s", v/1e9)
	case unitRate:
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%.2fM/s", v/1e6)
		case v >= 1e4:
			return fmt.Sprintf("%.1fk/s", v/1e3)
		}
		return fmt.Sprintf("%.0f/s", v)
	case unitBytes:
		switch {
		case math.Abs(v) >= 10<<20:
			return fmt.Sprintf("%.0f MiB", v/(1<<20))
		case math.Abs(v) >= 1<<20:
			return fmt.Sprintf("%.1f MiB", v/(1<<20))
		}
		return fmt.Sprintf("%.1f KiB", v/1024)
	case unitPercent:
		return fmt.Sprintf("%.1f %%", v)
	}
	return fmt.Sprint(v)
}

// printTable writes the table.
func (b *bencher) printTable(w io.Writer) {
	fmt.Fprintf(w, "\nchatbus benchmark (%s, %d CPUs, %s; %s run, %s)\n", b.results.Meta.Go, b.results.Meta.CPUs,
		b.results.Meta.Kernel, pick(b.opts.Quick, "quick", "full"), b.results.Meta.Duration)
	if !b.results.Meta.Durable {
		fmt.Fprintf(w, "NOT DURABLE: the state root %s is a %s: every \"durable\" figure below is without the disk\n", b.stateRoot, b.results.Meta.StateFS)
	}
	if busy := b.results.Meta.BusyCoresBefore; busy > 0.1 {
		fmt.Fprintf(w, "WARNING: %.2f of %d cores were busy with other processes before the run; the figures share the machine with them\n", busy, b.results.Meta.CPUs)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tchatbus\tbaseline (same run)\tratio\ttarget\tmet\tsamples (chatbus/baseline)")
	fmt.Fprintln(tw, "------\t-------\t-------------------\t-----\t------\t---\t--------------------------")
	for _, f := range b.results.Figures {
		val := f.NA
		if f.Chatbus != nil {
			val = format(f.Unit, *f.Chatbus)
		}
		base := "—"
		if f.Baseline != nil {
			base = format(f.Unit, *f.Baseline)
			if f.BaselineName != "" {
				base += " (" + f.BaselineName + ")"
			}
		} else if f.BaselineName != "" {
			base = f.BaselineName
		}
		ratio := ""
		if f.Ratio != nil {
			ratio = fmt.Sprintf("%.2f×", *f.Ratio)
		}
		met := ""
		if f.Met != nil {
			met = pick(*f.Met, "met", "MISSED")
		}
		samples := ""
		if f.Samples > 0 || f.BaselineSamples > 0 {
			samples = fmt.Sprintf("%d/%d", f.Samples, f.BaselineSamples)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, val, base, ratio, f.Target, met, samples)
	}
	tw.Flush()
	b.printFloors(w)
	b.printTables(w)
	var notes []string
	for _, f := range b.results.Figures {
		if f.Note != "" {
			notes = append(notes, fmt.Sprintf("  %s: %s", f.Name, f.Note))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nnotes (ratio = chatbus ÷ baseline):\n%s\n", strings.Join(notes, "\n"))
	}
	if len(b.results.Checks) > 0 {
		fmt.Fprintln(w, "\nchecks:")
		for _, c := range b.results.Checks {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
}

// writeJSON writes the results file.
func (b *bencher) writeJSON() error {
	if err := os.MkdirAll(filepath.Dir(b.opts.JSONPath), 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(b.results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(b.opts.JSONPath, append(js, '\n'), 0o644)
}
