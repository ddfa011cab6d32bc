"""A raw JSON-RPC line client, for what the SDK client hides: exact wire JSON, stdout purity, kills."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.contract.harness import REPO, server_env

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


class RawServer:
    """The server's own Python process (no `uv run` wrapper), so signals reach it directly."""

    def __init__(
        self, module: str, args: list[str], env: dict[str, str] | None = None, stderr_path: Path | None = None
    ) -> None:
        self._stderr = open(stderr_path, "ab") if stderr_path else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=REPO,
            env=server_env(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._buffer = b""

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read_line(self, timeout: float = 20.0) -> bytes:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no line from the server")
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise EOFError("the server closed stdout")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def request(self, message: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
        """Send a request and return the response with its id (notifications in between are skipped)."""
        self.send(message)
        while True:
            reply: dict[str, Any] = json.loads(self.read_line(timeout))
            if reply.get("id") == message["id"]:
                return reply

    def initialize(self) -> dict[str, Any]:
        reply = self.request(INITIALIZE)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            if self._stderr is not subprocess.DEVNULL:
                self._stderr.close()
        return code

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=20)
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()


def tool_call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
