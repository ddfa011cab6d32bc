"""obsidian-mcp through real stdio: tools/list against specs/, and every error code of the taxonomy."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.contract.checks import assert_error, assert_json_stderr, spec
from tests.contract.harness import REPO, UV, SharedObsidian, obsidian, running, server_env

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"


async def test_tools_list_matches_the_spec_for_every_implemented_tool(shared_obsidian: SharedObsidian) -> None:
    session = shared_obsidian.session
    init_names = await session.tool_names()
    live = {
        tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        for tool in (await session.client.list_tools()).tools
    }
    entries = {entry["name"]: entry for entry in spec(SERVER)["tools"]}
    assert set(live) <= set(entries), f"tools missing from the spec: {set(live) - set(entries)}"
    implemented = {name for name, entry in entries.items() if entry["status"] == "implemented"}
    assert implemented == set(live), "the spec's implemented tools and the live tools differ"
    for name in init_names:
        for key in ("description", "inputSchema", "outputSchema", "annotations"):
            assert live[name].get(key) == entries[name][key], f"{name}.{key} differs from the spec"


async def test_not_found_for_a_missing_note_and_an_unknown_tool(shared_obsidian: SharedObsidian) -> None:
    session = shared_obsidian.session
    answer = await session.call("read_note", {"path": "Projects/No Such Note"})
    assert_error(session, answer, "not_found", server=SERVER, tool="read_note", resource="note")
    answer = await session.call("no_such_tool", {"x": 1})
    assert_error(session, answer, "not_found", server=SERVER, tool=None, resource="tool", id="no_such_tool")
    assert_json_stderr(session, SERVER)


@pytest.mark.parametrize(
    ("path", "reason"),
    [("../outside.md", "outside_vault"), ("/etc/passwd", "outside_vault"), (".obsidian/app.json", "hidden_path")],
)
async def test_permission_denied_for_paths_outside_the_vault(
    shared_obsidian: SharedObsidian, path: str, reason: str
) -> None:
    (shared_obsidian.vault.parent / "outside.md").write_text("secret outside the vault\n")
    session = shared_obsidian.session
    answer = await session.call("read_note", {"path": path})
    assert_error(session, answer, "permission_denied", server=SERVER, tool="read_note", reason=reason)
    assert "secret" not in answer.payload["message"]


async def test_parse_error_names_the_field_of_a_bad_argument(shared_obsidian: SharedObsidian) -> None:
    session = shared_obsidian.session
    answer = await session.call("read_note", {"path": "Home", "offset": "not a number"})
    assert_error(session, answer, "parse_error", server=SERVER, tool="read_note", field="offset")
    answer = await session.call("read_note", {})
    assert_error(session, answer, "parse_error", server=SERVER, tool="read_note", field="path", reason="missing")
    answer = await session.call("read_note", {"path": "Home", "colour": "blue"})
    assert_error(session, answer, "parse_error", server=SERVER, tool="read_note", field="colour")


async def test_mcp_unavailable_when_the_vault_vanishes_while_serving(vault: Path) -> None:
    async with running(obsidian(vault)) as session:
        assert (await session.call("read_note", {"path": "Home"})).error is None
        moved = vault.with_name("vault-unmounted")
        vault.rename(moved)
        try:
            answer = await session.call("read_note", {"path": "Home"})
            assert_error(
                session, answer, "mcp_unavailable", server=SERVER, tool="read_note", service="vault", retryable=True
            )
        finally:
            moved.rename(vault)
        assert (await session.call("read_note", {"path": "Home"})).error is None


async def test_internal_error_hides_the_crash_and_logs_its_traceback(vault: Path) -> None:
    # OBSIDIAN_MCP_CRASH_TOOLS is the documented test-only switch that makes a tool raise unexpectedly.
    async with running(obsidian(vault), {"OBSIDIAN_MCP_CRASH_TOOLS": "list_notes"}) as session:
        answer = await session.call("list_notes", {})
        details = assert_error(session, answer, "internal_error", server=SERVER, tool="list_notes")
        assert answer.payload["message"] == f"internal error (request id {details['request_id']})"
        logged = [r for r in session.log_records() if r.get("request_id") == details["request_id"]]
        assert any("InjectedCrash" in r.get("exception", "") for r in logged), "traceback must reach the log"


async def test_read_only_mode_hides_write_tools_and_refuses_them(vault: Path) -> None:
    async with running(obsidian(vault, "--read-only")) as session:
        names = set(await session.tool_names())
        hidden = {"write_note", "append_to_note", "replace_section", "update_frontmatter", "move_note", "delete_note"}
        assert not names & hidden and {"read_note", "daily_note", "search_notes"} <= names
        answer = await session.call("write_note", {"path": "New", "content": "x"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="write_note", reason="read_only")
    assert not (vault / "New.md").exists()


@pytest.mark.transport_independent(reason="reads the taxonomy, no server")
def test_codes_that_cannot_arise_here_are_still_in_the_taxonomy() -> None:
    # obsidian-mcp has no authorisation, no rate limits and sends nothing.
    from obsidian_mcp.models import ERROR_CODES

    assert {"auth_required", "rate_limited", "send_failed"} <= set(ERROR_CODES)


@pytest.mark.transport_independent(reason="the server exits before choosing a transport")
@pytest.mark.parametrize("args", [[], ["--vault", "/nonexistent/vault"]])
def test_without_a_vault_the_server_exits_2_with_one_line(args: list[str]) -> None:
    env = server_env()
    env.pop("OBSIDIAN_VAULT_PATH", None)
    proc = subprocess.run(
        [UV, "run", "--quiet", "--locked", "obsidian-mcp", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "vault" in lines[0], proc.stderr


@pytest.mark.transport_independent(reason="starts the server with subprocess over stdio")
def test_vault_path_comes_from_the_environment_too(vault: Path) -> None:
    env = server_env({"OBSIDIAN_VAULT_PATH": str(vault)})
    proc = subprocess.run(
        [UV, "run", "--quiet", "--locked", "obsidian-mcp"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )
    assert proc.returncode == 0, proc.stderr  # stdin closed at once: a clean exit, not a vault error
    assert os.path.isdir(vault)
