package journal

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPipeline is the supervisor's inbound path without gRPC: a
// provider appends batches of 100 updates of Telegram's size (700 bytes,
// a DedupID, the cursor) round-robin over the followers' keys, with one or
// two Appends in flight (a pump that receives the next batch while the
// last one commits); each follower waits on Changed, reads what is new
// (from memory) and acks it. An op is one update appended durably and
// received by its follower.
func BenchmarkPipeline(b *testing.B) {
	for _, tc := range []struct{ followers, inflight int }{{1, 1}, {1, 2}, {1000, 1}, {1000, 2}} {
		b.Run(fmt.Sprintf("followers=%d/inflight=%d", tc.followers, tc.inflight), func(b *testing.B) {
			followers := tc.followers
			j, err := Open(b.TempDir(), Options{Limits: Limits{MaxCount: -1, MaxBytes: -1}})
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var received atomic.Int64
			var wg sync.WaitGroup
			keys := make([]string, followers)
			for f := range keys {
				keys[f] = fmt.Sprint("manual:", f)
				wg.Go(func() { follow(ctx, b, j, keys[f], &received) })
			}
			data := payload(0, 700)
			commits0, batched0 := j.commits.Load(), j.batched.Load()
			b.ResetTimer()
			var pumps sync.WaitGroup
			for p := range tc.inflight {
				pumps.Go(func() {
					for i := p * 100; i < b.N; i += 100 * tc.inflight {
						batch := make([]Entry, min(100, b.N-i))
						for k := range batch {
							id := i + k
							batch[k] = Entry{Key: keys[id%followers], DedupID: fmt.Sprint(id), Data: data}
						}
						if _, err := j.Append(ctx, "telegram", batch, fmt.Append(nil, i+len(batch))); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			pumps.Wait()
			for received.Load() < int64(b.N) && !b.Failed() {
				time.Sleep(50 * time.Microsecond)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
			// Group commit's share: Appends per batch written (acks ride
			// along, and the ack flushes of an idle moment count as batches).
			if c := j.commits.Load() - commits0; c > 0 {
				b.ReportMetric(float64(j.batched.Load()-batched0)/float64(c), "appends/commit")
			}
			cancel()
			wg.Wait()
		})
	}
}

// follow is one follower: read after the last seq it handled, ack, wait.
func follow(ctx context.Context, b *testing.B, j *Journal, key string, received *atomic.Int64) {
	var pos uint64
	for {
		changed := j.Changed(key, pos)
		recs, err := j.Read(key, pos, 0)
		if err != nil {
			b.Error(err)
			return
		}
		if len(recs) == 0 {
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return
			}
		}
		pos = recs[len(recs)-1].Seq
		if _, err := j.Ack(key, pos); err != nil {
			b.Error(err)
			return
		}
		received.Add(int64(len(recs)))
	}
}
