package client

import (
	"context"
	"sync"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Acks can be coalesced (WithAckCoalescing). An Ack covers every update
// up to its seq, so a follower that acks each update it handled needs only
// the last one to reach the supervisor: Follower.Ack then notes the seq
// and returns, and one goroutine per follower sends one Ack RPC at a time,
// for the highest seq noted, once every updates are unacknowledged or
// delay after the first of them was noted, whichever comes first. Before
// an Updates stream returns, before Suspend and before Close, everything
// noted is sent and waited for (FlushAcks). What coalescing costs: after a
// crash of the follower, or of the supervisor's process before its
// journal wrote the acks, up to that much more is delivered again, which
// the follower must de-duplicate by seq; and an Ack's error (a seq beyond
// what was delivered, a session that ended) is reported by a later Ack or
// FlushAcks. So it is not the default: a follower that cannot take an
// update twice either acks each one and waits, or records the last seq it
// handled where its successor finds it and resumes after it (Updates'
// afterSeq), as chatbus-mcp does with its delivered file, and then
// coalesces.
const (
	// DefaultAckDelay is a good delay for WithAckCoalescing: how long a
	// noted ack may wait for more. Longer costs throughput: what a
	// follower has not acknowledged stays in the supervisor's journal
	// (busbench, saturated, 1 follower: 109k/s at 1 ms, 112k/s at 5 ms,
	// 108k/s at 20 ms, 89k/s at 100 ms, in one session).
	DefaultAckDelay = 10 * time.Millisecond
	// DefaultAckEvery is how many unacknowledged updates send an ack at
	// once (UpdatesBatch: about one ack per stream message under load).
	DefaultAckEvery = UpdatesBatch
)

// WithAckCoalescing makes the followers coalesce their acks (above): an
// Ack RPC once every updates are unacknowledged or delay after the first
// of them. delay <= 0 makes every Follower.Ack an RPC of its own, sent and
// waited for, as without the option. Zero every: DefaultAckEvery.
func WithAckCoalescing(delay time.Duration, every int) Option {
	return func(o *options) { o.ackDelay, o.ackEvery, o.ackSet = delay, every, true }
}

// acker coalesces one follower's acks. The goroutine running loop (started
// at the first coalesced Ack, ended by stop) is the only one that sends
// coalesced acks; FlushAcks sends its own, and acks are cumulative and
// idempotent, so the two never conflict.
type acker struct {
	f     *Follower
	delay time.Duration
	every uint64

	sending sync.Mutex // held across an Ack RPC: one at a time

	mu      sync.Mutex // guards below
	want    uint64     // highest seq noted
	done    uint64     // highest seq the supervisor took
	since   time.Time  // when the first seq after done was noted
	err     error      // the last failed ack, until one succeeds
	running bool
	kick    chan struct{} // cap 1: send now (enough pending, or a flush)
	ctx     context.Context
	cancel  context.CancelFunc
	stopped chan struct{} // closed when loop returns
}

func newAcker(f *Follower, delay time.Duration, every int) *acker {
	if every <= 0 {
		every = DefaultAckEvery
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &acker{f: f, delay: delay, every: uint64(every), kick: make(chan struct{}, 1), ctx: ctx, cancel: cancel,
		stopped: make(chan struct{})}
}

// note records seq as handled and returns the error of an earlier ack
// that failed (nil once one succeeded since).
func (a *acker) note(seq uint64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if seq > a.want {
		if a.want <= a.done {
			// The first pending one: wake the loop (it may be idle, all
			// sent) to start its delay.
			a.since = time.Now()
			a.poke()
		}
		a.want = seq
	}
	if !a.running && a.ctx.Err() == nil {
		a.running = true
		go a.loop()
	}
	if a.want-a.done >= a.every {
		a.poke()
	}
	return a.err
}

func (a *acker) poke() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// loop sends the coalesced acks until stop.
func (a *acker) loop() {
	defer close(a.stopped)
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		a.mu.Lock()
		want, done, since := a.want, a.done, a.since
		a.mu.Unlock()
		if want > done {
			if wait := time.Until(since.Add(a.delay)); wait > 0 && want-done < a.every {
				t.Reset(wait)
				select {
				case <-t.C:
				case <-a.kick:
					t.Stop()
				case <-a.ctx.Done():
					t.Stop()
					return
				}
				continue
			}
			a.send(a.ctx, want)
			if a.ctx.Err() != nil {
				return
			}
			a.mu.Lock()
			failed := a.err != nil
			a.mu.Unlock()
			if failed { // do not hammer a supervisor that refuses: wait for more
				select {
				case <-a.kick:
				case <-time.After(a.delay):
				case <-a.ctx.Done():
					return
				}
			}
			continue
		}
		select {
		case <-a.kick:
		case <-a.ctx.Done():
			return
		}
	}
}

// send acknowledges through seq, unless an ack through it was taken
// already, and records the outcome. One Ack RPC is in flight at a time
// (sending): acks reach the supervisor in the order of their seqs, and a
// flush that waited behind the loop's ack sends only what that one did
// not cover.
func (a *acker) send(ctx context.Context, seq uint64) error {
	a.sending.Lock()
	defer a.sending.Unlock()
	a.mu.Lock()
	done := a.done
	a.mu.Unlock()
	if seq <= done {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := a.f.ackNow(cctx, seq)
	cancel()
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case err == nil:
		if seq > a.done {
			a.done = seq
			a.since = time.Now() // what was noted meanwhile waits from now
		}
		a.err = nil
	case ctx.Err() == nil:
		a.err = err
	}
	return err
}

// flush sends everything noted and waits for it.
func (a *acker) flush(ctx context.Context) error {
	a.mu.Lock()
	want, done := a.want, a.done
	a.mu.Unlock()
	if want <= done {
		return nil
	}
	return a.send(ctx, want)
}

// stop ends the loop (what is still noted is not sent: flush first).
func (a *acker) stop() {
	a.mu.Lock()
	running := a.running
	a.mu.Unlock()
	a.cancel()
	if running {
		<-a.stopped
	}
}

// Ack acknowledges every update up to and including seq: an RPC, sent and
// waited for. With WithAckCoalescing, Ack notes seq and returns at once;
// the RPC follows, for the highest seq noted, and FlushAcks (also run by
// Updates before it returns, by Suspend and by Close) sends what is noted
// and waits for it; the error is then that of an earlier ack that failed,
// if none succeeded since.
func (f *Follower) Ack(ctx context.Context, seq uint64) error {
	if f.acks == nil {
		return f.ackNow(ctx, seq)
	}
	return f.acks.note(seq)
}

// FlushAcks sends the acks noted and not yet sent and waits for the
// supervisor to take them.
func (f *Follower) FlushAcks(ctx context.Context) error {
	if f.acks == nil {
		return nil
	}
	return f.acks.flush(ctx)
}

func (f *Follower) ackNow(ctx context.Context, seq uint64) error {
	_, err := f.c.Bus.Ack(ctx, &chatbusv1.AckRequest{Session: f.Session(), Seq: seq})
	return Err(err)
}
