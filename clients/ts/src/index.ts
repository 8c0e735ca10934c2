// chatbus: Node.js follower client of the chatbus supervisor.
//
// The generated code (protoc-gen-es) is under src/gen and re-exported here as
// namespaces: bus (BusService), admin (AdminService), doctor (DoctorService),
// types, errors (ErrorReason, also exported by name), and provider (the
// provider-child contract). It is produced by
// `make generate`; do not edit it. Errors of the library's calls are the
// ChatbusError classes of errors.ts (each a ConnectError).

export {
  Client,
  DEFAULT_TIMEOUT_MS,
  Follower,
  NotRunningError,
  connect,
  defaultInstanceId,
  newIdempotencyKey,
  type Button,
  type CallOptions,
  type CallResult,
  type ConnectOptions,
  type EditOptions,
  type RegisterOptions,
  type SendOptions,
  type StreamOptions,
  type UpdatesOptions,
} from "./client.js";
export {
  ChatbusError,
  DeadlineExceededError,
  ERROR_DOMAIN,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  OutcomeUnknownError,
  PermissionDeniedError,
  RateLimitedError,
  ReplacedError,
  ResourceExhaustedError,
  SessionUnknownError,
  SuspendedError,
  TakenOverError,
  UnauthenticatedError,
  UnavailableError,
  parseReason,
  toChatbusError,
} from "./errors.js";
export { DEFAULT_PROFILE, MAX_SOCKET_PATH, MAX_SOCKET_PATH_MACOS, checkSocketPath, defaultPaths, maxSocketPath, type Paths } from "./paths.js";
export { Code, ConnectError } from "@connectrpc/connect";

export * as admin from "./gen/chatbus/v1/admin_pb.js";
export * as bus from "./gen/chatbus/v1/bus_pb.js";
export * as doctor from "./gen/chatbus/v1/doctor_pb.js";
export * as errors from "./gen/chatbus/v1/errors_pb.js";
export { ErrorReason } from "./gen/chatbus/v1/errors_pb.js";
export * as types from "./gen/chatbus/v1/types_pb.js";
export * as provider from "./gen/chatbus/provider/v1/provider_pb.js";
