package store

import (
	"context"
	"errors"
	"fmt"
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
					for i := range tc.perGoroutine {
						if _, created, err := s.BeginCall(call(key, fmt.Sprint(g, "-", i))); err != nil || !created {
							errs <- fmt.Errorf("goroutine %d call %d: created %v, %v", g, i, created, err)
							return
						}
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

			// Every call record is there once.
			for g := range tc.goroutines {
				key := fmt.Sprint("b", g%bindings)
				for i := range tc.perGoroutine {
					if c, err := s.GetCall(key, fmt.Sprint(g, "-", i)); err != nil || c.State != CallQueued {
						t.Errorf("call %d-%d: %+v, %v", g, i, c, err)
					}
				}
			}
		})
	}
}

// call is a queued call record of binding key under idempotency key k (a
// bbolt write that is not the journal's).
func call(key, k string) CallRecord {
	return CallRecord{BindingKey: key, Key: k, Provider: "telegram", Chat: "-100", Thread: "7", Method: "sendMessage",
		Params: []byte(`{}`), State: CallQueued}
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
	if _, _, err := s.BeginCall(call("b", "1")); err != nil {
		t.Fatal(err)
	}
	txs0, _ := s.CommitStats()
	hold.Store(true)

	var wg sync.WaitGroup
	var errFirst, errTake, errAppend, errTarget error
	wg.Go(func() { _, _, errFirst = s.BeginCall(call("b", "2")) })
	<-entered // the first request holds the committer; the next three share a transaction
	wg.Go(func() { _, errTake = s.TakeHandoff("no such token", time.Now()) })
	wg.Go(func() { _, _, errAppend = s.BeginCall(call("b", "3")) })
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
	for _, k := range []string{"1", "2", "3"} {
		if _, err := s.GetCall("b", k); err != nil {
			t.Errorf("call %s: %v", k, err)
		}
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
			_, _, errs[i] = s.BeginCall(call("b", fmt.Sprint(i)))
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
			t.Errorf("write %d accepted before Close: %v", i, err)
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
	for i := range errs {
		if _, err := s.GetCall("b", fmt.Sprint(i)); err != nil {
			t.Errorf("after reopen: call %d: %v", i, err)
		}
	}
}
