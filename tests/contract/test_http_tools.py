"""`--tools LIST` on both transports: only the named tools (or groups) are listed and callable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_types import Tool

from tests.contract.checks import assert_error
from tests.contract.harness import REPO, Session, obsidian, running, server_env

pytestmark = pytest.mark.anyio


async def listed(session: Session) -> dict[str, Tool]:
    return {tool.name: tool for tool in (await session.client.list_tools()).tools}


def readers(tools: dict[str, Tool]) -> set[str]:
    return {name for name, tool in tools.items() if tool.annotations and tool.annotations.read_only_hint is True}


async def assert_unknown_tool(session: Session, server: str, name: str, arguments: dict[str, Any]) -> None:
    answer = await session.call(name, arguments)
    assert_error(session, answer, "not_found", server=server, tool=None, resource="tool", id=name)


async def test_obsidian_read_group_hides_every_tool_that_may_write(vault: Path) -> None:
    async with running(obsidian(vault)) as session:
        everything = await listed(session)
    async with running(obsidian(vault, "--tools", "read")) as session:
        offered = await listed(session)
        assert set(offered) == readers(everything) and "read_note" in offered
        assert not {"write_note", "delete_note", "daily_note"} & set(offered)  # daily_note may create a note
        await assert_unknown_tool(session, "obsidian-mcp", "write_note", {"path": "New", "content": "x"})
        assert not (await session.call("read_note", {"path": "Home"})).error
    assert not (vault / "New.md").exists()


async def test_obsidian_named_tools_are_exactly_those(vault: Path) -> None:
    async with running(obsidian(vault, "--tools", " read_note, list_notes ")) as session:
        assert set(await listed(session)) == {"read_note", "list_notes"}
        await assert_unknown_tool(session, "obsidian-mcp", "search_notes", {"query": "alpha"})
        await assert_unknown_tool(session, "obsidian-mcp", "delete_note", {"path": "Home"})
    assert (vault / "Home.md").exists()


async def test_not_offered_beats_read_only(vault: Path) -> None:
    # A write tool left out answers not_found even in read-only mode; one named stays permission_denied.
    async with running(obsidian(vault, "--read-only", "--tools", "read_note,write_note")) as session:
        assert set(await listed(session)) == {"read_note"}
        await assert_unknown_tool(session, "obsidian-mcp", "delete_note", {"path": "Home"})
        answer = await session.call("write_note", {"path": "New", "content": "x"})
        assert_error(session, answer, "permission_denied", server="obsidian-mcp", tool="write_note", reason="read_only")


async def test_the_tools_list_comes_from_the_environment_too(vault: Path) -> None:
    async with running(obsidian(vault), {"OBSIDIAN_MCP_TOOLS": "read_note"}) as session:
        assert set(await listed(session)) == {"read_note"}


async def test_gmail_read_group_hides_sending(gmail_env: dict[str, str]) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        everything = await listed(session)
    async with running(["gmail-mcp", "--tools", "read"], gmail_env) as session:
        offered = await listed(session)
        assert set(offered) == readers(everything) and "search_emails" in offered
        assert not {"send_email", "trash_email", "download_attachment"} & set(offered)
        message = {"to": ["a@example.com"], "subject": "s", "body": "b"}
        await assert_unknown_tool(session, "gmail-mcp", "send_email", message)
        assert not (await session.call("list_labels")).error


@pytest.mark.transport_independent(reason="checks both transports itself: the server exits before serving")
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("module", ["obsidian_mcp", "gmail_mcp"])
def test_an_unknown_name_exits_2_with_one_line(module: str, transport: str, tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    args = ["--vault", str(tmp_path / "vault")] if module == "obsidian_mcp" else []
    env = server_env({"GMAIL_MCP_TOKEN_FILE": str(tmp_path / "none.json"), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    argv = [sys.executable, "-m", module, *args, "--transport", transport, "--tools", "read,no_such_tool"]
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    record = json.loads(lines[0])
    assert record["level"] == "CRITICAL" and "no_such_tool" in record["message"]
