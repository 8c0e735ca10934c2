//go:build linux

package main

// A goal's floor: what any implementation of the figure has to spend on
// this machine, composed of raw figures measured in the same run (a raw
// gRPC hop, an fdatasync, a bare server's memory). A goal is a ratio to
// its floor, so that a loaded or a slow machine moves both together;
// docs/performance.md says in one line why each floor is the floor.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// floorTerm is one part of a floor: Times × Value (in the figure's unit),
// Value measured in the run and named by Name.
type floorTerm struct {
	Name  string  `json:"name"`
	Times float64 `json:"times"`
	Value float64 `json:"value"`
}

// floor is the sum of its terms.
type floor []floorTerm

// total is the floor's value: Σ Times × Value.
func (f floor) total() float64 {
	s := 0.0
	for _, t := range f {
		s += t.Times * t.Value
	}
	return s
}

// String shows how the floor is composed: "2 × raw hop p50 (0.221 ms) +
// fdatasync p50 (0.136 ms) = 0.578 ms".
func (f floor) String(u unit) string {
	parts := make([]string, len(f))
	for i, t := range f {
		parts[i] = fmt.Sprintf("%s (%s)", t.Name, format(u, t.Value))
		if t.Times != 1 {
			parts[i] = fmt.Sprintf("%g × %s", t.Times, parts[i])
		}
	}
	return strings.Join(parts, " + ") + " = " + format(u, f.total())
}

// verdict is the word make bench prints for a goal: met, MISSED, or why
// there is none.
func verdict(met *bool, quick bool) string {
	switch {
	case quick:
		return "no goal (quick run)"
	case met == nil:
		return "not measured"
	case *met:
		return "met"
	}
	return "MISSED"
}

// printFloors writes each floor of the run as a row of its own, and each
// goal as its ratio to that floor, met or missed.
func (b *bencher) printFloors(w io.Writer) {
	var rows []figure
	for _, f := range b.results.Figures {
		if len(f.Floor) > 0 {
			rows = append(rows, f)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nfloors (raw figures of this run; docs/performance.md says why each is the floor) and the goals as ratios to them:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "goal\tfloor\tchatbus\tratio to floor\tgoal\tverdict")
	for _, f := range rows {
		val, ratio := f.NA, "—"
		if f.Chatbus != nil {
			val = format(f.Unit, *f.Chatbus)
		}
		if f.Ratio != nil {
			ratio = fmt.Sprintf("%.2f×", *f.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, f.Floor.String(f.Unit), val, ratio, f.Target, verdict(f.Met, b.opts.Quick))
	}
	tw.Flush()
}
