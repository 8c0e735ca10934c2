package metrics

import (
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
)

// stateCollector reads StateSource at scrape time.
type stateCollector struct{ src StateSource }

// Watch adds the collector of followers and providers reading src at each
// scrape. Call it once, when src is built.
func (m *Metrics) Watch(src StateSource) {
	if m == nil {
		return
	}
	m.reg.MustRegister(stateCollector{src})
}

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{followersDesc, providerStateDesc, providerServingDesc, providerRestartsDesc,
		providerFlipsDesc, outboxDesc, callsOpenDesc} {
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
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
