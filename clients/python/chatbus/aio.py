"""asyncio follower client of a chatbus supervisor (``grpc.aio``).

The same names and behaviour as :mod:`chatbus.client`, with coroutines::

    import chatbus.aio

    async with chatbus.aio.connect() as client:             # default profile's paths
        async with await client.register("manual:1234") as follower:
            async for update in follower.updates():         # ends at close()
                await follower.send(f"**echo:** {update.text}")
                await follower.ack(update.seq)

The heartbeat is a task on the running event loop: create and use a Client
on one loop. ``close()`` ends a pending iteration cleanly, and a lost
session (pruned, replaced, supervisor gone) makes it raise, as in the
synchronous client. Calls and the message verbs (send, edit, react,
typing, answer) carry an idempotency key and are tried again with it
while the supervisor is unavailable, as there.
"""

from __future__ import annotations

import asyncio
import collections
import datetime
import json
import logging
import os
import time
from typing import (
    Any, AsyncIterator, Awaitable, BinaryIO, Callable, Dict, List, Optional, Sequence, Set, Tuple,
    TypeVar, Union,
)

import grpc
import grpc.aio

from chatbus import paths as _paths
from chatbus.client import (
    _CHUNK,
    _DEFAULT_STALE_INTERVALS,
    UPDATES_BATCH,
    _RETRY_FIRST,
    _RETRY_MAX,
    _buttons,
    _call_result,
    _channel_options,
    _default,
    _ends_session,
    _params_json,
    _register_request,
    _renew_request,
    _retry_wait,
    _supervisor_identity,
    DEFAULT_TIMEOUT,
    FILE_TIMEOUT,
    Button,
    ButtonLike,
    CallResult,
    _probe,
    _read_secret,
    default_instance_id,
    new_idempotency_key,
)
from chatbus.errors import (
    ChatbusError,
    NotFound,
    PermissionDenied,
    Replaced,
    SessionUnknown,
    Unauthenticated,
    Unavailable,
    from_rpc_error,
)
from chatbus.v1 import admin_pb2, admin_pb2_grpc, bus_pb2, bus_pb2_grpc, doctor_pb2, doctor_pb2_grpc, types_pb2

__all__ = ["Button", "CallResult", "Client", "Follower", "UpdateStream", "connect", "default_instance_id",
           "new_idempotency_key", "DEFAULT_TIMEOUT"]

log = logging.getLogger("chatbus")

T = TypeVar("T")
Metadata = Sequence[Tuple[str, str]]


def _with_auth(details: grpc.aio.ClientCallDetails, header: Tuple[str, str]) -> grpc.aio.ClientCallDetails:
    md = grpc.aio.Metadata(*(tuple(details.metadata or ()) + (header,)))
    return grpc.aio.ClientCallDetails(details.method, details.timeout, md,
                                      details.credentials, details.wait_for_ready)


class _BearerUnaryUnary(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, header: Tuple[str, str]):
        self._header = header

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_auth(details, self._header), request)


class _BearerUnaryStream(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, header: Tuple[str, str]):
        self._header = header

    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_auth(details, self._header), request)


class _BearerStreamUnary(grpc.aio.StreamUnaryClientInterceptor):
    def __init__(self, header: Tuple[str, str]):
        self._header = header

    async def intercept_stream_unary(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return await continuation(_with_auth(details, self._header), request_iterator)


class _BearerStreamStream(grpc.aio.StreamStreamClientInterceptor):
    def __init__(self, header: Tuple[str, str]):
        self._header = header

    async def intercept_stream_stream(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return await continuation(_with_auth(details, self._header), request_iterator)


async def _rpc(call: Awaitable[T]) -> T:
    """Awaits one RPC, raising the matching ChatbusError."""
    try:
        return await call
    except grpc.RpcError as e:
        raise from_rpc_error(e) from e


class Client:
    """A connection to one supervisor. Use it with ``async with`` or close it.

    The arguments are those of :class:`chatbus.Client`. ``bus``, ``admin``
    and ``doctor`` are the generated ``grpc.aio`` stubs, already
    authenticated.
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
        header = ("authorization", "Bearer " + secret)
        self._channel = grpc.aio.insecure_channel(target, options=_channel_options(options), interceptors=[
            _BearerUnaryUnary(header), _BearerUnaryStream(header),
            _BearerStreamUnary(header), _BearerStreamStream(header),
        ])
        self.bus = bus_pb2_grpc.BusServiceStub(self._channel)
        self.admin = admin_pb2_grpc.AdminServiceStub(self._channel)
        self.doctor = doctor_pb2_grpc.DoctorServiceStub(self._channel)

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the channel; open streams end with CANCELLED."""
        await self._channel.close()

    async def register(
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
        """Registers a follower and starts its heartbeat task; see
        :meth:`chatbus.Client.register`. ``on_notice`` runs on the loop."""
        req = _register_request(profile_key, cwd, thread_name, instance_id, pid, provider,
                                previous_target, handoff_token)
        resp: bus_pb2.RegisterResponse = await _rpc(self.bus.Register(req, timeout=self.timeout))
        return Follower(self, resp, on_notice, request=req, supervisor=await self._identity())

    async def _identity(self) -> Optional[Tuple[int, int, int]]:
        """The supervisor's identity (pid, start), None if it does not say."""
        try:
            return _supervisor_identity(await self.admin.GetInfo(admin_pb2.GetInfoRequest(), timeout=self.timeout))
        except grpc.RpcError:
            return None

    async def get_info(self) -> admin_pb2.GetInfoResponse:
        """AdminService.GetInfo: version, pid, profile, paths, follower count."""
        resp: admin_pb2.GetInfoResponse = await _rpc(
            self.admin.GetInfo(admin_pb2.GetInfoRequest(), timeout=self.timeout))
        return resp

    async def list_followers(self) -> List[types_pb2.Follower]:
        """AdminService.ListFollowers: the registered followers."""
        resp: admin_pb2.ListFollowersResponse = await _rpc(
            self.admin.ListFollowers(admin_pb2.ListFollowersRequest(), timeout=self.timeout))
        return list(resp.followers)

    async def doctor_status(self, provider: str = "") -> List[doctor_pb2.Owner]:
        """DoctorService.Status; see :meth:`chatbus.Client.doctor_status`."""
        resp: doctor_pb2.StatusResponse = await _rpc(
            self.doctor.Status(doctor_pb2.StatusRequest(provider=provider), timeout=self.timeout))
        return list(resp.owners)

    async def doctor_restart(
        self,
        provider: str,
        *,
        drain: Optional[float] = None,
        deadline: Optional[float] = None,
        on_progress: Optional[Callable[[doctor_pb2.RestartProgress], None]] = None,
    ) -> doctor_pb2.RestartOutcome:
        """DoctorService.Restart; see :meth:`chatbus.Client.doctor_restart`."""
        req = doctor_pb2.RestartRequest(provider=provider)
        if drain is not None:
            req.drain.FromTimedelta(datetime.timedelta(seconds=drain))
        if deadline is not None:
            req.deadline.FromTimedelta(datetime.timedelta(seconds=deadline))
        outcome: Optional[doctor_pb2.RestartOutcome] = None
        try:
            async for resp in self.doctor.Restart(req, timeout=(deadline or 60.0) + self.timeout):
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
    """Connects to a supervisor: ``Client(socket, **kwargs)``. Probing the
    socket and reading the secret are local and quick, so this is not a
    coroutine; the channel connects on the first call."""
    return Client(socket, **kwargs)


class Follower:
    """A registered session with a heartbeat task. Close it (``await``).

    ``response`` is the supervisor's RegisterResponse, as in
    :class:`chatbus.Follower`.
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
        self._renew_lock = asyncio.Lock()  # one re-registration at a time
        self._streams: Set[UpdateStream] = set()
        self._error: Optional[ChatbusError] = None
        self._closed = False
        self._suspended = False
        self._stop = asyncio.Event()
        # Set when an update stream ends (or the follower stops): the
        # heartbeat goes at once, and at the short interval again.
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(
            self._heartbeat_loop(), name=f"chatbus-heartbeat-{self.session.instance_id}")

    async def __aenter__(self) -> "Follower":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def instance_id(self) -> str:
        return str(self.session.instance_id)

    @property
    def origin(self) -> int:
        """A ``types_pb2.Origin`` value: FRESH, REUSE, HANDOFF or DETACHED."""
        return int(self.response.origin)

    @property
    def binding(self) -> Optional[types_pb2.Binding]:
        """The thread this follower is bound to; None while detached. When a
        person deletes the thread, the supervisor gives the binding a new
        one and says so (a heartbeat's NOTICE_THREAD_REPLACED, the update
        stream's binding_changed): this is the new one from then on."""
        return self.response.binding if self.response.HasField("binding") else None

    def _set_binding(self, binding: types_pb2.Binding) -> None:
        # The registration's binding as it is now (its thread was replaced).
        self.response.binding.CopyFrom(binding)

    @property
    def target(self) -> Optional[types_pb2.Target]:
        """The binding's thread; None while detached. See :attr:`chatbus.Follower.target`."""
        b = self.binding
        return b.target if b is not None and b.HasField("target") else None

    @property
    def capabilities(self) -> Optional[bus_pb2.Capabilities]:
        """What the binding's platform offers; None while detached. See
        :attr:`chatbus.Follower.capabilities`."""
        return self.response.capabilities if self.response.HasField("capabilities") else None

    @property
    def error(self) -> Optional[ChatbusError]:
        """Why the session was lost; None while alive and after a clean close()."""
        return self._error

    @property
    def suspended(self) -> bool:
        """True once suspend() returned: the binding waits for a successor."""
        return self._suspended

    @property
    def alive(self) -> bool:
        """True until close() or until the heartbeat finds the session lost."""
        return not self._stop.is_set()

    async def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits until the session is closed or lost; True if it is."""
        try:
            await asyncio.wait_for(self._stop.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True

    # --- calls ---

    async def heartbeat(self) -> bus_pb2.HeartbeatResponse:
        """One heartbeat now. The heartbeat task already sends them."""
        resp: bus_pb2.HeartbeatResponse = await _rpc(self._client.bus.Heartbeat(
            bus_pb2.HeartbeatRequest(session=self.session), timeout=self._client.timeout))
        return resp

    def updates(self, after_seq: int = 0) -> "UpdateStream":
        """Opens the update stream (iterate it with ``async for``); see
        :meth:`chatbus.Follower.updates`."""
        call = self._client.bus.Subscribe(
            bus_pb2.SubscribeRequest(session=self.session, after_seq=after_seq, max_batch=UPDATES_BATCH)
        )
        stream = UpdateStream(self, call)
        if self._closed:
            call.cancel()
            stream._cancelled = True
        else:
            self._streams.add(stream)
        return stream

    async def ack(self, seq: int) -> int:
        """Acknowledges every update up to and including ``seq``; returns the
        binding's highest acknowledged seq."""
        resp: bus_pb2.AckResponse = await _rpc(self._client.bus.Ack(
            bus_pb2.AckRequest(session=self.session, seq=seq), timeout=self._client.timeout))
        return int(resp.acked_through)

    async def call(
        self,
        method: str,
        params: Union[Dict[str, Any], str, bytes, None] = None,
        *,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """Calls a platform method in the follower's own thread, at most once
        per idempotency key, tried again with it while the supervisor is
        unavailable; see :meth:`chatbus.Follower.call`."""
        return (await self.do(method, params, idempotency_key=idempotency_key, timeout=timeout)).result

    async def do(
        self,
        method: str,
        params: Union[Dict[str, Any], str, bytes, None] = None,
        *,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> CallResult:
        """:meth:`call`, returning a :class:`chatbus.CallResult` (result,
        references, idempotency key); see :meth:`chatbus.Follower.do`."""
        key = idempotency_key or new_idempotency_key()
        raw = _params_json(params)
        resp = await self._retried(key, timeout, self._client.bus.Call, lambda session: bus_pb2.CallRequest(
            session=session, method=method, params_json=raw, idempotency_key=key))
        return _call_result(resp, key)

    async def send(
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
        ids of the messages sent; see :meth:`chatbus.Follower.send`."""
        key = idempotency_key or new_idempotency_key()
        bs = _buttons(buttons)
        resp = await self._retried(key, timeout, self._client.bus.SendMessage, lambda session: bus_pb2.SendMessageRequest(
            session=session, text=text, reply_to=reply_to, buttons=bs, prompt=prompt, idempotency_key=key))
        return list(resp.message_ids)

    async def edit(
        self,
        message_id: str,
        text: str,
        *,
        buttons: Optional[Sequence[ButtonLike]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> None:
        """Replaces the text and buttons of a message the follower sent; see
        :meth:`chatbus.Follower.edit`."""
        key = idempotency_key or new_idempotency_key()
        bs = _buttons(buttons)
        await self._retried(key, timeout, self._client.bus.EditMessage, lambda session: bus_pb2.EditMessageRequest(
            session=session, message_id=message_id, text=text, buttons=bs, idempotency_key=key))

    async def react(self, message_id: str, emoji: str, *, idempotency_key: Optional[str] = None,
                    timeout: Optional[float] = None) -> None:
        """Sets the follower's reaction on a message of its thread."""
        key = idempotency_key or new_idempotency_key()
        await self._retried(key, timeout, self._client.bus.React, lambda session: bus_pb2.ReactRequest(
            session=session, message_id=message_id, emoji=emoji, idempotency_key=key))

    async def typing(self, *, timeout: Optional[float] = None) -> None:
        """Shows in the thread, for a few seconds, that the session works."""
        await self._retried("", timeout, self._client.bus.SendTyping,
                            lambda session: bus_pb2.SendTypingRequest(session=session))

    async def answer(self, interaction_id: str, text: str = "", *, idempotency_key: Optional[str] = None,
                     timeout: Optional[float] = None) -> None:
        """Acknowledges a button press; see :meth:`chatbus.Follower.answer`."""
        key = idempotency_key or new_idempotency_key()
        await self._retried(key, timeout, self._client.bus.AnswerInteraction, lambda session: bus_pb2.AnswerInteractionRequest(
            session=session, interaction_id=interaction_id, text=text, idempotency_key=key))

    async def _retried(self, key: str, timeout: Optional[float], rpc: Callable[..., Any],
                       request: Callable[[bus_pb2.Session], Any]) -> Any:
        """Makes ``rpc(request(session))``, tried again as
        :meth:`chatbus.Follower.call` is; its error names the key."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self._client.timeout if timeout is None else timeout)
        wait = _RETRY_FIRST
        while True:
            session = self.session
            try:
                return await rpc(request(session), timeout=max(deadline - loop.time(), 0.001))
            except grpc.RpcError as e:
                err = from_rpc_error(e)
                if isinstance(err, SessionUnknown):
                    try:
                        if await self._renew(session):
                            continue
                    except Unavailable as again:  # the new supervisor cannot register it yet
                        err = again
                err.idempotency_key = key
                pause = _retry_wait(err, wait, deadline - loop.time())
                if pause is None or await self._stopped_within(pause):  # not to be retried, or closed or lost meanwhile
                    raise err from e
                wait = min(2 * wait, _RETRY_MAX)

    async def upload_file(
        self,
        data: Union[bytes, str, "os.PathLike[str]", BinaryIO],
        filename: Optional[str] = None,
        *,
        caption: str = "",
        kind: str = "document",
        timeout: Optional[float] = FILE_TIMEOUT,
    ) -> Any:
        """Sends a file into the follower's own thread; see
        :meth:`chatbus.Follower.upload_file`. A path or file object is read
        in 256 KiB chunks in a worker thread, so the loop keeps running."""
        if isinstance(data, (str, os.PathLike)):
            if filename is None:
                filename = os.path.basename(os.fspath(data))
            with open(data, "rb") as f:
                return await self.upload_file(f, filename, caption=caption, kind=kind, timeout=timeout)
        if not filename:
            raise ValueError("upload_file: filename is required unless data is a path")
        header = bus_pb2.UploadFileRequest(header=bus_pb2.UploadHeader(
            session=self.session, filename=filename, caption=caption, kind=kind))
        source = data

        async def requests() -> AsyncIterator[bus_pb2.UploadFileRequest]:
            yield header
            if isinstance(source, (bytes, bytearray, memoryview)):
                view = memoryview(source)
                for i in range(0, len(view), _CHUNK):
                    yield bus_pb2.UploadFileRequest(chunk=bytes(view[i:i + _CHUNK]))
                return
            while True:
                chunk = await asyncio.to_thread(source.read, _CHUNK)
                if not chunk:
                    return
                yield bus_pb2.UploadFileRequest(chunk=chunk)

        resp: bus_pb2.UploadFileResponse = await _rpc(self._client.bus.UploadFile(requests(), timeout=timeout))
        return json.loads(resp.result_json) if resp.result_json else None

    async def download_file(
        self,
        file_id: str,
        out: Optional[BinaryIO] = None,
        *,
        timeout: Optional[float] = FILE_TIMEOUT,
    ) -> Union[bytes, int]:
        """Fetches a file of the follower's own thread; see
        :meth:`chatbus.Follower.download_file`."""
        call = self._client.bus.DownloadFile(
            bus_pb2.DownloadFileRequest(session=self.session, file_id=file_id), timeout=timeout)
        parts: List[bytes] = []
        written = 0
        try:
            async for resp in call:
                if out is None:
                    parts.append(resp.chunk)
                else:
                    out.write(resp.chunk)
                written += len(resp.chunk)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from e
        return b"".join(parts) if out is None else written

    async def suspend(self, reason: "bus_pb2.SuspendReason" = bus_pb2.SUSPEND_REASON_SESSION_REPLACEMENT) -> bus_pb2.SuspendResponse:
        """Holds the binding for a successor and returns the handoff token;
        an open update iteration ends with :class:`chatbus.Suspended`. See
        :meth:`chatbus.Follower.suspend`."""
        resp: bus_pb2.SuspendResponse = await _rpc(self._client.bus.Suspend(
            bus_pb2.SuspendRequest(session=self.session, reason=reason), timeout=self._client.timeout))
        self._suspended = True
        return resp

    async def close(self) -> None:
        """Stops the heartbeat and unregisters; open update streams end
        cleanly. Idempotent; a session already lost is not an error here."""
        if self._closed:
            return
        self._closed = True
        lost = self._error is not None
        self._stop.set()
        self._wake.set()
        if asyncio.current_task() is not self._task:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        try:
            if not lost:
                await self._client.bus.Unregister(
                    bus_pb2.UnregisterRequest(session=self.session), timeout=self._client.timeout)
        except grpc.RpcError as e:
            err = from_rpc_error(e)
            if not isinstance(err, (NotFound, Unavailable)):
                raise err from e
        finally:
            for s in list(self._streams):
                s.cancel()

    # --- internals ---

    async def _renew(self, stale: bus_pb2.Session) -> bool:
        """Registers again with a restarted supervisor; see
        :meth:`chatbus.Follower._renew`."""
        async with self._renew_lock:
            if self.session.token != stale.token:
                return True
            if self._closed or self._error is not None or self._suspended:
                return False
            known, req = self._supervisor, self._request
            if known is None or req is None:
                return False
            try:
                now = _supervisor_identity(await self._client.admin.GetInfo(
                    admin_pb2.GetInfoRequest(), timeout=self._client.timeout))
                if now == known:
                    return False
                again: bus_pb2.RegisterResponse = await self._client.bus.Register(
                    _renew_request(req, self.response), timeout=self._client.timeout)
            except grpc.RpcError as e:
                err = from_rpc_error(e)
                if isinstance(err, Unavailable):
                    raise err from e
                log.warning("chatbus: registering %s again with the restarted supervisor: %s",
                            self.instance_id, err)
                return False
            if self._closed or self._error is not None:  # closed meanwhile: leave nothing behind
                try:
                    await self._client.bus.Unregister(bus_pb2.UnregisterRequest(session=again.session),
                                                      timeout=self._client.timeout)
                except grpc.RpcError:
                    pass
                return False
            self.response, self.session, self._supervisor = again, again.session, now
            log.warning("chatbus: the supervisor restarted (pid %d, now %d): %s registered again (%s)",
                        known[0], now[0], self.instance_id, types_pb2.Origin.Name(again.origin))
            return True

    async def _heartbeat_loop(self) -> None:
        stale_after = self.stale_after
        if stale_after < self.heartbeat_interval:
            stale_after = _DEFAULT_STALE_INTERVALS * self.heartbeat_interval
        last_ok = time.monotonic()
        failures = 0
        while True:
            interval = self.subscribed_heartbeat_interval if self._streams else self.heartbeat_interval
            try:
                await asyncio.wait_for(self._wake.wait(), interval)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            if self._stop.is_set():
                return
            if self._streams:
                last_ok = time.monotonic()  # the open stream was the liveness until now
            session = self.session
            try:
                resp = await self._client.bus.Heartbeat(bus_pb2.HeartbeatRequest(session=session),
                                                        timeout=max(self.heartbeat_interval, 1.0))
            except grpc.RpcError as e:
                if self._stop.is_set():
                    return
                err = from_rpc_error(e)
                failures += 1
                silent = time.monotonic() - last_ok
                timed_out = e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                # NOT_FOUND to a heartbeat is "session unknown" whatever the reason.
                try:
                    if isinstance(err, NotFound) and await self._renew(session):
                        failures, last_ok = 0, time.monotonic()
                        continue
                except Unavailable as again:  # the new supervisor cannot register it yet
                    err = again
                if isinstance(err, (NotFound, PermissionDenied, Unauthenticated)) or (
                    not timed_out and silent >= stale_after
                ):
                    self._lost(err)
                    return
                if failures == 1 or failures % 10 == 0:
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

    async def _stopped_within(self, seconds: float) -> bool:
        try:
            await asyncio.wait_for(self._stop.wait(), seconds)
        except asyncio.TimeoutError:
            return False
        return True

    def _lost(self, err: ChatbusError) -> None:
        if self._error is not None:
            # A stream that says why (taken over, replaced) explains the
            # heartbeat's "session unknown".
            if isinstance(err, Replaced) and isinstance(self._error, NotFound):
                self._error = err
            return
        if not self._closed:
            log.warning("chatbus: session %s lost: %s", self.instance_id, err)
        self._error = err
        self._stop.set()
        self._wake.set()
        for s in list(self._streams):
            s._abort()

    def _forget(self, stream: "UpdateStream") -> None:
        if stream in self._streams:
            self._streams.discard(stream)
            self._wake.set()


class UpdateStream:
    """An open Subscribe stream: ``async for`` it for ``types_pb2.Update``
    messages. ``cancel()`` or leaving an ``async with`` block ends it; the
    iteration then simply stops."""

    def __init__(self, follower: Follower, call: Any):
        self._follower = follower
        self._call = call
        self._cancelled = False
        self._aborted = False
        self._pending: "collections.deque[types_pb2.Update]" = collections.deque()

    def __aiter__(self) -> "UpdateStream":
        return self

    async def __anext__(self) -> types_pb2.Update:
        if self._pending:
            return self._pending.popleft()
        try:
            resp = await self._call.read()
        except asyncio.CancelledError:
            # The call was cancelled (cancel(), close() or a lost session);
            # a cancellation of the awaiting task itself propagates.
            self._follower._forget(self)
            if self._cancelled:
                raise StopAsyncIteration from None
            if self._aborted and self._follower.error is not None:
                raise self._follower.error from None
            raise
        except grpc.RpcError as e:
            self._follower._forget(self)
            if self._cancelled:
                raise StopAsyncIteration from None
            lost = self._follower.error
            if lost is not None and e.code() == grpc.StatusCode.CANCELLED:
                raise lost from e
            err = from_rpc_error(e)
            if _ends_session(err):
                self._follower._lost(err)
            raise err from e
        if resp is grpc.aio.EOF:
            self._follower._forget(self)
            raise StopAsyncIteration
        if resp.HasField("binding_changed"):
            self._follower._set_binding(resp.binding_changed)
        if resp.HasField("update"):
            self._pending.append(resp.update)
        self._pending.extend(resp.updates)
        if not self._pending:
            return await self.__anext__()  # a binding change alone: read on
        return self._pending.popleft()

    async def __aenter__(self) -> "UpdateStream":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cancel()

    def cancel(self) -> None:
        """Ends the stream; a pending iteration stops cleanly."""
        self._cancelled = True
        self._call.cancel()
        self._follower._forget(self)

    def _abort(self) -> None:
        # The session was lost: iteration raises the follower's error.
        self._aborted = True
        self._call.cancel()
