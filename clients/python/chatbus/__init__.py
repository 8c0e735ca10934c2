"""chatbus: Python follower client of the chatbus supervisor.

The generated code lives beside this file: ``chatbus.v1`` (BusService,
AdminService, DoctorService), ``chatbus.provider.v1`` (the provider-child
contract) and, at the top level, ``buf.validate`` (imported by the generated
modules). It is produced by ``make generate`` from ``proto/``; do not edit
it.

See :mod:`chatbus.client` for the follower API, :mod:`chatbus.aio` for the
same API on asyncio (``grpc.aio``), and clients/README.md.
"""

try:  # written into the built package by setup.py
    from chatbus._version import __version__  # type: ignore[import]
except ImportError:  # a source tree on sys.path: no build, no version
    __version__ = "0.0.0+unknown"

from chatbus.client import (
    DEFAULT_TIMEOUT,
    Button,
    CallResult,
    Client,
    Follower,
    UpdateStream,
    connect,
    default_instance_id,
    new_idempotency_key,
)
from chatbus.errors import (
    ChatbusError,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    NotRunning,
    OutcomeUnknown,
    PermissionDenied,
    RateLimited,
    Replaced,
    ResourceExhausted,
    SessionUnknown,
    Suspended,
    TakenOver,
    Unauthenticated,
    Unavailable,
)
from chatbus.paths import Paths, resolve as default_paths

__all__ = [
    "__version__",
    "DEFAULT_TIMEOUT",
    "Button",
    "CallResult",
    "ChatbusError",
    "Client",
    "DeadlineExceeded",
    "FailedPrecondition",
    "Follower",
    "InvalidArgument",
    "NotFound",
    "NotRunning",
    "OutcomeUnknown",
    "Paths",
    "PermissionDenied",
    "RateLimited",
    "Replaced",
    "ResourceExhausted",
    "SessionUnknown",
    "Suspended",
    "TakenOver",
    "Unauthenticated",
    "Unavailable",
    "UpdateStream",
    "connect",
    "default_instance_id",
    "default_paths",
    "new_idempotency_key",
]
