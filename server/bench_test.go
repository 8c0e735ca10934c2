package server_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/health/grpc_health_v1"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/servertest"
)

// The skeleton's figures over the real socket, with a raw health check on
// the same connection as the baseline:
//
//	go test -run xxx -bench . -benchtime 2s ./server/
//
// make bench runs the full harness (cmd/busbench).

func BenchmarkHealthCheckBaseline(b *testing.B) {
	sup := servertest.Start(b, server.Config{})
	hc := grpc_health_v1.NewHealthClient(sup.Dial(b).Conn())
	ctx := context.Background()
	for b.Loop() {
		if _, err := hc.Check(ctx, &grpc_health_v1.HealthCheckRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegisterReuse(b *testing.B) {
	sup := servertest.Start(b, server.Config{})
	c := sup.Dial(b)
	ctx := context.Background()
	req := &chatbusv1.RegisterRequest{InstanceId: "1:1", ProfileKey: "manual:1", Pid: 1, Cwd: "/w/p"}
	for b.Loop() {
		if _, err := c.Bus.Register(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHeartbeat(b *testing.B) { benchHeartbeat(b, server.Config{}) }

// benchHeartbeat heartbeats one follower of a supervisor started with cfg.
func benchHeartbeat(b *testing.B, cfg server.Config) {
	sup := servertest.Start(b, cfg)
	c := sup.Dial(b)
	ctx := context.Background()
	r, err := c.Bus.Register(ctx, &chatbusv1.RegisterRequest{InstanceId: "1:1", ProfileKey: "manual:1", Pid: 1})
	if err != nil {
		b.Fatal(err)
	}
	req := &chatbusv1.HeartbeatRequest{Session: r.GetSession()}
	for b.Loop() {
		if _, err := c.Bus.Heartbeat(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHeartbeatParallel(b *testing.B) {
	sup := servertest.Start(b, server.Config{})
	c := sup.Dial(b)
	ctx := context.Background()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		n := next.Add(1)
		r, err := c.Bus.Register(ctx, &chatbusv1.RegisterRequest{InstanceId: fmt.Sprint(n, ":1"), ProfileKey: fmt.Sprint("k", n), Pid: 1})
		if err != nil {
			b.Error(err)
			return
		}
		req := &chatbusv1.HeartbeatRequest{Session: r.GetSession()}
		for pb.Next() {
			if _, err := c.Bus.Heartbeat(ctx, req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
