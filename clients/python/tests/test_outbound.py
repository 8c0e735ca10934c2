"""Calls made at most once, error classes and the new fields, against a real
supervisord running provider-fake (sync and asyncio APIs).

OutboundTest / AioOutboundTest: a call repeated with one key is sent once
and answers the same result (counted at the fake); a call without a key
gets a fresh one, sent with it; a call the platform refuses as rate
limited waits its turn again and goes through once; the platform's
NOT_FOUND is NotFound, not
SessionUnknown; suspend() ends the stream with Suspended; a takeover by
profile key ends the old session with TakenOver; updates carry sender,
sender_name, references and platform, and the registration its
capabilities and text ids.

RestartTest: one logical call across a supervisor restart. Its first
attempt is held by the supervisor (the fake refuses it as not admitting)
when the supervisor is stopped; the client tries again with the same
default key, registers again with the new supervisor, and gets the outcome
of the one call the fake saw.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import threading
import unittest
import uuid

import harness
from test_follower import Reader

try:
    import grpc

    import chatbus
    import chatbus.aio
    from chatbus.errors import from_rpc_error
    from chatbus.v1 import bus_pb2, errors_pb2, types_pb2
except ImportError as e:  # pragma: no cover - depends on the machine
    harness.unavailable(f"{sys.executable} cannot import grpc/protobuf ({e}); "
                        "install python3-grpcio python3-protobuf (Debian)")

HEARTBEAT = 0.2


def new_id(prefix: str = "out") -> str:
    return f"{prefix}:" + uuid.uuid4().hex[:12]


class _Fake:
    """A supervisord running provider-fake, for one test class."""

    extra_args: list = []

    @classmethod
    def start_fake(cls):
        cls.platform_dir = tempfile.mkdtemp(prefix="cb-fake-")
        cls.platform = harness.FakePlatform(cls.platform_dir)
        cls.sup = harness.Supervisor(["--heartbeat-interval", f"{int(HEARTBEAT * 1000)}ms", *cls.extra_args],
                                     config_yaml=harness.fake_provider_yaml(cls.platform_dir))
        cls.sup.wait_provider("fake")

    @classmethod
    def stop_fake(cls):
        cls.sup.stop()
        shutil.rmtree(cls.platform_dir, ignore_errors=True)

    def calls_with(self, key: str, faulted: bool = False) -> list:
        return [c for c in self.platform.calls() if c["idempotency_key"] == key and ("fault" in c) == faulted]


class OutboundTest(_Fake, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.start_fake()
        cls.client = cls.sup.client()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.stop_fake()

    def register(self, profile_key: str, **kwargs) -> chatbus.Follower:
        f = self.client.register(profile_key, instance_id=kwargs.pop("instance_id", new_id()), **kwargs)
        self.addCleanup(f.close)
        return f

    def test_one_key_sends_once(self):
        f = self.register("manual:once")
        results = [f.do("sendMessage", {"text": "once"}, idempotency_key="py-once") for _ in range(3)]
        self.assertEqual(len(self.calls_with("py-once")), 1, self.platform.calls())
        self.assertEqual({r.result["message_id"] for r in results}, {results[0].result["message_id"]})
        self.assertEqual(results[0].references, [types_pb2.Reference(
            kind=types_pb2.REFERENCE_KIND_MESSAGE, id=str(results[0].result["message_id"]))])
        self.assertEqual(f.call("sendMessage", {"text": "once"}, idempotency_key="py-once"), results[0].result)

        # No key: the call gets one of its own, sent with it; repeating
        # that key answers the recorded result.
        first = f.do("sendMessage", {"text": "a key of its own"})
        self.assertTrue(first.idempotency_key.startswith("py:"), first.idempotency_key)
        self.assertEqual(len(self.calls_with(first.idempotency_key)), 1, self.platform.calls())
        again = f.do("sendMessage", {"text": "a key of its own"}, idempotency_key=first.idempotency_key)
        self.assertEqual(again.result, first.result)
        self.assertEqual(len(self.calls_with(first.idempotency_key)), 1)
        other = f.do("sendMessage", {"text": "a key of its own"})
        self.assertNotEqual(other.idempotency_key, first.idempotency_key)
        self.assertNotEqual(other.result, first.result)

    def test_rate_limit_waits_its_turn(self):
        """A call the platform refuses as rate limited is not the caller's
        to retry: it waits its turn again (the chat held back for the delay
        the platform asked for) and goes through, made once."""
        f = self.register("manual:slow")
        self.platform.fail_next_call("RESOURCE_EXHAUSTED", "Too Many Requests: retry after 1",
                                     retry_after=1, reason="RATE_LIMITED")
        res = f.do("sendMessage", {"text": "too fast"})
        self.assertEqual(len(self.calls_with(res.idempotency_key, faulted=True)), 1, self.platform.calls())
        self.assertEqual(len(self.calls_with(res.idempotency_key)), 1, self.platform.calls())

    def test_platform_not_found_is_not_session_unknown(self):
        f = self.register("manual:gone-message")
        mine = f.call("sendMessage", {"text": "to edit"})["message_id"]
        self.platform.fail_next_call("NOT_FOUND", "Bad Request: message to edit not found")
        with self.assertRaises(chatbus.NotFound) as cm:
            f.call("editMessageText", {"message_id": mine, "text": "edited"})
        err = cm.exception
        self.assertNotIsInstance(err, chatbus.SessionUnknown)
        self.assertEqual((err.code, err.reason), (grpc.StatusCode.NOT_FOUND, "PLATFORM_NOT_FOUND"))
        self.assertEqual(err.error_reason, errors_pb2.ERROR_REASON_PLATFORM_NOT_FOUND)
        self.assertIn("message to edit not found", err.details)
        # A failure is recorded: the repeat answers it without a second call.
        with self.assertRaises(chatbus.NotFound):
            f.call("editMessageText", {"message_id": mine, "text": "edited"}, idempotency_key=err.idempotency_key)
        self.assertEqual(len(self.calls_with(err.idempotency_key, faulted=True)), 1, self.platform.calls())
        self.assertEqual(len(self.calls_with(err.idempotency_key)), 0)
        # The session is fine.
        f.heartbeat()
        self.assertTrue(f.alive)

        # A session the supervisor does not know is SessionUnknown, a NotFound.
        forged = bus_pb2.Session(instance_id=new_id(), token="x" * 32)
        try:
            self.client.bus.Heartbeat(bus_pb2.HeartbeatRequest(session=forged), timeout=5)
            self.fail("a forged session was accepted")
        except grpc.RpcError as e:
            unknown = from_rpc_error(e)
        self.assertIsInstance(unknown, chatbus.SessionUnknown)
        self.assertIsInstance(unknown, chatbus.NotFound)
        self.assertEqual(unknown.reason, "SESSION_UNKNOWN")
        self.assertEqual(unknown.error_reason, errors_pb2.ERROR_REASON_SESSION_UNKNOWN)

    def test_new_fields(self):
        f = self.register("manual:fields", cwd="/home/u/fields")
        target = f.target
        self.assertEqual((target.chat, target.thread), (str(harness.FAKE_CHAT_ID), str(target.thread_id)))
        caps = f.capabilities
        self.assertEqual((caps.platform, caps.max_text_chars), ("fake", 4096))
        methods = {m.name: m for m in caps.methods}
        self.assertIn("sendMessage", methods)
        (param,) = methods["editMessageText"].params
        self.assertEqual((param.name, param.kind, param.required),
                         ("message_id", types_pb2.REFERENCE_KIND_MESSAGE, True))

        self.platform.push_message(target.thread_id, "who am I", message_id=77, sender="U77",
                                   sender_name="ada", document={"file_id": "doc-77", "file_name": "a.txt"})
        with f.updates() as stream:
            update = next(iter(stream))
        self.assertEqual((update.sender, update.sender_name, update.platform), ("U77", "ada", "fake"))
        self.assertEqual([(r.kind, r.id) for r in update.references],
                         [(types_pb2.REFERENCE_KIND_MESSAGE, "77"), (types_pb2.REFERENCE_KIND_FILE, "doc-77")])
        self.assertEqual((update.target.chat, update.target.thread), (target.chat, target.thread))
        f.ack(update.seq)

    def read_until_end(self, f: chatbus.Follower) -> Reader:
        """Iterates f's updates in the background, once it is subscribed."""
        reader = Reader(f.updates())
        harness.eventually(lambda: any(r.instance_id == f.instance_id and r.subscribed
                                       for r in self.client.list_followers()), what="subscribed")
        return reader

    def test_suspend_ends_the_stream(self):
        f = self.register("manual:suspend")
        reader = self.read_until_end(f)
        resp = f.suspend()
        self.assertTrue(resp.handoff_token)
        self.assertTrue(reader.ended.wait(10), "the stream did not end at suspend()")
        err = reader.error
        self.assertIsInstance(err, chatbus.Suspended)
        self.assertIsInstance(err, chatbus.FailedPrecondition)
        self.assertEqual(err.reason, "SUSPENDED")
        self.assertEqual(err.error_reason, errors_pb2.ERROR_REASON_SUSPENDED)
        self.assertTrue(f.suspended)
        self.assertTrue(f.alive)  # the heartbeat goes on until close()
        f.heartbeat()
        with self.assertRaises(chatbus.Suspended):  # a new stream is refused too
            next(iter(f.updates()))
        successor = self.register("manual:suspend", handoff_token=resp.handoff_token)
        self.assertEqual(successor.origin, types_pb2.ORIGIN_HANDOFF)
        self.assertEqual(successor.target, f.target)

    def test_takeover_ends_the_old_session(self):
        old = self.register("manual:takeover", instance_id=new_id("old"))
        reader = self.read_until_end(old)
        new = self.register("manual:takeover", instance_id=new_id("new"))
        self.assertEqual(new.target, old.target)
        self.assertTrue(reader.ended.wait(10), "the old stream did not end")
        err = reader.error
        self.assertIsInstance(err, chatbus.TakenOver)
        self.assertIsInstance(err, chatbus.Replaced)
        self.assertEqual(err.error_reason, errors_pb2.ERROR_REASON_TAKEN_OVER)
        self.assertIn("manual:takeover", err.details)
        self.assertIn(new.instance_id, err.details)
        self.assertTrue(old.wait(5), "the old follower is still alive")
        self.assertIs(old.error, err)
        self.assertTrue(new.alive)


class AioOutboundTest(_Fake, unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        cls.start_fake()

    @classmethod
    def tearDownClass(cls):
        cls.stop_fake()

    async def asyncSetUp(self):
        self.client = chatbus.aio.connect(self.sup.socket, secret_file=self.sup.secret_file)
        self.addAsyncCleanup(self.client.close)

    async def register(self, profile_key: str, **kwargs) -> chatbus.aio.Follower:
        f = await self.client.register(profile_key, instance_id=new_id("aio"), **kwargs)
        self.addAsyncCleanup(f.close)
        return f

    async def test_keys_errors_fields_and_suspend(self):
        f = await self.register("manual:aio-out")
        self.assertEqual(f.capabilities.platform, "fake")
        self.assertEqual(f.target.thread, str(f.binding.target.thread_id))

        results = [await f.do("sendMessage", {"text": "aio once"}, idempotency_key="aio-once") for _ in range(3)]
        self.assertEqual(len(self.calls_with("aio-once")), 1, self.platform.calls())
        self.assertEqual({r.result["message_id"] for r in results}, {results[0].result["message_id"]})
        self.assertEqual([r.kind for r in results[0].references], [types_pb2.REFERENCE_KIND_MESSAGE])
        own = await f.do("sendMessage", {"text": "aio own key"})
        self.assertTrue(own.idempotency_key.startswith("py:"))
        self.assertEqual(len(self.calls_with(own.idempotency_key)), 1)

        self.platform.fail_next_call("RESOURCE_EXHAUSTED", "Too Many Requests", retry_after=1, reason="RATE_LIMITED")
        slow = await f.do("sendMessage", {"text": "aio too fast"})  # waits its turn again, made once
        self.assertEqual(len(self.calls_with(slow.idempotency_key, faulted=True)), 1)
        self.assertEqual(len(self.calls_with(slow.idempotency_key)), 1)

        self.platform.fail_next_call("NOT_FOUND", "Bad Request: message to edit not found")
        with self.assertRaises(chatbus.NotFound) as cm:
            await f.call("editMessageText", {"message_id": results[0].result["message_id"], "text": "x"})
        self.assertNotIsInstance(cm.exception, chatbus.SessionUnknown)
        self.assertEqual(cm.exception.reason, "PLATFORM_NOT_FOUND")

        stream = f.updates()
        pending = asyncio.create_task(stream.__anext__())
        for _ in range(200):  # until the stream is open (10 s at most)
            if any(r.instance_id == f.instance_id and r.subscribed for r in await self.client.list_followers()):
                break
            await asyncio.sleep(0.05)
        resp = await f.suspend()
        self.assertTrue(resp.handoff_token)
        with self.assertRaises(chatbus.Suspended):
            await asyncio.wait_for(pending, 10)
        self.assertTrue(f.suspended and f.alive)
        await f.heartbeat()


class RestartTest(_Fake, unittest.TestCase):
    """One logical call, its default key, across a supervisor restart."""

    # A long stale_after: the follower outlives the restart; a short
    # shutdown timeout: the stop cuts the held call off quickly.
    extra_args = ["--stale-after", "60s", "--shutdown-timeout", "300ms"]

    def setUp(self):
        self.start_fake()
        self.addCleanup(self.stop_fake)

    def test_default_key_reused_across_a_supervisor_restart(self):
        client = self.sup.client()
        self.addCleanup(client.close)
        f = client.register("manual:across", instance_id=new_id())
        self.addCleanup(f.close)
        before = (f.session.token, f.target)

        # The fake refuses the first attempt as not admitting: the
        # supervisor records the call and holds it.
        self.platform.fail_next_call("FAILED_PRECONDITION", "admission closed: held by the test", reason="NOT_ADMITTING")
        outcome: dict = {}

        def call():
            try:
                outcome["result"] = f.do("sendMessage", {"text": "across a restart"}, timeout=60)
            except BaseException as e:  # recorded for the test to assert on
                outcome["error"] = e

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        held = harness.eventually(
            lambda: [c for c in self.platform.calls() if c["params"].get("text") == "across a restart"],
            timeout=10, what="the first attempt to reach the fake")
        (first,) = held
        self.assertEqual(first["fault"], "FAILED_PRECONDITION")
        key = first["idempotency_key"]
        self.assertTrue(key.startswith("py:"), key)

        self.sup.restart()  # the held attempt is cut off; the record stays
        caller.join(60)
        self.assertFalse(caller.is_alive(), "the call did not finish")
        self.assertNotIn("error", outcome, outcome.get("error"))
        res = outcome["result"]
        self.assertEqual(res.idempotency_key, key)
        sent = self.calls_with(key)
        self.assertEqual(len(sent), 1, self.platform.calls())
        self.assertEqual(sent[0]["params"]["text"], "across a restart")
        self.assertEqual([r.id for r in res.references], [str(res.result["message_id"])])
        # A repeat with the key answers the same, without another call.
        self.assertEqual(f.call("sendMessage", {"text": "across a restart"}, idempotency_key=key), res.result)
        self.assertEqual(len(self.calls_with(key)), 1)
        # The follower registered again with the new supervisor: same thread.
        self.assertNotEqual(f.session.token, before[0])
        self.assertEqual((f.origin, f.target), (types_pb2.ORIGIN_REUSE, before[1]))
        self.assertTrue(f.alive, f.error)


if __name__ == "__main__":
    unittest.main()
