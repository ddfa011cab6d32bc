"""HTTP: SIGTERM lets the calls in flight finish and the process exit 0; sessions are separate and share the vault."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.contract.harness import HttpServer, http_client

pytestmark = [pytest.mark.anyio, pytest.mark.transport_independent(reason="starts its own HTTP servers; runs once")]


ATTEMPTS = 10


def obsidian_http(vault: Path, folder: Path) -> HttpServer:
    return HttpServer.python("obsidian_mcp", ["--vault", str(vault), "--index-dir", str(folder / "index")], folder)


async def test_sigterm_lets_the_write_in_progress_finish_then_exits_0(vault: Path, tmp_path: Path) -> None:
    server = obsidian_http(vault, tmp_path)
    content = "fresh\n" * 1_000_000  # 6 MB
    answers: dict[str, Any] = {}
    try:
        async with (
            http_client(server.token) as http,
            streamable_http_client(server.url, http_client=http, terminate_on_close=False) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            await client.list_tools()  # the client checks results against the output schemas it listed

            async def big_write() -> None:
                arguments = {"path": "Big", "content": content, "mode": "overwrite"}
                answers["write"] = await client.call_tool("write_note", arguments)

            def under_way() -> bool:  # spins: the temp file may exist for a few ms only
                deadline = time.monotonic() + 30
                while not any(name.endswith(".tmp") for name in os.listdir(vault)):
                    if "write" in answers:
                        return False  # it ended between two looks (a loaded machine): write again
                    assert time.monotonic() < deadline, "the write never started"
                return True

            # Seeing the write in flight is a race with the machine's load, so the write is repeated until
            # the SIGTERM lands during one (each try overwrites the same note with the same bytes).
            for _ in range(ATTEMPTS):
                answers.pop("write", None)
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(big_write)
                    if await anyio.to_thread.run_sync(under_way):
                        server.proc.send_signal(signal.SIGTERM)
                        break
            else:
                pytest.fail(f"no write was seen under way in {ATTEMPTS} tries")
    finally:
        exit_code = await anyio.to_thread.run_sync(server.stop)
    assert not answers["write"].is_error and answers["write"].structured_content["path"] == "Big.md"
    assert exit_code == 0
    assert (vault / "Big.md").read_text() == content
    assert not [p for p in vault.iterdir() if p.name.endswith(".tmp")]
    ending = [r for r in server.records() if r["message"] == "terminating on SIGTERM"]
    assert ending and ending[0]["calls_finished"] is True
    server.assert_clean()


async def test_sessions_are_separate_and_see_each_others_writes(vault: Path, tmp_path: Path) -> None:
    server = obsidian_http(vault, tmp_path)
    try:
        async with (
            http_client(server.token) as http_a,
            http_client(server.token) as http_b,
            streamable_http_client(server.url, http_client=http_a) as (read_a, write_a),
            streamable_http_client(server.url, http_client=http_b) as (read_b, write_b),
            ClientSession(read_a, write_a) as a,
            ClientSession(read_b, write_b) as b,
        ):
            await a.initialize()
            await b.initialize()
            written = await a.call_tool("write_note", {"path": "From A", "content": "hello from a\n"})
            assert not written.is_error
            found = await b.call_tool("search_notes", {"query": "hello"})
            assert not found.is_error and found.structured_content is not None
            assert "From A.md" in [hit["path"] for hit in found.structured_content["results"]]
        sessions = {r["message"] for r in server.records() if r["message"].startswith("Created new transport")}
        assert len(sessions) == 2, "each client is its own MCP session"
    finally:
        assert await anyio.to_thread.run_sync(server.stop) == 0
    server.assert_clean()
