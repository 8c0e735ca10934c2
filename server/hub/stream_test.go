package hub

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// TestStreamBatches: a stream that asks for batches gets up to maxBatch
// updates per send, every update once, in seq order, both for what is held
// when it starts and for what arrives while it is open; maxBatch 1 (an old
// client) gets one per send.
func TestStreamBatches(t *testing.T) {
	tests := []struct {
		name     string
		maxBatch int
	}{
		{name: "one per message", maxBatch: 1},
		{name: "batches of 7", maxBatch: 7},
		{name: "batches larger than the read", maxBatch: 4096},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "", store.Limits{}, nil, nil)
			r := e.register("a", "manual:a", "")
			thread := r.Binding.Target.Thread
			var held []string
			for i := range 300 {
				held = append(held, fmt.Sprint("held ", i))
			}
			e.ingest(1, thread, held...)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			const live = 50
			var got []store.Update
			sends := 0
			errDone := errors.New("done")
			live1 := make(chan struct{})
			go func() {
				<-live1
				for i := range live {
					e.ingest(int64(1000+i), thread, fmt.Sprint("live ", i))
				}
			}()
			err := e.h.Stream(ctx, r.Follower, 0, tc.maxBatch, func(ups []store.Encoded) error {
				if len(ups) == 0 || len(ups) > tc.maxBatch {
					t.Errorf("send of %d updates, maxBatch %d", len(ups), tc.maxBatch)
				}
				sends++
				got = append(got, decoded(t, ups)...)
				if len(got) == len(held) {
					close(live1)
				}
				if len(got) >= len(held)+live {
					return errDone
				}
				return nil
			}, nil)
			if !errors.Is(err, errDone) {
				t.Fatalf("stream: %v after %d", err, len(got))
			}
			for i, u := range got {
				if u.Seq != uint64(i+1) {
					t.Fatalf("position %d holds seq %d", i, u.Seq)
				}
			}
			if len(got) != len(held)+live {
				t.Errorf("%d updates, want %d", len(got), len(held)+live)
			}
			if tc.maxBatch == 1 && sends != len(got) {
				t.Errorf("%d sends for %d updates one at a time", sends, len(got))
			}
			if tc.maxBatch > 1 && sends >= len(got) {
				t.Errorf("%d sends for %d updates in batches of %d", sends, len(got), tc.maxBatch)
			}
		})
	}
}

// BenchmarkStreamLive: one update ingested (journalled, fsynced) and
// delivered to its live follower per op, the stream waiting on
// Store.Changed and reading from the journal's memory. The figure beside it
// (BenchmarkIngestOnly) is the same ingest without a follower: the
// difference is what delivery costs.
func BenchmarkStreamLive(b *testing.B) {
	e := newEnv(b, "", store.Limits{MaxCount: -1}, nil, nil)
	r := e.register("a", "manual:a", "")
	thread := r.Binding.Target.Thread
	got := make(chan uint64, 1024)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = e.h.Stream(ctx, r.Follower, 0, 64, func(ups []store.Encoded) error {
			got <- ups[len(ups)-1].Seq
			return nil
		}, nil)
	}()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		e.ingest(int64(i+1), thread, "x")
		for seq := range got {
			if seq >= uint64(i+1) {
				break
			}
		}
	}
	b.StopTimer()
	cancel()
	<-done
}

func BenchmarkIngestOnly(b *testing.B) {
	e := newEnv(b, "", store.Limits{MaxCount: -1}, nil, nil)
	r := e.register("a", "manual:a", "")
	thread := r.Binding.Target.Thread
	for i := 0; b.Loop(); i++ {
		e.ingest(int64(i+1), thread, "x")
	}
}

// TestStreamsLeaveNoRewireWait: the channel a stream waits on for its
// thread's replacement is dropped when the stream ends: the hub keeps
// one per binding being streamed now, not one per binding ever streamed.
func TestStreamsLeaveNoRewireWait(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	for i := range 20 {
		r := e.register(fmt.Sprintf("i-%d", i), fmt.Sprintf("manual:%d", i), "")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- e.h.Stream(ctx, r.Follower, 0, 1, func([]store.Encoded) error { return nil }, func() error { return nil })
		}()
		e.ingest(int64(100+i), r.Binding.Target.Thread, "hello")
		for e.h.moves.waiting() == 0 {
			time.Sleep(time.Millisecond) // the stream is waiting
		}
		cancel()
		<-done
	}
	if n := e.h.moves.waiting(); n != 0 {
		t.Errorf("%d bindings' rewire waits kept after their streams ended, want 0", n)
	}
}
