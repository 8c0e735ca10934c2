package hub

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// Inbound is one platform update as a provider reports it, already in
// the journal's form: it becomes the journal record as it is (with the
// binding it routes to filled in), never re-parsed.
type Inbound struct {
	// Update is the record to journal; BindingKey, Seq and Provider are
	// the hub's to fill in. Update.Chat and Update.Thread name the thread
	// it arrived in (Thread "": the chat itself, never routed).
	Update store.Update
	// Allowed is false when the sender is not on the provider's allow-list:
	// the update is acknowledged (the cursor moves past it) but not routed.
	Allowed bool
	// ThreadState is what the update says happened to its thread itself
	// (a person closed, reopened or deleted it); see Intake.
	ThreadState ThreadState
	// Arrived is when the pump read it from its provider (zero: not
	// known); only Config.Trace uses it.
	Arrived time.Time
}

// DroppedNotAllowed reports whether in is dropped as from a sender not on
// the allow-list: not allowed, and not a fact about its thread (which
// no person sent; observeThreads applies it, nothing is journalled).
func (in Inbound) DroppedNotAllowed() bool { return !in.Allowed && in.ThreadState == ThreadUnchanged }

// Ingest journals a provider's batch of updates, routed to their threads'
// bindings (or held as unrouted), stores the provider's cursor in the same
// journal commit (nil: the stored one stays), and returns the id the
// provider may acknowledge through: the last update's. Only after Ingest
// returns may the provider advance the platform's cursor. The streams of
// the bindings touched wake by themselves (Store.Changed).
func (h *Hub) Ingest(ctx context.Context, provider string, batch []Inbound, cursor []byte) (ackedThrough int64, err error) {
	if len(batch) == 0 {
		return 0, nil
	}
	ups := make([]store.Update, 0, len(batch))
	if tr := h.cfg.Trace; tr != nil {
		for i := range batch {
			tr.Update(StagePumped, 0, batch[i].Update.Text, batch[i].Arrived)
		}
	}
	// The threads of this batch no binding owned when routed: the store may
	// route their updates to a binding written since (Store.Append). Made
	// only for a batch that has any.
	var unowned map[store.Target]struct{}
	for _, in := range batch {
		h.cfg.Metrics.UpdateReceived(provider, in.Update.Kind, !in.DroppedNotAllowed())
		if !in.Allowed {
			if in.DroppedNotAllowed() {
				h.droppedNotAllowed.Add(1)
				if c := h.cfg.Control; c != nil && (in.Update.Thread == "" || in.Update.Kind == store.UpdateCommand) {
					c.NotAllowed(provider, in.Update)
				}
			}
			continue
		}
		u := in.Update
		u.Provider, u.BindingKey, u.Seq = provider, "", 0
		if u.Thread != "" { // the chat itself (no thread) is never routed
			t := store.Target{Provider: provider, Chat: u.Chat, Thread: u.Thread}
			key, err := h.route(t)
			if err != nil {
				return 0, err
			}
			if u.BindingKey = key; key != "" {
				// Learned before the update is durable, which is
				// harmless: no follower sees it before it is.
				h.learn(t, u.Refs)
			} else {
				if unowned == nil {
					unowned = make(map[store.Target]struct{})
				}
				unowned[t] = struct{}{}
			}
		}
		ups = append(ups, u)
	}
	last := batch[len(batch)-1].Update.PlatformUpdateID
	stored, err := h.store.Append(ctx, provider, ups, cursor)
	if err != nil {
		return 0, err
	}
	for i := 0; len(unowned) > 0 && i < len(stored); i++ {
		// Routed by the store to a binding that got the thread since
		// route looked: its follower may answer them too.
		if u := &stored[i]; u.BindingKey != "" {
			t := store.Target{Provider: provider, Chat: u.Chat, Thread: u.Thread}
			if _, ok := unowned[t]; ok {
				h.learn(t, u.Refs)
			}
		}
	}
	h.cfg.Metrics.Journalled(provider, len(ups), stored)
	h.startTranscripts(stored)
	if c := h.cfg.Control; c != nil {
		c.Take(stored)
	}
	if tr := h.cfg.Trace; tr != nil {
		now := time.Now()
		for i := range stored {
			tr.Update(StageDurable, stored[i].Seq, stored[i].Text, now)
		}
	}
	return last, nil
}

// Stream sends the follower's journal to send, in seq order, starting after
// afterSeq (or after the acknowledged point, whichever is later): first what
// is held, then live updates as they are journalled. Each call of send
// carries up to maxBatch updates (at least one; maxBatch <= 1: one at a
// time), each in its wire form as the journal holds it (never decoded:
// store.FollowEncoded), valid only until send returns. The updates come
// from the journal's memory while the follower keeps up, and the stream
// waits on the channel of Store.Changed, taken with the read, so a live
// follower costs no disk read, no wake-up per update of others, and one
// read of the journal per wake-up. It
// returns when the registration ends (with its reason), the stream is
// superseded, ctx ends, or send fails.
//
// threadChanged, if not nil, is called on the same goroutine each time the
// binding's thread is replaced (ThreadChanged), between sends; an error it
// returns ends the stream. One goroutine per stream waits for both.
func (h *Hub) Stream(ctx context.Context, f *registry.Follower, afterSeq uint64, maxBatch int, send func([]store.Encoded) error, threadChanged func() error) error {
	return h.StreamNotices(ctx, f, afterSeq, maxBatch, send, Notices{ThreadChanged: threadChanged})
}

// Notices are what a stream tells its follower between updates, each
// from the stream's own loop (no goroutine of its own: a stream is one
// goroutine, however many there are). A nil func is never called.
type Notices struct {
	// ThreadChanged: the binding moved to another thread.
	ThreadChanged func() error
	// StopRequested: a person asked the session to stop (the chat's stop
	// command); called once per stream, on every stream opened after it.
	StopRequested func(*registry.StopRequest) error
}

// StreamNotices is Stream with every notice.
func (h *Hub) StreamNotices(ctx context.Context, f *registry.Follower, afterSeq uint64, maxBatch int, send func([]store.Encoded) error, n Notices) error {
	threadChanged := n.ThreadChanged
	superseded, detach := f.AttachStream()
	defer detach()
	key, _ := f.Binding()
	d := &f.Delivery
	if key == "" {
		select { // detached: nothing will ever arrive
		case <-f.Done():
			return f.Err()
		case <-superseded:
			return registry.ErrSuperseded
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if d.Suspended() {
		return ErrSuspended
	}
	st, err := h.store.Stats(key)
	if err != nil {
		return err
	}
	maxBatch = max(maxBatch, 1)
	pos := max(afterSeq, st.AckedThrough)
	var rewired <-chan struct{} // nil (never) without threadChanged
	release := func() {}
	defer func() { release() }()
	if threadChanged != nil {
		rewired, release = h.ThreadChanged(f)
	}
	var stopAsked <-chan struct{} // nil (never) without StopRequested
	if n.StopRequested != nil {
		stopAsked, _ = f.StopRequested()
	}
	tellStop := func() error {
		stopAsked = nil // told once
		_, r := f.StopRequested()
		return n.StopRequested(r)
	}
	// buf is reused from one read to the next: a follower that keeps up
	// reads a few updates per wake-up, with no allocation.
	var buf []store.Encoded
	for {
		ups, changed, err := store.FollowEncoded(h.store, buf[:0], key, pos, h.cfg.ReadBatch)
		if err != nil {
			return err
		}
		buf = ups
		for len(ups) > 0 {
			n := min(len(ups), maxBatch)
			// An update with audio goes alone, once its transcript is
			// there (voice.go); those before it go first.
			for i := range n {
				if i > 0 && ups[i].Audio() != nil {
					n = i
					break
				}
				if i == 0 {
					e, ok, err := h.transcribed(ctx, ups[0])
					if err != nil {
						return err
					}
					if ok {
						ups[0], n = e, 1
						break
					}
				}
			}
			last := ups[n-1].Seq
			if !d.Sending(last) {
				return ErrSuspended
			}
			if err := send(ups[:n]); err != nil {
				return err
			}
			d.Sent(last)
			for _, u := range ups[:n] {
				h.cfg.Metrics.Delivered(u.ReceivedAt, u.Seq > st.LastSeq)
			}
			if tr := h.cfg.Trace; tr != nil {
				now := time.Now()
				for _, e := range ups[:n] {
					tr.Update(StageSent, e.Seq, e.Text(), now)
				}
			}
			pos = last
			ups = ups[n:]
		}
		// Drop the references to the journal's memory while waiting; a
		// buffer grown by a long catch-up is not kept.
		clear(buf)
		if cap(buf) > maxStreamBuf {
			buf = nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if changed == nil {
			// More to read now; a stop request is told before it.
			select {
			case <-stopAsked:
				if err := tellStop(); err != nil {
					return err
				}
			default:
			}
			continue
		}
		select {
		case <-changed:
		case <-rewired:
			release()
			rewired, release = h.ThreadChanged(f)
			if err := threadChanged(); err != nil {
				return err
			}
		case <-stopAsked:
			if err := tellStop(); err != nil {
				return err
			}
		case <-d.SuspendedC():
			return ErrSuspended
		case <-f.Done():
			return f.Err()
		case <-superseded:
			return registry.ErrSuperseded
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// maxStreamBuf is the most updates a stream's read buffer keeps between
// reads (Stream).
const maxStreamBuf = 64

// Ack acknowledges the follower's updates through seq. A suspended
// session's acks may name only what it was sent before it suspended.
func (h *Hub) Ack(f *registry.Follower, seq uint64) (uint64, error) {
	key, _ := f.Binding()
	if key == "" {
		return 0, fmt.Errorf("ack %d: %w (the follower has no thread)", seq, ErrNotDelivered)
	}
	if d := &f.Delivery; d.Suspended() && seq > d.AckLimit() {
		return 0, fmt.Errorf("ack %d: %w to this session before it suspended (it was sent up to %d)", seq, ErrNotDelivered, d.AckLimit())
	}
	acked, err := h.store.Ack(key, seq)
	if errors.Is(err, store.ErrAckBeyondLast) {
		return 0, fmt.Errorf("ack %d: %w: %v", seq, ErrNotDelivered, err)
	}
	return acked, err
}
