package main

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/bench"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
)

// sink acknowledges every Deliver at once and records what it got.
type sink struct {
	mu  sync.Mutex
	got []*providerv1.Update
}

func (s *sink) Deliver(_ context.Context, ups []*providerv1.Update) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, ups...)
	return ups[len(ups)-1].GetUpdateId(), nil
}

func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// pipeSink is a child.Pipeline that acknowledges each batch only when
// the next one is sent (or at Flush): one batch is always in flight.
type pipeSink struct {
	sink
	mu       sync.Mutex
	inFlight int64 // the last id of the batch not yet acknowledged
	acked    int64
}

func (s *pipeSink) Send(ctx context.Context, ups []*providerv1.Update) (int64, error) {
	s.sink.Deliver(ctx, ups)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.acked, s.inFlight = max(s.acked, s.inFlight), ups[len(ups)-1].GetUpdateId()
	return s.acked, nil
}

func (s *pipeSink) Flush(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.acked = max(s.acked, s.inFlight)
	return s.acked, nil
}

var _ child.Pipeline = (*pipeSink)(nil)

func TestRun(t *testing.T) {
	tests := []struct {
		name      string
		inj       bench.Injection
		min       int // wait for at least this many
		pipelined bool
	}{
		{name: "saturated", inj: bench.Injection{Rate: 0, Batch: 64, Threads: []int64{5, 6}}, min: 1000},
		{name: "paced", inj: bench.Injection{Rate: 200, Batch: 1, Threads: []int64{5}}, min: 20},
		{name: "saturated, pipelined", inj: bench.Injection{Rate: 0, Batch: 64, Threads: []int64{5, 6}}, min: 1000, pipelined: true},
		{name: "paced, pipelined", inj: bench.Injection{Rate: 200, Batch: 1, Threads: []int64{5}}, min: 20, pipelined: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlatform(-100, 0, bench.Injection{Rate: -1})
			var ps pipeSink
			s := &ps.sink
			var sk provider.Sink = s
			if tt.pipelined {
				sk = &ps
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- p.Run(ctx, []byte("10"), sk) }()
			p.setInjection(tt.inj)
			deadline := time.Now().Add(20 * time.Second)
			for s.count() < tt.min {
				if time.Now().After(deadline) {
					t.Fatalf("only %d updates after 20s", s.count())
				}
				time.Sleep(time.Millisecond)
			}
			p.setInjection(bench.Injection{Rate: -1})
			for st := p.stats(); st.Seen != st.Version || st.Delivering; st = p.stats() {
				if time.Now().After(deadline) {
					t.Fatalf("not settled: %+v", st)
				}
				time.Sleep(time.Millisecond)
			}
			// Paused: nothing more arrives, and every update is counted.
			n := s.count()
			if st := p.stats(); st.Acked != uint64(n) || st.LastID != int64(9+n) {
				t.Errorf("stats %+v after %d updates", st, n)
			}
			for i, u := range s.got {
				if u.GetUpdateId() != int64(10+i) || u.GetChat() != "-100" || !u.GetAllowed() {
					t.Fatalf("update %d: %v", i, u)
				}
				if want := strconv.FormatInt(tt.inj.Threads[i%len(tt.inj.Threads)], 10); u.GetThread() != want {
					t.Fatalf("update %d in thread %q, want %q", i, u.GetThread(), want)
				}
				if _, ok := bench.SentAt(u.GetText()); !ok {
					t.Fatalf("update %d text %q", i, u.GetText())
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
}

func TestProvisionAndCall(t *testing.T) {
	p := newPlatform(-100, 1000, bench.Injection{})
	for _, want := range []string{"1001", "1002", "1003"} {
		tg, err := p.Provision(context.Background(), provider.ProvisionRequest{Name: "x"})
		if err != nil || tg.Thread != want || tg.Chat != "-100" {
			t.Fatalf("Provision = %+v, %v; want thread %s", tg, err, want)
		}
	}
	res, err := p.Call(context.Background(), provider.Target{Chat: "-100", Thread: "1001"}, "sendMessage", []byte(`{"text":"hi"}`), "")
	if err != nil || string(res.JSON) != `{"message_id":1,"method":"sendMessage","echo":{"text":"hi"}}` {
		t.Errorf("Call = %s, %v", res.JSON, err)
	}
}
