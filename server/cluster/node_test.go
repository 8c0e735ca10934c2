package cluster

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/chatbus/chatbus/internal/etcdtest"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/metrics/metricstest"
	"github.com/chatbus/chatbus/server/safesocket"
	"github.com/chatbus/chatbus/server/store"
)

// testNode is a Node of a test cluster: its supervisor is a health server
// on the inner socket over the store of its term, which the test gets on
// stores to write through.
type testNode struct {
	*Node
	name   string
	socket string
	secret string
	evs    *events.Watcher
	seen   []events.Event // what evs delivered so far
	m      *metrics.Metrics
	stores chan store.Store
	causes chan error    // why each term's supervisor was ended (its context's cause)
	hold   chan struct{} // if not nil, a term's supervisor returns only once it is closed
	stop   func()
}

// nodeOption changes a test node's setup.
type nodeOption func(*Config, *testNode)

// viaEtcd makes the node reach etcd at endpoints.
func viaEtcd(endpoints ...string) nodeOption {
	return func(c *Config, _ *testNode) { c.Etcd.Endpoints = endpoints }
}

// heldSupervisor makes the node's supervisor slow to stop: it returns
// only once hold is closed (as a graceful stop waits for calls).
func heldSupervisor(hold chan struct{}) nodeOption {
	return func(_ *Config, tn *testNode) { tn.hold = hold }
}

const testSecret = "s3cret"

func startNode(t *testing.T, ec *etcdtest.Cluster, certs map[string]TLSFiles, name string, opts ...nodeOption) *testNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tn := &testNode{name: name, socket: filepath.Join(t.TempDir(), "bus.sock"), secret: testSecret, stores: make(chan store.Store, 4), causes: make(chan error, 4),
		m: metrics.New(metrics.Config{Providers: []string{"tg"}, Cluster: &metrics.Cluster{Node: name, Provider: "tg"}})}
	hub := events.NewHub(zerolog.Nop())
	tn.evs = hub.Watch(true)
	t.Cleanup(tn.evs.Close)
	cfg := Config{
		Cluster: "t", Node: name, Provider: "tg",
		Etcd:   clientv3.Config{Endpoints: ec.Endpoints},
		Listen: addr, TLS: certs[name], LeaseTTL: 2 * time.Second,
		Socket: tn.socket, Secret: testSecret, AllowUID: os.Getuid(),
		Events: hub, Metrics: tn.m,
		Lead: func(ctx context.Context, open func(store.Options) (store.Store, error), socket string, ready func()) error {
			st, err := open(store.Options{})
			if err != nil {
				return err
			}
			ln, err := safesocket.ListenPrivate(socket)
			if err != nil {
				return err
			}
			gs := grpc.NewServer(grpc.Creds(safesocket.PeerCredentials()))
			grpc_health_v1.RegisterHealthServer(gs, health.NewServer())
			go gs.Serve(ln)
			ready()
			tn.stores <- st
			<-ctx.Done()
			tn.causes <- context.Cause(ctx)
			if tn.hold != nil {
				<-tn.hold
			}
			gs.Stop()
			return nil
		},
	}
	for _, o := range opts {
		o(&cfg, tn)
	}
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tn.Node = n
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	stopped := false
	tn.stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("node %s: %v", name, err)
			}
		}
	}
	t.Cleanup(tn.stop)
	return tn
}

// event waits until the node's feed has had an event of kind whose attrs
// include want (pairs), and returns it. Events seen while waiting for
// others count too: the order of one node's and another's is not fixed.
func (tn *testNode) event(t *testing.T, kind events.Kind, want ...string) events.Event {
	t.Helper()
	matches := func(e events.Event) bool {
		if e.Kind != kind {
			return false
		}
		for i := 0; i+1 < len(want); i += 2 {
			if e.Attrs[want[i]] != want[i+1] {
				return false
			}
		}
		return true
	}
	for _, e := range tn.seen {
		if matches(e) {
			return e
		}
	}
	deadline := time.After(60 * time.Second)
	for {
		select {
		case e := <-tn.evs.C():
			tn.seen = append(tn.seen, e)
			if matches(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("node %s: no %s event with %v; its events: %v", tn.name, kind, want, tn.seen)
		}
	}
}

// store returns the store of the node's current term.
func (tn *testNode) store(t *testing.T) store.Store {
	t.Helper()
	select {
	case st := <-tn.stores:
		return st
	case <-time.After(60 * time.Second):
		t.Fatalf("node %s: no term began", tn.name)
		return nil
	}
}

// electionKey returns the key of the election's leader and its lease.
func electionKeyOf(t *testing.T, cli *clientv3.Client) (string, clientv3.LeaseID) {
	t.Helper()
	resp, err := cli.Get(context.Background(), "/chatbus/t/leader/tg/", clientv3.WithFirstCreate()...)
	if err != nil || len(resp.Kvs) == 0 {
		t.Fatalf("election: %v %v", resp, err)
	}
	return string(resp.Kvs[0].Key), clientv3.LeaseID(resp.Kvs[0].Lease)
}

// TestNodeEventsAndMetrics: two nodes over a real etcd. Each publishes
// what happens to it (elected, its relay following the leader, a write
// refused by the fence, its term ended and why) and what the other's
// member record says happened to it (reported_by), members joining and
// leaving; its metrics count the same (terms won and fenced, the leader
// gauge, relayed calls by route, etcd transactions, leases lost).
func TestNodeEventsAndMetrics(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	cli := ec.Client(t)
	certs, err := MakeCerts(filepath.Join(t.TempDir(), "certs"), []string{"n0", "n1"}, nil)
	if err != nil {
		t.Fatal(err)
	}

	n0 := startNode(t, ec, certs, "n0")
	n0.event(t, events.ClusterLeaderElected, "node", "n0", "term", "1")
	st0 := n0.store(t)
	n1 := startNode(t, ec, certs, "n1")
	n1.event(t, events.ClusterRelayFollowed, "node", "n1", "leader", "n0")
	n0.event(t, events.ClusterMemberJoined, "node", "n1", "reported_by", "n0")

	// A call on n1's socket goes to n0's supervisor through the relay.
	cc, err := grpc.NewClient("unix://"+n1.socket, grpc.WithTransportCredentials(safesocket.PeerCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+testSecret)
	if _, err := grpc_health_v1.NewHealthClient(cc).Check(ctx, &grpc_health_v1.HealthCheckRequest{}); err != nil {
		t.Fatalf("a call relayed to the leader: %v", err)
	}

	// n0's leadership key goes (as when its lease ends while its process
	// is paused); n1 wins; n0, still running its term, writes: refused.
	key, _ := electionKeyOf(t, cli)
	if _, err := cli.Delete(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	n1.event(t, events.ClusterLeaderElected, "node", "n1", "term", "1")
	st1 := n1.store(t)
	if err := st1.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatalf("the new leader's write: %v", err)
	}
	if err := st0.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("the deposed leader's write: %v, want ErrFenced", err)
	}
	n0.event(t, events.ClusterFenced, "node", "n0")
	n0.event(t, events.ClusterLeadershipLost, "node", "n0", events.ReasonAttr, "fenced")
	n0.event(t, events.ClusterRelayFollowed, "node", "n0", "leader", "n1")
	n1.event(t, events.ClusterFenced, "node", "n0", "reported_by", "n1")
	n1.event(t, events.ClusterLeadershipLost, "node", "n0", events.ReasonAttr, "fenced", "reported_by", "n1")

	// n1's lease ends (revoked: what its expiry does, without the wait):
	// its term ends, n0 (campaigning again) wins.
	_, lease := electionKeyOf(t, cli)
	if _, err := cli.Revoke(context.Background(), lease); err != nil {
		t.Fatal(err)
	}
	n1.event(t, events.ClusterLeadershipLost, "node", "n1", events.ReasonAttr, "lease_lost")
	n0.event(t, events.ClusterLeaderElected, "node", "n0", "term", "2")
	n0.store(t)
	n0.event(t, events.ClusterLeadershipLost, "node", "n1", events.ReasonAttr, "lease_lost", "reported_by", "n0")

	s0 := metricstest.Gather(t, n0.m.Registry())
	s0.Check(t, []metricstest.Want{
		{Name: "chatbus_cluster_leader", Labels: []string{"provider", "tg", "node", "n0"}, Value: 1},
		{Name: "chatbus_cluster_elections_won_total", Labels: []string{"provider", "tg"}, Value: 2},
		{Name: "chatbus_cluster_terms_fenced_total", Labels: []string{"provider", "tg"}, Value: 1},
		{Name: "chatbus_cluster_etcd_txns_total", Labels: []string{"result", "fenced"}, Value: 1},
		{Name: "chatbus_cluster_relay_calls_total", Labels: []string{"route", "peer", "code", "OK"}, Value: 1},
		{Name: "chatbus_cluster_lease_keepalive_failures_total", Labels: []string{"lease", "leader"}, Value: 0},
		{Name: "chatbus_cluster_etcd_txn_retries_total", Value: 0},
	})
	s1 := metricstest.Gather(t, n1.m.Registry())
	s1.Check(t, []metricstest.Want{
		{Name: "chatbus_cluster_leader", Labels: []string{"provider", "tg", "node", "n1"}, Value: 0},
		{Name: "chatbus_cluster_elections_won_total", Labels: []string{"provider", "tg"}, Value: 1},
		{Name: "chatbus_cluster_terms_fenced_total", Labels: []string{"provider", "tg"}, Value: 0},
		{Name: "chatbus_cluster_etcd_txns_total", Labels: []string{"result", "ok"}, Value: 1},
		{Name: "chatbus_cluster_relay_calls_total", Labels: []string{"route", "leader", "code", "OK"}, Value: 1},
		{Name: "chatbus_cluster_lease_keepalive_failures_total", Labels: []string{"lease", "leader"}, Value: 1},
	})
	if n := s1.Get("chatbus_cluster_etcd_txn_duration_seconds"); n != 1 {
		t.Errorf("n1 observed %v transaction durations, want 1", n)
	}

	// n1 stops: n0 sees it leave.
	n1.stop()
	n0.event(t, events.ClusterMemberLeft, "node", "n1", "reported_by", "n0")
}

// TestNoLeadershipOnAnExpiredSession: a node waiting to win whose session
// ends meanwhile (its lease gone, as when etcd was away past the TTL)
// does not lead on it when the leader goes: it campaigns again on a new
// session, and its first term is a real one (its writes go through).
func TestNoLeadershipOnAnExpiredSession(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	cli := ec.Client(t)
	certs, err := MakeCerts(filepath.Join(t.TempDir(), "certs"), []string{"n0", "n1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n0 := startNode(t, ec, certs, "n0")
	n0.event(t, events.ClusterLeaderElected, "node", "n0", "term", "1")
	n0.store(t)
	n1 := startNode(t, ec, certs, "n1")
	n1.event(t, events.ClusterRelayFollowed, "node", "n1", "leader", "n0")

	// n1's campaign key, second in the election, and its lease.
	var lease clientv3.LeaseID
	for deadline := time.Now().Add(30 * time.Second); lease == 0; {
		resp, err := cli.Get(context.Background(), "/chatbus/t/leader/tg/", clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) == 2 {
			lease = clientv3.LeaseID(resp.Kvs[1].Lease)
		} else if time.Now().After(deadline) {
			t.Fatalf("n1 is not campaigning: %v", resp.Kvs)
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := cli.Revoke(context.Background(), lease); err != nil {
		t.Fatal(err)
	}
	// n0 goes; n1 wins, on a live session.
	n0.stop()
	n1.event(t, events.ClusterLeaderElected, "node", "n1", "term", "1")
	st := n1.store(t)
	if err := st.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatalf("a write of n1's first term: %v", err)
	}
	for _, e := range n1.seen {
		if e.Kind == events.ClusterLeadershipLost && e.Attrs["node"] == "n1" {
			t.Errorf("n1 lost a term: %v", e)
		}
	}
}

// TestCutOffLeaderStepsDown: a leader cut off from etcd alone steps down
// by its local lease deadline, without etcd: its term's loss is published
// before another node wins, at once although its supervisor is slow to
// stop, and its supervisor's context says it was deposed (ErrFenced).
func TestCutOffLeaderStepsDown(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	certs, err := MakeCerts(filepath.Join(t.TempDir(), "certs"), []string{"n0", "n1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fw := etcdtest.Forward(t, strings.TrimPrefix(ec.Endpoints[0], "http://"))
	hold := make(chan struct{})
	defer close(hold)
	n0 := startNode(t, ec, certs, "n0", viaEtcd(fw.URL()), heldSupervisor(hold))
	n0.event(t, events.ClusterLeaderElected, "node", "n0", "term", "1")
	n0.store(t)
	n1 := startNode(t, ec, certs, "n1")
	n1.event(t, events.ClusterRelayFollowed, "node", "n1", "leader", "n0")

	fw.Cut()
	lost := n0.event(t, events.ClusterLeadershipLost, "node", "n0", events.ReasonAttr, "lease_deadline")
	if cause := <-n0.causes; !errors.Is(cause, store.ErrFenced) {
		t.Errorf("the cut-off leader's supervisor ended with %v, want a cause wrapping ErrFenced", cause)
	}
	won := n1.event(t, events.ClusterLeaderElected, "node", "n1", "term", "1")
	if !lost.Time.Before(won.Time) {
		t.Errorf("n0 stepped down at %s, after n1 won at %s", lost.Time, won.Time)
	}
}

// TestHealedNodeReachesEtcdAgain: a leader cut off from etcd while its
// client was connecting (the connections it opened are taken and never
// answered, as behind a dead link) steps down; once the link heals it
// reaches etcd again within a few lease TTLs, not after gRPC's own 20s
// connect timeout: it follows the new leader (so its followers are served
// again through the relay) and campaigns again.
func TestHealedNodeReachesEtcdAgain(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	certs, err := MakeCerts(filepath.Join(t.TempDir(), "certs"), []string{"n0", "n1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fw := etcdtest.Forward(t, strings.TrimPrefix(ec.Endpoints[0], "http://"))
	n0 := startNode(t, ec, certs, "n0", viaEtcd(fw.URL()))
	n0.event(t, events.ClusterLeaderElected, "node", "n0", "term", "1")
	n0.store(t)
	n1 := startNode(t, ec, certs, "n1")
	n1.event(t, events.ClusterRelayFollowed, "node", "n1", "leader", "n0")

	fw.Cut()
	n0.event(t, events.ClusterLeadershipLost, "node", "n0", events.ReasonAttr, "lease_deadline")
	n1.event(t, events.ClusterLeaderElected, "node", "n1", "term", "1")
	// n0's client has been trying to connect meanwhile, into the cut.
	fw.Restore()
	healed := time.Now()
	n0.event(t, events.ClusterRelayFollowed, "node", "n0", "leader", "n1")
	// The bound: five lease TTLs, well past what reconnecting takes
	// (about one TTL at most) and well short of gRPC's default connect
	// timeout (20s), which a connection attempt into the cut waited out.
	took := time.Since(healed)
	t.Logf("n0 reached etcd again %s after the link healed", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("n0 reached etcd again %s after the link healed", took.Round(time.Millisecond))
	}
}
