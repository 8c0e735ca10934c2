package metrics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/server/metrics/metricstest"
	"github.com/chatbus/chatbus/server/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixedClock is a clock standing at t.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// gather scrapes m's registry.
func gather(t *testing.T, m *Metrics) metricstest.Scrape {
	t.Helper()
	return metricstest.Gather(t, m.Registry())
}

// TestNilRecordsNothing: every method of a nil *Metrics is a no-op, so a
// supervisor without metrics can call them unconditionally.
func TestNilRecordsNothing(t *testing.T) {
	var m *Metrics
	m.UpdateReceived("p", 1, false)
	m.Journalled("p", 2, []store.Update{{BindingKey: "k"}})
	m.Dropped(store.DropCount, 3)
	m.Delivered(time.Now(), true)
	m.Call("sendMessage", codes.OK, time.Second)
	m.CallRepeat("p", RepeatRecorded)
	m.RateLimited("p", time.Second)
	m.DoctorOutcome("p", "restarted", "")
	m.RPC("/chatbus.v1.BusService/Ack", codes.OK, time.Millisecond, true)
	m.Commit(1, time.Millisecond, nil)
	m.Watch(nil)
	m.WatchJournals(nil)
}

// TestRecorders: each recorder moves exactly its series.
func TestRecorders(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := New(Config{Now: fixedClock(now)})
	m.UpdateReceived("telegram", 1, true)
	m.UpdateReceived("telegram", 1, true)
	m.UpdateReceived("telegram", 3, false)
	m.UpdateReceived("telegram", 99, true) // a kind this build does not know
	m.Journalled("telegram", 3, []store.Update{{BindingKey: "a"}, {BindingKey: ""}})
	m.Dropped(store.DropAge, 4)
	m.Dropped(store.DropBindingDeleted, 1)
	m.Dropped(store.DropCount, 0)
	m.Delivered(now.Add(-30*time.Millisecond), true)
	m.Delivered(now.Add(-time.Hour), false)
	m.Delivered(time.Time{}, true) // no receipt time: not observed
	m.Call("sendMessage", codes.OK, 20*time.Millisecond)
	m.Call("sendMessage", codes.ResourceExhausted, 5*time.Millisecond)
	m.Call(OtherMethod, codes.PermissionDenied, time.Millisecond)
	m.CallRepeat("telegram", RepeatRecorded)
	m.CallRepeat("telegram", RepeatInFlight)
	m.RateLimited("telegram", 7*time.Second)
	m.RateLimited("telegram", 0)
	m.DoctorOutcome("telegram", "restarted", "")
	m.DoctorOutcome("telegram", "successor_refused", "start_refused")
	m.RPC("/chatbus.v1.BusService/Heartbeat", codes.OK, time.Millisecond, true)
	m.RPC("/chatbus.v1.BusService/Subscribe", codes.Canceled, 0, false)
	m.Commit(3, 2*time.Millisecond, nil)
	m.Commit(1, time.Millisecond, errors.New("disk full"))

	s := gather(t, m)
	s.Check(t, []metricstest.Want{
		metricstest.W("chatbus_updates_received_total", 2, "provider", "telegram", "kind", "message"),
		metricstest.W("chatbus_updates_received_total", 1, "kind", "callback_query"),
		metricstest.W("chatbus_updates_received_total", 1, "kind", "other"),
		metricstest.W("chatbus_updates_dropped_total", 1, "reason", "not_allowed"),
		metricstest.W("chatbus_updates_dropped_total", 4, "reason", "age"),
		metricstest.W("chatbus_updates_dropped_total", 1, "reason", "binding_deleted"),
		metricstest.W("chatbus_updates_routed_total", 1, "provider", "telegram"),
		metricstest.W("chatbus_updates_unrouted_total", 1, "provider", "telegram"),
		metricstest.W("chatbus_updates_duplicate_total", 1, "provider", "telegram"),
		metricstest.W("chatbus_delivery_latency_seconds", 1, "phase", "live"),
		metricstest.W("chatbus_delivery_latency_seconds", 1, "phase", "replay"),
		metricstest.W("chatbus_calls_total", 1, "method", "sendMessage", "code", "OK"),
		metricstest.W("chatbus_calls_total", 1, "method", "sendMessage", "code", "ResourceExhausted"),
		metricstest.W("chatbus_calls_total", 1, "method", "other", "code", "PermissionDenied"),
		metricstest.W("chatbus_call_duration_seconds", 2, "method", "sendMessage"),
		metricstest.W("chatbus_call_repeats_total", 1, "answer", "recorded"),
		metricstest.W("chatbus_call_repeats_total", 1, "answer", "in_flight"),
		metricstest.W("chatbus_platform_rate_limited_total", 2, "provider", "telegram"),
		metricstest.W("chatbus_platform_retry_after_seconds", 1, "provider", "telegram"),
		metricstest.W("chatbus_doctor_restarts_total", 1, "outcome", "restarted", "reason", "none"),
		metricstest.W("chatbus_doctor_restarts_total", 1, "outcome", "successor_refused", "reason", "start_refused"),
		metricstest.W("chatbus_grpc_handled_total", 1, "method", "chatbus.v1.BusService/Heartbeat", "code", "OK"),
		metricstest.W("chatbus_grpc_handled_total", 1, "method", "chatbus.v1.BusService/Subscribe", "code", "Canceled"),
		metricstest.W("chatbus_grpc_handling_seconds", 1, "method", "chatbus.v1.BusService/Heartbeat"),
		metricstest.W("chatbus_store_commits_total", 1, "result", "ok"),
		metricstest.W("chatbus_store_commits_total", 1, "result", "error"),
		metricstest.W("chatbus_store_commit_duration_seconds", 2),
		metricstest.W("chatbus_store_write_requests_total", 3),
		metricstest.W("chatbus_store_fsyncs_total", 2),
	})
	if _, ok := s.Value("chatbus_grpc_handling_seconds", "method", "chatbus.v1.BusService/Subscribe"); ok {
		t.Error("a stream's length was observed as its handling time")
	}
	// The 30 ms delivery landed in the 50 ms bucket and not below 25 ms.
	h := s["chatbus_delivery_latency_seconds"]
	for _, mt := range h.GetMetric() {
		if mt.GetLabel()[0].GetValue() != "live" {
			continue
		}
		for _, b := range mt.GetHistogram().GetBucket() {
			want := uint64(0)
			if b.GetUpperBound() >= 0.05 {
				want = 1
			}
			if b.GetUpperBound() >= 0.025 && b.GetUpperBound() < 0.05 && b.GetCumulativeCount() != 0 {
				t.Errorf("bucket %v holds the 30 ms delivery", b.GetUpperBound())
			}
			if b.GetUpperBound() >= 0.05 && b.GetCumulativeCount() != want {
				t.Errorf("bucket %v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
			}
		}
	}
}

// TestRegistryIsItsOwn: the Go runtime and process collectors are in the
// registry, nothing of the global one is, and every metric of ours passes
// the Prometheus naming lint (units in names, _total counters).
func TestRegistryIsItsOwn(t *testing.T) {
	m := New(Config{Cluster: &Cluster{Node: "n0", Provider: "p"}})
	m.UpdateReceived("p", 1, true)
	m.RelayCall(RouteLeader, codes.OK)
	s := gather(t, m)
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_cpu_seconds_total", "process_open_fds"} {
		if !s.Has(name) {
			t.Errorf("%s missing", name)
		}
	}
	mfs, err := m.Gather()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, namespace+"_") {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
	if n := testutil.CollectAndCount(m.updatesReceived); n != 1 {
		t.Errorf("received series %d, want 1", n)
	}
}

// TestClusterSeries: a cluster node's recorders count into its series,
// which exist (at 0) from the start; without Config.Cluster there are
// none and the recorders do nothing, as on a nil *Metrics.
func TestClusterSeries(t *testing.T) {
	m := New(Config{Cluster: &Cluster{Node: "n0", Provider: "tg"}})
	start := gather(t, m)
	start.Check(t, []metricstest.Want{
		metricstest.W("chatbus_cluster_leader", 0, "provider", "tg", "node", "n0"),
		metricstest.W("chatbus_cluster_elections_won_total", 0, "provider", "tg"),
		metricstest.W("chatbus_cluster_terms_fenced_total", 0, "provider", "tg"),
		metricstest.W("chatbus_cluster_etcd_txns_total", 0, "result", TxnFenced),
		metricstest.W("chatbus_cluster_lease_keepalive_failures_total", 0, "lease", LeaseMember),
	})
	m.Leading(true)
	m.ElectionWon()
	m.TermFenced()
	m.RelayCall(RoutePeer, codes.OK)
	m.RelayCall(RouteLeader, codes.Unavailable)
	m.EtcdTxn(3, 2*time.Millisecond, nil)
	m.EtcdTxn(3, time.Millisecond, fmt.Errorf("etcdstore: %w", store.ErrFenced))
	m.EtcdTxn(3, 10*time.Second, context.DeadlineExceeded)
	m.EtcdRetry(errors.New("etcdserver: leader changed"))
	m.LeaseLost(LeaseLeader)
	gather(t, m).Check(t, []metricstest.Want{
		metricstest.W("chatbus_cluster_leader", 1, "node", "n0"),
		metricstest.W("chatbus_cluster_elections_won_total", 1),
		metricstest.W("chatbus_cluster_terms_fenced_total", 1),
		metricstest.W("chatbus_cluster_relay_calls_total", 1, "route", RoutePeer, "code", "OK"),
		metricstest.W("chatbus_cluster_relay_calls_total", 1, "route", RouteLeader, "code", "Unavailable"),
		metricstest.W("chatbus_cluster_etcd_txns_total", 1, "result", TxnOK),
		metricstest.W("chatbus_cluster_etcd_txns_total", 1, "result", TxnFenced),
		metricstest.W("chatbus_cluster_etcd_txns_total", 1, "result", TxnError),
		metricstest.W("chatbus_cluster_etcd_txn_duration_seconds", 3),
		metricstest.W("chatbus_cluster_etcd_txn_retries_total", 1),
		metricstest.W("chatbus_cluster_lease_keepalive_failures_total", 1, "lease", LeaseLeader),
		metricstest.W("chatbus_cluster_lease_keepalive_failures_total", 0, "lease", LeaseMember),
	})

	single := New(Config{})
	for _, r := range []*Metrics{single, nil} {
		r.Leading(true)
		r.ElectionWon()
		r.RelayCall(RoutePeer, codes.OK)
		r.EtcdTxn(1, time.Millisecond, nil)
		r.LeaseLost(LeaseLeader)
	}
	for _, name := range gather(t, single).Names() {
		if strings.HasPrefix(name, "chatbus_cluster_") {
			t.Errorf("%s on a supervisor that is no cluster node", name)
		}
	}
}
