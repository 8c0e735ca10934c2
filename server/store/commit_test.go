package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitQueued waits until n write requests sit in the committer's queue.
func waitQueued(t testing.TB, s *Bolt, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.reqs) < n {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %d queued requests (have %d)", n, len(s.reqs))
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func TestGroupCommit(t *testing.T) {
	tests := []struct {
		name         string
		goroutines   int
		perGoroutine int
		// hold the first transaction until every other goroutine queued a
		// request, so the test does not depend on timing to see a shared
		// transaction
		holdFirst bool
	}{
		{name: "sequential: one transaction per request", goroutines: 1, perGoroutine: 40},
		{name: "concurrent: requests share transactions", goroutines: 16, perGoroutine: 25, holdFirst: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var (
				sp   atomic.Pointer[Bolt]
				hold atomic.Bool
			)
			s, _ := newStore(t, Options{testHookBeforeTx: func(n int) {
				if hold.CompareAndSwap(true, false) {
					// Each goroutine has one request outstanding: wait
					// until all are in this batch or queued behind it.
					waitQueued(t, sp.Load(), tc.goroutines-n)
				}
			}})
			sp.Store(s)
			const bindings = 4
			for b := range bindings {
				putBinding(t, s, fmt.Sprint("b", b), Target{"telegram", "-100", fmt.Sprint(b)})
			}
			txs0, reqs0 := s.CommitStats()
			hold.Store(tc.holdFirst)

			var wg sync.WaitGroup
			errs := make(chan error, tc.goroutines)
			for g := range tc.goroutines {
				wg.Go(func() {
					key := fmt.Sprint("b", g%bindings)
					var last uint64
					for i := range tc.perGoroutine {
						id := int64(g*1000 + i + 1)
						out, err := s.Append(context.Background(), "telegram", []Update{upd(key, id, "x")}, cur(id+1))
						if err != nil {
							errs <- err
							return
						}
						if len(out) != 1 || out[0].Seq <= last {
							errs <- fmt.Errorf("goroutine %d append %d: got %+v after seq %d", g, i, out, last)
							return
						}
						last = out[0].Seq
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}

			txs, reqs := s.CommitStats()
			txs, reqs = txs-txs0, reqs-reqs0
			total := uint64(tc.goroutines * tc.perGoroutine)
			if reqs != total {
				t.Errorf("requests = %d, want %d", reqs, total)
			}
			if tc.goroutines == 1 && txs != reqs {
				t.Errorf("sequential: %d transactions for %d requests, want equal", txs, reqs)
			}
			if tc.goroutines > 1 && txs >= reqs {
				t.Errorf("concurrent: %d transactions for %d requests, want fewer", txs, reqs)
			}
			t.Logf("%d requests in %d transactions", reqs, txs)

			// Every binding holds contiguous seqs 1..n, each update once.
			for b := range bindings {
				key := fmt.Sprint("b", b)
				got := readAll(t, s, key)
				n := 0
				for g := b; g < tc.goroutines; g += bindings {
					n += tc.perGoroutine
				}
				if len(got) != n {
					t.Errorf("%s holds %d updates, want %d", key, len(got), n)
				}
				seen := map[int64]bool{}
				for i, u := range got {
					if u.Seq != uint64(i+1) {
						t.Errorf("%s: position %d has seq %d", key, i, u.Seq)
						break
					}
					if seen[u.PlatformUpdateID] {
						t.Errorf("%s: id %d stored twice", key, u.PlatformUpdateID)
					}
					seen[u.PlatformUpdateID] = true
				}
			}
		})
	}
}

// TestAppendContext: a request whose ctx ends while queued is not written;
// one whose ctx ends while its transaction runs is committed anyway.
func TestAppendContext(t *testing.T) {
	var armed atomic.Bool
	entered, release := make(chan int), make(chan struct{})
	s, _ := newStore(t, Options{testHookBeforeTx: func(n int) {
		if armed.Load() {
			entered <- n
			<-release
		}
	}})
	putBinding(t, s, "b", Target{"telegram", "-100", "7"})
	appendAsync := func(ctx context.Context, id int64) <-chan error {
		ch := make(chan error, 1)
		go func() {
			_, err := s.Append(ctx, "telegram", []Update{upd("b", id, "x")}, cur(id+1))
			ch <- err
		}()
		return ch
	}

	armed.Store(true)
	errA := appendAsync(context.Background(), 1)
	<-entered // A's transaction is about to run

	ctxB, cancelB := context.WithCancel(context.Background())
	errB := appendAsync(ctxB, 2)
	waitQueued(t, s, 1)
	cancelB()
	if err := <-errB; !errors.Is(err, context.Canceled) {
		t.Errorf("B (cancelled while queued) = %v, want context.Canceled", err)
	}
	release <- struct{}{}
	if err := <-errA; err != nil {
		t.Errorf("A = %v", err)
	}

	ctxC, cancelC := context.WithCancel(context.Background())
	errC := appendAsync(ctxC, 3)
	<-entered // C's transaction is about to run: its ctx was checked
	cancelC()
	if err := <-errC; !errors.Is(err, context.Canceled) {
		t.Errorf("C (cancelled while committing) = %v, want context.Canceled", err)
	}
	armed.Store(false)
	release <- struct{}{}

	// D queues behind C, so once D returns C has committed.
	mustAppend(t, s, "telegram", 5, upd("b", 4, "x"))
	if got := readAll(t, s, "b"); !slices.Equal(ids(got), []int64{1, 3, 4}) || !slices.Equal(seqs(got), []uint64{1, 2, 3}) {
		t.Errorf("journal ids %v seqs %v, want ids [1 3 4] seqs [1 2 3]", ids(got), seqs(got))
	}
	// B was never written, so retrying it stores it.
	if out := mustAppend(t, s, "telegram", 5, upd("b", 2, "x")); !slices.Equal(seqs(out), []uint64{4}) {
		t.Errorf("retry of B stored seqs %v, want [4]", seqs(out))
	}
	// C was written, so retrying it is a no-op.
	if out := mustAppend(t, s, "telegram", 5, upd("b", 3, "x")); len(out) != 0 {
		t.Errorf("retry of C stored %v", ids(out))
	}
}

// TestFailedBatchIsolation: requests that fail inside a shared transaction
// do not fail the others.
func TestFailedBatchIsolation(t *testing.T) {
	var hold atomic.Bool
	var sp atomic.Pointer[Bolt]
	entered := make(chan struct{})
	s, _ := newStore(t, Options{testHookBeforeTx: func(int) {
		if hold.CompareAndSwap(true, false) {
			close(entered)
			waitQueued(t, sp.Load(), 3)
		}
	}})
	sp.Store(s)
	putBinding(t, s, "b", Target{"telegram", "-100", "7"})
	putBinding(t, s, "other", Target{"telegram", "-100", "8"})
	mustAppend(t, s, "telegram", 0, upd("b", 1, "x"))
	txs0, _ := s.CommitStats()
	hold.Store(true)

	var wg sync.WaitGroup
	var errFirst, errTake, errAppend, errTarget error
	wg.Go(func() { _, errFirst = s.Append(context.Background(), "telegram", []Update{upd("b", 2, "x")}, cur(0)) })
	<-entered // the first request holds the committer; the next three share a transaction
	wg.Go(func() { _, errTake = s.TakeHandoff("no such token", time.Now()) })
	wg.Go(func() { _, errAppend = s.Append(context.Background(), "telegram", []Update{upd("b", 3, "x")}, cur(0)) })
	wg.Go(func() {
		errTarget = s.PutBinding(Binding{Key: "thief", Status: StatusActive, Target: Target{"telegram", "-100", "8"}})
	})
	wg.Wait()
	if errFirst != nil || errAppend != nil {
		t.Errorf("good requests failed: %v, %v", errFirst, errAppend)
	}
	if !errors.Is(errTake, ErrHandoffUnknown) {
		t.Errorf("TakeHandoff of an unknown token = %v, want ErrHandoffUnknown", errTake)
	}
	if !errors.Is(errTarget, ErrTargetInUse) {
		t.Errorf("PutBinding of a taken target = %v, want ErrTargetInUse", errTarget)
	}
	if got := readAll(t, s, "b"); !slices.Equal(ids(got), []int64{1, 2, 3}) || !slices.Equal(seqs(got), []uint64{1, 2, 3}) {
		t.Errorf("journal ids %v seqs %v, want [1 2 3] [1 2 3]", ids(got), seqs(got))
	}
	if _, err := s.GetBinding("thief"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetBinding(thief) = %v, want ErrNotFound", err)
	}
	// 1 (first) + 1 (the shared, failed one) + 3 (one each on retry).
	if txs, _ := s.CommitStats(); txs-txs0 != 5 {
		t.Errorf("%d transactions, want 5", txs-txs0)
	}
}

func TestClose(t *testing.T) {
	var armed atomic.Bool
	var held atomic.Int64 // requests in the held transaction
	entered, release := make(chan struct{}), make(chan struct{})
	s, path := newStore(t, Options{testHookBeforeTx: func(n int) {
		if armed.CompareAndSwap(true, false) {
			held.Store(int64(n))
			close(entered)
			<-release
		}
	}})
	putBinding(t, s, "b", Target{"telegram", "-100", "7"})

	// Writes accepted before Close are finished by Close.
	armed.Store(true)
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.Append(context.Background(), "telegram", []Update{upd("b", int64(i+1), "x")}, cur(0))
		})
	}
	<-entered // some of the appends are in the held transaction, the rest queued
	for int(held.Load())+len(s.reqs) < len(errs) {
		time.Sleep(time.Millisecond) // until every append is accepted
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	time.Sleep(10 * time.Millisecond)
	release <- struct{}{}
	wg.Wait()
	if err := <-closed; err != nil {
		t.Fatalf("Close = %v", err)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("append %d accepted before Close: %v", i, err)
		}
	}

	tests := []struct {
		name string
		call func() error
	}{
		{name: "Append", call: func() error { _, err := s.Append(context.Background(), "telegram", nil, cur(0)); return err }},
		{name: "Ack", call: func() error { _, err := s.Ack("b", 0); return err }},
		{name: "Read", call: func() error { _, err := s.Read("b", 0, 0); return err }},
		{name: "PutBinding", call: func() error { return s.PutBinding(Binding{Key: "c", Status: StatusActive}) }},
		{name: "ListBindings", call: func() error { _, err := s.ListBindings(); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close = %v, want ErrClosed", tc.name, err)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}

	s = openAt(t, path, Options{})
	if st, _ := s.Stats("b"); st.Pending != len(errs) {
		t.Errorf("after reopen %d pending, want %d", st.Pending, len(errs))
	}
}
