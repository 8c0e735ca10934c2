package hub

import (
	"fmt"
	"time"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// Suspend holds the follower's binding for a successor (session
// replacement) and returns the handoff token and its deadline. The token is
// shown once; the store keeps only its hash.
func (h *Hub) Suspend(f *registry.Follower) (string, time.Time, error) {
	key, _ := f.Binding()
	if key == "" {
		return "", time.Time{}, fmt.Errorf("suspend: %w", ErrDetached)
	}
	b, err := h.store.GetBinding(key)
	if err != nil {
		return "", time.Time{}, err
	}
	token := newToken()
	expires := h.cfg.Now().Add(h.cfg.HandoffTTL)
	if err := h.store.PutHandoff(token, key, expires); err != nil {
		return "", time.Time{}, err
	}
	b.Status = store.StatusSuspended
	if err := h.putBinding(b); err != nil {
		return "", time.Time{}, err
	}
	// From here nothing more reaches the predecessor: its stream ends.
	f.Delivery.Suspend()
	h.publish(events.BindingChanged, f.InstanceID, "binding suspended for a session handoff",
		map[string]string{"binding": key, "expires": expires.UTC().Format(time.RFC3339)})
	return token, expires, nil
}

// expireHandoffs lets bindings whose handoff expired go offline.
func (h *Hub) expireHandoffs() {
	keys, err := h.store.ExpireHandoffs(h.cfg.Now())
	if err != nil {
		h.log.Error().Err(err).Msg("expiring handoffs")
		return
	}
	for _, key := range keys {
		b, err := h.store.GetBinding(key)
		if err != nil || b.Status != store.StatusSuspended {
			continue
		}
		b.Status = store.StatusOffline
		if err := h.putBinding(b); err != nil {
			h.log.Error().Err(err).Str("binding", key).Msg("expiring a handoff")
			continue
		}
		h.publish(events.BindingChanged, b.InstanceID, "handoff expired: binding offline", map[string]string{"binding": key})
	}
}
