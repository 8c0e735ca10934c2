package provider

import (
	"sync"

	"github.com/rs/zerolog"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
)

// Health lets a Platform say whether its platform connection works
// (Telegram: NOT_SERVING while another poller owns the token, or the token
// was revoked). Serve publishes it as the grpc.health.v1 status of the
// provider's name; the "" service stays SERVING while the process serves.
// A Health starts serving. It is safe for concurrent use and may be Set
// before Serve runs.
type Health struct {
	mu      sync.Mutex // guards below
	serving bool
	why     string
	hs      *health.Server // nil until Serve attaches
	name    string
	log     zerolog.Logger
}

// NewHealth returns a Health that is serving.
func NewHealth() *Health { return &Health{serving: true} }

// Set records whether the platform connection works, and why not. Changes
// are logged and published at once.
func (h *Health) Set(serving bool, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := serving != h.serving
	h.serving, h.why = serving, why
	if h.hs == nil {
		return
	}
	if changed {
		if serving {
			h.log.Info().Msg("platform connection healthy: SERVING")
		} else {
			h.log.Warn().Str("why", why).Msg("platform connection unhealthy: NOT_SERVING")
		}
	}
	h.hs.SetServingStatus(h.name, servingStatus(serving))
}

// Serving reports the last state Set, and why it is not serving.
func (h *Health) Serving() (serving bool, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.serving, h.why
}

// attach publishes h on hs under name from now on.
func (h *Health) attach(hs *health.Server, name string, log zerolog.Logger) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hs, h.name, h.log = hs, name, log
	hs.SetServingStatus(name, servingStatus(h.serving))
	if !h.serving {
		h.log.Warn().Str("why", h.why).Msg("platform connection unhealthy: NOT_SERVING")
	}
}

func servingStatus(ok bool) grpc_health_v1.HealthCheckResponse_ServingStatus {
	if ok {
		return grpc_health_v1.HealthCheckResponse_SERVING
	}
	return grpc_health_v1.HealthCheckResponse_NOT_SERVING
}
