package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/server/store"
)

// The recorders on the hot paths look their series up here rather than
// through a vector's WithLabelValues, which hashes the label values and
// takes a lock on every event: per configured provider in a map built
// once at New (read-only after; another provider's events take the
// vector's lookup), per (method, code) in a sync.Map filled on first use.

// kinds bounds the update kinds that have a series of their own (those of
// store.UpdateKind with a name); the last index is "other", as is any kind
// this build does not know.
const kinds = 8

// providerSeries are one configured provider's inbound counters.
type providerSeries struct {
	received         [kinds + 1]prometheus.Counter // by kind value; [kinds]: other
	routed, unrouted prometheus.Counter
	duplicate        prometheus.Counter
}

func (m *Metrics) newProviderSeries(p string) *providerSeries {
	s := &providerSeries{
		routed:    m.updatesRouted.WithLabelValues(p),
		unrouted:  m.updatesUnrouted.WithLabelValues(p),
		duplicate: m.updatesDup.WithLabelValues(p),
	}
	s.received[kinds] = m.updatesReceived.WithLabelValues(p, "other")
	for k := range kinds {
		if name := store.UpdateKind(k).String(); name != "" {
			s.received[k] = m.updatesReceived.WithLabelValues(p, name)
		} else {
			s.received[k] = s.received[kinds]
		}
	}
	return s
}

// receivedCounter is the counter of an update kind.
func (s *providerSeries) receivedCounter(kind store.UpdateKind) prometheus.Counter {
	if kind >= 0 && kind < kinds {
		return s.received[kind]
	}
	return s.received[kinds]
}

// codeKey names one (method, code) series.
type codeKey struct {
	method string
	code   codes.Code
}

// methodSeries caches a counter by (method, code) and a histogram by
// method.
type methodSeries struct {
	counts  *prometheus.CounterVec
	seconds *prometheus.HistogramVec
	byCode  sync.Map // codeKey → prometheus.Counter
	byName  sync.Map // method → prometheus.Observer
}

func (s *methodSeries) count(method string, code codes.Code) {
	k := codeKey{method, code}
	c, ok := s.byCode.Load(k)
	if !ok {
		c, _ = s.byCode.LoadOrStore(k, s.counts.WithLabelValues(method, codeLabel(code)))
	}
	c.(prometheus.Counter).Inc()
}

func (s *methodSeries) observe(method string, seconds float64) {
	o, ok := s.byName.Load(method)
	if !ok {
		o, _ = s.byName.LoadOrStore(method, s.seconds.WithLabelValues(method))
	}
	o.(prometheus.Observer).Observe(seconds)
}
