package metrics

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/server/store"
)

// The recorders of a cluster node (server/cluster): its leadership, its
// relay, its etcd transactions and leases. Their series exist only on a
// node's Metrics (Config.Cluster); elsewhere every method returns at once.

// Cluster names the node whose Metrics these are: its series carry the
// provider it campaigns for (and the leader gauge the node's name, so that
// a dashboard summing over nodes shows who leads).
type Cluster struct {
	Node     string
	Provider string
}

// Relay routes (RelayCall's route).
const (
	RouteLocal  = "local"  // a local caller's call to this node's own supervisor (it leads)
	RouteLeader = "leader" // a local caller's call relayed to the leader
	RoutePeer   = "peer"   // another node's relayed call, to this node's supervisor
)

// Leases a node keeps (LeaseLost's lease).
const (
	LeaseLeader = "leader" // the election's: its leadership
	LeaseMember = "member" // its member record's
)

// Etcd transaction results (chatbus_cluster_etcd_txns_total).
const (
	TxnOK     = "ok"
	TxnFenced = "fenced" // refused by the fence: this node no longer leads
	TxnError  = "error"  // etcd did not answer, or refused it otherwise
)

// clusterSeries are a node's series, all made at New.
type clusterSeries struct {
	leader     prometheus.Gauge
	won        prometheus.Counter
	fenced     prometheus.Counter
	relay      *prometheus.CounterVec // route, code
	txns       map[string]prometheus.Counter
	txnSeconds prometheus.Observer
	retries    prometheus.Counter
	leaseLost  map[string]prometheus.Counter
}

func (m *Metrics) newClusterSeries(c Cluster) *clusterSeries {
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "cluster_leader",
		Help: "1 while this node leads the provider (runs its supervisor and child), else 0."}, []string{"provider", "node"})
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
		m.reg.MustRegister(v)
		return v
	}
	m.reg.MustRegister(gauge)
	won := counter("cluster_elections_won_total", "Elections of the provider this node won (its terms as leader).", "provider")
	fenced := counter("cluster_terms_fenced_total",
		"Terms of this node as leader that ended with a write refused by the fence (its election key's revision had changed: it was deposed).", "provider")
	txns := counter("cluster_etcd_txns_total",
		"Transactions of the shared state this node's supervisor made in etcd while it led, by result: ok, fenced (refused by the fence), error (etcd did not answer in time, or refused otherwise). A transaction tried again counts once.", "result")
	txnSeconds := prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "cluster_etcd_txn_duration_seconds",
		Help:    "How long each transaction of the shared state took in etcd, its tries again included.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}})
	m.reg.MustRegister(txnSeconds)
	s := &clusterSeries{
		leader:     gauge.WithLabelValues(c.Provider, c.Node),
		won:        won.WithLabelValues(c.Provider),
		fenced:     fenced.WithLabelValues(c.Provider),
		relay:      counter("cluster_relay_calls_total", "Calls the node's relay passed on, by route (local: a local caller's to this node's supervisor, it leads; leader: a local caller's to the leader; peer: another node's to this node's supervisor) and the gRPC code they ended with (Unavailable when there was no leader to pass them to).", "route", "code"),
		txns:       map[string]prometheus.Counter{},
		txnSeconds: txnSeconds,
		retries: counter("cluster_etcd_txn_retries_total",
			"Transactions of the shared state tried again after etcd answered unavailable (no leader, leader changed, timed out); each is the same fenced transaction, so a try that had landed is written again unchanged.").WithLabelValues(),
		leaseLost: map[string]prometheus.Counter{},
	}
	for _, r := range []string{TxnOK, TxnFenced, TxnError} {
		s.txns[r] = txns.WithLabelValues(r)
	}
	lost := counter("cluster_lease_keepalive_failures_total",
		"Leases of this node whose keepalive failed: the lease ended without the node giving it up (the process was paused, or cut off from etcd, for the lease's TTL), by lease: leader (its leadership ends with it), member (its member record).", "lease")
	for _, l := range []string{LeaseLeader, LeaseMember} {
		s.leaseLost[l] = lost.WithLabelValues(l)
	}
	return s
}

// Leading sets whether this node leads its provider now.
func (m *Metrics) Leading(leading bool) {
	if m == nil || m.cluster == nil {
		return
	}
	m.cluster.leader.Set(b2f(leading))
}

// ElectionWon counts a term won.
func (m *Metrics) ElectionWon() {
	if m == nil || m.cluster == nil {
		return
	}
	m.cluster.won.Inc()
}

// TermFenced counts a term that ended with a write refused by the fence.
func (m *Metrics) TermFenced() {
	if m == nil || m.cluster == nil {
		return
	}
	m.cluster.fenced.Inc()
}

// RelayCall counts a call the relay passed on (route: RouteLocal,
// RouteLeader, RoutePeer) and the code it ended with.
func (m *Metrics) RelayCall(route string, code codes.Code) {
	if m == nil || m.cluster == nil {
		return
	}
	m.cluster.relay.WithLabelValues(route, codeLabel(code)).Inc()
}

// EtcdTxn observes one transaction of the shared state: how long it took
// (its tries again included) and its outcome. It is the etcd store's
// OnCommit.
func (m *Metrics) EtcdTxn(_ int, took time.Duration, err error) {
	if m == nil || m.cluster == nil {
		return
	}
	m.cluster.txnSeconds.Observe(took.Seconds())
	switch {
	case err == nil:
		m.cluster.txns[TxnOK].Inc()
	case errors.Is(err, store.ErrFenced):
		m.cluster.txns[TxnFenced].Inc()
	default:
		m.cluster.txns[TxnError].Inc()
	}
}

// EtcdRetry counts a transaction tried again. It is the etcd store's
// OnRetry.
func (m *Metrics) EtcdRetry(error) {
	if m == nil || m.cluster == nil {
		return
	}
	m.cluster.retries.Inc()
}

// LeaseLost counts a lease whose keepalive failed (LeaseLeader,
// LeaseMember).
func (m *Metrics) LeaseLost(lease string) {
	if m == nil || m.cluster == nil {
		return
	}
	if c, ok := m.cluster.leaseLost[lease]; ok {
		c.Inc()
	}
}
