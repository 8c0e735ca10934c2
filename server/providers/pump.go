package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"golang.org/x/sync/semaphore"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/chatbus/chatbus/internal/backoff"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// pump keeps an Updates stream open to the provider's current child:
// Start at the stored cursor, journal what arrives (in batches: whatever
// has arrived while the previous batch was being written), acknowledge
// through the last durable id. A new child gets a new stream, resuming at
// the stored cursor, so nothing acknowledged is asked for again and nothing
// unacknowledged is lost (the platform still holds it).
func (m *Manager) pump(ctx context.Context, p *provider, sink Ingester) {
	retry := backoff.Policy{Initial: 100 * time.Millisecond, Max: 5 * time.Second}.New()
	// Journal writes that fail (a full disk) back off further: the
	// updates stay at the platform meanwhile, and polling it faster would
	// change nothing.
	journalRetry := backoff.Policy{Initial: 100 * time.Millisecond, Max: 30 * time.Second}.New()
	for ctx.Err() == nil {
		changed := p.sup.Changed()
		c, err := p.sup.WaitRunning(ctx)
		if err != nil {
			// FATAL or stopped: wait for an operator restart.
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
			continue
		}
		cl := providerv1.NewProviderServiceClient(c.Conn)
		p.reattach(ctx, c.Conn)
		sctx, stop := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() { defer close(watched); p.watchFence(sctx, cl) }()
		progressed, err := m.streamContained(sctx, p, cl, sink)
		stop()
		<-watched
		if ctx.Err() != nil {
			return
		}
		wait := retry
		var jerr *journalError
		switch {
		case errors.As(err, &jerr):
			m.journalResult(p, jerr.err)
			wait = journalRetry
		case err != nil:
			msg := err.Error()
			p.lastErr.Store(&msg)
			p.log.Debug().Err(err).Msg("updates stream ended")
		}
		if progressed {
			retry.Reset()
			if jerr == nil {
				journalRetry.Reset()
			}
		}
		// The same child again after a pause that grows while streams
		// keep failing, or at once for a new child (journal failures wait
		// their pause whatever the child).
		next := p.sup.Changed()
		var reopened <-chan struct{}
		if jerr != nil {
			next = nil
			reopened = m.journalReopened()
		}
		select {
		case <-ctx.Done():
			return
		case <-next:
		case <-reopened:
		case <-time.After(wait.NextBackOff()):
		}
	}
}

// watchFence follows the child's doctor fence (its occupancy watch) into
// the provider's admission until ctx ends (the updates stream ended),
// which also ends the child's part in it. A watch that fails while the
// child runs is logged, counted and opened again after a pause that
// grows while it keeps failing; meanwhile admission is closed (the fence
// is not known), so calls wait, as they do for a doctor restart.
func (p *provider) watchFence(ctx context.Context, cl providerv1.ProviderServiceClient) {
	defer p.adm.setChild(false, false)
	retry := backoff.Policy{Initial: 100 * time.Millisecond, Max: 5 * time.Second}.New()
	for {
		err := p.watchFenceOnce(ctx, cl, retry.Reset)
		if ctx.Err() != nil {
			return
		}
		p.adm.setChild(false, false)
		p.metrics.FenceWatchFailed(p.spec.Name)
		wait := retry.NextBackOff()
		p.log.Warn().Err(err).Dur("retry_in", wait).
			Msg("watching the provider's doctor fence failed: its calls wait until it is watched again")
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// watchFenceOnce follows one occupancy watch until it fails; reset is
// called once it reported.
func (p *provider) watchFenceOnce(ctx context.Context, cl providerv1.ProviderServiceClient, reset func()) error {
	st, err := cl.WatchOccupancy(ctx, &providerv1.WatchOccupancyRequest{})
	if err != nil {
		return err
	}
	for {
		resp, err := st.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the provider ended its occupancy watch")
			}
			return err
		}
		reset()
		// A provider that does not report its fence (phase unspecified)
		// is taken to admit; its refusals close admission until the next
		// report.
		admitting := resp.GetAdmitting() || resp.GetPhase() == providerv1.Phase_PHASE_UNSPECIFIED
		p.adm.setChild(true, admitting)
	}
}

// journalHealth is the store's report of its journal's writes
// (store.Bolt.JournalHealth).
type journalHealth interface {
	JournalHealth() store.JournalHealth
}

// journalReopened returns a channel closed when the store's journal, which
// has failed a write, has reopened itself: the pump tries again then
// rather than at the end of its pause. nil (never) if the journal has not
// failed (a failure it did not have to reopen for, such as no room for a
// new segment: the pause holds) or the store does not report it.
func (m *Manager) journalReopened() <-chan struct{} {
	st, ok := m.cfg.Store.(journalHealth)
	if !ok {
		return nil
	}
	if h := st.JournalHealth(); h.Failed != nil {
		return h.Changed
	}
	return nil
}

// journalError is a failure to journal a batch: nothing of it was
// acknowledged; the provider keeps it at the platform.
type journalError struct{ err error }

func (e *journalError) Error() string { return "journal write: " + e.err.Error() }
func (e *journalError) Unwrap() error { return e.err }

// stream runs one Updates stream until it ends; progressed says whether
// any batch was journalled on it.
func (m *Manager) stream(ctx context.Context, p *provider, cl providerv1.ProviderServiceClient, sink Ingester) (progressed bool, err error) {
	cursor, err := m.cfg.Store.Cursor(p.spec.Name)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := cl.Updates(ctx)
	if err != nil {
		return false, err
	}
	start := &providerv1.UpdatesRequest_Start{State: cursor}
	if err := st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Start_{Start: start}}); err != nil {
		return false, err
	}
	// The receiver feeds a channel with the updates of each message (a
	// batch); the writer takes everything that is there at once,
	// up to IngestBatch updates, so a fast provider gets large journal
	// batches and a trickle gets one write per update. The receiver goes on
	// reading while a batch is written: a provider with more than one
	// batch in flight has the next one routed as soon as the journal is
	// free.
	//
	// What was read and is not journalled yet is bounded by count (the
	// channel) and by bytes (room: pumpBytes, a message larger than that
	// alone): a provider's messages may be up to 4 MiB each.
	in := make(chan received, m.cfg.IngestBatch)
	room := semaphore.NewWeighted(pumpBytes)
	recvErr := make(chan error, 1)
	go func() {
		defer close(in)
		defer func() {
			if r := recover(); r != nil {
				recvErr <- panicError(p, "reading the updates stream", r)
			}
		}()
		for {
			resp, err := st.Recv()
			if err != nil {
				recvErr <- err
				return
			}
			ups := resp.GetUpdates()
			if len(ups) == 0 {
				continue
			}
			size := min(int64(proto.Size(resp)), pumpBytes)
			if !room.TryAcquire(size) {
				if m.pumpFull != nil {
					m.pumpFull()
				}
				if err := room.Acquire(ctx, size); err != nil {
					recvErr <- err
					return
				}
			}
			p.pumpHeld.Add(size)
			select {
			case in <- received{ups, time.Now(), size}:
			case <-ctx.Done():
				recvErr <- ctx.Err()
				return
			}
		}
	}()
	// taken is the bytes of the messages the batch took whole: their room
	// is given back once the batch is journalled.
	var taken int64
	giveBack := func() {
		room.Release(taken)
		p.pumpHeld.Add(-taken)
		taken = 0
	}
	defer func() { p.pumpHeld.Add(-taken) }()
	// The batch's buffers grow with what arrives, up to limit, and keep
	// their size: a provider that sends a few updates at a time holds a few
	// entries, not limit (4096 Inbound records were 1 MiB per provider,
	// live for as long as it runs, which the GC's heap goal counts twice).
	limit := m.cfg.IngestBatch
	first := min(limit, pumpStartCap)
	batch := make([]hub.Inbound, 0, first)
	raw := make([]*providerv1.Update, 0, first)
	arrived := make([]time.Time, 0, first) // raw's, when read
	var carry received                     // what the last batch had no room for
	take := func(r received) {
		n := min(len(r.ups), limit-len(raw))
		raw, arrived = reserve(raw, n, limit), reserve(arrived, n, limit)
		raw = append(raw, r.ups[:n]...)
		for range n {
			arrived = append(arrived, r.at)
		}
		carry = received{r.ups[n:], r.at, r.bytes}
		if len(carry.ups) == 0 {
			taken += r.bytes
		}
	}
	for {
		raw, arrived = raw[:0], arrived[:0]
		if len(carry.ups) == 0 {
			r, ok := <-in
			if !ok {
				err := <-recvErr
				if errors.Is(err, io.EOF) {
					return progressed, nil
				}
				return progressed, err
			}
			carry = r
		}
		take(carry)
	drain:
		for len(carry.ups) == 0 && len(raw) < limit {
			select {
			case r, ok := <-in:
				if !ok {
					break drain
				}
				take(r)
			default:
				break drain
			}
		}
		batch = reserve(batch[:0], len(raw), limit)
		var dead []store.DeadLetter
		for i, u := range raw {
			if u.GetConversionError() != "" {
				dead = append(dead, deadLetter(p.spec.Name, u))
				continue
			}
			in := inbound(u)
			in.Arrived = arrived[i]
			batch = append(batch, in)
		}
		p.pumping.Begin("journal write")
		through, err := m.setAside(ctx, p, dead)
		journalled := len(batch)
		switch {
		case err != nil || len(batch) == 0:
		case p.journalFails >= journalAttempts:
			// The writes keep failing: one update at a time, so that
			// a record the store refuses is found and set aside.
			var t int64
			t, journalled, err = m.journalEach(ctx, p, sink, raw, arrived)
			through = max(through, t)
		default:
			var t int64
			// The cursor of raw: its dead letters are durable already
			// (the durable record the provider's cursor may move past).
			t, err = ingestContained(ctx, sink, p.spec.Name, batch, batchCursor(raw))
			if errors.Is(err, store.ErrTooLarge) {
				// The store says already that it refuses a record of
				// this batch whatever the journal: found and set aside
				// at once, not after journalAttempts writes.
				t, journalled, err = m.journalEach(ctx, p, sink, raw, arrived)
			}
			through = max(through, t)
		}
		if err == nil {
			// Every update of raw is durable now.
			through = max(through, raw[len(raw)-1].GetUpdateId())
		}
		p.pumping.End()
		giveBack()
		if err != nil {
			if ctx.Err() != nil {
				return progressed, ctx.Err()
			}
			if errors.Is(err, store.ErrFenced) {
				// This supervisor no longer leads; it is being stopped.
				// The child waits for the acknowledgement that never
				// comes rather than poll its platform again beside the
				// new leader's child (ending the stream would make it).
				<-ctx.Done()
				return progressed, ctx.Err()
			}
			p.journalFails++
			return progressed, &journalError{err}
		}
		p.journalFails = 0
		if !progressed {
			m.journalResult(p, nil)
		}
		progressed = true
		for _, b := range batch {
			if b.DroppedNotAllowed() {
				p.notAllowed.Add(1)
			}
		}
		p.ingested.Add(uint64(journalled))
		if err := st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Ack_{Ack: &providerv1.UpdatesRequest_Ack{UpdateId: through}}}); err != nil {
			return progressed, err
		}
	}
}

// pumpStartCap is the capacity a pump's batch buffers start with.
const pumpStartCap = 64

// reserve returns s with room for n more elements: s itself if it has it,
// else a copy with twice the capacity (at least len(s)+n), never more than
// limit (len(s)+n must not exceed it).
func reserve[T any](s []T, n, limit int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	out := make([]T, len(s), min(limit, max(2*cap(s), len(s)+n)))
	copy(out, s)
	return out
}

// received is one provider message's updates, when the pump read it and
// the room it holds (its encoded size, at most pumpBytes).
type received struct {
	ups   []*providerv1.Update
	at    time.Time
	bytes int64
}

// pumpBytes bounds the encoded bytes of updates a pump has read from its
// provider and not journalled yet: 16 MiB (four of the largest messages).
const pumpBytes = 16 << 20

// panicError is a recovered panic of p's pump, logged with its stack.
func panicError(p *provider, what string, r any) error {
	p.log.Error().Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack()).Msg(what + " panicked; the stream starts again")
	return fmt.Errorf("%s: panic: %v", what, r)
}

// streamContained is stream with its panic contained: one bad batch must
// not take the supervisor, with every provider and follower, down. The
// stream ends with the panic as its error, and starts again after the
// pump's pause.
func (m *Manager) streamContained(ctx context.Context, p *provider, cl providerv1.ProviderServiceClient, sink Ingester) (progressed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(p, "the updates stream", r)
		}
	}()
	return m.stream(ctx, p, cl, sink)
}

// reattach tells a new child which followers are bound through it.
func (p *provider) reattach(ctx context.Context, conn grpc.ClientConnInterface) {
	p.mu.Lock()
	held := make(map[string]attach, len(p.attached))
	for k, v := range p.attached {
		held[k] = v
	}
	p.mu.Unlock()
	cl := providerv1.NewProviderServiceClient(conn)
	for id, a := range held {
		if _, err := cl.Attach(ctx, attachRequest(id, a.target)); err != nil {
			p.log.Warn().Err(err).Str("instance_id", id).Msg("re-attach to the new provider child")
		}
	}
}
