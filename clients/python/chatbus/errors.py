"""Errors of the chatbus client.

Every RPC failure is raised as a :class:`ChatbusError` subclass chosen by
its gRPC status code and, where one code covers several things, by the
supervisor's reason (a ``google.rpc.ErrorInfo`` of domain ``"chatbus"``):
callers write ``except chatbus.SessionUnknown`` or ``except
chatbus.RateLimited`` and still see the supervisor's message. The original
``grpc.RpcError`` is the exception's ``__cause__``. The reasons are the
values of the generated enum ``chatbus.v1.errors_pb2.ErrorReason`` (an
error's ``error_reason``); the reason string is the value's name less its
``ERROR_REASON_`` prefix.

=====================  =========================================  ==========================
class                  status                                     base
=====================  =========================================  ==========================
Unauthenticated        UNAUTHENTICATED                            ChatbusError
PermissionDenied       PERMISSION_DENIED                          ChatbusError
InvalidArgument        INVALID_ARGUMENT                           ChatbusError
NotFound               NOT_FOUND (a message, a file, the thread)  ChatbusError
SessionUnknown         NOT_FOUND, reason SESSION_UNKNOWN          NotFound
FailedPrecondition     FAILED_PRECONDITION                        ChatbusError
Suspended              FAILED_PRECONDITION, reason SUSPENDED      FailedPrecondition
Replaced               ABORTED                                    ChatbusError
TakenOver              ABORTED, reason TAKEN_OVER                 Replaced
Unavailable            UNAVAILABLE                                ChatbusError
ResourceExhausted      RESOURCE_EXHAUSTED                         ChatbusError
RateLimited            RESOURCE_EXHAUSTED, reason RATE_LIMITED    ResourceExhausted
OutcomeUnknown         UNKNOWN (reason OUTCOME_UNKNOWN)           ChatbusError
DeadlineExceeded       DEADLINE_EXCEEDED (CALL_NOT_FINISHED)      ChatbusError
=====================  =========================================  ==========================
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

import grpc

from chatbus import _status
from chatbus.v1 import errors_pb2

#: The google.rpc.ErrorInfo domain of the supervisor's reasons.
ERROR_DOMAIN = "chatbus"

#: What an ``ErrorReason`` value's name has and its ErrorInfo reason
#: string has not.
_REASON_PREFIX = "ERROR_REASON_"


def parse_reason(reason: str) -> "errors_pb2.ErrorReason":
    """The ``ErrorReason`` of an ErrorInfo reason string;
    ``ERROR_REASON_UNSPECIFIED`` for ``""`` and for a reason this client
    does not know (a newer supervisor's)."""
    if not reason:
        return errors_pb2.ERROR_REASON_UNSPECIFIED
    try:
        return errors_pb2.ErrorReason.Value(_REASON_PREFIX + reason)
    except ValueError:
        return errors_pb2.ERROR_REASON_UNSPECIFIED


class ChatbusError(Exception):
    """A supervisor refused or failed a call.

    ``code`` is the ``grpc.StatusCode`` (None when no RPC was involved),
    ``details`` the supervisor's message, ``reason`` its ErrorInfo reason
    (``"SESSION_UNKNOWN"``, ``"THREAD_GONE"``, ``"PLATFORM_NOT_FOUND"``,
    ``"OUT_OF_SCOPE"``, …; ``""`` if it sent none), ``error_reason`` the
    same as a ``chatbus.v1.errors_pb2.ErrorReason`` (compare with
    ``errors_pb2.ERROR_REASON_THREAD_GONE``; ``ERROR_REASON_UNSPECIFIED``
    if none or unknown), and ``retry_delay`` the
    seconds the platform asked to wait before trying again (rate limits;
    None if it did not say). ``idempotency_key`` is set on the errors of
    :meth:`chatbus.Follower.call`: the key the call was made with, to
    repeat it with.
    """

    def __init__(self, details: str, code: Optional[grpc.StatusCode] = None, *,
                 reason: str = "", retry_delay: Optional[float] = None):
        super().__init__(f"{code.name.lower()}: {details}" if code else details)
        self.code = code
        self.details = details
        self.reason = reason
        self.error_reason = parse_reason(reason)
        self.retry_delay = retry_delay
        self.idempotency_key: Optional[str] = None


class NotRunning(ChatbusError):
    """Nothing listens on the socket: supervisord is not running."""


class Unauthenticated(ChatbusError):
    """UNAUTHENTICATED: missing or wrong bearer secret."""


class PermissionDenied(ChatbusError):
    """PERMISSION_DENIED: another follower's token, another uid, a method
    not allowed, an id of another thread (reason OUT_OF_SCOPE), or the
    platform refused (PLATFORM_DENIED)."""


class InvalidArgument(ChatbusError):
    """INVALID_ARGUMENT: a request failed validation, the platform rejected
    it as malformed (PLATFORM_INVALID), or Ack of an undelivered seq."""


class NotFound(ChatbusError):
    """NOT_FOUND: something the call named does not exist: a message or
    file at the platform (reason PLATFORM_NOT_FOUND), the thread itself
    (THREAD_GONE). See :class:`SessionUnknown` for the session."""


class SessionUnknown(NotFound):
    """NOT_FOUND, reason SESSION_UNKNOWN: the supervisor holds no live
    registration for this session (pruned, replaced, unregistered, or a
    supervisor that started since). Register again."""


class FailedPrecondition(ChatbusError):
    """FAILED_PRECONDITION: e.g. Call while not bound to a thread, or pruned."""


class Suspended(FailedPrecondition):
    """FAILED_PRECONDITION, reason SUSPENDED: this session called suspend():
    its update stream ended and nothing more is delivered to it; its
    successor gets every update after its last ack."""


class Replaced(ChatbusError):
    """ABORTED: a newer registration of the instance id (REPLACED), a newer
    Subscribe (STREAM_SUPERSEDED), or another instance took the binding
    over (:class:`TakenOver`)."""


class TakenOver(Replaced):
    """ABORTED, reason TAKEN_OVER: another instance took this session's
    binding over (it registered with the same profile key, or with the
    handoff token); the message names the profile key and the new instance."""


class Unavailable(ChatbusError):
    """UNAVAILABLE: the supervisor is shutting down or unreachable, or the
    binding's provider is (PROVIDER_UNAVAILABLE, PROVIDER_NOT_READY). Safe to
    repeat a call with the same idempotency key; call() does so itself."""


class ResourceExhausted(ChatbusError):
    """RESOURCE_EXHAUSTED: too many followers, too many calls held, or a
    message too large. See :class:`RateLimited` for the platform's limit."""


class RateLimited(ResourceExhausted):
    """RESOURCE_EXHAUSTED, reason RATE_LIMITED: the platform asked to slow
    down; ``retry_delay`` says for how many seconds. The call was not made:
    repeating it (with the same key) after the delay sends it."""


class OutcomeUnknown(ChatbusError):
    """UNKNOWN (reason OUTCOME_UNKNOWN): the call may or may not have reached
    the platform (its provider, or the supervisor, stopped mid-call).
    Repeating it with the same idempotency key reports the same; it is
    never sent twice."""


class DeadlineExceeded(ChatbusError):
    """DEADLINE_EXCEEDED: the caller's deadline passed. For a call (reason
    CALL_NOT_FINISHED, or the deadline ran out on the way) this does not
    mean it is lost: it is held or being sent and is made once; repeat it
    with the same idempotency key (``idempotency_key``) for its outcome."""


_BY_CODE: Dict[grpc.StatusCode, Type[ChatbusError]] = {
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.ABORTED: Replaced,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNKNOWN: OutcomeUnknown,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}

# Reasons refine a code; a reason under another code than its own keeps
# the code's class.
_BY_REASON: Dict[int, Type[ChatbusError]] = {
    errors_pb2.ERROR_REASON_SESSION_UNKNOWN: SessionUnknown,
    errors_pb2.ERROR_REASON_SUSPENDED: Suspended,
    errors_pb2.ERROR_REASON_TAKEN_OVER: TakenOver,
    errors_pb2.ERROR_REASON_RATE_LIMITED: RateLimited,
    errors_pb2.ERROR_REASON_OUTCOME_UNKNOWN: OutcomeUnknown,
}


def from_rpc_error(err: grpc.RpcError) -> ChatbusError:
    """Maps a ``grpc.RpcError`` (sync or ``grpc.aio``) to the matching
    :class:`ChatbusError`, with the reason and retry delay of its status
    details."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = (err.details() if hasattr(err, "details") else None) or str(err)
    trailers: Any = None
    if hasattr(err, "trailing_metadata"):
        try:
            trailers = err.trailing_metadata()
        except Exception:  # an error raised before any response has none
            trailers = None
    info = _status.parse(trailers, ERROR_DOMAIN)
    cls = _BY_CODE.get(code, ChatbusError)
    refined = _BY_REASON.get(parse_reason(info.reason))
    if refined is not None and issubclass(refined, cls):
        cls = refined
    return cls(details, code, reason=info.reason, retry_delay=info.retry_delay)
