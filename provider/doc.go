// Package provider is the kit a chat platform implements to become a
// chatbus provider: one process per platform connection, started by the
// supervisor as provider-<name> (see README.md for the contract, and
// docs/writing-a-provider.md for a complete provider walked through).
//
// A platform package (provider/telegram, …) implements [Platform] and, for
// the message verbs, [Messenger] (with [Reactor], [Typist], [Answerer],
// [Drafter] where the platform has them). The kit holds what every
// platform declares and uses the same way:
//
//   - its settings: [DecodeSettings] and [Settingf], so every refusal is
//     "<key>: <why>" ([SettingError]);
//   - its scope: [ParseParams] and [Params] pin a call to its thread;
//   - its capabilities and limits: [Description] with [Methods], [Verb]s
//     and [RateLimit]s, the operator's [LimitSettings] applied;
//   - its failures: the sentinels of errors.go ([ErrNotFound],
//     [ErrAmbiguous], …), mapped to gRPC codes in one place ([ToStatus]);
//   - its health: [Health] fed by [Liveness].
//
// The child process's runtime (the socket, handshake, gRPC service,
// Updates pump, doctor fence, occupancy and main) is provider/child, which
// imports this package; this package never imports it. The package knows
// nothing of any platform's wire format.
package provider
