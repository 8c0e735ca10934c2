package provider

import "sync"

// Health lets a Platform say whether its platform connection works
// (Telegram: NOT_SERVING while another poller owns the token, or the token
// was revoked). The runtime publishes it as the grpc.health.v1 status of
// the provider's name; the "" service stays SERVING while the process
// serves. A Health starts serving. It is safe for concurrent use and may
// be Set before the runtime watches it.
type Health struct {
	mu      sync.Mutex // guards below
	serving bool
	why     string
	watch   func(serving, changed bool, why string)
}

// NewHealth returns a Health that is serving.
func NewHealth() *Health { return &Health{serving: true} }

// Set records whether the platform connection works, and why not. Changes
// are published at once.
func (h *Health) Set(serving bool, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := serving != h.serving
	h.serving, h.why = serving, why
	if h.watch != nil {
		h.watch(serving, changed, why)
	}
}

// Serving reports the last state Set, and why it is not serving.
func (h *Health) Serving() (serving bool, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.serving, h.why
}

// Watch calls fn with the state now (changed false) and on every Set from
// then on (changed: the state is not the one before), in order, under h's
// lock: fn must not call h. It replaces an earlier watcher. The runtime
// watches (provider/child); a Platform only Sets.
func (h *Health) Watch(fn func(serving, changed bool, why string)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watch = fn
	fn(h.serving, false, h.why)
}
