"""Error classes from status codes and the supervisor's reasons, without a
supervisor: an RPC error is built as grpc reports one (code, details and
the grpc-status-details-bin trailer), and mapped.

Every value of the generated ``chatbus.v1.errors_pb2.ErrorReason`` reads
back from its ErrorInfo string; the refining reasons pick their class only
under their own code; a reason this client does not know is
ERROR_REASON_UNSPECIFIED and the code alone decides.
"""

from __future__ import annotations

import sys
import unittest

import harness

try:
    import grpc

    import chatbus
    from chatbus import _status
    from chatbus.errors import ERROR_DOMAIN, from_rpc_error, parse_reason
    from chatbus.v1 import errors_pb2
except ImportError as e:  # pragma: no cover - depends on the machine
    harness.unavailable(f"{sys.executable} cannot import grpc/protobuf ({e}); "
                        "install python3-grpcio python3-protobuf (Debian)")


class _RpcError(grpc.RpcError):
    """An RPC error as grpc raises one."""

    def __init__(self, code, details, reason="", domain=ERROR_DOMAIN, retry_delay=None):
        super().__init__(details)
        self._code, self._details = code, details
        self._trailers = [(_status.DETAILS_KEY, _status.encode(
            code.value[0], details, reason=reason, domain=domain, retry_delay=retry_delay))]

    def code(self):
        return self._code

    def details(self):
        return self._details

    def trailing_metadata(self):
        return self._trailers


class ErrorsTest(unittest.TestCase):
    def test_every_reason_reads_back(self):
        values = errors_pb2.ErrorReason.DESCRIPTOR.values
        self.assertGreater(len(values), 30)
        for v in values:
            if v.number == errors_pb2.ERROR_REASON_UNSPECIFIED:
                continue
            self.assertTrue(v.name.startswith("ERROR_REASON_"), v.name)
            self.assertEqual(parse_reason(v.name[len("ERROR_REASON_"):]), v.number, v.name)
        self.assertEqual(parse_reason(""), errors_pb2.ERROR_REASON_UNSPECIFIED)
        self.assertEqual(parse_reason("SOMETHING_NEW"), errors_pb2.ERROR_REASON_UNSPECIFIED)

    def test_classes(self):
        S = grpc.StatusCode
        cases = [
            # (code, reason, class, error_reason)
            (S.NOT_FOUND, "SESSION_UNKNOWN", chatbus.SessionUnknown, errors_pb2.ERROR_REASON_SESSION_UNKNOWN),
            (S.NOT_FOUND, "THREAD_GONE", chatbus.NotFound, errors_pb2.ERROR_REASON_THREAD_GONE),
            (S.FAILED_PRECONDITION, "SUSPENDED", chatbus.Suspended, errors_pb2.ERROR_REASON_SUSPENDED),
            (S.ABORTED, "TAKEN_OVER", chatbus.TakenOver, errors_pb2.ERROR_REASON_TAKEN_OVER),
            (S.ABORTED, "REPLACED", chatbus.Replaced, errors_pb2.ERROR_REASON_REPLACED),
            (S.RESOURCE_EXHAUSTED, "RATE_LIMITED", chatbus.RateLimited, errors_pb2.ERROR_REASON_RATE_LIMITED),
            (S.UNKNOWN, "OUTCOME_UNKNOWN", chatbus.OutcomeUnknown, errors_pb2.ERROR_REASON_OUTCOME_UNKNOWN),
            (S.ABORTED, "OWNER_REFUSED", chatbus.Replaced, errors_pb2.ERROR_REASON_OWNER_REFUSED),
            # A refining reason under another code keeps the code's class.
            (S.UNAVAILABLE, "SESSION_UNKNOWN", chatbus.Unavailable, errors_pb2.ERROR_REASON_SESSION_UNKNOWN),
            # A newer supervisor's reason: the code decides.
            (S.NOT_FOUND, "SOMETHING_NEW", chatbus.NotFound, errors_pb2.ERROR_REASON_UNSPECIFIED),
            (S.NOT_FOUND, "", chatbus.NotFound, errors_pb2.ERROR_REASON_UNSPECIFIED),
        ]
        for code, reason, cls, enum in cases:
            with self.subTest(code=code, reason=reason):
                err = from_rpc_error(_RpcError(code, "x", reason=reason))
                self.assertIs(type(err), cls)
                self.assertEqual((err.code, err.reason, err.error_reason), (code, reason, enum))

    def test_another_domain_is_no_reason(self):
        err = from_rpc_error(_RpcError(grpc.StatusCode.NOT_FOUND, "x", reason="SESSION_UNKNOWN", domain="other"))
        self.assertIs(type(err), chatbus.NotFound)
        self.assertEqual(err.error_reason, errors_pb2.ERROR_REASON_UNSPECIFIED)

    def test_retry_delay(self):
        err = from_rpc_error(_RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down", reason="RATE_LIMITED", retry_delay=2.5))
        self.assertIsInstance(err, chatbus.RateLimited)
        self.assertEqual(err.retry_delay, 2.5)


if __name__ == "__main__":
    unittest.main()
