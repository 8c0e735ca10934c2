package server_test

import (
	"context"
	"path/filepath"
	"testing"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/servertest"
)

// BenchmarkHeartbeatMetrics is the most frequent RPC over the real socket
// with metrics off (the baseline, in the same run) and on:
//
//	go test -run xxx -bench HeartbeatMetrics -count 6 ./server/
func BenchmarkHeartbeatMetrics(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "metrics=off", true: "metrics=on"}[on], func(b *testing.B) {
			cfg := server.Config{}
			if on {
				cfg.Metrics.Listen = "unix://" + filepath.Join(servertest.SocketDir(b), "metrics.sock")
			}
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
		})
	}
}
