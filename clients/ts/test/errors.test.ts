// Error classes from status codes and the supervisor's reasons, without a
// supervisor: a ConnectError is built as the transport reports one (code,
// message and the google.rpc.ErrorInfo detail as received bytes), and
// mapped. Every value of the generated ErrorReason reads back from its
// ErrorInfo string; the refining reasons pick their class only under their
// own code; a reason this client does not know is UNSPECIFIED and the code
// alone decides.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

import {
  ChatbusError,
  Code,
  ConnectError,
  ERROR_DOMAIN,
  ErrorReason,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  ReplacedError,
  SessionUnknownError,
  SuspendedError,
  TakenOverError,
  UnavailableError,
  errors,
  parseReason,
  toChatbusError,
} from "../src/index.js";

// received builds an error as received: an ErrorInfo detail of domain.
function received(code: Code, reason: string, domain = ERROR_DOMAIN): ConnectError {
  const err = new ConnectError("x", code);
  if (reason) {
    const info = new BinaryWriter().tag(1, WireType.LengthDelimited).string(reason).tag(2, WireType.LengthDelimited).string(domain).finish();
    err.details = [{ type: "google.rpc.ErrorInfo", value: info }];
  }
  return err;
}

describe("error reasons", () => {
  it("every ErrorReason reads back from its ErrorInfo string", () => {
    const values = errors.file_chatbus_v1_errors.enums[0].values;
    assert.ok(values.length > 30, `${values.length} values`);
    for (const v of values) {
      if (v.number === ErrorReason.UNSPECIFIED) continue;
      assert.ok(v.name.startsWith("ERROR_REASON_"), v.name);
      assert.equal(parseReason(v.name.slice("ERROR_REASON_".length)), v.number, v.name);
    }
    assert.equal(parseReason(""), ErrorReason.UNSPECIFIED);
    assert.equal(parseReason("SOMETHING_NEW"), ErrorReason.UNSPECIFIED);
    assert.equal(parseReason("1"), ErrorReason.UNSPECIFIED); // the enum's reverse mapping is not a reason
  });

  const cases: [Code, string, new (...a: never[]) => ChatbusError, ErrorReason][] = [
    [Code.NotFound, "SESSION_UNKNOWN", SessionUnknownError, ErrorReason.SESSION_UNKNOWN],
    [Code.NotFound, "THREAD_GONE", NotFoundError, ErrorReason.THREAD_GONE],
    [Code.FailedPrecondition, "SUSPENDED", SuspendedError, ErrorReason.SUSPENDED],
    [Code.Aborted, "TAKEN_OVER", TakenOverError, ErrorReason.TAKEN_OVER],
    [Code.Aborted, "REPLACED", ReplacedError, ErrorReason.REPLACED],
    [Code.ResourceExhausted, "RATE_LIMITED", RateLimitedError, ErrorReason.RATE_LIMITED],
    [Code.Unknown, "OUTCOME_UNKNOWN", OutcomeUnknownError, ErrorReason.OUTCOME_UNKNOWN],
    [Code.Aborted, "OWNER_REFUSED", ReplacedError, ErrorReason.OWNER_REFUSED],
    // A refining reason under another code keeps the code's class.
    [Code.Unavailable, "SESSION_UNKNOWN", UnavailableError, ErrorReason.SESSION_UNKNOWN],
    // A newer supervisor's reason: the code decides.
    [Code.NotFound, "SOMETHING_NEW", NotFoundError, ErrorReason.UNSPECIFIED],
    [Code.NotFound, "", NotFoundError, ErrorReason.UNSPECIFIED],
  ];
  for (const [code, reason, cls, enumValue] of cases) {
    it(`${Code[code]} ${reason || "(no reason)"} is ${cls.name}`, () => {
      const err = toChatbusError(received(code, reason));
      assert.equal(Object.getPrototypeOf(err), cls.prototype, `${err.constructor.name}`);
      assert.equal(err.code, code);
      assert.equal(err.reason, reason);
      assert.equal(err.errorReason, enumValue);
    });
  }

  it("another domain's reason is no reason", () => {
    const err = toChatbusError(received(Code.NotFound, "SESSION_UNKNOWN", "other"));
    assert.equal(Object.getPrototypeOf(err), NotFoundError.prototype);
    assert.equal(err.errorReason, ErrorReason.UNSPECIFIED);
  });
});
