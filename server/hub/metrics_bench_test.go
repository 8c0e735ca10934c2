package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// BenchmarkDeliverMetrics is the inbound hot path, a provider's batch
// journalled and streamed to its followers, with metrics off (the
// baseline, in the same run) and on: what recording costs per update. The
// state file is on tmpfs (/dev/shm) where there is one, so that the disk's
// fsync time (which metrics do not change) does not drown the difference;
// docs/performance.md has the command that interleaves the two.
//
//	go test -run xxx -bench DeliverMetrics -count 6 ./server/hub/
func BenchmarkDeliverMetrics(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "metrics=off", true: "metrics=on"}[on], func(b *testing.B) {
			var m *metrics.Metrics
			if on {
				m = metrics.New(metrics.Config{Providers: []string{"telegram"}})
			}
			benchDeliver(b, m)
		})
	}
}

func benchDeliver(b *testing.B, m *metrics.Metrics) {
	opts := store.Options{Limits: store.Limits{MaxCount: -1, MaxBytes: -1, MaxAge: -1}}
	if m != nil {
		opts.OnCommit = m.Commit
	}
	dir := b.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err = os.MkdirTemp("/dev/shm", "cb-bench"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	st, err := store.Open(filepath.Join(dir, "state.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	evs := events.NewHub(zerolog.Nop())
	reg := registry.New(registry.Config{Events: evs, StaleAfter: time.Hour})
	h := New(Config{Store: st, Registry: reg, Providers: &fakeProviders{attached: map[string]store.Target{}}, Events: evs, Metrics: m})
	ctx, cancel := context.WithCancel(context.Background())
	const followers, batch = 16, 64
	delivered := make(chan struct{}, followers*batch)
	var threads []string
	streams := make(chan error, followers)
	for i := range followers {
		r, err := h.Register(ctx, registry.Info{InstanceID: fmt.Sprint("i", i), ProfileKey: fmt.Sprint("manual:", i), PID: 1, ThreadName: "t"}, Request{})
		if err != nil {
			b.Fatal(err)
		}
		threads = append(threads, r.Binding.Target.Thread)
		go func() {
			streams <- h.Stream(ctx, r.Follower, 0, 1, func(ups []store.Encoded) error {
				for range ups {
					delivered <- struct{}{}
				}
				return nil
			}, nil)
		}()
	}
	b.Cleanup(func() {
		cancel()
		for range followers {
			<-streams
		}
		h.Shutdown()
		st.Close()
	})
	payload := []byte(`{"update_id":1,"message":{"message_id":1,"text":"a typical message of some forty bytes"}}`)
	id := int64(0)
	in := make([]Inbound, batch)
	for b.Loop() {
		for i := range in {
			id++
			in[i] = Inbound{Allowed: true, Update: store.Update{PlatformUpdateID: id, Chat: chat, Thread: threads[i%followers],
				Sender: "1", Kind: 1, Payload: payload, ReceivedAt: time.Now()}}
		}
		if _, err := h.Ingest(ctx, "telegram", in, fmt.Append(nil, id+1)); err != nil {
			b.Fatal(err)
		}
		for range batch {
			<-delivered
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "updates/s")
}
