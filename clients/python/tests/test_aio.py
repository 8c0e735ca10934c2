"""chatbus.aio (the asyncio client) against a real supervisord.

AioFollowerTest: no provider, followers register ORIGIN_DETACHED (as in
test_follower.FollowerTest). AioRoutedTest: through provider-fake, the
whole loop: a fresh thread, an update delivered and acked, a reply sent,
files up and down, a doctor restart. AioUnreachableTest: a supervisor
that goes away ends the session after stale_after.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import sys
import tempfile
import time
import unittest
import uuid

import harness

try:
    import grpc

    import chatbus
    import chatbus.aio
    from chatbus.v1 import doctor_pb2, types_pb2
except ImportError as e:  # pragma: no cover - depends on the machine
    harness.unavailable(f"{sys.executable} cannot import grpc/protobuf ({e}); "
                        "install python3-grpcio python3-protobuf (Debian)")

HEARTBEAT = 0.2
STALE_AFTER = 2.0


def new_id() -> str:
    return "aio:" + uuid.uuid4().hex[:12]


async def eventually(cond, timeout: float = 5.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = await cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.05)


class AioFollowerTest(unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        cls.sup = harness.Supervisor([
            "--heartbeat-interval", f"{int(HEARTBEAT * 1000)}ms",
            "--stale-after", f"{int(STALE_AFTER)}s",
            "--subscribed-heartbeat-interval", "1500ms",
        ])

    @classmethod
    def tearDownClass(cls):
        cls.sup.stop()

    async def asyncSetUp(self):
        self.client = chatbus.aio.connect(self.sup.socket, secret_file=self.sup.secret_file)
        self.addAsyncCleanup(self.client.close)  # after the followers' (LIFO)

    async def register(self, **kwargs) -> chatbus.aio.Follower:
        kwargs.setdefault("instance_id", new_id())
        f = await self.client.register(kwargs.pop("profile_key", "manual:aio"), **kwargs)
        self.addAsyncCleanup(f.close)
        return f

    async def listed(self, instance_id):
        for f in await self.client.list_followers():
            if f.instance_id == instance_id:
                return f
        return None

    async def test_register_and_heartbeat_outlive_stale_after(self):
        f = await self.register(thread_name="aio-register")
        self.assertEqual(f.origin, types_pb2.ORIGIN_DETACHED)
        self.assertIsNone(f.binding)
        self.assertAlmostEqual(f.heartbeat_interval, HEARTBEAT)
        self.assertAlmostEqual(f.stale_after, STALE_AFTER)
        await asyncio.sleep(STALE_AFTER + 0.6)
        row = await self.listed(f.instance_id)
        self.assertIsNotNone(row, "pruned although the heartbeat task runs")
        self.assertLess(time.time() - row.last_heartbeat.ToDatetime().timestamp(), 1.0)
        self.assertTrue(f.alive)
        hb = await f.heartbeat()
        self.assertEqual(list(hb.notices), [])

    async def test_heartbeat_is_rare_while_streaming(self):
        f = await self.register()
        self.assertAlmostEqual(f.subscribed_heartbeat_interval, 1.5)
        stream = f.updates()
        pending = asyncio.create_task(stream.__anext__())
        deadline = time.monotonic() + 10
        while not ((await self.listed(f.instance_id)) or types_pb2.Follower()).subscribed:
            self.assertLess(time.monotonic(), deadline, "the stream never opened")
            await asyncio.sleep(0.05)
        seen = set()
        end = time.monotonic() + STALE_AFTER + 0.6
        while time.monotonic() < end:
            row = await self.listed(f.instance_id)
            self.assertIsNotNone(row, "pruned with its stream open")
            seen.add(row.last_heartbeat.ToNanoseconds())
            await asyncio.sleep(0.1)
        self.assertLessEqual(len(seen), 3, "heartbeating at the short interval with the stream open")
        stream.cancel()
        with self.assertRaises((StopAsyncIteration, asyncio.CancelledError, chatbus.ChatbusError)):
            await asyncio.wait_for(pending, 5)
        end = time.monotonic() + STALE_AFTER + 0.6
        while time.monotonic() < end:
            self.assertIsNotNone(await self.listed(f.instance_id), "pruned after its stream ended")
            await asyncio.sleep(0.1)
        self.assertTrue(f.alive)

    async def test_admin(self):
        f = await self.register(profile_key="manual:aio-admin", cwd="/somewhere")
        info = await self.client.get_info()
        self.assertEqual((info.socket_path, info.pid), (self.sup.socket, self.sup.proc.pid))
        row = await self.listed(f.instance_id)
        self.assertEqual((row.profile_key, row.cwd), ("manual:aio-admin", "/somewhere"))

    async def test_close_ends_a_pending_iteration(self):
        f = await self.register()
        got = []

        async def read():
            async for u in f.updates():
                got.append(u)

        reader = asyncio.create_task(read())
        await eventually(lambda: self._subscribed(f.instance_id), what="subscribed")
        self.assertFalse(reader.done())
        await f.close()
        await asyncio.wait_for(reader, 3)  # ends cleanly: no exception
        self.assertEqual(got, [])
        self.assertIsNone(await self.listed(f.instance_id))
        self.assertFalse(f.alive)
        self.assertIsNone(f.error)
        await f.close()  # idempotent

    async def _subscribed(self, iid):
        row = await self.listed(iid)
        return row is not None and row.subscribed

    async def test_cancel_is_clean_and_second_subscribe_supersedes(self):
        f = await self.register()
        first = f.updates()
        task = asyncio.create_task(first.__anext__())
        await eventually(lambda: self._subscribed(f.instance_id), what="subscribed")
        async with f.updates() as second:
            with self.assertRaises(chatbus.Replaced):
                await asyncio.wait_for(task, 3)
            pending = asyncio.create_task(second.__anext__())
            await asyncio.sleep(0.2)
            second.cancel()
            with self.assertRaises(StopAsyncIteration):
                await asyncio.wait_for(pending, 3)
        self.assertTrue(f.alive)

    async def test_refusals(self):
        f = await self.register()
        with self.assertRaises(chatbus.FailedPrecondition) as cm:
            await f.call("sendMessage", {"text": "hi"}, idempotency_key="k")
        self.assertEqual(cm.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        with self.assertRaises(chatbus.InvalidArgument):
            await f.ack(1)
        with self.assertRaises(chatbus.InvalidArgument):
            await self.client.register("", instance_id=new_id())
        async with chatbus.aio.connect(self.sup.socket, secret="not-the-secret") as bad:
            with self.assertRaises(chatbus.Unauthenticated):
                await bad.get_info()

    async def test_reregistering_ends_old_session(self):
        iid = new_id()
        old = await self.register(instance_id=iid)
        stream = old.updates()
        task = asyncio.create_task(stream.__anext__())
        await eventually(lambda: self._subscribed(iid), what="subscribed")
        new = await self.register(instance_id=iid)
        with self.assertRaises(chatbus.Replaced):
            await asyncio.wait_for(task, 3)
        self.assertTrue(await old.wait(3), "old follower still alive")
        # The stream said "replaced", or the heartbeat found the token dead.
        self.assertIsInstance(old.error, (chatbus.Replaced, chatbus.SessionUnknown))
        await old.close()
        await new.heartbeat()


class AioRoutedTest(unittest.IsolatedAsyncioTestCase):
    """Through provider-fake, a provider child in Python."""

    def setUp(self):
        self.platform_dir = tempfile.mkdtemp(prefix="cb-fake-")
        self.addCleanup(shutil.rmtree, self.platform_dir, True)
        self.platform = harness.FakePlatform(self.platform_dir)
        self.sup = harness.Supervisor(["--heartbeat-interval", f"{int(HEARTBEAT * 1000)}ms"],
                                      config_yaml=harness.fake_provider_yaml(self.platform_dir))
        self.addCleanup(self.sup.stop)
        self.sup.wait_provider("fake")

    async def asyncSetUp(self):
        self.client = chatbus.aio.connect(self.sup.socket, secret_file=self.sup.secret_file)
        self.addAsyncCleanup(self.client.close)

    def sent(self, thread_id, text):
        return [c for c in self.platform.calls()
                if c["method"] == "sendMessage" and c["params"].get("message_thread_id") == thread_id
                and c["params"].get("text") == text]

    async def test_update_ack_reply_files_and_doctor_restart(self):
        f = await self.client.register("manual:aio-routed", instance_id=new_id(), cwd="/home/u/gamma")
        self.addAsyncCleanup(f.close)
        self.assertEqual(f.origin, types_pb2.ORIGIN_FRESH)
        target = f.binding.target
        self.assertEqual((target.provider, target.chat_id, f.binding.thread_name),
                         ("fake", harness.FAKE_CHAT_ID, "gamma"))

        # An update arrives, is replayed until acked, and the reply lands.
        self.platform.push_message(target.thread_id, "hello aio")
        async with f.updates() as stream:
            update = await asyncio.wait_for(stream.__anext__(), 10)
        self.assertEqual((update.text, update.kind), ("hello aio", types_pb2.UPDATE_KIND_MESSAGE))
        async with f.updates() as stream:
            again = await asyncio.wait_for(stream.__anext__(), 10)
        self.assertEqual(again.seq, update.seq)
        self.assertEqual(await f.ack(update.seq), update.seq)
        result = await f.call("sendMessage", {"text": "echo: hello aio"}, idempotency_key="aio-k1")
        self.assertIn("message_id", result)
        (call,) = self.sent(target.thread_id, "echo: hello aio")
        self.assertEqual((call["params"]["chat_id"], call["idempotency_key"]), (harness.FAKE_CHAT_ID, "aio-k1"))

        # The message verbs.
        ids = await f.send("**echo:** hello aio", buttons=[("OK", "ok")], idempotency_key="aio-v1")
        self.assertEqual(await f.send("**echo:** hello aio", buttons=[("OK", "ok")], idempotency_key="aio-v1"), ids)
        self.platform.push_message(target.thread_id, "ok", message_id=int(ids[0]), interaction="aio-press")
        async with f.updates() as stream:
            press = await asyncio.wait_for(stream.__anext__(), 10)
        self.assertEqual((press.kind, press.text), (types_pb2.UPDATE_KIND_CALLBACK_QUERY, "ok"))
        await f.ack(press.seq)
        await f.answer("aio-press", "noted")
        await f.edit(ids[0], "done")
        await f.react(ids[0], "👀")
        await f.typing()
        verbs = [(c["method"], c["params"]) for c in self.platform.calls() if c.get("thread") == str(target.thread_id)]
        self.assertEqual(verbs, [
            ("send", {"text": "**echo:** hello aio", "buttons": [{"label": "OK", "data": "ok"}]}),
            ("answer", {"interaction_id": "aio-press", "text": "noted"}),
            ("edit", {"message_id": ids[0], "text": "done"}),
            ("react", {"message_id": ids[0], "emoji": "👀"}),
            ("typing", {}),
        ])
        with self.assertRaises(chatbus.PermissionDenied):
            await f.answer("never-pressed")

        # Files: up from bytes and from a file object, down whole and into a file.
        data = os.urandom(600 * 1024)
        sent = await f.upload_file(data, "notes.bin", caption="aio notes")
        file_id = sent["document"]["file_id"]
        self.assertEqual(self.platform.file(file_id), data)
        self.assertEqual(await f.download_file(file_id), data)
        sent = await f.upload_file(io.BytesIO(b"small"), "small.txt")
        out = io.BytesIO()
        self.assertEqual(await f.download_file(sent["document"]["file_id"], out), 5)
        self.assertEqual(out.getvalue(), b"small")
        self.platform.put_file("elsewhere", b"not yours")
        with self.assertRaises(chatbus.PermissionDenied):
            await f.download_file("elsewhere")

        # A doctor restart while bound: the thread works through the successor.
        (before,) = await self.client.doctor_status("fake")
        progress = []
        outcome = await self.client.doctor_restart("fake", drain=5, deadline=30, on_progress=progress.append)
        self.assertEqual(outcome.kind, doctor_pb2.OUTCOME_KIND_RESTARTED, outcome.message)
        self.assertEqual(outcome.old.pid, before.pid)
        self.assertNotEqual(outcome.successor.pid, before.pid)
        self.assertIn(doctor_pb2.RESTART_PHASE_COMMIT, {p.phase for p in progress})
        self.platform.push_message(target.thread_id, "after the restart")
        async with f.updates(after_seq=update.seq) as stream:
            later = await asyncio.wait_for(stream.__anext__(), 10)
        self.assertEqual(later.text, "after the restart")
        await f.call("sendMessage", {"text": "still here"})
        self.assertEqual(len(self.sent(target.thread_id, "still here")), 1)


class AioUnreachableTest(unittest.IsolatedAsyncioTestCase):
    async def test_session_lost_after_stale_after(self):
        sup = harness.Supervisor(["--heartbeat-interval", "100ms", "--stale-after", "3s"])
        try:
            async with chatbus.aio.connect(sup.socket, secret_file=sup.secret_file) as client:
                f = await client.register("manual:aio-gone", instance_id=new_id())
                stream = f.updates()
                pending = asyncio.create_task(stream.__anext__())
                await asyncio.sleep(0.3)
                t0 = time.monotonic()
                await asyncio.to_thread(sup.stop)
                await asyncio.sleep(max(0.0, t0 + 1.0 - time.monotonic()))
                self.assertTrue(f.alive, f"given up early: {f.error!r}")
                self.assertTrue(await f.wait(3 + 5), "still alive long after stale_after")
                self.assertIsInstance(f.error, chatbus.Unavailable)
                with self.assertRaises(chatbus.ChatbusError):
                    await asyncio.wait_for(pending, 5)
                await f.close()
        finally:
            sup.stop()


class AioConnectTest(unittest.IsolatedAsyncioTestCase):
    async def test_not_running(self):
        with self.assertRaises(chatbus.NotRunning):
            chatbus.aio.connect("/tmp/chatbus-no-such-dir/s.sock", secret="x")

    def test_same_names_as_the_sync_api(self):
        for name in ("CallResult", "Client", "Follower", "UpdateStream", "connect", "default_instance_id",
                     "new_idempotency_key", "DEFAULT_TIMEOUT"):
            self.assertTrue(hasattr(chatbus, name) and hasattr(chatbus.aio, name), name)
        for cls in ("Client", "Follower", "UpdateStream"):
            sync = {n for n in dir(getattr(chatbus, cls)) if not n.startswith("_")}
            aio = {n for n in dir(getattr(chatbus.aio, cls)) if not n.startswith("_")}
            self.assertEqual(sync, aio, cls)


if __name__ == "__main__":
    unittest.main()
