"""CLI: ``gmail-emulator [--port N] [--latency S]``.

Prints one JSON line ``{"base_url": ..., "token": {...}}`` on stdout, then serves until
SIGTERM/SIGINT, or until stdin is closed when stdin is a pipe or a terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import stat
import sys
import threading
from types import FrameType

from .auth import DEFAULT_SCOPES
from .emulator import Emulator


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gmail-emulator", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: any free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every request")
    parser.add_argument("--no-seed", action="store_true", help="start with an empty mailbox")
    parser.add_argument("--now", type=float, default=None, help="fix the mailbox clock (epoch seconds)")
    parser.add_argument("--scope", action="append", default=None, help="scope of the printed token (repeatable)")
    return parser.parse_args(argv)


def _stdin_is_watchable() -> bool:
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or sys.stdin.isatty()


def _watch_stdin(done: threading.Event) -> None:
    # os.read on the raw fd: a daemon thread blocked inside sys.stdin's buffered reader would
    # abort the interpreter at exit (it holds the buffer lock).
    try:
        fd = sys.stdin.fileno()
        while os.read(fd, 65536):
            pass
    except (OSError, ValueError):
        pass
    done.set()


def main(argv: list[str] | None = None) -> None:
    args = _parse_args(argv)
    emu = Emulator(seed=not args.no_seed, host=args.host, port=args.port, latency=args.latency, now=args.now)
    emu.start()
    token = emu.issue_token(args.scope or DEFAULT_SCOPES)
    done = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    # Before the ready line: a SIGTERM sent as soon as the line is read must stop us cleanly (exit 0).
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    sys.stdout.write(json.dumps({"base_url": emu.base_url, "token": token}) + "\n")
    sys.stdout.flush()
    if _stdin_is_watchable():
        threading.Thread(target=_watch_stdin, args=(done,), daemon=True).start()
    try:
        while not done.wait(0.5):
            pass
    finally:
        emu.stop()


if __name__ == "__main__":
    main()
