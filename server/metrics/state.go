package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// StateSource is what the state collector asks at each scrape: the
// owners' own read APIs (the registry, the provider manager), so that no
// gauge is kept up to date on every event.
type StateSource interface {
	// FollowersConnected is the number of live registrations.
	FollowersConnected() int
	// Providers is each configured provider's state now.
	Providers() []ProviderState
}

// ProviderState is one provider as its owner sees it.
type ProviderState struct {
	Name string
	// State is its supervision state (STARTING, RUNNING, BACKOFF, FATAL,
	// STOPPED).
	State string
	// Serving: the child serves and its updates can be journalled.
	Serving bool
	// Restarts counts the child's starts after the first one.
	Restarts uint64
	// HealthFlips counts the changes of Serving since the supervisor
	// started.
	HealthFlips uint64
	// CallsHeld is the outbox: calls held durably until the provider
	// admits again (or until an earlier call of their thread is sent).
	CallsHeld int
	// CallsOpen is every call record being made or held now.
	CallsOpen int
	// Outbound is the outbound queue.
	Outbound Outbound
	// DeadLetters is how many of its updates are set aside as dead
	// letters now (negative: not known, the store could not be read).
	DeadLetters int
}

// Outbound is a provider's outbound queue now and its counters.
type Outbound struct {
	// Queued calls by lane (prompt, message, edit, ambient).
	Queued map[string]int
	// OldestWait is how long the longest-waiting queued call has waited.
	OldestWait time.Duration
	// Coalesced counts calls replaced by a newer one while they waited
	// (edits of one message); Skipped those answered without a call (a
	// typing indicator still showing).
	Coalesced, Skipped uint64
}

// ProviderStates are the supervision states a provider_state series
// exists for (one per provider and state, 1 for the current one).
var ProviderStates = []string{"STARTING", "RUNNING", "BACKOFF", "FATAL", "STOPPED"}

var (
	followersDesc = prometheus.NewDesc(namespace+"_followers_connected",
		"Followers (agent sessions) registered now.", nil, nil)
	providerStateDesc = prometheus.NewDesc(namespace+"_provider_state",
		"1 for the provider's current supervision state, 0 for the others.", []string{"provider", "state"}, nil)
	providerServingDesc = prometheus.NewDesc(namespace+"_provider_serving",
		"1 while the provider does its job (its child serves and its updates can be journalled), else 0.", []string{"provider"}, nil)
	providerRestartsDesc = prometheus.NewDesc(namespace+"_provider_restarts_total",
		"Starts of the provider's child after the first one, of any kind (crash, doctor restart).", []string{"provider"}, nil)
	providerFlipsDesc = prometheus.NewDesc(namespace+"_provider_health_flips_total",
		"Changes of the provider's health between serving and not serving.", []string{"provider"}, nil)
	outboxDesc = prometheus.NewDesc(namespace+"_outbox_held_calls",
		"Calls held durably for the provider, to be sent once it admits again (the outbox depth).", []string{"provider"}, nil)
	callsOpenDesc = prometheus.NewDesc(namespace+"_call_records_open",
		"Call records being made or held for the provider now.", []string{"provider"}, nil)
	queuedDesc = prometheus.NewDesc(namespace+"_outbound_queued_calls",
		"Calls waiting in the provider's outbound queue now (its platform's rate limits, a restart), by lane.", []string{"provider", "lane"}, nil)
	outboundOldestDesc = prometheus.NewDesc(namespace+"_outbound_oldest_wait_seconds",
		"How long the longest-waiting call of the provider's outbound queue has waited; 0 when none waits.", []string{"provider"}, nil)
	coalescedDesc = prometheus.NewDesc(namespace+"_outbound_coalesced_total",
		"Calls a newer call replaced while they waited (edits of one message), by provider: answered without a platform call.", []string{"provider"}, nil)
	skippedDesc = prometheus.NewDesc(namespace+"_outbound_skipped_total",
		"Calls answered without a platform call because their effect still showed (a typing indicator), by provider.", []string{"provider"}, nil)
	deadLettersDesc = prometheus.NewDesc(namespace+"_dead_letters",
		"The provider's updates set aside as dead letters now (not converted, or refused by the journal), waiting for an operator to retry or drop them.", []string{"provider"}, nil)
)

// Lanes are the outbound lanes, highest first.
var Lanes = []string{"prompt", "message", "edit", "ambient"}

// stateCollector reads StateSource at scrape time.
type stateCollector struct{ src StateSource }

// Watch adds the collector of followers and providers reading src at each
// scrape. Call it once, when src is built (again after Unwatch).
func (m *Metrics) Watch(src StateSource) {
	if m == nil {
		return
	}
	m.watch(stateCollector{src})
}

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{followersDesc, providerStateDesc, providerServingDesc, providerRestartsDesc,
		providerFlipsDesc, outboxDesc, callsOpenDesc, queuedDesc, outboundOldestDesc, coalescedDesc, skippedDesc, deadLettersDesc} {
		ch <- d
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(followersDesc, prometheus.GaugeValue, float64(c.src.FollowersConnected()))
	for _, p := range c.src.Providers() {
		for _, s := range ProviderStates {
			ch <- prometheus.MustNewConstMetric(providerStateDesc, prometheus.GaugeValue, b2f(p.State == s), p.Name, s)
		}
		ch <- prometheus.MustNewConstMetric(providerServingDesc, prometheus.GaugeValue, b2f(p.Serving), p.Name)
		ch <- prometheus.MustNewConstMetric(providerRestartsDesc, prometheus.CounterValue, float64(p.Restarts), p.Name)
		ch <- prometheus.MustNewConstMetric(providerFlipsDesc, prometheus.CounterValue, float64(p.HealthFlips), p.Name)
		ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(p.CallsHeld), p.Name)
		ch <- prometheus.MustNewConstMetric(callsOpenDesc, prometheus.GaugeValue, float64(p.CallsOpen), p.Name)
		for _, l := range Lanes {
			ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(p.Outbound.Queued[l]), p.Name, l)
		}
		ch <- prometheus.MustNewConstMetric(outboundOldestDesc, prometheus.GaugeValue, p.Outbound.OldestWait.Seconds(), p.Name)
		ch <- prometheus.MustNewConstMetric(coalescedDesc, prometheus.CounterValue, float64(p.Outbound.Coalesced), p.Name)
		ch <- prometheus.MustNewConstMetric(skippedDesc, prometheus.CounterValue, float64(p.Outbound.Skipped), p.Name)
		if p.DeadLetters >= 0 {
			ch <- prometheus.MustNewConstMetric(deadLettersDesc, prometheus.GaugeValue, float64(p.DeadLetters), p.Name)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
