"""The Python follower client against a real supervisord.

FollowerTest: no provider is configured, so followers register
ORIGIN_DETACHED: their streams stay open and carry nothing, Call answers
FAILED_PRECONDITION and Ack INVALID_ARGUMENT.

RoutedTest: the supervisor runs clients/testdata/provider-fake (a provider
child in Python whose platform is a directory): register binds a fresh
thread, a message pushed into it arrives on updates(), is acknowledged and
replayed until it is, sendMessage lands in that thread, files go up into
it and come down from it (only its own), and the echo example echoes end to
end.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

import harness

try:
    import grpc

    import chatbus
    from chatbus import paths
    from chatbus.v1 import admin_pb2, bus_pb2, types_pb2
except ImportError as e:  # pragma: no cover - depends on the machine
    harness.unavailable(f"{sys.executable} cannot import grpc/protobuf ({e}); "
                        "install python3-grpcio python3-protobuf (Debian)")

HEARTBEAT = 0.2
STALE_AFTER = 2.0
# While an update stream is open; such a follower is pruned after
# 2 * SUBSCRIBED + STALE_AFTER of silence.
SUBSCRIBED = 1.5


def new_id() -> str:
    return "test:" + uuid.uuid4().hex[:12]


class Reader(threading.Thread):
    """Iterates an UpdateStream in the background, recording what happens."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.updates = []
        self.error = None
        self.ended = threading.Event()
        self.start()

    def run(self):
        try:
            for u in self.stream:
                self.updates.append(u)
        except BaseException as e:  # recorded for the test to assert on
            self.error = e
        finally:
            self.ended.set()


class FollowerTest(unittest.TestCase):
    sup: harness.Supervisor

    @classmethod
    def setUpClass(cls):
        cls.sup = harness.Supervisor([
            "--heartbeat-interval", f"{int(HEARTBEAT * 1000)}ms",
            "--stale-after", f"{int(STALE_AFTER)}s",
            "--subscribed-heartbeat-interval", f"{int(SUBSCRIBED * 1000)}ms",
        ])
        cls.client = cls.sup.client()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.sup.stop()

    def register(self, **kwargs) -> chatbus.Follower:
        kwargs.setdefault("instance_id", new_id())
        f = self.client.register(kwargs.pop("profile_key", "manual:test"), **kwargs)
        self.addCleanup(f.close)
        return f

    def listed(self, instance_id):
        for f in self.client.list_followers():
            if f.instance_id == instance_id:
                return f
        return None

    def test_register_response(self):
        iid = new_id()
        f = self.register(instance_id=iid, thread_name="py-register")
        r = f.response
        self.assertEqual(r.session.instance_id, iid)
        self.assertGreaterEqual(len(r.session.token), 16)
        self.assertEqual(r.origin, types_pb2.ORIGIN_DETACHED)
        self.assertFalse(r.HasField("binding"))
        self.assertIsNone(f.binding)
        self.assertAlmostEqual(f.heartbeat_interval, HEARTBEAT)
        self.assertAlmostEqual(f.stale_after, STALE_AFTER)
        self.assertTrue(f.alive)

    def test_default_instance_id_and_pid(self):
        with self.client.register("manual:defaults") as f:
            self.assertRegex(f.instance_id, r"^\d+:\d+$")
            self.assertEqual(f.instance_id.split(":")[0], str(os.getpid()))
            row = self.listed(f.instance_id)
            self.assertEqual(row.pid, os.getpid())
            self.assertEqual(row.cwd, os.getcwd())
            self.assertEqual(row.thread_name, os.path.basename(os.getcwd()))

    def test_background_heartbeat_outlives_stale_after(self):
        f = self.register()
        time.sleep(STALE_AFTER + 0.6)
        row = self.listed(f.instance_id)
        self.assertIsNotNone(row, "pruned although the client heartbeats")
        age = time.time() - row.last_heartbeat.ToDatetime().timestamp()
        self.assertLess(age, 1.0)
        self.assertTrue(f.alive)
        self.assertIsNone(f.error)
        hb = f.heartbeat()
        self.assertLess(abs(time.time() - hb.server_time.ToDatetime().timestamp()), 5)
        self.assertEqual(list(hb.notices), [])

    def test_heartbeat_is_rare_while_streaming(self):
        f = self.register()
        self.assertAlmostEqual(f.subscribed_heartbeat_interval, SUBSCRIBED)
        reader = Reader(f.updates())
        deadline = time.monotonic() + 10
        while not (self.listed(f.instance_id) or types_pb2.Follower()).subscribed:
            self.assertLess(time.monotonic(), deadline, "the stream never opened")
            time.sleep(0.05)
        # Past stale-after with the stream open: kept, and heartbeating at
        # the subscribed interval (at most 3 distinct heartbeat times in
        # 2.6 s, against 13 at the short interval).
        seen = set()
        end = time.monotonic() + STALE_AFTER + 0.6
        while time.monotonic() < end:
            row = self.listed(f.instance_id)
            self.assertIsNotNone(row, "pruned with its stream open")
            seen.add(row.last_heartbeat.ToNanoseconds())
            time.sleep(0.1)
        self.assertLessEqual(len(seen), 3, "heartbeating at the short interval with the stream open")
        reader.stream.cancel()
        self.assertTrue(reader.ended.wait(5))
        # The stream ended: heartbeats go at the short interval again.
        end = time.monotonic() + STALE_AFTER + 0.6
        while time.monotonic() < end:
            row = self.listed(f.instance_id)
            self.assertIsNotNone(row, "pruned after its stream ended")
            time.sleep(0.1)
        self.assertLess(time.time() - row.last_heartbeat.ToDatetime().timestamp(), 1.0)
        self.assertTrue(f.alive)

    def test_admin_shows_follower(self):
        f = self.register(profile_key="manual:admin", thread_name="py-admin", cwd="/somewhere/else")
        info = self.client.get_info()
        self.assertEqual(info.socket_path, self.sup.socket)
        self.assertEqual(info.state_dir, self.sup.state_dir)
        self.assertEqual(info.pid, self.sup.proc.pid)
        self.assertEqual(info.profile, "default")
        self.assertGreaterEqual(info.follower_count, 1)
        row = self.listed(f.instance_id)
        self.assertIsNotNone(row)
        self.assertEqual(row.profile_key, "manual:admin")
        self.assertEqual(row.thread_name, "py-admin")
        self.assertEqual(row.cwd, "/somewhere/else")
        self.assertEqual(row.pid, os.getpid())
        self.assertEqual(row.origin, types_pb2.ORIGIN_DETACHED)
        self.assertFalse(row.subscribed)
        with f.updates():
            harness.eventually(lambda: self.listed(f.instance_id).subscribed, what="subscribed=true")

    def test_stream_stays_open_until_unregister(self):
        f = self.register()
        reader = Reader(f.updates())
        harness.eventually(lambda: self.listed(f.instance_id).subscribed, what="subscribed=true")
        self.assertFalse(reader.ended.wait(0.5), f"stream ended early: {reader.error!r}")
        f.close()
        self.assertTrue(reader.ended.wait(3), "unregister did not end the stream")
        self.assertIsNone(reader.error)
        self.assertEqual(reader.updates, [])
        self.assertIsNone(self.listed(f.instance_id))
        self.assertFalse(f.alive)
        self.assertIsNone(f.error)
        f.close()  # idempotent

    def test_stream_cancel_is_clean(self):
        f = self.register()
        stream = f.updates()
        reader = Reader(stream)
        harness.eventually(lambda: self.listed(f.instance_id).subscribed, what="subscribed=true")
        stream.cancel()
        self.assertTrue(reader.ended.wait(3), "cancel did not end the iteration")
        self.assertIsNone(reader.error)
        harness.eventually(lambda: not self.listed(f.instance_id).subscribed, what="subscribed=false")
        self.assertTrue(f.alive)
        f.heartbeat()

    def test_second_subscribe_supersedes_first(self):
        f = self.register()
        first = Reader(f.updates())
        harness.eventually(lambda: self.listed(f.instance_id).subscribed, what="subscribed=true")
        with f.updates() as second:
            self.assertTrue(first.ended.wait(3))
            self.assertIsInstance(first.error, chatbus.Replaced)
            self.assertEqual(first.error.code, grpc.StatusCode.ABORTED)
            second.cancel()

    def test_call_without_thread_is_failed_precondition(self):
        f = self.register()
        with self.assertRaises(chatbus.FailedPrecondition) as cm:
            f.call("sendMessage", {"text": "hello"}, idempotency_key="k1")
        self.assertEqual(cm.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertIn("not bound", cm.exception.details)

    def test_ack_of_nothing_is_invalid_argument(self):
        f = self.register()
        with self.assertRaises(chatbus.InvalidArgument) as cm:
            f.ack(1)
        self.assertIn("never delivered", cm.exception.details)
        with self.assertRaises(chatbus.InvalidArgument):
            f.ack(0)  # protovalidate: seq > 0

    def test_wrong_secret_is_unauthenticated(self):
        with self.sup.client(secret="not-the-secret") as bad:
            with self.assertRaises(chatbus.Unauthenticated):
                bad.register("manual:intruder", instance_id=new_id())
            with self.assertRaises(chatbus.Unauthenticated):
                bad.get_info()
            with self.assertRaises(chatbus.Unauthenticated):
                bad.list_followers()

    def test_invalid_register_is_invalid_argument(self):
        with self.assertRaises(chatbus.InvalidArgument):
            self.client.register("", instance_id=new_id())
        with self.assertRaises(chatbus.InvalidArgument):
            self.client.register("manual:x", instance_id="bad id with spaces")

    def test_sessions_are_not_interchangeable(self):
        a, b = self.register(), self.register()
        forged = bus_pb2.Session(instance_id=a.instance_id, token=b.session.token)
        with self.assertRaises(grpc.RpcError) as cm:
            self.client.bus.Heartbeat(bus_pb2.HeartbeatRequest(session=forged), timeout=5)
        self.assertEqual(cm.exception.code(), grpc.StatusCode.PERMISSION_DENIED)
        unknown = bus_pb2.Session(instance_id=new_id(), token="x" * 32)
        with self.assertRaises(grpc.RpcError) as cm:
            self.client.bus.Heartbeat(bus_pb2.HeartbeatRequest(session=unknown), timeout=5)
        self.assertEqual(cm.exception.code(), grpc.StatusCode.NOT_FOUND)

    def test_reregistering_instance_ends_old_session(self):
        iid = new_id()
        old = self.register(instance_id=iid)
        reader = Reader(old.updates())
        harness.eventually(lambda: self.listed(iid).subscribed, what="subscribed=true")
        new = self.register(instance_id=iid)
        self.assertTrue(reader.ended.wait(3))
        self.assertIsInstance(reader.error, chatbus.Replaced)
        # The session is given up: its stream said "replaced", or its
        # heartbeat found the token dead (the same supervisor: no renewal).
        self.assertTrue(old.wait(3), "old follower still alive")
        self.assertIsInstance(old.error, (chatbus.Replaced, chatbus.SessionUnknown))
        old.close()  # no error: the session is gone already
        self.assertTrue(new.alive)
        new.heartbeat()

    def test_silent_follower_is_pruned(self):
        # Raw stubs: no background heartbeat. The stream is open, so the
        # silence allowed is the subscribed one.
        resp = self.client.bus.Register(bus_pb2.RegisterRequest(
            instance_id=new_id(), profile_key="manual:silent", pid=os.getpid()), timeout=5)
        stream = self.client.bus.Subscribe(bus_pb2.SubscribeRequest(session=resp.session))
        t0 = time.monotonic()
        with self.assertRaises(grpc.RpcError) as cm:
            for _ in stream:
                pass
        self.assertEqual(cm.exception.code(), grpc.StatusCode.FAILED_PRECONDITION)
        self.assertLess(time.monotonic() - t0, 2 * SUBSCRIBED + STALE_AFTER + 2)
        self.assertIsNone(self.listed(resp.session.instance_id))

    def test_echo_example_registers_and_stops_cleanly(self):
        example = os.path.join(harness.PYTHON_ROOT, "examples", "echo_follower.py")
        env = dict(os.environ, CHATBUS_SOCKET=self.sup.socket, CHATBUS_SECRET_FILE=self.sup.secret_file)
        proc = subprocess.Popen([sys.executable, example, "--profile-key", "manual:echo-py"],
                                env=env, stderr=subprocess.PIPE, text=True)
        try:
            row = harness.eventually(
                lambda: next((f for f in self.client.list_followers() if f.pid == proc.pid and f.subscribed), None),
                timeout=10, what="the example to register and subscribe")
            self.assertEqual(row.profile_key, "manual:echo-py")
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn("ORIGIN_DETACHED", err)
        self.assertIsNone(self.listed(row.instance_id), "the example did not unregister")


class RoutedTest(unittest.TestCase):
    """Through a provider: provider-fake, a Python child process."""

    @classmethod
    def setUpClass(cls):
        cls.platform_dir = tempfile.mkdtemp(prefix="cb-fake-")
        cls.platform = harness.FakePlatform(cls.platform_dir)
        cls.sup = harness.Supervisor(
            ["--heartbeat-interval", f"{int(HEARTBEAT * 1000)}ms"],
            config_yaml=harness.fake_provider_yaml(cls.platform_dir),
        )
        cls.sup.wait_provider("fake")
        cls.client = cls.sup.client()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.sup.stop()
        shutil.rmtree(cls.platform_dir, ignore_errors=True)

    def register(self, profile_key: str, **kwargs) -> chatbus.Follower:
        f = self.client.register(profile_key, instance_id=new_id(), **kwargs)
        self.addCleanup(f.close)
        return f

    def sent(self, thread_id: int, text: str):
        """The call that sent text into the thread: a sendMessage, or the
        send verb."""
        for c in self.platform.calls():
            p = c["params"]
            if p.get("text") == text and (
                    (c["method"] == "sendMessage" and p.get("message_thread_id") == thread_id)
                    or (c["method"] == "send" and c["thread"] == str(thread_id))):
                return c
        return None

    def test_message_verbs(self):
        f = self.register("manual:verbs", cwd="/home/u/verbs")
        thread = f.binding.target.thread_id
        self.assertEqual(list(f.capabilities.verbs), ["send", "edit", "react", "typing", "answer"])

        # send: Markdown, buttons, a prompt; once per key.
        buttons = [chatbus.Button("Red", "red"), ("Blue", "blue")]
        ids = f.send("**Which colour?**", buttons=buttons, prompt=True, idempotency_key="py-v1")
        self.assertEqual(len(ids), 1, ids)
        self.assertEqual(f.send("**Which colour?**", buttons=buttons, prompt=True, idempotency_key="py-v1"), ids)
        (call,) = [c for c in self.platform.calls() if c["method"] == "send" and c["idempotency_key"] == "py-v1"]
        self.assertEqual(call["thread"], str(thread))
        self.assertEqual(call["params"], {"text": "**Which colour?**", "prompt": True,
                                          "buttons": [{"label": "Red", "data": "red"}, {"label": "Blue", "data": "blue"}]})
        reply = f.send("a reply", reply_to=ids[0])
        self.assertEqual(self.sent(thread, "a reply")["params"]["reply_to"], ids[0])

        # A press arrives as a callback query naming the interaction.
        self.platform.push_message(thread, "blue", message_id=int(ids[0]), interaction="press-1")
        with f.updates() as stream:
            update = next(iter(stream))
        self.assertEqual((update.kind, update.text), (types_pb2.UPDATE_KIND_CALLBACK_QUERY, "blue"))
        self.assertIn(types_pb2.Reference(kind=types_pb2.REFERENCE_KIND_INTERACTION, id="press-1"), update.references)
        f.ack(update.seq)

        f.answer("press-1", "you chose blue", idempotency_key="py-answer")
        f.edit(ids[0], "picked _blue_")
        f.react(reply[0], "👍")
        f.typing()
        made = {c["method"]: c for c in self.platform.calls() if c.get("thread") == str(thread)}
        self.assertEqual(made["answer"]["params"], {"interaction_id": "press-1", "text": "you chose blue"})
        self.assertEqual(made["answer"]["idempotency_key"], "py-answer")
        self.assertEqual(made["edit"]["params"], {"message_id": ids[0], "text": "picked _blue_"})
        self.assertEqual(made["react"]["params"], {"message_id": reply[0], "emoji": "👍"})
        self.assertEqual(made["typing"]["params"], {})

        # The supervisor checks the ids against the thread.
        with self.assertRaises(chatbus.PermissionDenied) as cm:
            f.answer("press-never-seen")
        self.assertTrue(cm.exception.idempotency_key.startswith("py:"))
        with self.assertRaises(chatbus.PermissionDenied):
            f.edit("999999", "not mine")

    def test_fresh_thread_routed_update_ack_and_send(self):
        f = self.register("manual:routed", cwd="/home/u/alpha")
        self.assertEqual(f.origin, types_pb2.ORIGIN_FRESH)
        target = f.binding.target
        self.assertEqual((target.provider, target.chat_id), ("fake", harness.FAKE_CHAT_ID))
        self.assertEqual(f.binding.thread_name, "alpha")
        self.assertIn(target.thread_id, [t["thread_id"] for t in self.platform.targets()])

        self.platform.push_message(target.thread_id, "hello")
        with f.updates() as stream:
            update = next(iter(stream))
        self.assertEqual(update.text, "hello")
        self.assertEqual(update.kind, types_pb2.UPDATE_KIND_MESSAGE)
        self.assertEqual(update.target, target)
        self.assertGreater(update.seq, 0)
        self.assertEqual(f.ack(update.seq), update.seq)

        result = f.call("sendMessage", {"text": "echo: hello"}, idempotency_key="py-k1")
        self.assertIn("message_id", result)
        call = self.sent(target.thread_id, "echo: hello")
        self.assertIsNotNone(call, self.platform.calls())
        self.assertEqual(call["params"]["chat_id"], harness.FAKE_CHAT_ID)  # filled in by the supervisor
        self.assertEqual(call["idempotency_key"], "py-k1")

    def test_files(self):
        f = self.register("manual:files")
        thread = f.binding.target.thread_id
        data = os.urandom(600 * 1024)  # three chunks

        sent = f.upload_file(data, "notes.bin", caption="the notes")
        file_id = sent["document"]["file_id"]
        up = [u for u in self.platform.uploads() if u["file_id"] == file_id]
        self.assertEqual(len(up), 1, self.platform.uploads())
        self.assertEqual((up[0]["chat_id"], up[0]["thread_id"]), (harness.FAKE_CHAT_ID, thread))
        self.assertEqual((up[0]["filename"], up[0]["caption"], up[0]["kind"], up[0]["size"]),
                         ("notes.bin", "the notes", "document", len(data)))
        self.assertEqual(self.platform.file(file_id), data)
        self.assertEqual(f.download_file(file_id), data)  # what the thread sent is in scope

        with tempfile.NamedTemporaryFile(suffix=".png") as tmp:
            tmp.write(b"\x89PNG fake")
            tmp.flush()
            photo = f.upload_file(tmp.name, kind="photo")
            self.assertEqual(self.platform.uploads()[-1]["filename"], os.path.basename(tmp.name))
        self.assertEqual(photo["photo"][0]["file_id"], self.platform.uploads()[-1]["file_id"])

        # A document a person sends into the thread: downloadable by its id.
        inbound = os.urandom(100 * 1024)
        self.platform.put_file("from-a-person", inbound)
        self.platform.put_file("elsewhere", b"not yours")
        self.platform.push_message(thread, "see attached", message_id=900,
                                   document={"file_id": "from-a-person", "file_name": "a.bin"})
        with f.updates() as stream:
            update = next(iter(stream))
        self.assertEqual(update.text, "see attached")
        out = io.BytesIO()
        self.assertEqual(f.download_file("from-a-person", out), len(inbound))
        self.assertEqual(out.getvalue(), inbound)
        # A file id the thread never saw is refused, though the platform has it.
        with self.assertRaises(chatbus.PermissionDenied):
            f.download_file("elsewhere")

    def test_unacknowledged_update_is_replayed(self):
        f = self.register("manual:replay", cwd="/home/u/beta")
        thread = f.binding.target.thread_id
        self.platform.push_message(thread, "first")
        with f.updates() as stream:
            first = next(iter(stream))
        self.assertEqual(first.text, "first")
        # Not acknowledged: a new stream delivers it again.
        with f.updates() as stream:
            again = next(iter(stream))
        self.assertEqual((again.seq, again.text), (first.seq, "first"))
        f.ack(first.seq)
        self.platform.push_message(thread, "second")
        with f.updates() as stream:
            second = next(iter(stream))
        self.assertEqual(second.text, "second")
        self.assertGreater(second.seq, first.seq)
        f.ack(second.seq)

    def test_a_replayed_batch_comes_one_update_at_a_time(self):
        # The client asks for batches (max_batch): five held updates are
        # replayed in one stream message and handed out one by one, in order.
        f = self.register("manual:batch", cwd="/home/u/gamma")
        thread = f.binding.target.thread_id
        texts = [f"m{i}" for i in range(5)]
        for text in texts:
            self.platform.push_message(thread, text)

        def read_five():
            stream = f.updates()
            reader = Reader(stream)
            deadline = time.monotonic() + 10
            while len(reader.updates) < len(texts) and time.monotonic() < deadline and not reader.ended.is_set():
                time.sleep(0.02)
            stream.cancel()
            reader.ended.wait(5)
            self.assertIsNone(reader.error)
            return reader.updates

        live = read_five()
        self.assertEqual([u.text for u in live], texts)
        replayed = read_five()
        self.assertEqual([(u.seq, u.text) for u in replayed], [(u.seq, u.text) for u in live])
        self.assertEqual([u.seq for u in replayed], list(range(live[0].seq, live[0].seq + 5)))
        f.ack(replayed[-1].seq)

    def test_echo_example_end_to_end(self):
        example = os.path.join(harness.PYTHON_ROOT, "examples", "echo_follower.py")
        env = dict(os.environ, CHATBUS_SOCKET=self.sup.socket, CHATBUS_SECRET_FILE=self.sup.secret_file)
        proc = subprocess.Popen([sys.executable, example, "--profile-key", "manual:echo-routed-py"],
                                env=env, stderr=subprocess.PIPE, text=True)
        try:
            row = harness.eventually(
                lambda: next((f for f in self.client.list_followers() if f.pid == proc.pid and f.subscribed), None),
                timeout=10, what="the example to register and subscribe")
            self.assertEqual(row.origin, types_pb2.ORIGIN_FRESH)
            thread = row.binding.target.thread_id
            self.platform.push_message(thread, "ping from python")
            harness.eventually(lambda: self.sent(thread, "ping from python"), timeout=10,
                               what="the example to echo into its thread")
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 0, err)


class DoctorTest(unittest.TestCase):
    """A doctor restart of provider-fake, a provider child in Python that
    keeps the doctor fence: nothing lost, the follower keeps its thread."""

    def setUp(self):
        self.platform_dir = tempfile.mkdtemp(prefix="cb-fake-")
        self.addCleanup(shutil.rmtree, self.platform_dir, True)
        self.platform = harness.FakePlatform(self.platform_dir)
        self.sup = harness.Supervisor(
            ["--heartbeat-interval", f"{int(HEARTBEAT * 1000)}ms"],
            config_yaml=harness.fake_provider_yaml(self.platform_dir),
        )
        self.addCleanup(self.sup.stop)
        self.sup.wait_provider("fake")
        self.client = self.sup.client()
        self.addCleanup(self.client.close)

    def test_restart(self):
        from chatbus.v1 import doctor_pb2

        (before,) = self.client.doctor_status("fake")
        self.assertTrue(before.present)
        self.assertEqual((before.phase, before.admitting), (doctor_pb2.FENCE_PHASE_IDLE, True))

        f = self.client.register("manual:doctor", instance_id=new_id())
        self.addCleanup(f.close)
        thread = f.binding.target.thread_id
        harness.eventually(lambda: self.client.doctor_status("fake")[0].occupancy.attached == 1,
                           what="the follower attached")

        progress = []
        outcome = self.client.doctor_restart("fake", drain=5, deadline=30, on_progress=progress.append)
        self.assertEqual(outcome.kind, doctor_pb2.OUTCOME_KIND_RESTARTED, outcome.message)
        self.assertEqual(outcome.old.pid, before.pid)
        self.assertNotEqual(outcome.successor.pid, before.pid)
        self.assertIn(outcome.exit_proof, ("reaped", "pid-gone", "pid-reused"))
        phases = {p.phase for p in progress}
        for want in (doctor_pb2.RESTART_PHASE_PREPARE, doctor_pb2.RESTART_PHASE_COMMIT,
                     doctor_pb2.RESTART_PHASE_EXIT_PROOF):
            self.assertIn(want, phases, progress)
        (after,) = self.client.doctor_status("fake")
        self.assertEqual((after.pid, after.admitting), (outcome.successor.pid, True))

        # The follower kept its thread through the successor: a message sent
        # into it arrives, and a reply lands in it.
        self.platform.push_message(thread, "after the restart")
        with f.updates() as stream:
            update = next(iter(stream))
        self.assertEqual(update.text, "after the restart")
        f.call("sendMessage", {"text": "still here"})
        calls = [c for c in self.platform.calls() if c["params"].get("text") == "still here"]
        self.assertEqual(len(calls), 1, self.platform.calls())
        self.assertEqual(calls[0]["params"]["message_thread_id"], thread)

    def test_restart_of_unknown_provider(self):
        with self.assertRaises(chatbus.NotFound):
            self.client.doctor_restart("nope")


class UnreachableSupervisorTest(unittest.TestCase):
    def test_session_outlasts_a_gone_supervisor_until_stale_after(self):
        stale_after = 3.0
        sup = harness.Supervisor(["--heartbeat-interval", "100ms", "--stale-after", "3s"])
        client = sup.client()
        try:
            f = client.register("manual:gone", instance_id=new_id())
            t0 = time.monotonic()  # a heartbeat got through within 0.1 s before this
            sup.stop()
            # Refused heartbeats are retried: the session is not given up
            # while the supervisor could still hold it.
            time.sleep(max(0.0, t0 + 1.0 - time.monotonic()))
            self.assertLess(time.monotonic() - t0, stale_after - 0.5, "supervisord took too long to stop")
            self.assertTrue(f.alive, f"given up after {time.monotonic() - t0:.2f}s: {f.error!r}")
            self.assertTrue(f.wait(stale_after + 5), "still alive long after stale_after")
            self.assertIsInstance(f.error, chatbus.Unavailable)
        finally:
            client.close()
            sup.stop()


class ConnectTest(unittest.TestCase):
    def test_not_running(self):
        with self.assertRaises(chatbus.NotRunning):
            chatbus.connect("/tmp/chatbus-no-such-dir/s.sock", secret="x")

    def test_default_paths(self):
        cases = [
            ("xdg", "linux", {"XDG_RUNTIME_DIR": "/run/user/7", "XDG_STATE_HOME": "/st", "HOME": "/h"},
             "/run/user/7/chatbus/p/supervisor.sock", "/st/chatbus/p/secret"),
            ("home", "linux", {"HOME": "/h"},
             "/h/.cache/chatbus/run/p/supervisor.sock", "/h/.local/state/chatbus/p/secret"),
            ("nothing", "linux", {},
             os.path.join(tempfile.gettempdir(), "chatbus-7/p/supervisor.sock"),
             os.path.join(tempfile.gettempdir(), "chatbus-7/p/state/secret")),
            ("macOS", "darwin", {"TMPDIR": "/var/folders/zz/abc/T/", "HOME": "/Users/u"},
             "/var/folders/zz/abc/T/chatbus/p/supervisor.sock",
             "/Users/u/Library/Application Support/chatbus/p/secret"),
            ("macOS with XDG variables set", "darwin",
             {"XDG_RUNTIME_DIR": "/r", "XDG_STATE_HOME": "/st", "TMPDIR": "/var/folders/zz/abc/T/", "HOME": "/Users/u"},
             "/r/chatbus/p/supervisor.sock", "/st/chatbus/p/secret"),
            ("macOS without TMPDIR", "darwin", {"HOME": "/Users/u"},
             os.path.join(tempfile.gettempdir(), "chatbus-7/p/supervisor.sock"),
             "/Users/u/Library/Application Support/chatbus/p/secret"),
        ]
        for name, platform, env, sock, secret in cases:
            with self.subTest(name):
                p = paths.resolve("p", env=env, uid=7, platform=platform)
                self.assertEqual(p.socket, sock)
                self.assertEqual(p.secret_file, secret)
        self.assertEqual(paths.resolve(None, env={"HOME": "/h"}, uid=7).profile, "default")
        with self.assertRaises(ValueError):
            paths.resolve("../etc", env={}, uid=7)

    def test_socket_target(self):
        self.assertEqual(paths.socket_target("/a/b.sock"), "unix:///a/b.sock")
        self.assertTrue(re.match(r"^unix:///", paths.socket_target("rel.sock")))
        with self.assertRaises(ValueError):
            paths.socket_target("/" + "x" * 120)
        for platform, limit in (("linux", 107), ("darwin", 103)):
            with self.subTest(platform):
                fits = "/" + "x" * (limit - 1)
                self.assertEqual(paths.socket_target(fits, platform=platform), "unix://" + fits)
                with self.assertRaisesRegex(ValueError, f"{limit + 1} bytes; Unix sockets allow at most {limit}"):
                    paths.socket_target(fits + "x", platform=platform)


if __name__ == "__main__":
    unittest.main()
