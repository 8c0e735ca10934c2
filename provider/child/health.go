package child

import (
	"github.com/rs/zerolog"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/chatbus/chatbus/provider"
)

// publishHealth publishes h on hs under name from now on, logging each
// change (and, at once, a connection that is not serving).
func publishHealth(h *provider.Health, hs *health.Server, name string, log zerolog.Logger) {
	first := true
	h.Watch(func(serving, changed bool, why string) {
		if changed || (first && !serving) {
			if serving {
				log.Info().Msg("platform connection healthy: SERVING")
			} else {
				log.Warn().Str("why", why).Msg("platform connection unhealthy: NOT_SERVING")
			}
		}
		first = false
		hs.SetServingStatus(name, servingStatus(serving))
	})
}

func servingStatus(ok bool) grpc_health_v1.HealthCheckResponse_ServingStatus {
	if ok {
		return grpc_health_v1.HealthCheckResponse_SERVING
	}
	return grpc_health_v1.HealthCheckResponse_NOT_SERVING
}
