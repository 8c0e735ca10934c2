package store

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// benchUpdate is about the size of a Telegram text message update.
func benchUpdate(key string, id int64) Update {
	u := upd(key, id, strings.Repeat("t", 100))
	u.Payload = bytes.Repeat([]byte{'p'}, 500)
	return u
}

// reportRate reports updates/s, and the bbolt write requests per
// transaction since CommitStats returned txs0, reqs0 if there were any
// (the journal's writes are not bbolt transactions).
func reportRate(b *testing.B, s *Bolt, txs0, reqs0 uint64) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
	if txs, reqs := s.CommitStats(); txs > txs0 {
		b.ReportMetric(float64(reqs-reqs0)/float64(txs-txs0), "requests/tx")
	}
}

// BenchmarkAppendSequential: one caller, one update per Append: every
// Append is its own journal commit and fdatasync.
func BenchmarkAppendSequential(b *testing.B) {
	s, _ := newStore(b, Options{})
	putBinding(b, s, "b", Target{"telegram", "-100", "7"})
	txs0, reqs0 := s.CommitStats()
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Append(ctx, "telegram", []Update{benchUpdate("b", int64(i+1))}, cur(int64(i+2))); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportRate(b, s, txs0, reqs0)
}

// BenchmarkAppendParallel: many callers (8 per CPU), one update per
// Append, each caller its own binding: group commit shares transactions.
func BenchmarkAppendParallel(b *testing.B) {
	s, _ := newStore(b, Options{})
	const bindings = 64
	for i := range bindings {
		putBinding(b, s, fmt.Sprint("b", i), Target{"telegram", "-100", fmt.Sprint(i)})
	}
	txs0, reqs0 := s.CommitStats()
	var nextID, nextG atomic.Int64
	ctx := context.Background()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprint("b", nextG.Add(1)%bindings)
		for pb.Next() {
			id := nextID.Add(1)
			if _, err := s.Append(ctx, "telegram", []Update{benchUpdate(key, id)}, cur(id+1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	reportRate(b, s, txs0, reqs0)
}

// BenchmarkReadAck: a follower draining its journal one update at a time:
// Read(after, 1) then Ack per update (in memory: journal.Ack; the bbolt
// counters it reports stay at zero).
func BenchmarkReadAck(b *testing.B) {
	s, _ := newStore(b, Options{Limits: Limits{MaxCount: -1, MaxBytes: -1}})
	putBinding(b, s, "b", Target{"telegram", "-100", "7"})
	for i := 0; i < b.N; i += 500 {
		var batch []Update
		for j := i; j < min(i+500, b.N); j++ {
			batch = append(batch, benchUpdate("b", int64(j+1)))
		}
		mustAppend(b, s, "telegram", int64(b.N+1), batch...)
	}
	txs0, reqs0 := s.CommitStats()
	b.ResetTimer()
	var after uint64
	for range b.N {
		ups, err := s.Read("b", after, 1)
		if err != nil || len(ups) != 1 {
			b.Fatalf("Read after %d = %d updates, %v", after, len(ups), err)
		}
		after = ups[0].Seq
		if _, err := s.Ack("b", after); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportRate(b, s, txs0, reqs0)
	if st, _ := s.Stats("b"); st.Pending != 0 {
		b.Fatalf("%d left pending", st.Pending)
	}
}
