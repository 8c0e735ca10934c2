// Package provider is the SDK for chatbus provider children: one process per
// chat platform connection, started by the supervisor as
// provider-<name>, serving chatbus.provider.v1.ProviderService and
// grpc.health.v1 on its own Unix socket (see README.md for the contract).
//
// A platform package (provider/telegram, …) implements [Platform]; its
// cmd/provider-<name> main reads the environment and the JSON config on
// stdin, builds the Platform and calls [Serve]. The SDK owns everything
// that is the same for every platform:
//
//   - the socket, the one-line stdout handshake and graceful shutdown;
//   - the Updates stream: Start cursor, relaying platform updates, waiting
//     for the supervisor's acknowledgements ([Sink]);
//   - occupancy: real counters kept where the work happens ([Occupancy]);
//   - the owner side of the doctor fence: Prepare closes admission
//     synchronously under a lease, Cancel or an expired lease reopens it,
//     Commit makes [Serve] return once occupancy is zero;
//   - mapping platform errors to gRPC codes in one place (errors.go).
//
// The package knows nothing of any platform's wire format.
package provider
