"""The exact JSON on the wire, read line by line from the server's stdout (no SDK client in between)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.contract.raw import RawServer, tool_call

pytestmark = pytest.mark.stdio_only(reason="reads the raw JSON-RPC lines on the server's stdout")


def test_stdout_carries_only_protocol_and_the_error_wire_form_is_exact(vault: Path, tmp_path: Path) -> None:
    server = RawServer("obsidian_mcp", ["--vault", str(vault)], stderr_path=tmp_path / "stderr")
    init = server.initialize()
    assert init["result"]["serverInfo"]["name"] == "obsidian-mcp"
    reply = server.request(tool_call(7, "read_note", {"path": "Nowhere"}))
    result = reply["result"]
    request_id = json.loads(result["content"][0]["text"])["details"]["request_id"]
    assert re.fullmatch(r"[0-9a-f]{16}", request_id)
    expected = {
        "error": "not_found",
        "message": "note not found: Nowhere.md",
        "details": {"resource": "note", "path": "Nowhere.md", "retryable": False, "request_id": request_id},
    }
    # No structuredContent on errors: TS SDK clients validate it against the outputSchema even
    # when isError is set and throw -32602 instead of the error (typescript-sdk#1943).
    assert reply == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [{"type": "text", "text": json.dumps(expected, separators=(",", ":"))}],
            "isError": True,
        },
    }
    assert server.close() == 0  # closing stdin ends the server cleanly
    log = [json.loads(line) for line in (tmp_path / "stderr").read_text().splitlines() if line.strip()]
    assert any(r.get("request_id") == request_id and r.get("tool") == "read_note" for r in log)


def test_a_malformed_line_does_not_kill_the_server(vault: Path) -> None:
    # Regression guard: the SDK's stdio transport drops such lines; the next request must still be answered.
    server = RawServer("obsidian_mcp", ["--vault", str(vault)])
    server.initialize()
    server.send(b"this is not json")
    server.send(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "not an object"}')
    reply = server.request(tool_call(4, "list_notes", {"limit": 1}))
    assert "error" not in reply["result"]["structuredContent"]
    assert reply["result"]["structuredContent"]["notes"]
    assert server.close() == 0
