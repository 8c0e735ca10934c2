"""Test harness: a real supervisord in a temporary directory.

``Supervisor(extra_args, config_yaml)`` starts the daemon on a short socket
path under /tmp (Unix socket paths are limited to 107 bytes) with its own
state dir, HOME and config dir, waits until it serves, and stops it at
``stop()``. Tests that need a provider later pass a config file naming one
(e.g. a Telegram provider pointed at a local Bot API stand-in) through
``config_yaml`` or flags through ``extra_args``.

The binary is $CHATBUS_SUPERVISORD when set (``make test-clients`` builds it
once for both languages), else built here with ``go build``.

``Supervisor.restart()`` stops it (SIGTERM) and starts it again on the same
socket, state and config.

``fake_provider_yaml(control_dir)`` configures clients/testdata/provider-fake,
a provider child written in Python whose "platform" is a directory: tests
drop inbound messages into it, make its next calls fail, and read the calls
the supervisor made.

Missing toolchain: the tests skip with a loud message, unless
CHATBUS_REQUIRE_CLIENT_TESTS=1 (set by .ci/run), which turns every such skip
into a failure.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_ROOT = os.path.dirname(HERE)  # clients/python: the import root
REPO_ROOT = os.path.dirname(os.path.dirname(PYTHON_ROOT))
if PYTHON_ROOT not in sys.path:
    sys.path.insert(0, PYTHON_ROOT)

REQUIRED = os.environ.get("CHATBUS_REQUIRE_CLIENT_TESTS") == "1"
FAKE_PROVIDER = os.path.join(os.path.dirname(PYTHON_ROOT), "testdata", "provider-fake")
FAKE_CHAT_ID = -100123


def unavailable(why: str) -> None:
    """Skips (loudly), or fails when the client tests are required."""
    msg = f"chatbus python client tests cannot run: {why}"
    if REQUIRED:
        raise RuntimeError(msg + " (CHATBUS_REQUIRE_CLIENT_TESTS=1 forbids skipping)")
    banner = "!" * 72
    print(f"\n{banner}\nSKIPPING: {msg}\n{banner}", file=sys.stderr, flush=True)
    raise unittest.SkipTest(msg)


_built: Optional[str] = None


def supervisord_binary() -> str:
    global _built
    path = os.environ.get("CHATBUS_SUPERVISORD")
    if path:
        if not os.access(path, os.X_OK):
            unavailable(f"CHATBUS_SUPERVISORD={path} is not an executable")
        return path
    if _built:
        return _built
    if shutil.which("go") is None:
        unavailable("no CHATBUS_SUPERVISORD and no go toolchain to build supervisord")
    out = tempfile.mkdtemp(prefix="cb-sd-")
    atexit.register(shutil.rmtree, out, True)
    path = os.path.join(out, "supervisord")
    subprocess.run(["go", "build", "-o", path, "./cmd/supervisord"], cwd=REPO_ROOT, check=True)
    _built = path
    return path


class Supervisor:
    """A running supervisord. Use as a context manager or call stop()."""

    def __init__(self, extra_args: Optional[List[str]] = None, config_yaml: Optional[str] = None,
                 ready_timeout: float = 15.0):
        binary = supervisord_binary()
        self.dir = tempfile.mkdtemp(prefix="cb", dir="/tmp")
        self.socket = os.path.join(self.dir, "s.sock")
        self.state_dir = os.path.join(self.dir, "state")
        self.secret_file = os.path.join(self.state_dir, "secret")
        self.log_path = os.path.join(self.dir, "supervisord.log")
        home = os.path.join(self.dir, "home")
        os.mkdir(home)
        # No default playground: without a provider configured, followers
        # register DETACHED, which is what the tests without one expect.
        args = [binary, "--socket", self.socket, "--state-dir", self.state_dir, "--log-format", "json",
                "--default-playground=false", "--console=false"]
        if config_yaml is not None:
            cfg = os.path.join(self.dir, "config.yaml")
            with open(cfg, "w") as f:
                f.write(config_yaml)
            args += ["--config", cfg]
        args += list(extra_args or [])
        self._args = args
        self._env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(self.dir, "config"),
                         XDG_RUNTIME_DIR="", XDG_STATE_HOME="")
        self._ready_timeout = ready_timeout
        self._served = 0  # "serving" lines in the log before the latest start
        self._log = open(self.log_path, "wb")
        self._start()

    def _start(self) -> None:
        self.proc = subprocess.Popen(self._args, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, env=self._env)
        try:
            self._wait_ready(self._ready_timeout)
        except BaseException:
            self.stop()
            raise

    def terminate(self) -> None:
        """Stops the daemon gracefully (SIGTERM) and waits for it to exit."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(20)

    def restart(self) -> None:
        """Stops the daemon gracefully and starts it again with the same
        socket, state dir and config; waits until it serves."""
        self.terminate()
        self._served = self.log().count('"message":"serving"')
        self._start()

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"supervisord exited with {self.proc.returncode}:\n{self.log()}")
            if self.log().count('"message":"serving"') > self._served and os.path.exists(self.secret_file):
                return
            time.sleep(0.05)
        raise RuntimeError(f"supervisord not serving after {timeout}s:\n{self.log()}")

    def log(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def wait_provider(self, name: str, timeout: float = 15.0):
        """Waits until the provider's child is RUNNING; returns its ProviderInfo."""
        from chatbus.v1 import admin_pb2

        with self.client() as c:
            def running():
                for p in c.admin.ListProviders(admin_pb2.ListProvidersRequest(), timeout=5).providers:
                    if p.name == name and p.state == admin_pb2.PROVIDER_STATE_RUNNING:
                        return p
                return None
            try:
                return eventually(running, timeout, what=f"provider {name} RUNNING")
            except AssertionError as e:
                raise AssertionError(f"{e}\n{self.log()}") from None

    def client(self, **kwargs):
        import chatbus

        kwargs.setdefault("secret_file", self.secret_file)
        return chatbus.connect(self.socket, **kwargs)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "Supervisor":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def eventually(cond, timeout: float = 5.0, interval: float = 0.05, what: str = "condition"):
    """Polls cond() until it returns a truthy value; fails after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def fake_provider_yaml(control_dir: str, name: str = "fake", chat_id: int = FAKE_CHAT_ID) -> str:
    """A config file section running clients/testdata/provider-fake as the
    default provider, with its "platform" in control_dir."""
    return (
        "providers:\n"
        f"  {name}:\n"
        f"    binary: {FAKE_PROVIDER}\n"
        f"    forum_chat_id: {chat_id}\n"
        f"    control_dir: {control_dir}\n"
    )


class FakePlatform:
    """The directory provider-fake uses as its platform."""

    def __init__(self, directory: str):
        self.dir = directory
        os.makedirs(os.path.join(directory, "inbox"), exist_ok=True)
        self._n = 0

    def push_message(self, thread_id: int, text: str, from_user_id: int = 4242, **fields) -> None:
        """An inbound message in a thread, as a user would send it; fields
        (e.g. message_id, document) go into the Telegram-shaped payload."""
        self._n += 1
        tmp = os.path.join(self.dir, "inbox", f".{self._n:06d}.tmp")
        with open(tmp, "w") as f:
            json.dump({**fields, "thread_id": thread_id, "text": text, "from_user_id": from_user_id}, f)
        os.rename(tmp, os.path.join(self.dir, "inbox", f"{time.time_ns():020d}-{self._n:06d}.json"))

    def calls(self) -> list:
        """Every Call the provider received: {"method", "params",
        "idempotency_key"}, and "fault" when a fault answered it."""
        return self._records("calls.jsonl")

    def fail_next_call(self, code: str = "", message: str = "", *, retry_after: Optional[float] = None,
                       reason: str = "", delay: float = 0) -> None:
        """Makes the next Call (after those already queued) fail with code
        (a grpc.StatusCode name), a RetryInfo of retry_after seconds and an
        ErrorInfo reason; delay waits before answering (without code, the
        call then succeeds)."""
        self._n += 1
        faults = os.path.join(self.dir, "faults")
        os.makedirs(faults, exist_ok=True)
        fault = {"code": code, "message": message, "reason": reason, "delay": delay}
        if retry_after is not None:
            fault["retry_after"] = retry_after
        tmp = os.path.join(faults, f".{self._n:06d}.tmp")
        with open(tmp, "w") as f:
            json.dump(fault, f)
        os.rename(tmp, os.path.join(faults, f"{time.time_ns():020d}-{self._n:06d}.json"))

    def targets(self) -> list:
        """Every thread ProvisionTarget created: {"chat_id", "name", "thread_id"}."""
        return self._records("targets.jsonl")

    def uploads(self) -> list:
        """Every UploadFile: {"chat_id", "thread_id", "filename", "caption", "kind", "file_id", "size"}."""
        return self._records("uploads.jsonl")

    def file(self, file_id: str) -> bytes:
        """A file's content on the platform."""
        with open(os.path.join(self.dir, "files", file_id), "rb") as f:
            return f.read()

    def put_file(self, file_id: str, data: bytes) -> None:
        """A file on the platform, as a user's upload leaves it."""
        os.makedirs(os.path.join(self.dir, "files"), exist_ok=True)
        with open(os.path.join(self.dir, "files", file_id), "wb") as f:
            f.write(data)

    def _records(self, name: str) -> list:
        try:
            with open(os.path.join(self.dir, name)) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []
