"""Errors of the chatbus client.

Every RPC failure is raised as a :class:`ChatbusError` subclass chosen by
its gRPC status code, so callers write ``except chatbus.FailedPrecondition``
and still see the supervisor's message. The original ``grpc.RpcError`` is
the exception's ``__cause__``.
"""

from __future__ import annotations

from typing import Dict, Optional, Type

import grpc


class ChatbusError(Exception):
    """A supervisor refused or failed a call.

    ``code`` is the ``grpc.StatusCode`` (None when no RPC was involved) and
    ``details`` the supervisor's message.
    """

    def __init__(self, details: str, code: Optional[grpc.StatusCode] = None):
        super().__init__(f"{code.name.lower()}: {details}" if code else details)
        self.code = code
        self.details = details


class NotRunning(ChatbusError):
    """Nothing listens on the socket: supervisord is not running."""


class Unauthenticated(ChatbusError):
    """UNAUTHENTICATED: missing or wrong bearer secret."""


class PermissionDenied(ChatbusError):
    """PERMISSION_DENIED: another follower's token, or another uid."""


class InvalidArgument(ChatbusError):
    """INVALID_ARGUMENT: a request failed validation (or Ack of an undelivered seq)."""


class SessionUnknown(ChatbusError):
    """NOT_FOUND: the session was pruned, replaced or never registered."""


class FailedPrecondition(ChatbusError):
    """FAILED_PRECONDITION: e.g. Call while not bound to a thread, or pruned."""


class Replaced(ChatbusError):
    """ABORTED: a newer registration of the instance id, or a newer Subscribe."""


class Unavailable(ChatbusError):
    """UNAVAILABLE: the supervisor is shutting down or unreachable."""


class ResourceExhausted(ChatbusError):
    """RESOURCE_EXHAUSTED: too many followers, or a message too large."""


_BY_CODE: Dict[grpc.StatusCode, Type[ChatbusError]] = {
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: SessionUnknown,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.ABORTED: Replaced,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
}


def from_rpc_error(err: grpc.RpcError) -> ChatbusError:
    """Maps a ``grpc.RpcError`` to the matching :class:`ChatbusError`."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = (err.details() if hasattr(err, "details") else None) or str(err)
    return _BY_CODE.get(code, ChatbusError)(details, code)
