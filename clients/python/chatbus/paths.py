"""Default locations of a chatbus supervisor's socket and bearer secret.

These mirror the Go package github.com/chatbus/chatbus/paths, so a follower
finds the supervisor of a profile without being told where it is:

* socket: ``$XDG_RUNTIME_DIR/chatbus/<profile>/supervisor.sock``, else
  ``~/.cache/chatbus/run/<profile>/supervisor.sock``, else
  ``/tmp/chatbus-<uid>/<profile>/supervisor.sock``
* secret: ``$XDG_STATE_HOME/chatbus/<profile>/secret``, else
  ``~/.local/state/chatbus/<profile>/secret``, else
  ``/tmp/chatbus-<uid>/<profile>/state/secret``

On macOS the same XDG variables when set; else the socket under ``$TMPDIR``
(the user's own, 0700): ``$TMPDIR/chatbus/<profile>/supervisor.sock``, and
the secret in ``~/Library/Application Support/chatbus/<profile>/secret``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass
from typing import Mapping, Optional

DEFAULT_PROFILE = "default"

#: The longest Unix socket path Linux accepts (sizeof(sun_path) - 1).
MAX_SOCKET_PATH = 107

#: The longest Unix socket path macOS accepts (its sun_path is 104 bytes).
MAX_SOCKET_PATH_MACOS = 103


def max_socket_path(platform: Optional[str] = None) -> int:
    """The longest Unix socket path ``platform`` (a ``sys.platform``) accepts."""
    platform = sys.platform if platform is None else platform
    return MAX_SOCKET_PATH_MACOS if platform == "darwin" else MAX_SOCKET_PATH

_PROFILE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Paths:
    """The files of one profile."""

    profile: str
    socket: str
    secret_file: str
    state_dir: str


def resolve(
    profile: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    uid: Optional[int] = None,
    platform: Optional[str] = None,
) -> Paths:
    """Returns the default paths of ``profile`` (``"default"`` if empty).

    ``env`` defaults to ``os.environ``, ``uid`` to ``os.getuid()`` and
    ``platform`` to ``sys.platform``; they are parameters so that tests can
    pin them.
    """
    profile = profile or DEFAULT_PROFILE
    if not _PROFILE_RE.match(profile):
        raise ValueError(
            f"profile {profile!r}: must be 1-64 characters of letters, digits, "
            "'.', '_' or '-', starting with a letter or digit"
        )
    if env is None:
        env = os.environ
    if uid is None:
        uid = os.getuid()
    home = env.get("HOME", "")
    tmp = os.path.join(tempfile.gettempdir(), f"chatbus-{uid}", profile)

    macos = (sys.platform if platform is None else platform) == "darwin"

    if env.get("XDG_RUNTIME_DIR"):
        runtime_dir = os.path.join(env["XDG_RUNTIME_DIR"], "chatbus", profile)
    elif macos and env.get("TMPDIR"):
        runtime_dir = os.path.join(env["TMPDIR"], "chatbus", profile)
    elif home and not macos:
        runtime_dir = os.path.join(home, ".cache", "chatbus", "run", profile)
    else:
        runtime_dir = tmp
    if env.get("XDG_STATE_HOME"):
        state_dir = os.path.join(env["XDG_STATE_HOME"], "chatbus", profile)
    elif home and macos:
        state_dir = os.path.join(home, "Library", "Application Support", "chatbus", profile)
    elif home:
        state_dir = os.path.join(home, ".local", "state", "chatbus", profile)
    else:
        state_dir = os.path.join(tmp, "state")
    return Paths(
        profile=profile,
        socket=os.path.join(runtime_dir, "supervisor.sock"),
        secret_file=os.path.join(state_dir, "secret"),
        state_dir=state_dir,
    )


def socket_target(socket_path: str, platform: Optional[str] = None) -> str:
    """Returns the gRPC target for a Unix socket path: ``unix:///abs/path``.

    gRPC reads ``unix://rel`` as an authority, not a relative path, so the
    path is made absolute first; it is checked against the platform's
    limit (107 bytes on Linux, 103 on macOS).
    """
    path = os.path.abspath(socket_path)
    limit = max_socket_path(platform)
    if len(path.encode()) > limit:
        raise ValueError(
            f"socket path {path!r} is {len(path.encode())} bytes; "
            f"Unix sockets allow at most {limit} here"
        )
    return "unix://" + path
