package metrics

import (
	"cmp"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// This file is the one collector of the journal's depth and age. It reads
// them through JournalSource, which the server implements over the
// store's per-binding journal stats (store.Store.Stats); when the journal
// engine moves out of the state file, only that implementation changes.
//
// Cardinality: per provider totals (every binding counts), plus series of
// their own for the top Config.TopBindings bindings by updates held (ties:
// the oldest first), so a profile with thousands of bindings exports a
// bounded number of series. A binding that leaves the top drops its
// series.

// JournalSource is what the journal collector asks at each scrape.
type JournalSource interface {
	// Journals returns every binding's journal and the unrouted set's.
	Journals() (bindings []BindingJournal, unrouted JournalDepth, err error)
}

// JournalDepth is what one journal holds.
type JournalDepth struct {
	Pending  int       // updates held, not acknowledged
	Bytes    int64     // their encoded size
	OldestAt time.Time // when the oldest of them was received; zero if none
}

// BindingJournal is one binding's journal.
type BindingJournal struct {
	Key      string
	Provider string // "" while it has no thread
	Status   string // active, suspended, offline, …
	JournalDepth
	// AckLag is how many updates its live follower was sent and has not
	// acknowledged yet; 0 with no live follower.
	AckLag uint64
}

var (
	pendingDesc = prometheus.NewDesc(namespace+"_journal_pending_updates",
		"Updates held for the provider's bindings and not yet acknowledged by their followers.", []string{"provider"}, nil)
	pendingBytesDesc = prometheus.NewDesc(namespace+"_journal_pending_bytes",
		"Encoded size of the updates held for the provider's bindings.", []string{"provider"}, nil)
	oldestDesc = prometheus.NewDesc(namespace+"_journal_oldest_unacked_age_seconds",
		"Age of the oldest update held for any of the provider's bindings (0 if none is held).", []string{"provider"}, nil)
	ackLagDesc = prometheus.NewDesc(namespace+"_ack_lag_updates",
		"Updates sent to the provider's live followers and not yet acknowledged by them.", []string{"provider"}, nil)
	bindingsDesc = prometheus.NewDesc(namespace+"_bindings",
		"Bindings (threads with an owner record) by provider and status.", []string{"provider", "status"}, nil)
	unroutedDesc = prometheus.NewDesc(namespace+"_journal_unrouted_pending_updates",
		"Unrouted updates held (no binding owns their thread).", nil, nil)
	unroutedBytesDesc = prometheus.NewDesc(namespace+"_journal_unrouted_pending_bytes",
		"Encoded size of the unrouted updates held.", nil, nil)
	unroutedOldestDesc = prometheus.NewDesc(namespace+"_journal_unrouted_oldest_age_seconds",
		"Age of the oldest unrouted update held (0 if none).", nil, nil)
	topPendingDesc = prometheus.NewDesc(namespace+"_binding_pending_updates",
		"Updates held for one binding; only the top bindings by updates held have this series.", []string{"provider", "binding"}, nil)
	topOldestDesc = prometheus.NewDesc(namespace+"_binding_oldest_unacked_age_seconds",
		"Age of the oldest update held for one binding; only the top bindings have this series.", []string{"provider", "binding"}, nil)
	topAckLagDesc = prometheus.NewDesc(namespace+"_binding_ack_lag_updates",
		"Updates sent to one binding's live follower and not yet acknowledged; only the top bindings have this series.", []string{"provider", "binding"}, nil)
)

// journalCollector reads JournalSource at scrape time.
type journalCollector struct {
	src JournalSource
	top int
	now func() time.Time
}

// WatchJournals adds the collector of journal depth and age reading src at
// each scrape. Call it once, when src is built (again after Unwatch).
func (m *Metrics) WatchJournals(src JournalSource) {
	if m == nil {
		return
	}
	m.watch(journalCollector{src: src, top: m.cfg.TopBindings, now: m.cfg.Now})
}

func (c journalCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{pendingDesc, pendingBytesDesc, oldestDesc, ackLagDesc, bindingsDesc,
		unroutedDesc, unroutedBytesDesc, unroutedOldestDesc, topPendingDesc, topOldestDesc, topAckLagDesc} {
		ch <- d
	}
}

// providerTotals is one provider's sums over its bindings.
type providerTotals struct {
	pending int
	bytes   int64
	oldest  time.Time
	ackLag  uint64
}

func (c journalCollector) Collect(ch chan<- prometheus.Metric) {
	bindings, unrouted, err := c.src.Journals()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(pendingDesc, err)
		return
	}
	now := c.now()
	totals := map[string]*providerTotals{}
	type ps struct{ provider, status string }
	statuses := map[ps]int{}
	for _, b := range bindings {
		p := providerLabel(b.Provider)
		statuses[ps{p, b.Status}]++
		t := totals[p]
		if t == nil {
			t = &providerTotals{}
			totals[p] = t
		}
		t.pending += b.Pending
		t.bytes += b.Bytes
		t.ackLag += b.AckLag
		if !b.OldestAt.IsZero() && (t.oldest.IsZero() || b.OldestAt.Before(t.oldest)) {
			t.oldest = b.OldestAt
		}
	}
	for p, t := range totals {
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(t.pending), p)
		ch <- prometheus.MustNewConstMetric(pendingBytesDesc, prometheus.GaugeValue, float64(t.bytes), p)
		ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, age(now, t.oldest), p)
		ch <- prometheus.MustNewConstMetric(ackLagDesc, prometheus.GaugeValue, float64(t.ackLag), p)
	}
	for k, n := range statuses {
		ch <- prometheus.MustNewConstMetric(bindingsDesc, prometheus.GaugeValue, float64(n), k.provider, k.status)
	}
	ch <- prometheus.MustNewConstMetric(unroutedDesc, prometheus.GaugeValue, float64(unrouted.Pending))
	ch <- prometheus.MustNewConstMetric(unroutedBytesDesc, prometheus.GaugeValue, float64(unrouted.Bytes))
	ch <- prometheus.MustNewConstMetric(unroutedOldestDesc, prometheus.GaugeValue, age(now, unrouted.OldestAt))

	for _, b := range topBindings(bindings, c.top) {
		p := providerLabel(b.Provider)
		ch <- prometheus.MustNewConstMetric(topPendingDesc, prometheus.GaugeValue, float64(b.Pending), p, b.Key)
		ch <- prometheus.MustNewConstMetric(topOldestDesc, prometheus.GaugeValue, age(now, b.OldestAt), p, b.Key)
		ch <- prometheus.MustNewConstMetric(topAckLagDesc, prometheus.GaugeValue, float64(b.AckLag), p, b.Key)
	}
}

// topBindings returns the n bindings holding the most updates (ties: the
// oldest held update first, then by key), most first. It reorders a copy.
func topBindings(bs []BindingJournal, n int) []BindingJournal {
	if n <= 0 {
		return nil
	}
	s := slices.Clone(bs)
	slices.SortFunc(s, func(a, b BindingJournal) int {
		if c := cmp.Compare(b.Pending, a.Pending); c != 0 {
			return c
		}
		if c := compareOldest(a.OldestAt, b.OldestAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return s[:min(n, len(s))]
}

// compareOldest orders the older time first; zero (nothing held) last.
func compareOldest(a, b time.Time) int {
	switch {
	case a.Equal(b):
		return 0
	case a.IsZero():
		return 1
	case b.IsZero():
		return -1
	}
	return a.Compare(b)
}

// age is the seconds since t, 0 for the zero time.
func age(now, t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return max(now.Sub(t), 0).Seconds()
}

// providerLabel names a binding's provider; "none" for one with no thread.
func providerLabel(p string) string {
	if p == "" {
		return "none"
	}
	return p
}
