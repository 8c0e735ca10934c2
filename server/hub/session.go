package hub

import (
	"strconv"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// The hub over the registry: the registry keeps the one record per
// session (registry.Follower, with the binding it holds and its stream's
// Delivery); the hub does what a session's beginning and end mean for its
// binding and provider. Every end is handled by the call that caused it.

// Touch looks up the live session of instanceID holding token and records
// that it spoke: the check every session call makes.
func (h *Hub) Touch(instanceID, token string) (*registry.Follower, error) {
	return h.reg.Touch(instanceID, token)
}

// Unregister ends the session; its binding is kept for a later REUSE.
func (h *Hub) Unregister(f *registry.Follower) {
	if h.reg.Unregister(f) {
		h.ended(f, registry.Unregistered)
	}
}

// Park parks the thread of binding key now that the program of its
// session ended (a launched session, server/launch): the session holding
// it, if it is instanceID's ("" : whichever), is ended, and a binding
// held for a handoff goes offline without waiting for its deadline.
func (h *Hub) Park(key, instanceID string) {
	if f := h.reg.Holder(key); f != nil && (instanceID == "" || f.InstanceID == instanceID) {
		h.Unregister(f)
	}
	b, err := h.store.GetBinding(key)
	if err != nil || b.Status != store.StatusSuspended {
		return
	}
	b.Status = store.StatusOffline
	if err := h.putBinding(b); err != nil {
		h.log.Error().Err(err).Str("binding", key).Msg("parking a thread")
		return
	}
	h.publish(events.BindingChanged, b.InstanceID, "its session ended: binding offline", map[string]string{"binding": key})
}

// Shutdown ends every session (the supervisor is stopping): streams end,
// every later session call is told the supervisor is going away, and the
// bindings stay as they are for reconciliation after the restart.
func (h *Hub) Shutdown() {
	for _, f := range h.reg.CloseAll() {
		h.ended(f, registry.Shutdown)
	}
}

// Followers returns the live sessions, oldest first.
func (h *Hub) Followers() []*registry.Follower { return h.reg.List() }

// FollowerCount returns the number of live sessions.
func (h *Hub) FollowerCount() int { return h.reg.Len() }

// Binding returns the binding key a live follower holds, "" if detached.
func (h *Hub) Binding(f *registry.Follower) string {
	key, _ := f.Binding()
	return key
}

// Live reports whether a follower holds the binding now.
func (h *Hub) Live(bindingKey string) bool { return h.reg.Holder(bindingKey) != nil }

// ended does what the end of f's session means: the provider is told the
// follower detached, and its binding goes offline (pruned, unregistered,
// replaced) unless a successor took it over, it waits for a handoff, or
// the supervisor is stopping (bindings then stay for reconciliation).
func (h *Hub) ended(f *registry.Follower, reason registry.EndReason) {
	key, provider := f.Binding()
	if key == "" {
		return
	}
	h.moves.forget(f) // an untold thread change dies with the session
	h.cfg.Providers.Detach(provider, f.InstanceID)
	if reason == registry.TakenOver || reason == registry.Shutdown || h.reg.Holder(key) != nil {
		return
	}
	b, err := h.store.GetBinding(key)
	if err != nil || b.InstanceID != f.InstanceID || b.Status == store.StatusSuspended {
		return
	}
	b.Status = store.StatusOffline
	if err := h.putBinding(b); err != nil {
		h.log.Error().Err(err).Str("binding", b.Key).Msg("marking binding offline")
	}
}

// DropReporter is the store's retention hook (store.Options.OnDrop): drops
// are logged and published, never silent. It does not block or call the
// store.
func DropReporter(ev *events.Hub) func(bindingKey string, n int, reason string) {
	return func(bindingKey string, n int, reason string) {
		where := bindingKey
		if where == "" {
			where = "(unrouted)"
		}
		ev.Publish(events.Event{Kind: events.UpdatesDropped, Message: "journal bound hit: oldest updates dropped",
			Attrs: map[string]string{"binding": where, "count": strconv.Itoa(n), "reason": reason}})
	}
}
