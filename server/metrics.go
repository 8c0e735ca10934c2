package server

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/outbound"
	"github.com/chatbus/chatbus/server/registry"
)

// MetricsConfig configures the opt-in Prometheus endpoint.
type MetricsConfig struct {
	// Listen is where to serve /metrics: unix:///absolute/path or
	// host:port (port 0: any free port, logged at start). If empty,
	// metrics are off and nothing is recorded.
	Listen string
	// AllowNonLoopback allows a host:port other machines may reach. If
	// false, only loopback addresses are accepted.
	AllowNonLoopback bool
	// TopBindings is how many bindings get series of their own. If zero,
	// metrics.DefaultTopBindings.
	TopBindings int
	// Recorder, if set, is what the supervisor records into instead of a
	// recorder of its own, and serving it is the embedder's: a cluster
	// node serves its metrics for longer than one supervisor runs. The
	// fields above are then ignored. The supervisor's scrape-time
	// collectors are added when it opens its state and removed when Run
	// returns.
	Recorder *metrics.Metrics
}

// newMetrics returns the recorder the configuration asks for; nil (which
// records nothing) when metrics are off.
func (c MetricsConfig) newMetrics(providerNames []string) (*metrics.Metrics, metrics.Addr, error) {
	if c.Recorder != nil {
		return c.Recorder, metrics.Addr{}, nil
	}
	return c.NewRecorder(providerNames, nil)
}

// NewRecorder returns the recorder c asks for and where to serve it; nil
// (records nothing) when metrics are off. cluster, if set, adds a cluster
// node's series: an embedder that serves the recorder itself passes it as
// Recorder to each supervisor it runs.
func (c MetricsConfig) NewRecorder(providerNames []string, cluster *metrics.Cluster) (*metrics.Metrics, metrics.Addr, error) {
	if c.Listen == "" {
		return nil, metrics.Addr{}, nil
	}
	addr, err := metrics.ParseListen(c.Listen, c.AllowNonLoopback)
	if err != nil {
		return nil, addr, fmt.Errorf("metrics.listen %w", err)
	}
	return metrics.New(metrics.Config{TopBindings: c.TopBindings, Providers: providerNames, Cluster: cluster}), addr, nil
}

// MetricsURL is where the metrics are served (the port taken, for port
// 0), "" while they are not.
func (s *Server) MetricsURL() string {
	if e := s.metricsEP.Load(); e != nil {
		return e.URL()
	}
	return ""
}

// serveMetrics binds the metrics endpoint and serves it until stop is
// called, which waits up to the shutdown timeout for scrapes under way.
func (s *Server) serveMetrics() (stop func(), err error) {
	if s.metrics == nil || s.cfg.Metrics.Recorder != nil {
		return func() {}, nil
	}
	ep, stopEP, err := s.metrics.ServeAt(s.metricsAddr, func(err error) { s.log.Error().Err(err).Msg("metrics endpoint stopped") })
	if err != nil {
		return nil, err
	}
	s.metricsEP.Store(ep)
	s.log.Info().Str("url", ep.URL()).Msg("metrics: serving on " + ep.URL())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		defer cancel()
		if err := stopEP(ctx); err != nil {
			s.log.Warn().Err(err).Msg("metrics endpoint close")
		}
		s.metricsEP.Store(nil)
	}, nil
}

// callMethodLabel is the method label of a follower's call: the method
// if the follower's provider declared it, else metrics.OtherMethod.
func (s *Server) callMethodLabel(f *registry.Follower, method string) string {
	if s.metrics == nil || f == nil {
		return metrics.OtherMethod
	}
	_, provider := f.Binding()
	d, _ := s.provs.Description(provider)
	for _, m := range d.Methods {
		if m.Name == method {
			return method
		}
	}
	return metrics.OtherMethod
}

// recordCall records a follower's call (BusService.Call).
func (s *Server) recordCall(f *registry.Follower, method string, code codes.Code, start time.Time) {
	if s.metrics == nil {
		return
	}
	s.metrics.Call(s.callMethodLabel(f, method), code, time.Since(start))
}

// metricsSource is what the scrape-time collectors read: the registry
// through the hub, the provider manager, the store's journal stats.
type metricsSource struct{ s *Server }

func (m metricsSource) FollowersConnected() int { return m.s.core.FollowerCount() }

func (m metricsSource) Providers() []metrics.ProviderState {
	sts := m.s.provs.Statuses()
	dead, err := m.s.provs.DeadLetterCounts()
	out := make([]metrics.ProviderState, 0, len(sts))
	for _, st := range sts {
		n := dead[st.Name]
		if err != nil {
			n = -1
		}
		out = append(out, metrics.ProviderState{Name: st.Name, State: st.State.String(), Serving: st.Serving,
			Restarts: uint64(st.Restarts), HealthFlips: st.HealthFlips, CallsHeld: st.CallsHeld, CallsOpen: st.CallsOpen,
			Outbound: outboundMetrics(st.Outbound), DeadLetters: n})
	}
	return out
}

// Journals reads every binding's journal stats from the store (one read
// each), and what each live follower was sent.
func (m metricsSource) Journals() ([]metrics.BindingJournal, metrics.JournalDepth, error) {
	bs, err := m.s.store.ListBindings()
	if err != nil {
		return nil, metrics.JournalDepth{}, err
	}
	sent := map[string]uint64{}
	for _, f := range m.s.core.Followers() {
		if key, _ := f.Binding(); key != "" {
			sent[key] = f.Delivery.Delivered()
		}
	}
	out := make([]metrics.BindingJournal, 0, len(bs))
	for _, b := range bs {
		st, err := m.s.store.Stats(b.Key)
		if err != nil {
			return nil, metrics.JournalDepth{}, err
		}
		bj := metrics.BindingJournal{Key: b.Key, Provider: b.Target.Provider, Status: string(b.Status),
			JournalDepth: metrics.JournalDepth{Pending: st.Pending, Bytes: st.Bytes, OldestAt: st.OldestAt}}
		if d, ok := sent[b.Key]; ok && d > st.AckedThrough {
			bj.AckLag = d - st.AckedThrough
		}
		out = append(out, bj)
	}
	un, err := m.s.store.UnroutedStats()
	if err != nil {
		return nil, metrics.JournalDepth{}, err
	}
	return out, metrics.JournalDepth{Pending: un.Pending, Bytes: un.Bytes, OldestAt: un.OldestAt}, nil
}

// outboundMetrics is a provider's outbound queue as the metrics read it.
func outboundMetrics(st outbound.Stats) metrics.Outbound {
	out := metrics.Outbound{Queued: map[string]int{}, Coalesced: st.Coalesced, Skipped: st.Skipped}
	for _, l := range outbound.Lanes() {
		out.Queued[l.String()] = st.ByLane[l]
	}
	if !st.Oldest.IsZero() {
		out.OldestWait = time.Since(st.Oldest)
	}
	return out
}
