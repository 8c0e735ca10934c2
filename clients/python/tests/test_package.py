"""The package people install: pyproject.toml + setup.py, offline.

PackageTest creates a fresh venv (--system-site-packages: Debian's grpcio and
protobuf), pip-installs clients/python into it from the source dir with
--no-build-isolation --no-index, and runs the echo example with the venv's
Python (copied out of the tree, in isolated mode, so only the installed
package can be imported) against a real supervisord with provider-fake.
VersionTest pins how the version follows the repository's tags, and that a
source tree without git still builds a wheel (with the fallback version).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

import harness

SETUP_PY = os.path.join(harness.PYTHON_ROOT, "setup.py")
PIP_OFFLINE = ["--no-build-isolation", "--no-index", "--disable-pip-version-check", "--quiet"]


def load_setup():
    spec = importlib.util.spec_from_file_location("chatbus_setup", SETUP_PY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # not __main__: setup() is not called
    return mod


def pip_available() -> None:
    for mod in ("pip", "venv", "setuptools", "wheel"):
        if subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True).returncode != 0:
            harness.unavailable(f"{sys.executable} cannot import {mod} "
                                "(apt-get install -y python3-pip python3-venv python3-setuptools python3-wheel)")


def clean_build_dirs() -> None:
    # An in-tree build leaves build/ and *.egg-info (ignored by git); a stale
    # build/lib could carry removed modules into the next build.
    shutil.rmtree(os.path.join(harness.PYTHON_ROOT, "build"), ignore_errors=True)
    for d in glob.glob(os.path.join(harness.PYTHON_ROOT, "*.egg-info")):
        shutil.rmtree(d, ignore_errors=True)


class VersionTest(unittest.TestCase):
    def test_pep440_from_git_describe(self):
        setup = load_setup()
        cases = [
            ("release tag", "v1.2.3-0-gabc1234", "1.2.3"),
            ("after a tag", "v1.2.3-4-gabc1234", "1.2.3.post4+gabc1234"),
            ("dirty release", "v1.2.3-0-gabc1234-dirty", "1.2.3+dirty"),
            ("dirty after a tag", "v0.9.0-12-g0123abcd-dirty", "0.9.0.post12+g0123abcd.dirty"),
            ("pre-release tag", "v2.0.0rc1-0-gabc1234", "2.0.0rc1"),
            ("no tag yet", "42d3ea6", "0.0.0+g42d3ea6"),
            ("no tag, dirty", "42d3ea6-dirty", "0.0.0+g42d3ea6.dirty"),
            ("not a version tag", "release-1-gabc", None),
        ]
        for name, describe, want in cases:
            with self.subTest(name):
                self.assertEqual(setup.pep440(describe), want)

    def test_version_follows_the_repository(self):
        setup = load_setup()
        env = dict(os.environ)
        env.pop("CHATBUS_VERSION", None)
        describe = subprocess.run(
            ["git", "describe", "--tags", "--match", "v[0-9]*", "--long", "--dirty", "--always"],
            cwd=harness.PYTHON_ROOT, capture_output=True, text=True)
        if describe.returncode != 0:
            harness.unavailable(f"no git checkout at {harness.PYTHON_ROOT}: {describe.stderr.strip()}")
        self.assertEqual(setup.git_version(), setup.pep440(describe.stdout.strip()))

    def test_wheel_from_a_tree_without_git(self):
        pip_available()
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            shutil.copytree(harness.PYTHON_ROOT, src,
                            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "_version.py"))
            for env_version, want in ((None, "0.0.0+unknown"), ("1.4.0", "1.4.0")):
                with self.subTest(CHATBUS_VERSION=env_version):
                    env = {k: v for k, v in os.environ.items() if k != "CHATBUS_VERSION"}
                    # No repository above tmp: git describe finds nothing.
                    env["GIT_CEILING_DIRECTORIES"] = tmp
                    if env_version:
                        env["CHATBUS_VERSION"] = env_version
                    out = os.path.join(tmp, "wheels-" + (env_version or "none"))
                    shutil.rmtree(os.path.join(src, "build"), ignore_errors=True)
                    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *PIP_OFFLINE,
                                    "-w", out, src], check=True, env=env, cwd=tmp)
                    wheels = os.listdir(out)
                    self.assertEqual(wheels, [f"chatbus-{want}-py3-none-any.whl"])


class PackageTest(unittest.TestCase):
    def test_install_into_a_fresh_venv_and_run_the_echo_example(self):
        pip_available()
        tmp = tempfile.mkdtemp(prefix="cb-venv-")
        self.addCleanup(shutil.rmtree, tmp, True)
        venv = os.path.join(tmp, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        py = os.path.join(venv, "bin", "python")
        clean_build_dirs()
        self.addCleanup(clean_build_dirs)
        subprocess.run([py, "-m", "pip", "install", *PIP_OFFLINE, harness.PYTHON_ROOT], check=True, cwd=tmp)

        # The installed package, not the source tree: -I ignores PYTHONPATH
        # and the script's directory, cwd is outside the tree.
        probe = subprocess.run(
            [py, "-I", "-c", "import chatbus, chatbus.aio, importlib.metadata as m; "
                             "print(chatbus.__file__); print(chatbus.__version__); print(m.version('chatbus'))"],
            check=True, capture_output=True, text=True, cwd=tmp).stdout.split()
        where, version, dist_version = probe
        self.assertTrue(where.startswith(venv + os.sep), where)
        self.assertEqual(version, dist_version)
        self.assertEqual(version, load_setup().version())
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(where), "py.typed")))
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(where), "v1", "bus_pb2.pyi")))

        example = os.path.join(tmp, "echo_follower.py")
        shutil.copy(os.path.join(harness.PYTHON_ROOT, "examples", "echo_follower.py"), example)
        platform_dir = tempfile.mkdtemp(prefix="cb-fake-")
        self.addCleanup(shutil.rmtree, platform_dir, True)
        platform = harness.FakePlatform(platform_dir)
        with harness.Supervisor(["--heartbeat-interval", "200ms"],
                                config_yaml=harness.fake_provider_yaml(platform_dir)) as sup:
            sup.wait_provider("fake")
            env = dict(os.environ, CHATBUS_SOCKET=sup.socket, CHATBUS_SECRET_FILE=sup.secret_file)
            env.pop("PYTHONPATH", None)
            proc = subprocess.Popen([py, "-I", example, "--profile-key", "manual:installed-echo"],
                                    env=env, cwd=tmp, stderr=subprocess.PIPE, text=True)
            try:
                with sup.client() as client:
                    row = harness.eventually(
                        lambda: next((f for f in client.list_followers() if f.pid == proc.pid and f.subscribed), None),
                        timeout=15, what="the installed example to register and subscribe")
                thread = row.binding.target.thread_id
                platform.push_message(thread, "ping from the installed package")
                harness.eventually(
                    lambda: any(c["method"] == "send" and c["params"].get("text") == "ping from the installed package"
                                and c["thread"] == str(thread) for c in platform.calls()),
                    timeout=10, what="the installed example to echo")
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=10)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn("ORIGIN_FRESH", err)


if __name__ == "__main__":
    unittest.main()
