package providers

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/metrics/metricstest"
)

// flakyFence is a real child's client whose occupancy watches fail: the
// first cut streams end after their first report, then the next fail
// opens are refused.
type flakyFence struct {
	providerv1.ProviderServiceClient
	mu        sync.Mutex
	cut, fail int
}

func (f *flakyFence) WatchOccupancy(ctx context.Context, in *providerv1.WatchOccupancyRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[providerv1.WatchOccupancyResponse], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.cut > 0:
		f.cut--
		st, err := f.ProviderServiceClient.WatchOccupancy(ctx, in, opts...)
		return &cutStream{ServerStreamingClient: st}, err
	case f.fail > 0:
		f.fail--
		return nil, status.Error(codes.Unavailable, "the watch was refused")
	}
	return f.ProviderServiceClient.WatchOccupancy(ctx, in, opts...)
}

// cutStream breaks after its first message.
type cutStream struct {
	grpc.ServerStreamingClient[providerv1.WatchOccupancyResponse]
	n int
}

func (c *cutStream) Recv() (*providerv1.WatchOccupancyResponse, error) {
	if c.n++; c.n > 1 {
		return nil, status.Error(codes.Unavailable, "the watch broke")
	}
	return c.ServerStreamingClient.Recv()
}

// TestFenceWatchRecovers: a watch of a running child's fence that breaks,
// and then cannot be opened twice, is logged and counted each time and
// opened again: admission, closed meanwhile, opens again once the child's
// fence is watched (before, a failed watch held the calls, silently,
// until the updates stream restarted).
func TestFenceWatchRecovers(t *testing.T) {
	e := newEnv(t, spec("fake", childSettings{}))
	conn := e.waitRunning(t, "fake").Conn
	var log testkit.SyncBuffer
	m := metrics.New(metrics.Config{Providers: []string{"fake"}})
	p := &provider{spec: Spec{Name: "fake"}, adm: newAdmission(), log: zerolog.New(&log), metrics: m}
	cl := &flakyFence{ProviderServiceClient: providerv1.NewProviderServiceClient(conn), cut: 1, fail: 2}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.watchFence(ctx, cl) }()
	defer func() { cancel(); <-done }()

	testkit.Eventually(t, "three failed watches counted", func() bool {
		return metricstest.Gather(t, m.Registry()).Get("chatbus_provider_fence_watch_failures_total", "provider", "fake") == 3
	})
	testkit.Eventually(t, "admission open again", func() bool { open, _ := p.adm.state(); return open })
	if n := strings.Count(log.String(), "watching the provider's doctor fence failed"); n != 3 {
		t.Fatalf("%d failures logged, want 3:\n%s", n, log.String())
	}
}
