package client_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// ackBus is a supervisor's BusService and AdminService that records the
// calls it gets, in order, and streams seqs 1..streamN on Subscribe.
type ackBus struct {
	chatbusv1.UnimplementedBusServiceServer
	chatbusv1.UnimplementedAdminServiceServer
	streamN uint64
	ackErr  error // what Ack answers, if set

	mu    sync.Mutex
	calls []string // "ack 7", "suspend", "unregister"
}

func (b *ackBus) record(c string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, c)
}

func (b *ackBus) log() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

// acks returns the seqs of the Ack calls, in order.
func (b *ackBus) acks() []uint64 {
	var out []uint64
	for _, c := range b.log() {
		var seq uint64
		if _, err := fmt.Sscanf(c, "ack %d", &seq); err == nil {
			out = append(out, seq)
		}
	}
	return out
}

func (b *ackBus) GetInfo(context.Context, *chatbusv1.GetInfoRequest) (*chatbusv1.GetInfoResponse, error) {
	return &chatbusv1.GetInfoResponse{Pid: 1, StartedAt: timestamppb.New(time.Unix(1, 0))}, nil
}

func (b *ackBus) Register(context.Context, *chatbusv1.RegisterRequest) (*chatbusv1.RegisterResponse, error) {
	return &chatbusv1.RegisterResponse{Session: &chatbusv1.Session{InstanceId: "a", Token: "t"},
		HeartbeatInterval: durationpb.New(time.Hour), StaleAfter: durationpb.New(2 * time.Hour)}, nil
}

func (b *ackBus) Ack(_ context.Context, r *chatbusv1.AckRequest) (*chatbusv1.AckResponse, error) {
	b.record(fmt.Sprintf("ack %d", r.GetSeq()))
	if b.ackErr != nil {
		return nil, b.ackErr
	}
	return &chatbusv1.AckResponse{AckedThrough: r.GetSeq()}, nil
}

func (b *ackBus) Subscribe(_ *chatbusv1.SubscribeRequest, st grpc.ServerStreamingServer[chatbusv1.SubscribeResponse]) error {
	for seq := uint64(1); seq <= b.streamN; seq++ {
		if err := st.Send(&chatbusv1.SubscribeResponse{Update: &chatbusv1.Update{Seq: seq}}); err != nil {
			return err
		}
	}
	return nil // the stream ends: the client's Updates returns
}

func (b *ackBus) Suspend(context.Context, *chatbusv1.SuspendRequest) (*chatbusv1.SuspendResponse, error) {
	b.record("suspend")
	return &chatbusv1.SuspendResponse{HandoffToken: "h", ExpiresAt: timestamppb.Now()}, nil
}

func (b *ackBus) Unregister(context.Context, *chatbusv1.UnregisterRequest) (*chatbusv1.UnregisterResponse, error) {
	b.record("unregister")
	return &chatbusv1.UnregisterResponse{}, nil
}

// startAckBus serves b on a Unix socket and registers a follower on it
// with the given ack options.
// busServer is a stand-in supervisor: ackBus, or one built on it.
type busServer interface {
	chatbusv1.BusServiceServer
	chatbusv1.AdminServiceServer
}

func startAckBus(t *testing.T, b busServer, opts ...client.Option) *client.Follower {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "bus.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	chatbusv1.RegisterBusServiceServer(srv, b)
	chatbusv1.RegisterAdminServiceServer(srv, b)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	c, err := client.Dial(sock, append([]client.Option{client.WithSecret("s")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := c.Register(ctx, client.Registration{ProfileKey: "p"})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAcksCoalesced(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()

	t.Run("many acks, few RPCs, the last one before Close unregisters", func(t *testing.T) {
		b := &ackBus{}
		f := startAckBus(t, b, client.WithAckCoalescing(time.Hour, 256))
		for seq := uint64(1); seq <= 1000; seq++ {
			if err := f.Ack(ctx, seq); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(ctx); err != nil {
			t.Fatal(err)
		}
		acks := b.acks()
		if len(acks) == 0 || len(acks) > 1000/256+1 {
			t.Errorf("%d Ack RPCs for 1000 acks (every 256): %v", len(acks), acks)
		}
		log := b.log()
		if len(log) < 2 || log[len(log)-2] != "ack 1000" || log[len(log)-1] != "unregister" {
			t.Errorf("calls end %v, want ack 1000 then unregister", log[max(0, len(log)-3):])
		}
		if !slices.IsSorted(acks) {
			t.Errorf("acks out of order: %v", acks)
		}
	})

	t.Run("a noted ack is sent after the delay without a flush", func(t *testing.T) {
		b := &ackBus{}
		f := startAckBus(t, b, client.WithAckCoalescing(20*time.Millisecond, 1<<20))
		defer f.Close(ctx)
		if err := f.Ack(ctx, 5); err != nil {
			t.Fatal(err)
		}
		testkit.Eventually(t, "ack 5", func() bool { return slices.Contains(b.acks(), 5) })
		// The next one, after the sender went idle, goes too.
		if err := f.Ack(ctx, 6); err != nil {
			t.Fatal(err)
		}
		testkit.Eventually(t, "ack 6", func() bool { return slices.Contains(b.acks(), 6) })
	})

	t.Run("Updates flushes before it returns", func(t *testing.T) {
		b := &ackBus{streamN: 10}
		f := startAckBus(t, b, client.WithAckCoalescing(time.Hour, 1<<20))
		defer f.Close(ctx)
		var got []uint64
		err := f.Updates(ctx, 0, func(u *chatbusv1.Update) error {
			got = append(got, u.GetSeq())
			return f.Ack(ctx, u.GetSeq())
		})
		if err != nil || len(got) != 10 {
			t.Fatalf("Updates = %v after %v", err, got)
		}
		if acks := b.acks(); !slices.Equal(acks, []uint64{10}) {
			t.Errorf("acks when Updates returned %v, want [10]", acks)
		}
	})

	t.Run("Suspend sends the acks first", func(t *testing.T) {
		b := &ackBus{}
		f := startAckBus(t, b, client.WithAckCoalescing(time.Hour, 1<<20))
		f.Ack(ctx, 7)
		if _, err := f.Suspend(ctx); err != nil {
			t.Fatal(err)
		}
		if log := b.log(); !slices.Equal(log, []string{"ack 7", "suspend", "unregister"}) {
			t.Errorf("calls %v, want ack 7, suspend, unregister", log)
		}
	})

	t.Run("without coalescing every Ack is its RPC", func(t *testing.T) {
		b := &ackBus{}
		f := startAckBus(t, b, client.WithAckCoalescing(0, 0))
		defer f.Close(ctx)
		for seq := uint64(1); seq <= 3; seq++ {
			if err := f.Ack(ctx, seq); err != nil {
				t.Fatal(err)
			}
			if acks := b.acks(); len(acks) != int(seq) {
				t.Fatalf("after Ack(%d): RPCs %v", seq, acks)
			}
		}
	})

	t.Run("a failed ack is reported by the next Ack and by FlushAcks", func(t *testing.T) {
		b := &ackBus{ackErr: status.Error(codes.NotFound, "session unknown")}
		f := startAckBus(t, b, client.WithAckCoalescing(time.Hour, 1))
		defer f.Close(ctx)
		f.Ack(ctx, 1) // sent at once (every 1), and refused
		testkit.Eventually(t, "the refused ack", func() bool { return len(b.acks()) > 0 })
		testkit.Eventually(t, "the refusal reported", func() bool { return f.Ack(ctx, 2) != nil })
		if err := f.FlushAcks(ctx); err == nil {
			t.Error("FlushAcks of a refused ack: nil error")
		}
	})
}
