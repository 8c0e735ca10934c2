"""The version of the chatbus Python package, from the repository's tags.

pyproject.toml declares the package; this file only computes its version
(``dynamic = ["version"]``) and writes it into the built package as
``chatbus/_version.py``:

* ``$CHATBUS_VERSION``, if set (e.g. a release build);
* else ``git describe --tags --match 'v[0-9]*'``: ``v1.2.3`` is 1.2.3,
  ``v1.2.3-4-gabc1234`` (4 commits later) is 1.2.3.post4+gabc1234, a dirty
  tree adds ``.dirty``; without a tag, 0.0.0+g<commit>;
* else (a source tree without git, e.g. an sdist) the ``chatbus/_version.py``
  a previous build wrote into it, else 0.0.0+unknown.

The Go binaries (Makefile: git describe --tags --always --dirty) and the
TypeScript package (clients/ts/scripts/version.mjs) follow the same tags.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION_FILE = os.path.join("chatbus", "_version.py")
FALLBACK = "0.0.0+unknown"

_DESCRIBE = re.compile(r"^v(?P<tag>\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?)(?:-(?P<n>\d+)-g(?P<sha>[0-9a-f]+))?(?P<dirty>-dirty)?$")


def pep440(describe: str) -> Optional[str]:
    """Turns ``git describe --tags --long --dirty --always`` output into a
    PEP 440 version; None if it is not a v-tag description or a commit."""
    m = _DESCRIBE.match(describe)
    if m:
        local = []
        version = m["tag"]
        if m["n"] and m["n"] != "0":
            version += f".post{m['n']}"
            local.append(f"g{m['sha']}")
        if m["dirty"]:
            local.append("dirty")
        return version + ("+" + ".".join(local) if local else "")
    m = re.match(r"^(?P<sha>[0-9a-f]{4,40})(?P<dirty>-dirty)?$", describe)
    if m:
        return "0.0.0+g" + m["sha"] + (".dirty" if m["dirty"] else "")
    return None


def git_version(root: str = HERE) -> Optional[str]:
    try:
        out = subprocess.run(
            ["git", "describe", "--tags", "--match", "v[0-9]*", "--long", "--dirty", "--always"],
            cwd=root, capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return pep440(out)


def written_version(root: str = HERE) -> Optional[str]:
    try:
        with open(os.path.join(root, VERSION_FILE), encoding="utf-8") as f:
            m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def version(root: str = HERE) -> str:
    return os.environ.get("CHATBUS_VERSION") or git_version(root) or written_version(root) or FALLBACK


def _write(path: str, v: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(f'"""Written by setup.py at build time."""\n\n__version__ = "{v}"\n')


if __name__ == "__main__":
    from setuptools import setup
    from setuptools.command.build_py import build_py
    from setuptools.command.sdist import sdist

    VERSION = version()

    class BuildPy(build_py):  # type: ignore[misc]
        def run(self) -> None:
            super().run()
            if not self.dry_run:
                _write(os.path.join(self.build_lib, VERSION_FILE), VERSION)

    class SDist(sdist):  # type: ignore[misc]
        def make_release_tree(self, base_dir: str, files: list) -> None:  # type: ignore[type-arg]
            super().make_release_tree(base_dir, files)
            target = os.path.join(base_dir, VERSION_FILE)
            if os.path.lexists(target):
                os.unlink(target)  # may be a hard link to the source tree's
            _write(target, VERSION)

    setup(version=VERSION, cmdclass={"build_py": BuildPy, "sdist": SDist})
