package hub

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// Inbound is one platform update as a provider reports it.
type Inbound struct {
	UpdateID   int64
	ChatID     int64
	ThreadID   int64
	FromUserID int64
	Kind       int32
	Text       string
	Payload    []byte
	// Allowed is false when the sender is not on the provider's allow-list:
	// the update is acknowledged (the cursor moves past it) but not routed.
	Allowed bool
	// Refs are the ids the follower may name in later calls, as the
	// provider reported them; nil: read them from the payload.
	Refs *Refs
}

// Refs are the platform ids an update makes available to its thread.
type Refs struct {
	MessageIDs       []int64
	CallbackQueryIDs []string
	FileIDs          []string
}

// Ingest journals a provider's batch of updates, routed to their threads'
// bindings (or held as unrouted), stores the provider's cursor (the id
// after the last update) in the same transaction, wakes the streams of the
// bindings touched, and returns the id the provider may acknowledge
// through. Only after Ingest returns may the provider advance the
// platform's cursor.
func (h *Hub) Ingest(ctx context.Context, provider string, batch []Inbound) (ackedThrough int64, err error) {
	if len(batch) == 0 {
		return 0, nil
	}
	ups := make([]store.Update, 0, len(batch))
	var unreported map[int64]bool // routed updates whose ids are in the payload only
	for _, in := range batch {
		if !in.Allowed {
			h.droppedNotAllowed.Add(1)
			continue
		}
		u := store.Update{
			Provider: provider, PlatformUpdateID: in.UpdateID, Kind: in.Kind, ChatID: in.ChatID,
			ThreadID: in.ThreadID, FromUserID: in.FromUserID, Text: in.Text, Payload: in.Payload,
		}
		if in.ThreadID != 0 { // thread 0 is the General topic: never routed
			key, err := h.route(store.Target{Provider: provider, ChatID: in.ChatID, ThreadID: in.ThreadID})
			if err != nil {
				return 0, err
			}
			u.BindingKey = key
		}
		switch {
		case u.BindingKey == "":
		case in.Refs != nil:
			// Learned before the update is durable, which is harmless:
			// no follower sees it before it is.
			h.learnRefs(store.Target{Provider: provider, ChatID: in.ChatID, ThreadID: in.ThreadID}, in.Refs)
		default:
			if unreported == nil {
				unreported = make(map[int64]bool)
			}
			unreported[in.UpdateID] = true
		}
		ups = append(ups, u)
	}
	last := batch[len(batch)-1].UpdateID
	stored, err := h.store.Append(ctx, provider, ups, last+1)
	if err != nil {
		return 0, err
	}
	touched := make(map[string]struct{})
	for _, u := range stored {
		touched[u.BindingKey] = struct{}{}
		if u.BindingKey != "" && unreported[u.PlatformUpdateID] {
			h.learn(u)
		}
	}
	h.notify(touched)
	return last, nil
}

// Binding returns the binding key a live follower holds, "" if detached.
func (h *Hub) Binding(f *registry.Follower) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[f.InstanceID]; s != nil && s.f == f {
		return s.bindingKey
	}
	return ""
}

// Stream sends the follower's journal to send, in seq order, starting after
// afterSeq (or after the acknowledged point, whichever is later): first what
// is held, then live updates as they are journalled. It returns when the
// registration ends (with its reason), the stream is superseded, ctx ends,
// or send fails.
func (h *Hub) Stream(ctx context.Context, f *registry.Follower, afterSeq uint64, send func(store.Update) error) error {
	superseded, detach := f.AttachStream()
	defer detach()
	key := h.Binding(f)
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
	st, err := h.store.Stats(key)
	if err != nil {
		return err
	}
	pos := max(afterSeq, st.AckedThrough)
	for {
		h.mu.Lock()
		wake := h.notifierLocked(key)
		h.mu.Unlock()
		ups, err := h.store.Read(key, pos, h.cfg.ReadBatch)
		if err != nil {
			return err
		}
		for _, u := range ups {
			if err := send(u); err != nil {
				return err
			}
			pos = u.Seq
		}
		if len(ups) == h.cfg.ReadBatch {
			continue
		}
		select {
		case <-wake:
		case <-f.Done():
			return f.Err()
		case <-superseded:
			return registry.ErrSuperseded
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Ack acknowledges the follower's updates through seq.
func (h *Hub) Ack(f *registry.Follower, seq uint64) (uint64, error) {
	key := h.Binding(f)
	if key == "" {
		return 0, fmt.Errorf("ack %d: %w (the follower has no thread)", seq, ErrNotDelivered)
	}
	acked, err := h.store.Ack(key, seq)
	if errors.Is(err, store.ErrAckBeyondLast) {
		return 0, fmt.Errorf("ack %d: %w: %v", seq, ErrNotDelivered, err)
	}
	return acked, err
}

// OnDrop is the store's retention hook: drops are logged and published,
// never silent. It must not block or call the store.
func (h *Hub) OnDrop(bindingKey string, n int, reason string) {
	where := bindingKey
	if where == "" {
		where = "(unrouted)"
	}
	h.publish(events.UpdatesDropped, "", "journal bound hit: oldest updates dropped",
		map[string]string{"binding": where, "count": strconv.Itoa(n), "reason": reason})
}

// Live reports whether a follower holds the binding now.
func (h *Hub) Live(bindingKey string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.holders[bindingKey] != nil
}
