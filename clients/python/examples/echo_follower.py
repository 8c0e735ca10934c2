#!/usr/bin/python3
"""Echo follower: registers with the chatbus supervisor and echoes every
message of its thread back into the thread.

    clients/python/examples/echo_follower.py [--profile P] [--socket PATH]
        [--secret-file PATH] [--profile-key KEY] [--thread-name NAME]

The socket and secret default to the profile's paths; the environment
variables CHATBUS_SOCKET and CHATBUS_SECRET_FILE override them, and flags
override both. Stops cleanly (unregisters) on SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import List

try:  # the installed package (pip install ./clients/python)...
    import chatbus
except ImportError:  # ...or, run from a checkout, clients/python as the import root
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
    import chatbus
from chatbus.v1 import types_pb2  # noqa: E402


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="default", help="supervisor profile (default: %(default)s)")
    ap.add_argument("--socket", default=os.environ.get("CHATBUS_SOCKET"), help="supervisor socket")
    ap.add_argument("--secret-file", default=os.environ.get("CHATBUS_SECRET_FILE"), help="bearer secret file")
    ap.add_argument("--profile-key", default=f"manual:{os.getppid()}", help="stable owner identity (default: manual:<parent pid>)")
    ap.add_argument("--thread-name", default="", help="thread name (default: the cwd's base name)")
    args = ap.parse_args(argv)

    # SIGTERM ends the program the way Ctrl-C does, so the with-blocks below
    # unregister on the way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with chatbus.connect(args.socket, secret_file=args.secret_file, profile=args.profile) as client:
            with client.register(args.profile_key, thread_name=args.thread_name) as follower:
                origin = types_pb2.Origin.Name(follower.origin)
                where = "no thread yet" if follower.binding is None else str(follower.binding.target).replace("\n", " ")
                print(f"echo-follower: registered {follower.instance_id} ({origin}, {where})", file=sys.stderr, flush=True)
                for update in follower.updates():
                    if update.kind == types_pb2.UPDATE_KIND_MESSAGE and update.text:
                        # The key makes a replayed update (after a restart)
                        # echo once.
                        key = f"echo:{update.target.chat}:{update.target.thread}:{update.seq}"
                        follower.send(update.text, idempotency_key=key)  # Markdown, on any platform
                    follower.ack(update.seq)
    except KeyboardInterrupt:
        print("echo-follower: stopped", file=sys.stderr)
        return 0
    except chatbus.ChatbusError as e:
        print(f"echo-follower: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
