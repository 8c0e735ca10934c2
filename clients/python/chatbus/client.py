"""Follower client of a chatbus supervisor, over gRPC on its Unix socket.

A follower (agent session) connects with the supervisor's bearer secret,
registers, heartbeats in the background at the interval Register returns,
iterates its thread's updates, acknowledges them, calls platform methods in
its own thread, and unregisters::

    import chatbus

    with chatbus.connect() as client:                 # default profile's paths
        with client.register(profile_key="manual:1234") as follower:
            for update in follower.updates():         # blocks; ends at close()
                follower.send(f"**echo:** {update.text}")  # Markdown, on any platform
                follower.ack(update.seq)

Everything here is safe to use from several threads; ``close()`` may be
called from any thread (or a signal handler) to end a blocked iteration.

What a follower says in its thread goes through the message verbs, the
same on every platform: :meth:`Follower.send` (Markdown, a reply, buttons),
:meth:`Follower.edit`, :meth:`Follower.react`, :meth:`Follower.typing` and
:meth:`Follower.answer` (a button press). ``call()`` reaches any other
method the thread's platform declares.

Calls are made at most once. Every ``call()`` carries an idempotency key (a
fresh one from :func:`new_idempotency_key` unless the caller passes its own):
the supervisor records the call under it before the platform is called, and
a repeat of the key gets the first call's outcome without calling the
platform again. While the supervisor is unavailable (restarting,
unreachable), ``call()`` tries again with the same key until its deadline;
when the supervisor it registered with was replaced by a new one (a restart),
the follower registers again (same instance id and profile key: the same
thread) and the call goes on with the same key. The verbs are made the same
way. An error of ``call()`` (and of a verb) names
the key it used (``err.idempotency_key``): pass it back to repeat the call,
e.g. after :class:`DeadlineExceeded`, which does not mean the call is lost.
"""

from __future__ import annotations

import collections
import datetime
import json
import logging
import os
import secrets
import socket as _socket
import threading
import time
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple, Union

import grpc

from chatbus import paths as _paths
from chatbus.errors import (
    ChatbusError,
    NotFound,
    NotRunning,
    PermissionDenied,
    Replaced,
    SessionUnknown,
    TakenOver,
    Unauthenticated,
    Unavailable,
    from_rpc_error,
)
from chatbus.v1 import admin_pb2, admin_pb2_grpc, bus_pb2, bus_pb2_grpc, doctor_pb2, doctor_pb2_grpc, errors_pb2, types_pb2

log = logging.getLogger("chatbus")

#: Timeout of every unary call, in seconds, unless the Client is told otherwise.
DEFAULT_TIMEOUT = 10.0

#: Default deadline of a whole upload or download, in seconds.
FILE_TIMEOUT = 300.0

_CHUNK = 256 * 1024  # upload chunk size; the supervisor takes up to 1 MiB

#: How many updates a follower asks for per stream message (Subscribe max_batch).
UPDATES_BATCH = 256

# Only the supervisor knows whether it pruned a session. A heartbeat that
# times out is retried for as long as it takes: the supervisor is busy and may
# well still hold the session, and the first heartbeat that gets through
# says. Any other failure (unreachable, refused) is retried until stale_after
# has passed without one getting through: by then the supervisor has pruned
# the session, or it is a new one that never knew it. Used when the
# supervisor did not say its stale_after.
_DEFAULT_STALE_INTERVALS = 5

_PROCESS_START_MS = int(time.time() * 1000)

# A call that found the supervisor unavailable is tried again after this
# long, doubling up to _RETRY_MAX, while its deadline allows.
_RETRY_FIRST = 0.05
_RETRY_MAX = 2.0

# gRPC's reconnect backoff grows to two minutes by default; the supervisor
# is a local socket, so a restarted one is found again within two seconds.
# (Not grpc.min_reconnect_backoff_ms: it is also the connect timeout.)
_CHANNEL_OPTIONS: List[Tuple[str, Any]] = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
]


def default_instance_id() -> str:
    """``"<pid>:<start-ms>"``: unique per process, as the protocol suggests."""
    return f"{os.getpid()}:{_PROCESS_START_MS}"


def new_idempotency_key() -> str:
    """A random key for one logical call (``"py:"`` + 128 random bits)."""
    return "py:" + secrets.token_urlsafe(16)


class CallResult(NamedTuple):
    """What :meth:`Follower.do` returns."""

    #: The platform's result, decoded from JSON (None if empty).
    result: Any
    #: The ids the result made available to the thread (``types_pb2.Reference``:
    #: ``kind``, ``id``), e.g. the message sent: a later call may name them.
    references: List[types_pb2.Reference]
    #: The key the call was made with: repeating it returns this outcome.
    idempotency_key: str
    #: The supervisor's CallResponse as it came.
    response: bus_pb2.CallResponse


class Button(NamedTuple):
    """A button under a message: its label and the data a press carries back
    (at most 64 bytes). A press arrives as an update of kind
    ``UPDATE_KIND_CALLBACK_QUERY`` whose ``text`` is the data, with an
    interaction reference to :meth:`Follower.answer`."""

    label: str
    data: str


#: What the verbs take as a button: a :class:`Button`, a ``(label, data)``
#: pair, or the generated ``types_pb2.Button``.
ButtonLike = Union[Button, Tuple[str, str], types_pb2.Button]


def _buttons(buttons: Optional[Sequence[ButtonLike]]) -> List[types_pb2.Button]:
    out = []
    for b in buttons or ():
        if isinstance(b, types_pb2.Button):
            out.append(b)
        else:
            label, data = b
            out.append(types_pb2.Button(label=label, data=data))
    return out


def _call_result(resp: bus_pb2.CallResponse, key: str) -> CallResult:
    result = json.loads(resp.result_json) if resp.result_json else None
    return CallResult(result, list(resp.references), key, resp)


def _retry_wait(err: ChatbusError, wait: float, left: float) -> Optional[float]:
    """How long to wait before trying a call again after err, or None if it
    is not tried again: only UNAVAILABLE is (the idempotency key makes it
    safe), and only while the deadline leaves time for the wait."""
    if not isinstance(err, Unavailable) or left <= wait:
        return None
    return wait


def _supervisor_identity(info: admin_pb2.GetInfoResponse) -> Tuple[int, int, int]:
    """Tells one supervisor process from its successor."""
    return (int(info.pid), int(info.started_at.seconds), int(info.started_at.nanos))


def _renew_request(req: bus_pb2.RegisterRequest, resp: bus_pb2.RegisterResponse) -> bus_pb2.RegisterRequest:
    """The RegisterRequest that registers a follower again with a new
    supervisor: the same identity, asking for the thread it had."""
    again = bus_pb2.RegisterRequest()
    again.CopyFrom(req)
    again.handoff_token = ""
    if resp.HasField("binding") and resp.binding.HasField("target"):
        again.previous_target.CopyFrom(resp.binding.target)
    return again


def _ends_session(err: ChatbusError) -> bool:
    """A stream ended with err because the session itself ended: another
    instance took the binding over, or the instance id registered again."""
    return isinstance(err, TakenOver) or (
        isinstance(err, Replaced) and err.error_reason == errors_pb2.ERROR_REASON_REPLACED)


class _CallDetails(
    collections.namedtuple(
        "_CallDetails",
        ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression"),
    ),
    grpc.ClientCallDetails,
):
    pass


class _BearerInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds ``authorization: Bearer <secret>`` to every call."""

    def __init__(self, secret: str):
        self._header = ("authorization", "Bearer " + secret)

    def _with_auth(self, d: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        md = list(d.metadata or ())
        md.append(self._header)
        return _CallDetails(
            d.method,
            d.timeout,
            md,
            d.credentials,
            getattr(d, "wait_for_ready", None),
            getattr(d, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_auth(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_auth(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return continuation(self._with_auth(details), request_iterator)

    def intercept_stream_stream(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return continuation(self._with_auth(details), request_iterator)


def _read_secret(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            secret = f.read().strip()
    except OSError as e:
        raise ChatbusError(
            f"read the supervisor's secret {path}: {e.strerror or e} "
            "(has supervisord run for this profile?)"
        ) from e
    if not secret:
        raise ChatbusError(f"the supervisor's secret {path} is empty")
    return secret


class Client:
    """A connection to one supervisor. Use it as a context manager or close it.

    ``socket`` and ``secret_file`` default to the profile's paths (see
    :mod:`chatbus.paths`); ``secret`` bypasses the file. ``bus``, ``admin``
    and ``doctor`` are the generated stubs, already authenticated, for
    anything the API below does not wrap.
    """

    def __init__(
        self,
        socket: Optional[str] = None,
        *,
        secret: Optional[str] = None,
        secret_file: Optional[str] = None,
        profile: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        options: Optional[List[Tuple[str, Any]]] = None,
    ):
        defaults = _paths.resolve(profile) if socket is None or (secret is None and secret_file is None) else None
        self.socket_path = os.path.abspath(socket or _default(defaults).socket)
        self.timeout = timeout
        target = _paths.socket_target(self.socket_path)
        _probe(self.socket_path)
        if secret is None:
            secret = _read_secret(secret_file or _default(defaults).secret_file)
        self._raw_channel = grpc.insecure_channel(target, options=_channel_options(options))
        self._channel = grpc.intercept_channel(self._raw_channel, _BearerInterceptor(secret))
        self.bus = bus_pb2_grpc.BusServiceStub(self._channel)
        self.admin = admin_pb2_grpc.AdminServiceStub(self._channel)
        self.doctor = doctor_pb2_grpc.DoctorServiceStub(self._channel)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the channel; open streams end with CANCELLED."""
        self._channel.close()

    def register(
        self,
        profile_key: str,
        *,
        cwd: Optional[str] = None,
        thread_name: str = "",
        instance_id: Optional[str] = None,
        pid: Optional[int] = None,
        provider: str = "",
        previous_target: Optional[types_pb2.Target] = None,
        handoff_token: str = "",
        on_notice: Optional[Callable[[int], None]] = None,
    ) -> "Follower":
        """Registers a follower and starts its background heartbeat.

        ``profile_key`` is the owner's stable identity across reloads (e.g.
        ``"manual:<parent pid>"``). ``instance_id`` defaults to
        ``"<pid>:<process start ms>"``: registering it again (from this
        process) replaces the earlier registration. ``on_notice`` is called
        from the heartbeat thread with each ``bus_pb2.Notice`` a heartbeat
        returns (e.g. ``NOTICE_SUPERVISOR_DRAINING``).
        """
        req = _register_request(profile_key, cwd, thread_name, instance_id, pid, provider,
                                previous_target, handoff_token)
        try:
            resp = self.bus.Register(req, timeout=self.timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e
        return Follower(self, resp, on_notice, request=req, supervisor=self._identity())

    def _identity(self) -> Optional[Tuple[int, int, int]]:
        """The supervisor's identity (pid, start), None if it does not say."""
        try:
            return _supervisor_identity(self.admin.GetInfo(admin_pb2.GetInfoRequest(), timeout=self.timeout))
        except grpc.RpcError:
            return None

    def get_info(self) -> admin_pb2.GetInfoResponse:
        """AdminService.GetInfo: version, pid, profile, paths, follower count."""
        try:
            return self.admin.GetInfo(admin_pb2.GetInfoRequest(), timeout=self.timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e

    def list_followers(self) -> List[types_pb2.Follower]:
        """AdminService.ListFollowers: the registered followers."""
        try:
            resp = self.admin.ListFollowers(admin_pb2.ListFollowersRequest(), timeout=self.timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e
        return list(resp.followers)

    def doctor_status(self, provider: str = "") -> List[doctor_pb2.Owner]:
        """DoctorService.Status: each provider's owner (``doctor_pb2.Owner``):
        pid, fence phase, admitting, occupancy, lease. One, or all if empty."""
        try:
            resp = self.doctor.Status(doctor_pb2.StatusRequest(provider=provider), timeout=self.timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e
        return list(resp.owners)

    def doctor_restart(
        self,
        provider: str,
        *,
        drain: Optional[float] = None,
        deadline: Optional[float] = None,
        on_progress: Optional[Callable[[doctor_pb2.RestartProgress], None]] = None,
    ) -> doctor_pb2.RestartOutcome:
        """DoctorService.Restart: restarts (or upgrades) a provider without
        losing anything, and returns the typed ``doctor_pb2.RestartOutcome``
        (``outcome.kind == doctor_pb2.OUTCOME_KIND_RESTARTED`` on success).

        ``drain`` bounds the wait for the owner to settle before committing
        (seconds; default: commit at once, the owner exits once settled),
        ``deadline`` the whole restart (default 60). ``on_progress`` is
        called with each ``doctor_pb2.RestartProgress`` (phase, occupancy,
        what blocks)."""
        req = doctor_pb2.RestartRequest(provider=provider)
        if drain is not None:
            req.drain.FromTimedelta(datetime.timedelta(seconds=drain))
        if deadline is not None:
            req.deadline.FromTimedelta(datetime.timedelta(seconds=deadline))
        outcome: Optional[doctor_pb2.RestartOutcome] = None
        try:
            for resp in self.doctor.Restart(req, timeout=(deadline or 60.0) + self.timeout):
                if resp.HasField("progress") and on_progress is not None:
                    on_progress(resp.progress)
                elif resp.HasField("outcome"):
                    outcome = resp.outcome
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e
        if outcome is None:
            raise ChatbusError("doctor restart ended without an outcome")
        return outcome


def connect(socket: Optional[str] = None, **kwargs: Any) -> Client:
    """Connects to a supervisor: ``Client(socket, **kwargs)``."""
    return Client(socket, **kwargs)


def _channel_options(options: Optional[List[Tuple[str, Any]]]) -> List[Tuple[str, Any]]:
    """The caller's channel options, after the reconnect backoff defaults."""
    given = {k for k, _ in options or ()}
    return [o for o in _CHANNEL_OPTIONS if o[0] not in given] + list(options or ())


def _register_request(
    profile_key: str, cwd: Optional[str], thread_name: str, instance_id: Optional[str],
    pid: Optional[int], provider: str, previous_target: Optional[types_pb2.Target], handoff_token: str,
) -> bus_pb2.RegisterRequest:
    """The RegisterRequest of Client.register (sync and asyncio), defaults filled in."""
    req = bus_pb2.RegisterRequest(
        instance_id=instance_id or default_instance_id(),
        profile_key=profile_key,
        thread_name=thread_name,
        cwd=os.getcwd() if cwd is None else cwd,
        pid=os.getpid() if pid is None else pid,
        provider=provider,
        handoff_token=handoff_token,
    )
    if previous_target is not None:
        req.previous_target.CopyFrom(previous_target)
    return req


def _params_json(params: Union[Dict[str, Any], str, bytes, None]) -> bytes:
    """Follower.call's params as JSON bytes: a dict is encoded, str/bytes pass."""
    if params is None:
        return b"{}"
    if isinstance(params, bytes):
        return params
    if isinstance(params, str):
        return params.encode()
    return json.dumps(params).encode()


def _default(defaults: Optional[_paths.Paths]) -> _paths.Paths:
    # Resolved whenever a path was left to the defaults.
    assert defaults is not None
    return defaults


def _probe(path: str) -> None:
    """Fails fast with NotRunning when nothing listens on path."""
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    s.settimeout(2.0)
    try:
        s.connect(path)
    except OSError as e:
        raise NotRunning(f"supervisord is not running: {path}: {e.strerror or e}") from e
    finally:
        s.close()


class Follower:
    """A registered session with a background heartbeat. Close it.

    ``response`` is the supervisor's RegisterResponse: the session, the
    binding (unset while ``origin`` is ``ORIGIN_DETACHED``), the origin, the
    platform's capabilities and the timing contract. When a restarted
    supervisor no longer knows the session, the follower registers again
    (same instance id and profile key, so the same thread) and ``session``
    and ``response`` are the new registration's.
    """

    def __init__(self, client: Client, response: bus_pb2.RegisterResponse,
                 on_notice: Optional[Callable[[int], None]], *,
                 request: Optional[bus_pb2.RegisterRequest] = None,
                 supervisor: Optional[Tuple[int, int, int]] = None):
        self._client = client
        self.response = response
        self.session = response.session
        self.heartbeat_interval = response.heartbeat_interval.ToTimedelta().total_seconds() or 1.0
        # While an update stream is open the stream is the liveness, and the
        # heartbeat goes at this (longer) interval.
        self.subscribed_heartbeat_interval = max(
            response.subscribed_heartbeat_interval.ToTimedelta().total_seconds(), self.heartbeat_interval)
        self.stale_after = response.stale_after.ToTimedelta().total_seconds()
        self._on_notice = on_notice
        self._request = request
        self._supervisor = supervisor
        self._lock = threading.Lock()  # guards session, response, _supervisor, _streams, _error, _closed, _suspended
        self._renew_lock = threading.Lock()  # one re-registration at a time; taken before _lock
        self._streams: Set[UpdateStream] = set()
        self._error: Optional[ChatbusError] = None
        self._closed = False
        self._suspended = False
        self._stop = threading.Event()
        # Set when an update stream ends (or the follower stops): the
        # heartbeat goes at once, and at the short interval again.
        self._wake = threading.Event()
        self._thread = threading.Thread(
            target=self._heartbeat_loop,
            name=f"chatbus-heartbeat-{self.session.instance_id}",
            daemon=True,
        )
        self._thread.start()

    def __enter__(self) -> "Follower":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def instance_id(self) -> str:
        return self.session.instance_id

    @property
    def origin(self) -> int:
        """A ``types_pb2.Origin`` value: FRESH, REUSE, HANDOFF or DETACHED."""
        return self.response.origin

    @property
    def binding(self) -> Optional[types_pb2.Binding]:
        """The thread this follower is bound to; None while detached. When a
        person deletes the thread, the supervisor gives the binding a new
        one and says so (a heartbeat's NOTICE_THREAD_REPLACED, the update
        stream's binding_changed): this is the new one from then on."""
        return self.response.binding if self.response.HasField("binding") else None

    def _set_binding(self, binding: types_pb2.Binding) -> None:
        # The registration's binding as it is now (its thread was replaced).
        with self._lock:
            self.response.binding.CopyFrom(binding)

    @property
    def target(self) -> Optional[types_pb2.Target]:
        """The binding's thread (``provider``, ``chat`` and ``thread`` as the
        platform writes them; ``chat_id``/``thread_id`` as numbers where they
        are); None while detached."""
        b = self.binding
        return b.target if b is not None and b.HasField("target") else None

    @property
    def capabilities(self) -> Optional[bus_pb2.Capabilities]:
        """What the binding's platform offers: ``platform``, ``methods`` (each
        with the params that name an id of the thread) and
        ``max_text_chars``; None while detached."""
        return self.response.capabilities if self.response.HasField("capabilities") else None

    @property
    def error(self) -> Optional[ChatbusError]:
        """Why the session was lost (pruned, replaced, taken over, supervisor
        gone); None while it is alive and after a clean close()."""
        with self._lock:
            return self._error

    @property
    def alive(self) -> bool:
        """True until close() or until the heartbeat finds the session lost."""
        return not self._stop.is_set()

    @property
    def suspended(self) -> bool:
        """True once suspend() returned: the binding waits for a successor."""
        with self._lock:
            return self._suspended

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits until the session is closed or lost; True if it is."""
        return self._stop.wait(timeout)

    # --- calls ---

    def heartbeat(self) -> bus_pb2.HeartbeatResponse:
        """One heartbeat now. The background thread already sends them."""
        return self._unary(
            self._client.bus.Heartbeat, bus_pb2.HeartbeatRequest(session=self.session)
        )

    def updates(self, after_seq: int = 0) -> "UpdateStream":
        """Opens the update stream: every unacknowledged update after
        ``after_seq``, then live ones, as ``types_pb2.Update`` messages
        (``text``, ``payload``, ``sender``/``sender_name``, ``references``
        with their kinds, ``platform``, ``target``).

        Iteration blocks until an update arrives and ends cleanly at
        ``close()`` or ``UpdateStream.cancel()``; it raises the
        :class:`ChatbusError` that ended the stream otherwise:
        :class:`Suspended` after suspend(), :class:`TakenOver` when another
        instance took the binding over (the session is then lost),
        :class:`Replaced` when a newer Subscribe or registration took over,
        :class:`FailedPrecondition` when pruned, :class:`Unavailable` when
        the supervisor stopped.
        """
        call = self._client.bus.Subscribe(
            bus_pb2.SubscribeRequest(session=self.session, after_seq=after_seq, max_batch=UPDATES_BATCH)
        )
        stream = UpdateStream(self, call)
        with self._lock:
            if self._closed:
                call.cancel()
                stream._cancelled = True
            else:
                self._streams.add(stream)
        return stream

    def ack(self, seq: int) -> int:
        """Acknowledges every update up to and including ``seq``; returns the
        binding's highest acknowledged seq."""
        resp = self._unary(
            self._client.bus.Ack, bus_pb2.AckRequest(session=self.session, seq=seq)
        )
        return resp.acked_through

    def call(
        self,
        method: str,
        params: Union[Dict[str, Any], str, bytes, None] = None,
        *,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """Calls a platform method in the follower's own thread, e.g.
        ``call("sendMessage", {"text": "hi"})``. The supervisor fills in the
        chat and thread. Returns the platform's result, decoded from JSON
        (None if empty); :meth:`do` also returns the references it made.

        The call is made at most once per idempotency key; without one it
        gets a fresh key (:func:`new_idempotency_key`). While the supervisor
        is unavailable, it is tried again with the same key until
        ``timeout`` (seconds, default the client's) has passed. Its error
        carries the key (``err.idempotency_key``): a repeat with that key
        returns the first call's outcome, which is how to learn the outcome
        of a call whose deadline passed (:class:`DeadlineExceeded`)."""
        return self.do(method, params, idempotency_key=idempotency_key, timeout=timeout).result

    def do(
        self,
        method: str,
        params: Union[Dict[str, Any], str, bytes, None] = None,
        *,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> CallResult:
        """:meth:`call`, returning a :class:`CallResult`: the result, the
        references it made available (the message sent, its files), and the
        idempotency key."""
        key = idempotency_key or new_idempotency_key()
        raw = _params_json(params)
        resp = self._retried(key, timeout, self._client.bus.Call, lambda session: bus_pb2.CallRequest(
            session=session, method=method, params_json=raw, idempotency_key=key))
        return _call_result(resp, key)

    def send(
        self,
        text: str,
        *,
        reply_to: str = "",
        buttons: Optional[Sequence[ButtonLike]] = None,
        prompt: bool = False,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> List[str]:
        """Posts ``text`` (Markdown) in the follower's thread and returns the
        ids of the messages sent, in order: the provider renders it for its
        platform and splits what is longer than one message may be.
        ``reply_to`` is a message of the thread to answer; ``buttons`` (at
        most 8) go under the message; ``prompt`` marks a question the
        person must answer (sent ahead of other messages). Made at most
        once per idempotency key, like :meth:`call`."""
        key = idempotency_key or new_idempotency_key()
        bs = _buttons(buttons)
        resp = self._retried(key, timeout, self._client.bus.SendMessage, lambda session: bus_pb2.SendMessageRequest(
            session=session, text=text, reply_to=reply_to, buttons=bs, prompt=prompt, idempotency_key=key))
        return list(resp.message_ids)

    def edit(
        self,
        message_id: str,
        text: str,
        *,
        buttons: Optional[Sequence[ButtonLike]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> None:
        """Replaces the text (Markdown; it must fit in one message) of a
        message the follower sent, and its buttons (none removes them)."""
        key = idempotency_key or new_idempotency_key()
        bs = _buttons(buttons)
        self._retried(key, timeout, self._client.bus.EditMessage, lambda session: bus_pb2.EditMessageRequest(
            session=session, message_id=message_id, text=text, buttons=bs, idempotency_key=key))

    def react(self, message_id: str, emoji: str, *, idempotency_key: Optional[str] = None,
              timeout: Optional[float] = None) -> None:
        """Sets the follower's reaction (one emoji) on a message of its thread."""
        key = idempotency_key or new_idempotency_key()
        self._retried(key, timeout, self._client.bus.React, lambda session: bus_pb2.ReactRequest(
            session=session, message_id=message_id, emoji=emoji, idempotency_key=key))

    def typing(self, *, timeout: Optional[float] = None) -> None:
        """Shows in the thread, for a few seconds, that the session works
        (where the platform has a typing indicator)."""
        self._retried("", timeout, self._client.bus.SendTyping,
                      lambda session: bus_pb2.SendTypingRequest(session=session))

    def answer(self, interaction_id: str, text: str = "", *, idempotency_key: Optional[str] = None,
               timeout: Optional[float] = None) -> None:
        """Acknowledges a button press (the update's interaction reference),
        with a short notice for the person who pressed (``""``: none)."""
        key = idempotency_key or new_idempotency_key()
        self._retried(key, timeout, self._client.bus.AnswerInteraction, lambda session: bus_pb2.AnswerInteractionRequest(
            session=session, interaction_id=interaction_id, text=text, idempotency_key=key))

    def _retried(self, key: str, timeout: Optional[float], rpc: Callable[..., Any],
                 request: Callable[[bus_pb2.Session], Any]) -> Any:
        """Makes ``rpc(request(session))``: tried again with the same key
        while the supervisor is unavailable until ``timeout`` (default the
        client's), and after registering again when the supervisor was
        replaced. Its error names the key."""
        deadline = time.monotonic() + (self._client.timeout if timeout is None else timeout)
        wait = _RETRY_FIRST
        while True:
            session = self._current_session()
            try:
                return rpc(request(session), timeout=max(deadline - time.monotonic(), 0.001))
            except grpc.RpcError as e:
                err = from_rpc_error(e)
                if isinstance(err, SessionUnknown):
                    try:
                        if self._renew(session):
                            continue
                    except Unavailable as again:  # the new supervisor cannot register it yet
                        err = again
                err.idempotency_key = key
                pause = _retry_wait(err, wait, deadline - time.monotonic())
                if pause is None or self._stop.wait(pause):  # not to be retried, or closed or lost meanwhile
                    raise err from e
                wait = min(2 * wait, _RETRY_MAX)

    def upload_file(
        self,
        data: Union[bytes, str, "os.PathLike[str]", BinaryIO],
        filename: Optional[str] = None,
        *,
        caption: str = "",
        kind: str = "document",
        timeout: Optional[float] = FILE_TIMEOUT,
    ) -> Any:
        """Sends a file into the follower's own thread (Telegram:
        sendDocument, or sendPhoto with ``kind="photo"``) and returns the
        platform's result (the message sent), decoded from JSON.

        ``data`` is the content (bytes), a path, or a binary file object
        read to its end; ``filename`` defaults to the path's base name. The
        content is streamed in chunks of 256 KiB, never held whole here."""
        if isinstance(data, (str, os.PathLike)):
            if filename is None:
                filename = os.path.basename(os.fspath(data))
            with open(data, "rb") as f:
                return self.upload_file(f, filename, caption=caption, kind=kind, timeout=timeout)
        if not filename:
            raise ValueError("upload_file: filename is required unless data is a path")

        source = data

        def requests() -> Iterator[bus_pb2.UploadFileRequest]:
            yield bus_pb2.UploadFileRequest(header=bus_pb2.UploadHeader(
                session=self.session, filename=filename, caption=caption, kind=kind))
            if isinstance(source, (bytes, bytearray, memoryview)):
                view = memoryview(source)
                for i in range(0, len(view), _CHUNK):
                    yield bus_pb2.UploadFileRequest(chunk=bytes(view[i:i + _CHUNK]))
                return
            while True:
                chunk = source.read(_CHUNK)
                if not chunk:
                    return
                yield bus_pb2.UploadFileRequest(chunk=chunk)

        try:
            resp = self._client.bus.UploadFile(requests(), timeout=timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e
        return json.loads(resp.result_json) if resp.result_json else None

    def download_file(
        self,
        file_id: str,
        out: Optional[BinaryIO] = None,
        *,
        timeout: Optional[float] = FILE_TIMEOUT,
    ) -> Union[bytes, int]:
        """Fetches a file that arrived in the follower's own thread, by the
        platform's file id (Telegram: ``message.document.file_id``). Returns
        the content, or, with ``out`` (a binary file object), writes it
        there as it arrives and returns the number of bytes written. A file
        id from another thread is refused (:class:`PermissionDenied`)."""
        call = self._client.bus.DownloadFile(
            bus_pb2.DownloadFileRequest(session=self.session, file_id=file_id), timeout=timeout)
        parts: List[bytes] = []
        written = 0
        try:
            for resp in call:
                if out is None:
                    parts.append(resp.chunk)
                else:
                    out.write(resp.chunk)
                written += len(resp.chunk)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e
        return b"".join(parts) if out is None else written

    def suspend(self, reason: "bus_pb2.SuspendReason" = bus_pb2.SUSPEND_REASON_SESSION_REPLACEMENT) -> bus_pb2.SuspendResponse:
        """Holds the binding for a successor (session handoff) and returns
        the ``handoff_token`` (and its ``expires_at``) for the successor's
        ``register(handoff_token=...)``. An open update iteration ends
        with :class:`Suspended`, and nothing more is delivered to this
        session; it may still ack what it was sent. The heartbeat goes on
        until close(), and the follower no longer registers again by
        itself."""
        resp: bus_pb2.SuspendResponse = self._unary(
            self._client.bus.Suspend, bus_pb2.SuspendRequest(session=self.session, reason=reason)
        )
        with self._lock:
            self._suspended = True
        return resp

    def close(self) -> None:
        """Stops the heartbeat and unregisters (the supervisor keeps the
        binding for a later REUSE). Open update streams end cleanly.
        Idempotent; a session already lost is not an error here."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            lost = self._error is not None
        self._stop.set()
        self._wake.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=self._client.timeout)
        try:
            if not lost:
                self._client.bus.Unregister(
                    bus_pb2.UnregisterRequest(session=self.session), timeout=self._client.timeout
                )
        except grpc.RpcError as e:
            err = from_rpc_error(e)
            if not isinstance(err, (NotFound, Unavailable)):
                raise err from e
        finally:
            with self._lock:
                streams = list(self._streams)
            for s in streams:
                s.cancel()

    # --- internals ---

    def _current_session(self) -> bus_pb2.Session:
        with self._lock:
            return self.session

    def _unary(self, method: Callable[..., Any], request: Any) -> Any:
        try:
            return method(request, timeout=self._client.timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e

    def _renew(self, stale: bus_pb2.Session) -> bool:
        """Registers again when the supervisor that answered "session
        unknown" to stale is not the one this session registered with (it
        restarted): same instance id and profile key, so the same thread.
        True if the follower has a new session to go on with (from here or
        from a concurrent renewal). Never for a follower that is closed,
        lost or suspended, nor when the supervisor is the same one (then the
        session was pruned, replaced or taken over and really is gone).
        Raises :class:`Unavailable` when the supervisor cannot answer yet
        (the caller tries again later)."""
        with self._renew_lock:
            with self._lock:
                if self.session.token != stale.token:
                    return True
                if self._closed or self._error is not None or self._suspended:
                    return False
                known, req, resp = self._supervisor, self._request, self.response
            if known is None or req is None:
                return False
            try:
                now = _supervisor_identity(self._client.admin.GetInfo(
                    admin_pb2.GetInfoRequest(), timeout=self._client.timeout))
                if now == known:
                    return False
                again = self._client.bus.Register(_renew_request(req, resp), timeout=self._client.timeout)
            except grpc.RpcError as e:
                err = from_rpc_error(e)
                if isinstance(err, Unavailable):
                    raise err from e
                log.warning("chatbus: registering %s again with the restarted supervisor: %s",
                            self.instance_id, err)
                return False
            with self._lock:
                gone = self._closed or self._error is not None
                if not gone:
                    self.response, self.session, self._supervisor = again, again.session, now
            if gone:  # closed meanwhile: do not leave the new registration behind
                try:
                    self._client.bus.Unregister(bus_pb2.UnregisterRequest(session=again.session),
                                                timeout=self._client.timeout)
                except grpc.RpcError:
                    pass
                return False
            log.warning("chatbus: the supervisor restarted (pid %d, now %d): %s registered again (%s)",
                        known[0], now[0], self.instance_id, types_pb2.Origin.Name(again.origin))
            return True

    def _heartbeat_loop(self) -> None:
        stale_after = self.stale_after
        if stale_after < self.heartbeat_interval:
            stale_after = _DEFAULT_STALE_INTERVALS * self.heartbeat_interval
        last_ok = time.monotonic()
        failures = 0
        while True:
            with self._lock:
                streaming = bool(self._streams)
            self._wake.wait(self.subscribed_heartbeat_interval if streaming else self.heartbeat_interval)
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._lock:
                if self._streams:
                    # The open stream was the liveness until now.
                    last_ok = time.monotonic()
            session = self._current_session()
            try:
                resp = self._client.bus.Heartbeat(bus_pb2.HeartbeatRequest(session=session),
                                                  timeout=max(self.heartbeat_interval, 1.0))
            except grpc.RpcError as e:
                if self._stop.is_set():
                    return
                err = from_rpc_error(e)
                failures += 1
                silent = time.monotonic() - last_ok
                timed_out = e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                # A heartbeat names nothing but the session: NOT_FOUND is
                # "session unknown" whatever the reason says.
                try:
                    if isinstance(err, NotFound) and self._renew(session):
                        failures, last_ok = 0, time.monotonic()
                        continue
                except Unavailable as again:  # the new supervisor cannot register it yet
                    err = again
                if isinstance(err, (NotFound, PermissionDenied, Unauthenticated)) or (
                    not timed_out and silent >= stale_after
                ):
                    self._lost(err)
                    return
                if failures == 1 or failures % 10 == 0:  # a long outage does not flood
                    log.warning("chatbus: heartbeat failed (%d in a row): %s", failures, err)
                continue
            failures = 0
            last_ok = time.monotonic()
            if bus_pb2.NOTICE_THREAD_REPLACED in resp.notices and resp.HasField("binding"):
                self._set_binding(resp.binding)
            if self._on_notice is not None:
                for notice in resp.notices:
                    try:
                        self._on_notice(notice)
                    except Exception:  # a callback bug must not stop the heartbeat
                        log.exception("chatbus: on_notice callback failed")

    def _lost(self, err: ChatbusError) -> None:
        with self._lock:
            if self._error is not None:
                # A stream that says why (taken over, replaced) explains
                # the heartbeat's "session unknown".
                if isinstance(err, Replaced) and isinstance(self._error, NotFound):
                    self._error = err
                return
            self._error = err
            streams = list(self._streams)
            closed = self._closed
        if not closed:
            log.warning("chatbus: session %s lost: %s", self.instance_id, err)
        self._stop.set()
        self._wake.set()
        for s in streams:
            s._abort()

    def _forget(self, stream: "UpdateStream") -> None:
        with self._lock:
            was = stream in self._streams
            self._streams.discard(stream)
        if was:
            self._wake.set()


class UpdateStream:
    """An open Subscribe stream: iterate it for ``types_pb2.Update`` messages.

    ``cancel()`` (from any thread) or leaving a ``with`` block ends it; the
    iteration then simply stops.
    """

    def __init__(self, follower: Follower, call: Any):
        self._follower = follower
        self._call = call
        self._cancelled = False
        self._pending: "collections.deque[types_pb2.Update]" = collections.deque()

    def __iter__(self) -> Iterator[types_pb2.Update]:
        return self

    def __next__(self) -> types_pb2.Update:
        if self._pending:
            return self._pending.popleft()
        try:
            while True:
                resp = next(self._call)
                if resp.HasField("binding_changed"):
                    self._follower._set_binding(resp.binding_changed)
                if resp.HasField("update"):
                    self._pending.append(resp.update)
                self._pending.extend(resp.updates)
                if self._pending:
                    return self._pending.popleft()
        except StopIteration:
            self._follower._forget(self)
            raise
        except grpc.RpcError as e:
            self._follower._forget(self)
            if self._cancelled:
                raise StopIteration from None
            lost = self._follower.error
            if lost is not None and e.code() == grpc.StatusCode.CANCELLED:
                raise lost from e
            err = from_rpc_error(e)
            if _ends_session(err):
                self._follower._lost(err)
            raise err from e

    def __enter__(self) -> "UpdateStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()

    def cancel(self) -> None:
        """Ends the stream; a blocked iteration stops cleanly."""
        self._cancelled = True
        self._call.cancel()
        self._follower._forget(self)

    def _abort(self) -> None:
        # The session was lost: iteration raises the follower's error.
        self._call.cancel()
