package client_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// reportBus records the delivery reports each heartbeat carries, and
// fails heartbeats while down.
type reportBus struct {
	ackBus
	mu   sync.Mutex
	down bool
	sent [][]uint64 // the seqs of each heartbeat that got through
	seen uint64     // the highest seq any heartbeat carried
}

func (b *reportBus) Heartbeat(_ context.Context, r *chatbusv1.HeartbeatRequest) (*chatbusv1.HeartbeatResponse, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var seqs []uint64
	for _, d := range r.GetDeliveryReports() {
		seqs = append(seqs, d.GetSeq())
		b.seen = max(b.seen, d.GetSeq())
	}
	if b.down {
		return nil, status.Error(codes.Unavailable, "down")
	}
	if len(seqs) > 0 {
		b.sent = append(b.sent, seqs)
	}
	return &chatbusv1.HeartbeatResponse{}, nil
}

func (b *reportBus) state() (seen uint64, sent [][]uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seen, slices.Clone(b.sent)
}

// TestDeliveryReports: a delivery report wakes the heartbeat, which
// carries it; reports wait while heartbeats fail, the oldest dropped
// beyond 32; each report that got through is sent once.
func TestDeliveryReports(t *testing.T) {
	b := &reportBus{down: true}
	f := startAckBus(t, b)
	for seq := uint64(1); seq <= 40; seq++ {
		f.ReportDelivery(chatbusv1.DeliveryStatus_DELIVERY_STATUS_DROPPED, seq, "rate-limited")
	}
	testkit.Eventually(t, "a heartbeat with the last report", func() bool { seen, _ := b.state(); return seen == 40 })
	b.mu.Lock()
	b.down = false
	b.mu.Unlock()
	f.ReportDelivery(chatbusv1.DeliveryStatus_DELIVERY_STATUS_HELD, 41, "")
	f.ReportDelivery(chatbusv1.DeliveryStatus_DELIVERY_STATUS_HELD, 42, "")
	testkit.Eventually(t, "the last report through", func() bool {
		_, sent := b.state()
		return len(sent) > 0 && slices.Contains(sent[len(sent)-1], 42)
	})
	_, sent := b.state()
	first := sent[0]
	contiguous := len(first) == 32 && slices.IsSortedFunc(first, func(a, b uint64) int { return int(a) - int(b) }) && first[31]-first[0] == 31
	if !contiguous || first[31] < 40 {
		t.Fatalf("the first heartbeat through carried %v, want the 32 latest reports", first)
	}
	var rest []uint64
	for _, s := range sent[1:] {
		rest = append(rest, s...)
	}
	var want []uint64
	for seq := first[31] + 1; seq <= 42; seq++ {
		want = append(want, seq)
	}
	if !slices.Equal(rest, want) {
		t.Errorf("after the first, the heartbeats carried %v, want %v", rest, want)
	}
}
