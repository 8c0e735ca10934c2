package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/metrics/metricstest"
	"github.com/chatbus/chatbus/server/servertest"
)

// scrapeUnix GETs /metrics over the Unix socket at path.
func scrapeUnix(t testing.TB, path string) metricstest.Scrape {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", path)
	}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://supervisord/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	s, err := metricstest.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMetricsServed: a supervisor with metrics.listen serves them from
// its start to its stop, and counts its RPCs and followers.
func TestMetricsServed(t *testing.T) {
	sock := filepath.Join(servertest.SocketDir(t), "metrics.sock")
	sup := servertest.Start(t, server.Config{Metrics: server.MetricsConfig{Listen: "unix://" + sock}})
	if got := sup.Server.MetricsURL(); got != "unix://"+sock {
		t.Errorf("MetricsURL %q", got)
	}
	c := sup.Dial(t)
	ctx := context.Background()
	r, err := c.Bus.Register(ctx, &chatbusv1.RegisterRequest{InstanceId: "1:1", ProfileKey: "manual:1", Pid: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: r.GetSession()}); err != nil {
			t.Fatal(err)
		}
	}
	s := scrapeUnix(t, sock)
	s.Check(t, []metricstest.Want{
		metricstest.W("chatbus_followers_connected", 1),
		metricstest.W("chatbus_grpc_handled_total", 1, "method", "chatbus.v1.BusService/Register", "code", "OK"),
		metricstest.W("chatbus_grpc_handled_total", 3, "method", "chatbus.v1.BusService/Heartbeat", "code", "OK"),
		metricstest.W("chatbus_grpc_handling_seconds", 3, "method", "chatbus.v1.BusService/Heartbeat"),
	})
	if err := sup.Stop(t); err != nil {
		t.Fatal(err)
	}
	if _, err := net.Dial("unix", sock); err == nil {
		t.Error("metrics still served after the supervisor stopped")
	}
}

// TestMetricsListenChecked: server.New refuses an address other machines
// may reach unless allowed.
func TestMetricsListenChecked(t *testing.T) {
	dir := t.TempDir()
	_, err := server.New(server.Config{Socket: filepath.Join(dir, "s.sock"), StateDir: filepath.Join(dir, "state"),
		Metrics: server.MetricsConfig{Listen: "0.0.0.0:9464"}})
	if !errors.Is(err, metrics.ErrNotLoopback) {
		t.Fatalf("New with 0.0.0.0: %v, want ErrNotLoopback", err)
	}
	if _, err := server.New(server.Config{Socket: filepath.Join(dir, "s.sock"), StateDir: filepath.Join(dir, "state"),
		Metrics: server.MetricsConfig{Listen: "0.0.0.0:9464", AllowNonLoopback: true}}); err != nil {
		t.Fatalf("New with 0.0.0.0 allowed: %v", err)
	}
}

// TestEmbedderRecorderAndEvents: an embedder that outlives its supervisors
// (a cluster node) hands each its recorder and its event feed: the
// supervisor records and publishes into them, serves neither endpoint
// itself, and takes its scrape-time collectors with it when it stops, so
// that the next one (the node's next term) adds its own; its events are
// the feed's, beside the embedder's.
func TestEmbedderRecorderAndEvents(t *testing.T) {
	rec := metrics.New(metrics.Config{})
	evs := events.NewHub(zerolog.Nop())
	evs.Publish(events.Event{Kind: events.ClusterLeaderElected, Message: "the embedder's own"})
	state := t.TempDir()
	for term := range 2 {
		sup := servertest.Start(t, server.Config{StateDir: state, Events: evs, Metrics: server.MetricsConfig{Recorder: rec}})
		if got := sup.Server.MetricsURL(); got != "" {
			t.Errorf("term %d: the supervisor serves metrics itself at %q", term, got)
		}
		c := sup.Dial(t)
		if _, err := c.Bus.Register(context.Background(), &chatbusv1.RegisterRequest{InstanceId: "1:1", ProfileKey: "manual:1", Pid: 1}); err != nil {
			t.Fatal(err)
		}
		list, err := c.Admin.ListEvents(context.Background(), &chatbusv1.ListEventsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var own, started int
		for _, e := range list.GetEvents() {
			switch e.GetKind() {
			case chatbusv1.EventKind_EVENT_KIND_CLUSTER_LEADER_ELECTED:
				own++
			case chatbusv1.EventKind_EVENT_KIND_SUPERVISOR_STARTED:
				started++
			}
		}
		if own != 1 || started != term+1 {
			t.Errorf("term %d: the feed served has %d of the embedder's events and %d supervisor starts, want 1 and %d", term, own, started, term+1)
		}
		s := metricstest.Gather(t, rec.Registry())
		s.Check(t, []metricstest.Want{
			metricstest.W("chatbus_followers_connected", 1),
			metricstest.W("chatbus_grpc_handled_total", float64(term+1), "method", "chatbus.v1.BusService/Register", "code", "OK"),
		})
		if err := sup.Stop(t); err != nil {
			t.Fatal(err)
		}
		if s := metricstest.Gather(t, rec.Registry()); s.Has("chatbus_followers_connected") || s.Has("chatbus_journal_pending_updates") {
			t.Errorf("term %d: the stopped supervisor's collectors are still registered", term)
		}
	}
}
