// Package metrics owns the supervisor's Prometheus metrics: a registry of
// its own (never the global one) holding the Go runtime and process
// collectors, every chatbus_ metric definition, the small typed recording
// methods the rest of the server calls on its hot paths, the collectors
// that read state from its owners at scrape time, and the opt-in listener
// that serves them (listen.go). docs/metrics.md lists every metric.
//
// A nil *Metrics is a valid, disabled recorder: every method returns at
// once, so a supervisor without metrics pays one nil check per event.
//
// Counters and histograms are recorded where things happen (an update
// received, delivered, a call answered, a commit). Gauges that are state
// (journal depth and age, followers connected, provider state, calls open)
// are not kept up to date on every event: the collectors in state.go and
// journal.go ask the state's owners when a scrape comes, through the
// interfaces StateSource and JournalSource.
//
// Label values are bounded: providers and their declared methods are
// configuration, update kinds and gRPC codes are enums, and per-binding
// series are limited to the top bindings (Config.TopBindings) with
// per-provider totals beside them. Followers' own metrics are theirs: the
// supervisor exports only what it sees.
package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/server/store"
)

// namespace prefixes every metric of chatbus's own.
const namespace = "chatbus"

// DefaultTopBindings is how many bindings get series of their own when
// Config.TopBindings is zero.
const DefaultTopBindings = 10

// Config configures Metrics.
type Config struct {
	// TopBindings is how many bindings (those holding the most updates)
	// get per-binding series; every binding counts in the per-provider
	// totals. If zero, DefaultTopBindings; negative: none.
	TopBindings int
	// Providers are the configured providers: their counters start at 0
	// in the first scrape (so that a rate over them is right from the
	// start, and a dashboard finds every series), not at their first
	// event.
	Providers []string
	// Now is the clock for ages and latencies. If nil, time.Now.
	Now func() time.Time
	// Cluster, if set, adds the series of a cluster node (cluster.go).
	Cluster *Cluster
}

// Metrics is the supervisor's metrics registry and its recorders. Safe for
// concurrent use; a nil *Metrics records nothing.
type Metrics struct {
	cfg Config
	reg *prometheus.Registry

	updatesReceived     *prometheus.CounterVec // provider, kind
	updatesRouted       *prometheus.CounterVec // provider
	updatesUnrouted     *prometheus.CounterVec // provider
	updatesDup          *prometheus.CounterVec // provider
	updatesDropped      *prometheus.CounterVec // reason
	updatesDeadLettered *prometheus.CounterVec // provider
	transcriptions      *prometheus.CounterVec // status
	notAllowed          prometheus.Counter     // updatesDropped{reason="not_allowed"}
	delivery            *prometheus.HistogramVec
	deliveryLive        prometheus.Observer
	deliveryReplay      prometheus.Observer

	calls       *prometheus.CounterVec   // method, code
	callSeconds *prometheus.HistogramVec // method
	callRepeats *prometheus.CounterVec   // provider, answer
	rateLimited *prometheus.CounterVec   // provider
	fenceWatch  *prometheus.CounterVec   // provider
	retryAfter  *prometheus.HistogramVec // provider
	doctor      *prometheus.CounterVec   // provider, outcome, reason
	callWait    *prometheus.HistogramVec // provider, lane
	rpcs        *prometheus.CounterVec   // method, code
	rpcSeconds  *prometheus.HistogramVec // method

	storeCommits                  *prometheus.CounterVec // result
	storeCommitOK, storeCommitErr prometheus.Counter
	storeSeconds                  prometheus.Histogram
	storeReqs                     prometheus.Counter
	storeFsyncs                   prometheus.Counter

	// Caches of the hot paths' series (cache.go).
	provs   map[string]*providerSeries // the configured providers'; read-only after New
	callSer *methodSeries
	rpcSer  *methodSeries

	// cluster are a cluster node's series; nil elsewhere.
	cluster *clusterSeries

	// watchMu guards watched: the scrape-time collectors Watch and
	// WatchJournals added, which Unwatch removes.
	watchMu sync.Mutex
	watched []prometheus.Collector
}

// New returns Metrics with a registry of its own holding the Go runtime
// and process collectors and every recorded metric. The scrape-time
// collectors are added with Watch and WatchJournals.
func New(cfg Config) *Metrics {
	if cfg.TopBindings == 0 {
		cfg.TopBindings = DefaultTopBindings
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &Metrics{cfg: cfg, reg: prometheus.NewRegistry()}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
		m.reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
		m.reg.MustRegister(h)
		return h
	}

	m.updatesReceived = counter("updates_received_total",
		"Updates the provider children delivered to the supervisor, before de-duplication and the allow-list, by provider and kind.", "provider", "kind")
	m.updatesRouted = counter("updates_routed_total",
		"Updates journalled for a binding (its thread has one), by provider.", "provider")
	m.updatesUnrouted = counter("updates_unrouted_total",
		"Updates journalled as unrouted (no binding owns their thread, or the chat itself), by provider.", "provider")
	m.updatesDup = counter("updates_duplicate_total",
		"Updates a provider delivered again that the journal already held (skipped by de-duplication), by provider.", "provider")
	m.updatesDropped = counter("updates_dropped_total",
		"Updates dropped, by reason: not_allowed (the sender is not on the allow-list: never journalled), or a journal bound (count, bytes, age) or binding_deleted discarding held updates.", "reason")
	m.transcriptions = counter("transcriptions_total",
		"Voice notes and audio files transcribed (or not), by status: done, empty, failed, timed_out, too_long.", "status")
	m.updatesDeadLettered = counter("updates_dead_lettered_total",
		"Updates a provider could not convert (a decoding failure, a panic), set aside as dead letters (busctl updates --dead-letters), by provider.", "provider")
	m.delivery = histogram("delivery_latency_seconds",
		"From the provider receiving an update to the supervisor sending it on its follower's stream. phase is live for updates journalled while the stream was open, replay for those held before it opened.",
		[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600}, "phase")
	m.notAllowed = m.updatesDropped.WithLabelValues(DropNotAllowed)
	m.deliveryLive = m.delivery.WithLabelValues("live")
	m.deliveryReplay = m.delivery.WithLabelValues("replay")

	m.calls = counter("calls_total",
		"Followers' platform calls (BusService.Call), by method and the gRPC code answered. A method the provider did not declare is counted as other.", "method", "code")
	m.callSeconds = histogram("call_duration_seconds",
		"How long followers' platform calls took to answer, by method (held calls included).",
		[]float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}, "method")
	m.callRepeats = counter("call_repeats_total",
		"Repeats of an idempotency key served without calling the platform, by provider and answer: recorded (the first call's recorded outcome) or in_flight (it waited for the first call).", "provider", "answer")
	m.rateLimited = counter("platform_rate_limited_total",
		"Calls the platform refused with a rate limit (HTTP 429), by provider.", "provider")
	m.fenceWatch = counter("provider_fence_watch_failures_total",
		"Times the supervisor's watch of a running provider child's doctor fence (its occupancy stream) failed, by provider: its calls are held until the watch is open again, which the supervisor retries.", "provider")
	m.retryAfter = histogram("platform_retry_after_seconds",
		"The delay the platform asked for with each rate limit, by provider.",
		[]float64{1, 2, 5, 10, 30, 60, 300, 900, 3600}, "provider")
	m.callWait = histogram("outbound_wait_seconds",
		"How long calls waited in the provider's outbound queue before they were sent (the platform's rate limits, a provider that does not admit), by provider and lane (prompt, message, edit, ambient).",
		[]float64{.001, .01, .1, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}, "provider", "lane")
	m.doctor = counter("doctor_restarts_total",
		"Doctor restarts by provider and outcome (restarted, owner_unavailable, prepare_refused, commit_refused, old_owner_exit_timeout, successor_refused) and its reason (none if it has none).", "provider", "outcome", "reason")
	m.rpcs = counter("grpc_handled_total",
		"RPCs the supervisor finished on its socket (past the peer and secret checks), by method (service/method) and gRPC code.", "method", "code")
	m.rpcSeconds = histogram("grpc_handling_seconds",
		"How long unary RPCs took to handle, by method (service/method).",
		[]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "method")

	m.storeCommits = counter("store_commits_total",
		"Write transactions the state file's committer ran, by result (ok, error); concurrent writes share one (group commit).", "result")
	m.storeCommitOK = m.storeCommits.WithLabelValues("ok")
	m.storeCommitErr = m.storeCommits.WithLabelValues("error")
	m.storeSeconds = histogram("store_commit_duration_seconds",
		"How long each write transaction of the state file took, its page writes and fdatasyncs included.",
		[]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}).WithLabelValues().(prometheus.Histogram)
	m.storeReqs = counter("store_write_requests_total",
		"Write requests committed to the state file; divided by store_commits_total{result=\"ok\"} it is the group-commit batch size.").WithLabelValues()
	m.storeFsyncs = counter("store_fsyncs_total",
		"fdatasync calls of committed write transactions of the state file: two per commit (the data pages, then the meta page). A sync for growing the file is not counted.").WithLabelValues()
	m.initSeries()
	m.provs = map[string]*providerSeries{}
	for _, p := range cfg.Providers {
		m.provs[p] = m.newProviderSeries(p)
	}
	m.callSer = &methodSeries{counts: m.calls, seconds: m.callSeconds}
	m.rpcSer = &methodSeries{counts: m.rpcs, seconds: m.rpcSeconds}
	if cfg.Cluster != nil {
		m.cluster = m.newClusterSeries(*cfg.Cluster)
	}
	return m
}

// watch registers a scrape-time collector for Unwatch to remove.
func (m *Metrics) watch(c prometheus.Collector) {
	m.watchMu.Lock()
	defer m.watchMu.Unlock()
	m.reg.MustRegister(c)
	m.watched = append(m.watched, c)
}

// Unwatch removes the collectors Watch and WatchJournals added: their
// sources are going away (the supervisor of a cluster node's term stops,
// and the next term's watches its own). The recorded series stay.
func (m *Metrics) Unwatch() {
	if m == nil {
		return
	}
	m.watchMu.Lock()
	defer m.watchMu.Unlock()
	for _, c := range m.watched {
		m.reg.Unregister(c)
	}
	m.watched = nil
}

// dropReasons are the updates_dropped_total reasons.
var dropReasons = []string{DropNotAllowed, store.DropCount, store.DropBytes, store.DropAge, dropBindingDeleted}

// initSeries creates the series whose label values are known before
// anything happens, at 0.
func (m *Metrics) initSeries() {
	for _, r := range dropReasons {
		m.updatesDropped.WithLabelValues(r)
	}
	for _, p := range m.cfg.Providers {
		for _, v := range []*prometheus.CounterVec{m.updatesRouted, m.updatesUnrouted, m.updatesDup, m.rateLimited, m.fenceWatch} {
			v.WithLabelValues(p)
		}
		m.callRepeats.WithLabelValues(p, RepeatRecorded)
		m.callRepeats.WithLabelValues(p, RepeatInFlight)
	}
}

// Registry returns the registry (tests and embedders gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Gather gathers every metric, as a scrape would.
func (m *Metrics) Gather() ([]*dto.MetricFamily, error) { return m.reg.Gather() }

// Handler serves the registry in the Prometheus text format, and counts
// its own scrapes (promhttp_metric_handler_requests_total).
func (m *Metrics) Handler() http.Handler {
	return promhttp.InstrumentMetricHandler(m.reg, promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		Registry:            m.reg,
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             30 * time.Second,
	}))
}

// kindLabel names an update kind; a kind this build does not know (0: a
// newer provider's) is "other", so a provider cannot grow the label set.
func kindLabel(k store.UpdateKind) string {
	if name := k.String(); name != "" {
		return name
	}
	return "other"
}

// codeLabel names a gRPC code ("OK", "PermissionDenied", …).
func codeLabel(c codes.Code) string { return c.String() }
