"""Lean answers for agents, and nothing exposed: sizes within budget, no listening socket while serving."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator

from tests.contract.raw import RawServer, tool_call

pytestmark = pytest.mark.stdio_only(reason="RawServer speaks stdio; in stdio mode no socket may be open")

# Characters of tools/list per server. gmail: 22,000 for its 18 tools (issue 13's figure, ~5,500 tokens); 24,000
# (the guide's ceiling) once read_attachment came (version 3).
# obsidian: version 1 allowed 16,000 for 12 tools (~1,330 a tool); the same density for its 17 tools is 23,000;
# version 3's several vaults add list_vaults and an optional `vault` on every tool (~100 characters each): 26,500.
# ContractServer.list_tools writes schemas lean (no titles, null defaults, default hints, output descriptions).
TOOLS_LIST_BUDGET = {"obsidian": 26_500, "gmail": 24_000}
SEARCH_20_BUDGET = 12_000


def listening_sockets(pid: int) -> list[str]:
    """TCP/UDP sockets of `pid` in the LISTEN state (from /proc: the process's socket inodes)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd)
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A = LISTEN
                found.append(f"{table} {fields[1]}")
    return found


@pytest.fixture
def gmail(emulator: Emulator, tmp_path: Path) -> Iterator[RawServer]:
    (tmp_path / "token.json").write_text(json.dumps(emulator.issue_token()))
    os.chmod(tmp_path / "token.json", 0o600)
    server = RawServer(
        "gmail_mcp",
        [],
        {
            "GMAIL_MCP_TOKEN_FILE": str(tmp_path / "token.json"),
            "GMAIL_MCP_API_ENDPOINT": emulator.base_url,
            "GMAIL_MCP_DOWNLOAD_DIR": str(tmp_path / "dl"),
        },
    )
    server.initialize()
    yield server
    server.close()


@pytest.fixture
def obsidian(vault: Path, tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer("obsidian_mcp", ["--vault", str(vault)], {"OBSIDIAN_MCP_INDEX_DIR": str(tmp_path / "index")})
    server.initialize()
    yield server
    server.close()


def size(reply: dict[str, Any]) -> int:
    """Characters the agent reads: a tool answer's text (structuredContent repeats it for programs)."""
    result = reply["result"]
    if "content" in result:
        return len(result["content"][0]["text"])
    return len(json.dumps(result, ensure_ascii=False, separators=(",", ":")))


@pytest.mark.parametrize("which", ["obsidian", "gmail"])
def test_tools_list_fits_the_budget(which: str, request: pytest.FixtureRequest) -> None:
    server: RawServer = request.getfixturevalue(which)
    reply = server.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert size(reply) <= TOOLS_LIST_BUDGET[which], f"{which} tools/list is {size(reply)} characters"
    for tool in reply["result"]["tools"]:  # type: ignore[index]
        assert 20 <= len(tool["description"]) <= 500, f"{tool['name']}: say what it does and when, briefly"


def test_typical_gmail_answers_fit_the_budget(gmail: RawServer, emulator: Emulator) -> None:
    search = gmail.request(tool_call(1, "search_emails", {"query": "in:anywhere", "max_results": 20}))
    assert len(search["result"]["structuredContent"]["messages"]) == 20
    assert size(search) <= SEARCH_20_BUDGET, size(search)
    email = gmail.request(tool_call(2, "get_email", {"message_id": emulator.seeded["status"]}))
    assert size(email) <= 4_000, size(email)


def test_a_typical_read_note_fits_the_budget(obsidian: RawServer) -> None:
    reply = obsidian.request(tool_call(1, "read_note", {"path": "Projects/Alpha"}))
    content = reply["result"]["structuredContent"]["content"]
    assert size(reply) - len(json.dumps(content, ensure_ascii=False)) <= 2_500, "metadata around the text"


def test_neither_server_listens_on_a_socket_while_serving(gmail: RawServer, obsidian: RawServer) -> None:
    gmail.request(tool_call(1, "list_labels", {}))  # after real upstream traffic
    obsidian.request(tool_call(1, "list_notes", {}))
    assert listening_sockets(gmail.proc.pid) == []
    assert listening_sockets(obsidian.proc.pid) == []
