package child

import (
	"github.com/chatbus/chatbus/provider"

	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// PipelineDepth is how many batches a [Pipeline] keeps in flight.
const PipelineDepth = 2

// batchBytes bounds the encoded updates the SDK puts in one
// UpdatesResponse (a quarter of MaxMessageBytes); a larger batch goes in
// several messages, an update larger than that alone.
const batchBytes = MaxMessageBytes / 4

// Pipeline is implemented by the SDK's [provider.Sink]: a Platform asserts it
// (sink.(child.Pipeline)) to keep up to [PipelineDepth] batches in
// flight, so that the next batch travels and is routed while the previous
// one is being made durable. It is for platforms that can take the next
// batch from the platform without moving the platform's cursor past what
// was acknowledged (their receipt of an update is separate from their
// cursor). Telegram's getUpdates is not one: asking for the next batch
// confirms the previous one, so provider-telegram delivers one batch at a
// time with Deliver.
//
// The acknowledgements still come in order, and the rule of [provider.Sink] holds:
// the Platform advances its cursor only past the ackedThrough that Send or
// Flush returned. When either fails, everything after ackedThrough was not
// made durable and must be delivered again on the next stream.
type Pipeline interface {
	provider.Sink
	// Send delivers updates as Deliver does (ids strictly increasing across
	// Send and Deliver, admission, errors) but returns once they are on the
	// stream, without waiting for their acknowledgement; while
	// PipelineDepth batches are unacknowledged it first waits for the
	// oldest. It returns the highest id acknowledged so far.
	Send(ctx context.Context, updates []*providerv1.Update) (ackedThrough int64, err error)
	// Flush waits until every update sent on the stream is acknowledged and
	// returns the ack point; on error, the partial ack point.
	Flush(ctx context.Context) (ackedThrough int64, err error)
}

// updStream is one Updates stream and the [provider.Sink] the Platform's Run
// delivers into: the ack point and the updates delivered but not yet
// acknowledged (the inbound occupancy).
type updStream struct {
	g      *gate
	now    func() time.Time
	send   func(*providerv1.UpdatesResponse) error
	ctx    context.Context // Run's ctx; its cause says why the stream ended
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once the handler is finished with the platform

	deliverMu sync.Mutex // serializes Deliver and Send (and the Sends in them)

	mu       sync.Mutex // guards below; lock order: mu before gate.mu
	acked    int64      // highest update id acknowledged on this stream
	lastSent int64      // highest update id delivered on this stream
	pending  []int64    // delivered, unacknowledged ids, ascending
	ends     []int64    // the last id of each unacknowledged batch, ascending
	ackCh    chan struct{}
	closed   bool
}

var _ Pipeline = (*updStream)(nil)

// Deliver implements [provider.Sink]: send, then wait for the ack of the last one.
func (st *updStream) Deliver(ctx context.Context, updates []*providerv1.Update) (int64, error) {
	st.deliverMu.Lock()
	defer st.deliverMu.Unlock()
	acked, err := st.sendLocked(ctx, updates, 0)
	if err != nil || len(updates) == 0 {
		return acked, err
	}
	return st.waitAcked(ctx, updates[len(updates)-1].GetUpdateId())
}

// Send implements [Pipeline].
func (st *updStream) Send(ctx context.Context, updates []*providerv1.Update) (int64, error) {
	st.deliverMu.Lock()
	defer st.deliverMu.Unlock()
	return st.sendLocked(ctx, updates, PipelineDepth)
}

// Flush implements [Pipeline].
func (st *updStream) Flush(ctx context.Context) (int64, error) {
	st.mu.Lock()
	last := st.lastSent
	st.mu.Unlock()
	return st.waitAcked(ctx, last)
}

// sendLocked checks, admits and sends one batch; with depth > 0 it first
// waits until fewer than depth batches are unacknowledged. The caller
// holds deliverMu.
func (st *updStream) sendLocked(ctx context.Context, updates []*providerv1.Update, depth int) (int64, error) {
	st.mu.Lock()
	acked, prev, closed := st.acked, st.lastSent, st.closed
	st.mu.Unlock()
	if closed || st.ctx.Err() != nil {
		return acked, st.endedErr()
	}
	if len(updates) == 0 {
		return acked, nil
	}
	if err := ctx.Err(); err != nil {
		return acked, err
	}
	for _, u := range updates {
		if u == nil || u.GetUpdateId() <= prev {
			return acked, fmt.Errorf("update id %d after %d: %w (ids must be positive and strictly increasing)", u.GetUpdateId(), prev, provider.ErrInvalid)
		}
		prev = u.GetUpdateId()
	}
	if depth > 0 {
		if err := st.waitUntil(ctx, func() bool { return len(st.ends) < depth }); err != nil {
			return st.ackedNow(), err
		}
	}
	// Admission and counting are one step: a Prepare that returned before
	// this saw us refused; one after it sees these updates as inbound.
	if _, err := st.g.admit(cInbound, uint32(len(updates))); err != nil {
		return st.ackedNow(), err
	}
	st.mu.Lock()
	for _, u := range updates {
		st.pending = append(st.pending, u.GetUpdateId())
	}
	st.ends = append(st.ends, prev)
	st.lastSent = prev
	st.mu.Unlock()

	for _, u := range updates {
		if u.GetReceivedAt() == nil {
			u.ReceivedAt = timestamppb.New(st.now())
		}
	}
	if err := st.sendBatch(updates); err != nil {
		st.cancel(fmt.Errorf("%w: send: %w", provider.ErrStreamEnded, err))
		return st.ackedNow(), st.endedErr()
	}
	return st.ackedNow(), nil
}

// sendBatch puts updates on the stream in as few messages as batchBytes
// allows.
func (st *updStream) sendBatch(updates []*providerv1.Update) error {
	for len(updates) > 0 {
		n, size := 0, 0
		for n < len(updates) {
			size += proto.Size(updates[n]) + 8 // the field's tag and length
			if n > 0 && size > batchBytes {
				break
			}
			n++
		}
		if err := st.send(&providerv1.UpdatesResponse{Updates: updates[:n]}); err != nil {
			return err
		}
		updates = updates[n:]
	}
	return nil
}

// waitAcked waits until the ack point reaches id (or the stream or ctx
// ends) and returns the ack point.
func (st *updStream) waitAcked(ctx context.Context, id int64) (int64, error) {
	err := st.waitUntil(ctx, func() bool { return st.acked >= id })
	return st.ackedNow(), err
}

// waitUntil waits, waking at each ack, until ok (called with mu held)
// holds; else ctx's error or, if the stream ends first, endedErr.
func (st *updStream) waitUntil(ctx context.Context, ok func() bool) error {
	for {
		st.mu.Lock()
		done, ch := ok(), st.ackCh
		st.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-st.ctx.Done():
			return st.endedErr()
		}
	}
}

func (st *updStream) ackedNow() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.acked
}

func (st *updStream) endedErr() error {
	cause := context.Cause(st.ctx)
	if cause == nil || errors.Is(cause, provider.ErrStreamEnded) {
		return provider.ErrStreamEnded
	}
	return fmt.Errorf("%w: %w", provider.ErrStreamEnded, cause)
}

// ack advances the ack point to id; acknowledged updates stop counting as
// inbound. An ack at or below the ack point is a no-op; one beyond what was
// delivered is a protocol violation.
func (st *updStream) ack(id int64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || id <= st.acked {
		return nil
	}
	if id > st.lastSent {
		return fmt.Errorf("%w: ack %d beyond the last delivered update %d", provider.ErrProtocol, id, st.lastSent)
	}
	st.acked = id
	k := 0
	for k < len(st.pending) && st.pending[k] <= id {
		k++
	}
	st.pending = st.pending[k:]
	k2 := 0
	for k2 < len(st.ends) && st.ends[k2] <= id {
		k2++
	}
	st.ends = st.ends[k2:]
	st.g.release(cInbound, uint32(k))
	close(st.ackCh)
	st.ackCh = make(chan struct{})
	return nil
}

// end closes the sink after ctx was cancelled: a Deliver in progress
// returns, later ones fail, and what was never acknowledged stops counting
// (it stays at the platform; the next stream delivers it again).
func (st *updStream) end() {
	st.deliverMu.Lock()
	defer st.deliverMu.Unlock()
	st.mu.Lock()
	n := len(st.pending)
	st.pending, st.ends = nil, nil
	st.closed = true
	st.mu.Unlock()
	st.g.release(cInbound, uint32(n))
}

// recvLoop reads Acks until the stream ends or breaks the protocol, then
// cancels the stream with the reason.
func (st *updStream) recvLoop(stream grpc.BidiStreamingServer[providerv1.UpdatesRequest, providerv1.UpdatesResponse]) {
	for {
		req, err := stream.Recv()
		if err != nil {
			st.cancel(err) // io.EOF: the supervisor closed its side
			return
		}
		switch m := req.GetMsg().(type) {
		case *providerv1.UpdatesRequest_Ack_:
			if err := st.ack(m.Ack.GetUpdateId()); err != nil {
				st.cancel(err)
				return
			}
		case *providerv1.UpdatesRequest_Start_:
			st.cancel(fmt.Errorf("%w: Start sent twice", provider.ErrProtocol))
			return
		default:
			st.cancel(fmt.Errorf("%w: empty UpdatesRequest", provider.ErrProtocol))
			return
		}
	}
}

// updates serves one Updates stream: Start, supersede the previous stream,
// run the platform's receive loop until the stream ends.
func (s *Server) updates(stream grpc.BidiStreamingServer[providerv1.UpdatesRequest, providerv1.UpdatesResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	start := first.GetStart()
	if start == nil {
		return provider.ToStatus(fmt.Errorf("%w: the first Updates message must be Start", provider.ErrProtocol))
	}

	ctx, cancel := context.WithCancelCause(stream.Context())
	defer cancel(nil)
	stopOnShutdown := context.AfterFunc(s.stopCtx, func() { cancel(provider.ErrShuttingDown) })
	defer stopOnShutdown()

	st := &updStream{
		g:      s.gate,
		now:    s.cfg.Now,
		send:   stream.Send,
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
		ackCh:  make(chan struct{}),
	}
	prev := s.swapStream(st)
	defer func() {
		cancel(provider.ErrStreamEnded)
		st.end()
		if prev != nil {
			<-prev.done // never let two Runs overlap
		}
		s.clearStream(st)
		close(st.done)
	}()
	if prev != nil {
		prev.cancel(provider.ErrSuperseded)
		select {
		case <-prev.done:
		case <-ctx.Done():
			return streamResult(ctx, nil)
		}
		s.log.Debug().Msg("previous updates stream ended; starting the new one")
	}

	go st.recvLoop(stream)
	cursor := start.GetState()
	s.log.Info().Str("cursor", string(cursor)).Msg("updates stream started")
	runErr := s.cfg.Platform.Run(ctx, cursor, st)
	res := streamResult(ctx, runErr)
	s.log.Info().Err(res).Msg("updates stream ended")
	return res
}

// streamResult is the status an Updates stream ends with.
func streamResult(ctx context.Context, runErr error) error {
	cause := context.Cause(ctx)
	switch {
	case cause == nil:
		return provider.ToStatus(runErr) // Run returned by itself
	case errors.Is(cause, io.EOF):
		return nil // the supervisor closed its side
	}
	return provider.ToStatus(cause)
}

func (s *Server) swapStream(st *updStream) (prev *updStream) {
	s.streamMu.Lock()
	defer s.streamMu.Unlock()
	prev, s.stream = s.stream, st
	return prev
}

func (s *Server) clearStream(st *updStream) {
	s.streamMu.Lock()
	defer s.streamMu.Unlock()
	if s.stream == st {
		s.stream = nil
	}
}
