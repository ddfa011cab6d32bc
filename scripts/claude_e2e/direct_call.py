"""Call a tool of a `.mcp.json` server (or send it any request) directly over stdio (newline-delimited
JSON-RPC), stdlib only.

`make claude-e2e` uses it for the reference answer: what the server itself says for the same call (or the
same resources/list or resources/read), to compare with what Claude Code passed on to the model.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

PROTOCOL_VERSION = "2025-06-18"
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class DirectCallError(Exception):
    """The server could not be started or did not answer in time."""


@dataclass
class ToolAnswer:
    """A tools/call result as the server sent it."""

    is_error: bool
    content: list[dict[str, Any]]
    structured: Any

    @property
    def text(self) -> str:
        return "".join(str(block.get("text", "")) for block in self.content if block.get("type") == "text")


@dataclass
class Answer:
    """A JSON-RPC answer as the server sent it: its result, or its error ({code, message, data})."""

    result: dict[str, Any] | None
    error: dict[str, Any] | None


def expand(value: str, env: dict[str, str]) -> str:
    """`${VAR}` and `${VAR:-default}`, as Claude Code expands them in .mcp.json."""
    return _VARIABLE.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)


def server_command(mcp_json: Path, name: str, env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    entry = json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"][name]
    command = [expand(str(entry["command"]), env), *(expand(str(arg), env) for arg in entry.get("args", []))]
    server_env = {**env, **{key: expand(str(value), env) for key, value in (entry.get("env") or {}).items()}}
    return command, server_env


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


class _Connection:
    """One running server: JSON-RPC lines out on stdin, answers read from stdout on a thread."""

    def __init__(self, process: subprocess.Popen[str], errlog: IO[str], server: str, timeout: float) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process, self.stdin, self.errlog, self.server = process, process.stdin, errlog, server
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(process.stdout, self.lines), daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.stdin.flush()

    def answer(self, request_id: int) -> dict[str, Any]:
        """The JSON-RPC message answering `request_id` (a result or an error)."""
        while True:
            try:
                line = self.lines.get(timeout=max(self.deadline - time.monotonic(), 0.01))
            except queue.Empty as exc:
                raise DirectCallError(f"{self.server} did not answer within {self.timeout:.0f}s") from exc
            if line is None:
                self.errlog.seek(0)
                stderr = "\n".join(self.errlog.read().splitlines()[-15:])
                code = self.process.poll()
                raise DirectCallError(f"{self.server} exited (code {code}) before answering; stderr:\n{stderr}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == request_id:
                return message

    def close(self) -> None:
        try:
            self.stdin.close()  # EOF on stdin: an MCP server's cue to exit
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def call_tool(
    mcp_json: Path, server: str, tool: str, arguments: dict[str, Any], env: dict[str, str], timeout: float = 60
) -> ToolAnswer:
    """Start the server as .mcp.json says (cwd: the file's directory), initialise, call one tool, stop it."""
    answer = request(mcp_json, server, "tools/call", {"name": tool, "arguments": arguments}, env, timeout)
    if answer.error is not None or answer.result is None:
        raise DirectCallError(f"{server} answered with a JSON-RPC error: {answer.error}")
    content = answer.result.get("content")
    return ToolAnswer(
        is_error=bool(answer.result.get("isError")),
        content=[b for b in content if isinstance(b, dict)] if isinstance(content, list) else [],
        structured=answer.result.get("structuredContent"),
    )


def request(
    mcp_json: Path, server: str, method: str, params: dict[str, Any], env: dict[str, str], timeout: float = 60
) -> Answer:
    """Start the server as .mcp.json says (cwd: the file's directory), initialise, send one request, stop it."""
    command, server_env = server_command(mcp_json, server, env)
    client = {"name": "claude-e2e-direct", "version": "1"}
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        process = subprocess.Popen(
            command,
            cwd=mcp_json.parent,
            env=server_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
            encoding="utf-8",
        )
        connection = _Connection(process, errlog, server, timeout)
        try:
            hello = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client}
            connection.send({"id": 1, "method": "initialize", "params": hello})
            if "error" in (initialized := connection.answer(1)):
                raise DirectCallError(f"{server} refused to initialise: {initialized['error']}")
            connection.send({"method": "notifications/initialized"})
            connection.send({"id": 2, "method": method, "params": params})
            answer = connection.answer(2)
        finally:
            connection.close()
    result, error = answer.get("result"), answer.get("error")
    return Answer(result if isinstance(result, dict) else None, error if isinstance(error, dict) else None)


def split_tool_name(name: str) -> tuple[str, str]:
    """`mcp__obsidian__read_note` → ("obsidian", "read_note")."""
    prefix, server, tool = name.split("__", 2)
    if prefix != "mcp":
        raise ValueError(f"not an MCP tool name: {name}")
    return server, tool


if __name__ == "__main__":  # a quick manual check: python direct_call.py obsidian read_note '{"path": "Home"}'
    import sys

    found = call_tool(Path(".mcp.json").resolve(), sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), dict(os.environ))
    print(json.dumps({"isError": found.is_error, "content": found.content}, ensure_ascii=False, indent=2))
