package metrics

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/server/store"
)

// What the recorders cost by themselves, against a nil *Metrics (metrics
// off) in the same run:
//
//	go test -run xxx -bench Record ./server/metrics/

// BenchmarkRecordUpdate is one update's recording: received, journalled
// (routed), delivered.
func BenchmarkRecordUpdate(b *testing.B) {
	stored := []store.Update{{BindingKey: "manual:1"}}
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "metrics=off", true: "metrics=on"}[on], func(b *testing.B) {
			var m *Metrics
			if on {
				m = New(Config{Providers: []string{"telegram"}})
			}
			at := time.Now()
			for b.Loop() {
				m.UpdateReceived("telegram", 1, true)
				m.Journalled("telegram", 1, stored)
				m.Delivered(at, true)
			}
		})
	}
}

// BenchmarkRecordCall is one follower call's recording: the RPC and the
// platform call.
func BenchmarkRecordCall(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "metrics=off", true: "metrics=on"}[on], func(b *testing.B) {
			var m *Metrics
			if on {
				m = New(Config{})
			}
			for b.Loop() {
				m.RPC("/chatbus.v1.BusService/Call", codes.OK, time.Millisecond, true)
				m.Call("sendMessage", codes.OK, time.Millisecond)
			}
		})
	}
}
