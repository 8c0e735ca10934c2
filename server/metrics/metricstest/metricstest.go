// Package metricstest reads a Prometheus scrape the way a server would,
// for tests: the text format parsed with prometheus/common's expfmt, and
// values looked up by metric name and labels.
package metricstest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape is one parsed scrape: metric families by name.
type Scrape map[string]*dto.MetricFamily

// Parse parses the text exposition format.
func Parse(r io.Reader) (Scrape, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse scrape: %w", err)
	}
	return Scrape(mfs), nil
}

// FromFamilies indexes gathered families by name.
func FromFamilies(mfs []*dto.MetricFamily) Scrape {
	s := Scrape{}
	for _, mf := range mfs {
		s[mf.GetName()] = mf
	}
	return s
}

// Gather gathers g (a registry, as a scrape would) and indexes it.
func Gather(t testing.TB, g prometheus.Gatherer) Scrape {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	return FromFamilies(mfs)
}

// Names returns the metric family names, sorted.
func (s Scrape) Names() []string { return slices.Sorted(maps.Keys(s)) }

// Has reports whether a family of that name is present. A histogram's
// series (name_bucket, name_sum, name_count) count as its family.
func (s Scrape) Has(name string) bool {
	if _, ok := s[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if mf, ok := s[base]; ok && (mf.GetType() == dto.MetricType_HISTOGRAM || mf.GetType() == dto.MetricType_SUMMARY) {
				return true
			}
		}
	}
	return false
}

// Value returns the value of the series of name whose labels include
// every pair in labels ("k", "v", …), summed over every such series; for
// a histogram it is the count of observations. ok is false if no series
// matches.
func (s Scrape) Value(name string, labels ...string) (v float64, ok bool) {
	mf := s[name]
	if mf == nil {
		return 0, false
	}
	for _, m := range mf.GetMetric() {
		if !matches(m, labels) {
			continue
		}
		ok = true
		switch {
		case m.Counter != nil:
			v += m.GetCounter().GetValue()
		case m.Gauge != nil:
			v += m.GetGauge().GetValue()
		case m.Histogram != nil:
			v += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			v += m.GetUntyped().GetValue()
		}
	}
	return v, ok
}

// Get is Value, 0 when no series matches.
func (s Scrape) Get(name string, labels ...string) float64 {
	v, _ := s.Value(name, labels...)
	return v
}

func matches(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, lp := range m.GetLabel() {
			if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Want is a value a scrape should hold: the series of Name with Labels
// ("k", "v", …), as Value sums them.
type Want struct {
	Name   string
	Labels []string
	Value  float64
}

// Check reports every want s does not hold; a want of 0 needs its series
// present too (a series that is missing is not a zero).
func (s Scrape) Check(t testing.TB, wants []Want) {
	t.Helper()
	for _, w := range wants {
		if got, ok := s.Value(w.Name, w.Labels...); !ok || got != w.Value {
			t.Errorf("%s%v = %v (present %v), want %v", w.Name, w.Labels, got, ok, w.Value)
		}
	}
}

// CheckDelta reports every want s did not move by since before.
func (s Scrape) CheckDelta(t testing.TB, before Scrape, wants []Want) {
	t.Helper()
	for _, w := range wants {
		if got := s.Get(w.Name, w.Labels...) - before.Get(w.Name, w.Labels...); got != w.Value {
			t.Errorf("%s%v moved by %v, want %v", w.Name, w.Labels, got, w.Value)
		}
	}
}

// W is the Want of value for the series of name with labels ("k", "v", …).
func W(name string, value float64, labels ...string) Want {
	return Want{Name: name, Labels: labels, Value: value}
}
