package server_test

import (
	"path/filepath"
	"testing"

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
			benchHeartbeat(b, cfg)
		})
	}
}
