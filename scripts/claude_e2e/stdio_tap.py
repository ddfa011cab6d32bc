"""A transparent tap on an MCP server's stdio, for the send-guard case of `make claude-e2e`.

`python stdio_tap.py LOG -- COMMAND...` starts COMMAND and copies every line the client writes to its
stdin, and every line it writes to stdout, through unchanged (byte for byte, in order), appending each
to LOG as one JSON line `{"from": "client" | "server", "message": <the line's JSON, or its text>}`. stderr
is the command's own. SIGINT and SIGTERM are passed on to the command; the tap exits with its exit code.

The case puts it in front of gmail-mcp through the `uv` on the session's PATH (.mcp.json starts the
server with a bare `uv run`), so the repository's .mcp.json stays as it is. It records what Claude Code
declared (protocol version, client capabilities) and whether the server sent `elicitation/create`.
Stdlib only.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import IO, Any


class Log:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()

    def write(self, side: str, line: bytes) -> None:
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        message: Any
        try:
            message = json.loads(text)
        except ValueError:
            message = text
        with self.lock, self.path.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"from": side, "message": message}, ensure_ascii=False) + "\n")


def pump(source: IO[bytes], target: IO[bytes], log: Log, side: str) -> None:
    """Copy lines from source to target, logging each; close target at EOF."""
    try:
        for line in iter(source.readline, b""):
            log.write(side, line)
            target.write(line)
            target.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError):
            target.close()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: stdio_tap.py LOG -- COMMAND...", file=sys.stderr)
        return 2
    log = Log(Path(argv[1]))
    child = subprocess.Popen(argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None

    def forward(signum: int, frame: FrameType | None) -> None:
        child.send_signal(signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    threading.Thread(target=pump, args=(sys.stdin.buffer, child.stdin, log, "client"), daemon=True).start()
    pump(child.stdout, sys.stdout.buffer, log, "server")
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
