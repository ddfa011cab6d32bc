"""Hostile stdin: every malformed line gets a JSON-RPC answer where it can, and the server keeps serving."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from tests.contract.raw import INITIALIZE, RawServer, tool_call

pytestmark = pytest.mark.stdio_only(reason="hostile bytes on stdin: a stdio transport concern")


@pytest.fixture
def server(vault: Path, tmp_path: Path) -> RawServer:
    raw = RawServer("obsidian_mcp", ["--vault", str(vault)], stderr_path=tmp_path / "stderr")
    raw.initialize()
    return raw


def answer_to(server: RawServer, line: bytes) -> dict[str, object]:
    server.send(line)
    reply: dict[str, object] = json.loads(server.read_line())
    return reply


@pytest.mark.parametrize(
    ("line", "code", "ident"),
    [
        (b"this is not json", -32700, None),
        (b"\xff\xfe\x00garbage \xc3\x28", -32700, None),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call"', -32700, None),  # truncated
        (b"[1, 2, 3]", -32600, None),
        (b"42", -32600, None),
        (b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": "not an object"}', -32602, 6),
        (b'{"id": 7, "method": "tools/list"}', -32600, 7),  # no "jsonrpc" member
        (b'{"jsonrpc": "2.0", "id": 8, "method": "no/such/method", "params": {}}', -32601, 8),
        (
            b'{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "read_note", '
            b'"arguments": {"path": "\\ud800"}}}',
            -32602,
            9,
        ),  # a lone surrogate
        (
            b'{"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "read_note", '
            b'"arguments": "Home"}}',
            -32602,
            10,
        ),
    ],
    ids=[
        "not-json",
        "invalid-utf8",
        "truncated",
        "array",
        "number",
        "params-string",
        "no-jsonrpc",
        "unknown-method",
        "lone-surrogate",
        "arguments-string",
    ],
)
def test_malformed_lines_get_a_jsonrpc_error_and_the_server_goes_on(
    server: RawServer, line: bytes, code: int, ident: int | None
) -> None:
    reply = answer_to(server, line)
    assert reply["jsonrpc"] == "2.0" and reply["id"] == ident
    assert isinstance(reply["error"], dict) and reply["error"]["code"] == code
    assert "result" in server.request(tool_call(100, "list_notes", {"limit": 1}))
    assert server.close() == 0


def test_a_20_mib_line_is_survived(server: RawServer) -> None:
    huge = "x" * (20 * 1024 * 1024)
    reply = server.request(tool_call(1, "read_note", {"path": huge}), timeout=60)
    assert reply["result"]["isError"] is True
    assert "structuredContent" not in reply["result"]
    assert json.loads(reply["result"]["content"][0]["text"])["error"] in {"permission_denied", "parse_error"}
    assert answer_to(server, huge.encode())["error"]["code"] == -32700  # type: ignore[index]
    assert "result" in server.request(tool_call(2, "list_notes", {"limit": 1}))
    assert server.close() == 0


def test_a_notification_that_is_not_understood_is_ignored(server: RawServer) -> None:
    server.send({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}})
    assert "result" in server.request(tool_call(3, "list_notes", {"limit": 1}))
    assert server.close() == 0


def test_closing_stdin_ends_the_server_promptly_with_exit_0(vault: Path) -> None:
    raw = RawServer("obsidian_mcp", ["--vault", str(vault)])
    raw.request(INITIALIZE)
    started = time.monotonic()
    assert raw.close() == 0
    assert time.monotonic() - started < 5


def test_sigterm_lets_the_write_in_progress_finish(vault: Path) -> None:
    raw = RawServer("obsidian_mcp", ["--vault", str(vault)])
    raw.initialize()
    content = "fresh\n" * 1_000_000  # 6 MB
    raw.send(tool_call(1, "write_note", {"path": "Big", "content": content, "mode": "overwrite"}))
    deadline = time.monotonic() + 20
    while not any(p.name.endswith(".tmp") for p in vault.iterdir()):  # the write is under way
        assert time.monotonic() < deadline, "the write never started"
    raw.proc.send_signal(signal.SIGTERM)
    reply = json.loads(raw.read_line(timeout=20))
    assert reply["id"] == 1 and reply["result"]["structuredContent"]["created"] is True
    assert raw.proc.wait(timeout=20) == 0
    assert (vault / "Big.md").read_text() == content
    assert not [p for p in vault.iterdir() if p.name.endswith(".tmp")]
