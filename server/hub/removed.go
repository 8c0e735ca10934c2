package hub

import (
	"fmt"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/store"
)

// ProviderRemoved marks offline every binding whose thread is on provider
// (it was removed from the config) and returns how many it changed. The
// bindings keep their journal and their thread: if the provider is
// configured again, a follower registering with the same profile key gets
// its thread back (REUSE); while it is not, such a registration gets a
// fresh thread on the default provider, and the held journal carries over
// to it. A follower still registered on one of them stays registered, but
// its calls are refused (its binding is not active) until it registers
// again.
func (h *Hub) ProviderRemoved(provider string) (int, error) {
	bs, err := h.store.ListBindings()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range bs {
		if b.Target.Provider != provider || b.Status == store.StatusOffline {
			continue
		}
		b.Status = store.StatusOffline
		b.LastError = fmt.Sprintf("provider %s was removed from the config", provider)
		if err := h.putBinding(b); err != nil {
			return n, fmt.Errorf("binding %q: %w", b.Key, err)
		}
		n++
		h.publish(events.BindingChanged, b.InstanceID, "binding offline: its provider was removed from the config",
			map[string]string{"binding": b.Key, "provider": provider, "status": string(b.Status)})
	}
	h.log.Info().Str("provider", provider).Int("bindings", n).Msg("provider removed: its bindings are offline, their journals kept")
	return n, nil
}
