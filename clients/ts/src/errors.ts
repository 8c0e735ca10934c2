// Errors of the chatbus client: one class per gRPC code and, where one code
// covers several things, per the supervisor's reason (a google.rpc.ErrorInfo
// of domain "chatbus"), each a ConnectError.
//
//   class                    status                                  extends
//   UnauthenticatedError     UNAUTHENTICATED                         ChatbusError
//   PermissionDeniedError    PERMISSION_DENIED                       ChatbusError
//   InvalidArgumentError     INVALID_ARGUMENT                        ChatbusError
//   NotFoundError            NOT_FOUND (message, file, thread)       ChatbusError
//   SessionUnknownError      NOT_FOUND, reason SESSION_UNKNOWN       NotFoundError
//   FailedPreconditionError  FAILED_PRECONDITION                     ChatbusError
//   SuspendedError           FAILED_PRECONDITION, reason SUSPENDED   FailedPreconditionError
//   ReplacedError            ABORTED                                 ChatbusError
//   TakenOverError           ABORTED, reason TAKEN_OVER              ReplacedError
//   UnavailableError         UNAVAILABLE, or the socket unreachable  ChatbusError
//   ResourceExhaustedError   RESOURCE_EXHAUSTED                      ChatbusError
//   RateLimitedError         RESOURCE_EXHAUSTED, reason RATE_LIMITED ResourceExhaustedError
//   OutcomeUnknownError      UNKNOWN (reason OUTCOME_UNKNOWN)        ChatbusError
//   DeadlineExceededError    DEADLINE_EXCEEDED (CALL_NOT_FINISHED)   ChatbusError
//
// The reasons are the values of the generated enum ErrorReason
// (chatbus.v1.ErrorReason; a ChatbusError's `errorReason`): the ErrorInfo
// reason string is the value's name less its ERROR_REASON_ prefix, which is
// the TypeScript enum member's name.
//
// The status details are read with Connect's findDetails(); the two
// google.rpc messages it needs are declared here as descriptors (no npm
// package of ours ships them): field numbers as in googleapis'
// google/rpc/error_details.proto.

import { create, createFileRegistry } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_duration,
} from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReason } from "./gen/chatbus/v1/errors_pb.js";

/** The google.rpc.ErrorInfo domain of the supervisor's reasons. */
export const ERROR_DOMAIN = "chatbus";

const rpcDetails = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "chatbus/rpc_error_details.proto",
    package: "google.rpc",
    syntax: "proto3",
    dependency: ["google/protobuf/duration.proto"],
    messageType: [
      {
        name: "ErrorInfo",
        field: [
          { name: "reason", number: 1, type: Type.STRING, label: Label.OPTIONAL },
          { name: "domain", number: 2, type: Type.STRING, label: Label.OPTIONAL },
          { name: "metadata", number: 3, type: Type.MESSAGE, label: Label.REPEATED, typeName: ".google.rpc.ErrorInfo.MetadataEntry" },
        ],
        nestedType: [
          {
            name: "MetadataEntry",
            options: { mapEntry: true },
            field: [
              { name: "key", number: 1, type: Type.STRING, label: Label.OPTIONAL },
              { name: "value", number: 2, type: Type.STRING, label: Label.OPTIONAL },
            ],
          },
        ],
      },
      {
        name: "RetryInfo",
        field: [{ name: "retry_delay", number: 1, type: Type.MESSAGE, label: Label.OPTIONAL, typeName: ".google.protobuf.Duration" }],
      },
    ],
  }),
  (name) => (name === "google/protobuf/duration.proto" ? file_google_protobuf_duration : undefined),
);
const ErrorInfoDesc = rpcDetails.getMessage("google.rpc.ErrorInfo")!;
const RetryInfoDesc = rpcDetails.getMessage("google.rpc.RetryInfo")!;

interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}
interface RetryInfo {
  retryDelay?: { seconds: bigint; nanos: number };
}

function details<T>(err: ConnectError, desc: DescMessage): T[] {
  return err.findDetails(desc) as unknown as T[];
}

function reasonOf(err: ConnectError): string {
  return details<ErrorInfo>(err, ErrorInfoDesc).find((d) => d.domain === ERROR_DOMAIN)?.reason ?? "";
}

/**
 * The ErrorReason of an ErrorInfo reason string: UNSPECIFIED for "" and for
 * a reason this client does not know (a newer supervisor's).
 */
export function parseReason(reason: string): ErrorReason {
  const v: unknown = (ErrorReason as unknown as Record<string, unknown>)[reason];
  return typeof v === "number" ? (v as ErrorReason) : ErrorReason.UNSPECIFIED;
}

/**
 * A supervisor refused or failed a call. It is a ConnectError (`code`,
 * `rawMessage`, `metadata`, `details`, `findDetails`); its `name` stays
 * "ConnectError" so that `instanceof ConnectError` and ConnectError.from
 * keep working. Test for a class with `instanceof`.
 */
export class ChatbusError extends ConnectError {
  /** The supervisor's ErrorInfo reason ("SESSION_UNKNOWN", "THREAD_GONE", "PLATFORM_NOT_FOUND", "OUT_OF_SCOPE", …), "" if none. */
  readonly reason: string;
  /** The reason as the enum (compare with ErrorReason.THREAD_GONE); UNSPECIFIED if none or unknown. */
  readonly errorReason: ErrorReason;
  /** How long the platform asked to wait before trying again (rate limits), in ms; undefined if it did not say. */
  readonly retryDelayMs: number | undefined;
  /** On errors of Follower.call/do: the idempotency key the call was made with, to repeat it with. */
  idempotencyKey: string | undefined;

  constructor(from: ConnectError, code: Code = from.code) {
    super(from.rawMessage, code, from.metadata, undefined, from.cause ?? from);
    this.details = from.details;
    this.reason = reasonOf(from);
    this.errorReason = parseReason(this.reason);
    const delay = details<RetryInfo>(from, RetryInfoDesc)[0]?.retryDelay;
    this.retryDelayMs = delay ? Number(delay.seconds) * 1000 + Math.round(delay.nanos / 1e6) : undefined;
  }

  // ConnectError's own check answers true for any ConnectError; a class
  // of ours is matched by its prototype chain.
  static [Symbol.hasInstance](v: unknown): boolean {
    return typeof v === "object" && v !== null && Object.prototype.isPrototypeOf.call(this.prototype, v);
  }
}

/** UNAUTHENTICATED: missing or wrong bearer secret. */
export class UnauthenticatedError extends ChatbusError {}
/** PERMISSION_DENIED: another follower's token, a method not allowed, an id of another thread (OUT_OF_SCOPE), the platform refused. */
export class PermissionDeniedError extends ChatbusError {}
/** INVALID_ARGUMENT: validation, the platform rejected the request as malformed, Ack of an undelivered seq. */
export class InvalidArgumentError extends ChatbusError {}
/** NOT_FOUND: something the call named does not exist (PLATFORM_NOT_FOUND, THREAD_GONE). SessionUnknownError is the session. */
export class NotFoundError extends ChatbusError {}
/** NOT_FOUND, reason SESSION_UNKNOWN: no live registration holds this session (pruned, replaced, unregistered, a new supervisor). */
export class SessionUnknownError extends NotFoundError {}
/** FAILED_PRECONDITION: e.g. Call while not bound to a thread, or pruned. */
export class FailedPreconditionError extends ChatbusError {}
/** FAILED_PRECONDITION, reason SUSPENDED: this session suspended; its stream ended and nothing more is delivered to it. */
export class SuspendedError extends FailedPreconditionError {}
/** ABORTED: a newer registration of the instance id (REPLACED), a newer Subscribe (STREAM_SUPERSEDED), a takeover. */
export class ReplacedError extends ChatbusError {}
/** ABORTED, reason TAKEN_OVER: another instance took the binding over; the message names the profile key and the new instance. */
export class TakenOverError extends ReplacedError {}
/** UNAVAILABLE: the supervisor is shutting down or unreachable, or the binding's provider is. Safe to repeat with the same key. */
export class UnavailableError extends ChatbusError {}
/** RESOURCE_EXHAUSTED: too many followers, too many calls held, a message too large. */
export class ResourceExhaustedError extends ChatbusError {}
/** RESOURCE_EXHAUSTED, reason RATE_LIMITED: the platform asked to slow down for `retryDelayMs`; the call was not made. */
export class RateLimitedError extends ResourceExhaustedError {}
/** UNKNOWN (OUTCOME_UNKNOWN): the call may or may not have reached the platform; repeating its key reports the same, never sends it. */
export class OutcomeUnknownError extends ChatbusError {}
/** DEADLINE_EXCEEDED: the deadline passed; a call (CALL_NOT_FINISHED) is not lost: repeat it with the same key for its outcome. */
export class DeadlineExceededError extends ChatbusError {}

type ErrorClass = new (from: ConnectError, code?: Code) => ChatbusError;

const byCode = new Map<Code, ErrorClass>([
  [Code.Unauthenticated, UnauthenticatedError],
  [Code.PermissionDenied, PermissionDeniedError],
  [Code.InvalidArgument, InvalidArgumentError],
  [Code.NotFound, NotFoundError],
  [Code.FailedPrecondition, FailedPreconditionError],
  [Code.Aborted, ReplacedError],
  [Code.Unavailable, UnavailableError],
  [Code.ResourceExhausted, ResourceExhaustedError],
  [Code.Unknown, OutcomeUnknownError],
  [Code.DeadlineExceeded, DeadlineExceededError],
]);

// Reasons refine a code; a reason under another code keeps the code's class.
const byReason = new Map<ErrorReason, ErrorClass>([
  [ErrorReason.SESSION_UNKNOWN, SessionUnknownError],
  [ErrorReason.SUSPENDED, SuspendedError],
  [ErrorReason.TAKEN_OVER, TakenOverError],
  [ErrorReason.RATE_LIMITED, RateLimitedError],
  [ErrorReason.OUTCOME_UNKNOWN, OutcomeUnknownError],
]);

// Node's errors of a connection that could not be made or broke: the
// supervisor is not there (its socket gone or refusing), or went away.
const connectionErrors = new Set([
  "ENOENT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOTCONN",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_INVALID_SESSION",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_STREAM_CANCEL",
  "ERR_HTTP2_STREAM_ERROR",
]);

function brokenConnection(err: ConnectError): boolean {
  const seen = new Set<unknown>();
  for (let c: unknown = err.cause; c instanceof Error && !seen.has(c); c = (c as { cause?: unknown }).cause) {
    seen.add(c);
    if (connectionErrors.has(String((c as { code?: unknown }).code))) return true;
  }
  return false;
}

/**
 * Maps any error of an RPC to its ChatbusError class (a ConnectError with
 * `reason` and `retryDelayMs`). A connection to the socket that failed or
 * broke (Connect reports those as INTERNAL or ABORTED) is an
 * UnavailableError with code UNAVAILABLE. Other errors without a class
 * come back as a plain ChatbusError.
 */
export function toChatbusError(e: unknown): ChatbusError {
  if (e instanceof ChatbusError) return e;
  const ce = ConnectError.from(e);
  if ((ce.code === Code.Internal || ce.code === Code.Aborted) && brokenConnection(ce)) {
    return new UnavailableError(ce, Code.Unavailable);
  }
  let cls = byCode.get(ce.code) ?? ChatbusError;
  const refined = byReason.get(parseReason(reasonOf(ce)));
  if (refined && refined.prototype instanceof cls) cls = refined;
  return new cls(ce);
}
