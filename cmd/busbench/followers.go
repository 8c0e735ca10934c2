//go:build linux

package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// follower is one follower of the bench, with its own connection (the
// supervisor sees one client per follower, as with real sessions): it
// registers with the Go client (which heartbeats), receives its thread's
// updates with Updates and acknowledges each with Ack, which the client
// coalesces (client.WithAckCoalescing with its defaults).
type follower struct {
	c      *client.Client
	f      *client.Follower
	thread int64
	cancel context.CancelFunc
	done   chan struct{}

	streamErr atomic.Pointer[error] // why the update stream ended, if it did

	received  atomic.Uint64
	anomalies atomic.Uint64 // seq not one more than the previous one
	latest    atomic.Uint64 // highest seq received
}

// followerOpts say how a follower behaves.
type followerOpts struct {
	ProfileKey, InstanceID, Provider string
	// Subscribe opens the update stream.
	Subscribe bool
	// Ack acknowledges each update as it arrives, as the Go client does
	// it: coalesced.
	Ack bool
	// Latency, if set, records provider→follower latencies while it holds
	// a recorder.
	Latency *atomic.Pointer[recorder]
}

// newFollower dials, registers and (if asked) subscribes.
func newFollower(ctx context.Context, socket, secret string, o followerOpts) (*follower, error) {
	c, err := client.Dial(socket, client.WithSecret(secret), client.WithAckCoalescing(client.DefaultAckDelay, client.DefaultAckEvery))
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	f, err := c.Register(rctx, client.Registration{
		InstanceID: o.InstanceID, ProfileKey: o.ProfileKey, Provider: o.Provider,
		Cwd: "/bench/" + o.ProfileKey,
	})
	cancel()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("register %s: %w", o.ProfileKey, err)
	}
	fl := &follower{c: c, f: f, thread: f.Registered().GetBinding().GetTarget().GetThreadId(), done: make(chan struct{})}
	sctx, scancel := context.WithCancel(context.Background())
	fl.cancel = scancel
	if !o.Subscribe {
		close(fl.done)
		return fl, nil
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		var last uint64
		err := f.Updates(sctx, 0, func(u *chatbusv1.Update) error {
			now := time.Now()
			if last != 0 && u.GetSeq() != last+1 {
				fl.anomalies.Add(1)
			}
			last = u.GetSeq()
			if o.Latency != nil {
				if r := o.Latency.Load(); r != nil {
					if sent, ok := bench.SentAt(u.GetText()); ok {
						r.observe(sent, now, u.GetReceivedAt().AsTime())
					}
				}
			}
			fl.received.Add(1)
			fl.latest.Store(last)
			if o.Ack {
				f.Ack(sctx, last) // an error is the stream's to report
			}
			return nil
		})
		if sctx.Err() == nil {
			fl.streamErr.Store(&err)
		}
	})
	go func() { wg.Wait(); close(fl.done) }()
	return fl, nil
}

// close ends the stream and the heartbeat; unregister also says goodbye
// (the binding stays for a later REUSE).
func (fl *follower) close(unregister bool) {
	fl.cancel()
	<-fl.done
	if unregister {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		fl.f.Close(ctx)
		cancel()
	}
	fl.c.Close()
}

// streamErrors counts the followers whose stream ended, by error.
func streamErrors(fls []*follower) map[string]int {
	out := map[string]int{}
	for _, f := range fls {
		if f == nil {
			continue
		}
		if e := f.streamErr.Load(); e != nil {
			out[fmt.Sprint(*e)]++
		}
	}
	return out
}

// recorder collects latency samples.
type recorder struct {
	mu sync.Mutex
	d  []time.Duration
	// from and to (open loop; zero: off) bound the stamps that count: an
	// update stamped outside [from, to) is not recorded, one stamped inside
	// and received after to is late: recorded, and counted in late.
	from, to time.Time
	late     int
	// sent is, per sample, the provider's send time after the stamp
	// (provider-bench's received_at: in the open loop, what the update
	// waited in the provider): the first stage of the breakdown.
	sent []time.Duration
}

func (r *recorder) add(d time.Duration) {
	r.mu.Lock()
	r.d = append(r.d, d)
	r.mu.Unlock()
}

// observe records an update stamped stamp, sent by its provider at sent
// and received at now.
func (r *recorder) observe(stamp, now, sent time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.from.IsZero() && (stamp.Before(r.from) || !stamp.Before(r.to)) {
		return
	}
	r.d = append(r.d, now.Sub(stamp))
	r.sent = append(r.sent, sent.Sub(stamp))
	if !r.to.IsZero() && now.After(r.to) {
		r.late++
	}
}

func (r *recorder) samples() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.d...)
}

// sentSamples is the provider's stage of each sample.
func (r *recorder) sentSamples() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.sent...)
}

func (r *recorder) lateCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.late
}

// startFollowers registers n followers on sup (opts(i) says how the i-th
// behaves; 16 at a time) and waits until their streams are open. The
// returned func closes them (unregister: say goodbye too); it is set, and
// must be called, even when err is not nil.
func startFollowers(ctx context.Context, sup *supervisor, n int, unregister bool, opts func(i int) followerOpts) ([]*follower, func(), error) {
	fls := make([]*follower, n)
	err := parallel(n, 16, func(i int) error {
		f, err := newFollower(ctx, sup.spec.Socket, sup.secret, opts(i))
		fls[i] = f
		return err
	})
	closeAll := func() {
		for _, f := range fls {
			if f != nil {
				f.close(unregister)
			}
		}
	}
	if err != nil {
		return fls, closeAll, err
	}
	if opts(0).Subscribe {
		if err := waitSubscribed(ctx, sup, n); err != nil {
			return fls, closeAll, fmt.Errorf("%w; streams ended: %v", err, streamErrors(fls))
		}
	}
	return fls, closeAll, nil
}

// parallel runs fn(0..n-1) on workers goroutines and returns the first
// error (the rest still run).
func parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}
