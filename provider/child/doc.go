// Package child is the runtime of a chatbus provider child process: it
// serves a [provider.Platform] as chatbus.provider.v1.ProviderService and
// grpc.health.v1 on its own Unix socket (see provider/README.md for the
// contract). A cmd/provider-<name> main is one line, [Exec] with a
// [Program] whose Build makes the Platform from the settings; tests call
// [Main] or [Serve] directly. The runtime owns everything that is the same
// for every platform:
//
//   - check and probe mode, the settings on stdin and the secret;
//   - the socket, the one-line stdout handshake and graceful shutdown;
//   - the Updates stream: Start cursor, relaying platform updates, waiting
//     for the supervisor's acknowledgements (the [provider.Sink] it hands
//     Run, a [Pipeline]);
//   - occupancy: real counters kept where the work happens ([Occupancy]);
//   - the owner side of the doctor fence: Prepare closes admission
//     synchronously under a lease, Cancel or an expired lease reopens it,
//     Commit makes [Serve] return once occupancy is zero;
//   - the message verbs decoded and dispatched to the Platform.
//
// It imports package provider (the kit a platform implements), never the
// reverse.
package child
