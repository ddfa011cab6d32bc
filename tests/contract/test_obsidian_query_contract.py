"""obsidian-mcp's query_notes and update_task through real stdio: each works on the sample vault,
and each error code they can return is produced, valid against their errorSchema and logged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.contract.checks import assert_error
from tests.contract.harness import SharedObsidian, obsidian, running

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"
SHED = "Projects/Garden Shed.md"
SHED_TASK = "- [ ] Remaining wall frames and door opening"


async def test_query_and_complete_a_task_on_the_sample_vault(vault: Path, index_env: dict[str, str]) -> None:
    before = (vault / SHED).read_bytes()
    async with running(obsidian(vault), index_env) as session:
        found = await session.call("query_notes", {"query": f'TASK FROM "{SHED[:-3]}" WHERE !completed'})
        assert found.error is None, found.payload
        first = found.payload["tasks"][0]
        assert (first["path"], first["line"], first["text"]) == (SHED, 20, SHED_TASK[6:])
        done = await session.call(
            "update_task", {"path": SHED, "line": 20, "expected_text": first["text"], "status": "x"}
        )
        assert done.error is None, done.payload
        assert done.payload["text"] == "- [x] Remaining wall frames and door opening"
        table = await session.call(
            "query_notes", {"query": 'TABLE length(file.tasks) AS tasks FROM "Projects" SORT file.name', "limit": 2}
        )
        assert table.error is None and table.payload["columns"] == ["File", "tasks"] and table.payload["truncated"]
    assert (vault / SHED).read_bytes() == before.replace(SHED_TASK.encode(), b"- [x]" + SHED_TASK[5:].encode())


@pytest.mark.parametrize(
    ("tool", "arguments", "field", "reason"),
    [
        ("query_notes", {"query": "TABLE status FROM"}, "query", "invalid_query"),
        ("query_notes", {"query": "CALENDAR file.day"}, "query", "invalid_query"),
        ("query_notes", {"query": "LIST", "limit": 0}, "limit", "greater_than_equal"),
        ("query_notes", {"query": "x" * 10_001}, "query", "string_too_long"),
        ("query_notes", {}, "query", "missing"),
        ("update_task", {"path": SHED, "line": 1, "expected_text": "---", "status": "x"}, "line", "not_a_task"),
        ("update_task", {"path": SHED, "line": 999, "expected_text": "", "status": "x"}, "line", "out_of_range"),
        ("update_task", {"path": SHED, "line": 0, "expected_text": "", "status": "x"}, "line", "greater_than_equal"),
        (
            "update_task",
            {"path": SHED, "line": 20, "expected_text": SHED_TASK, "status": "xx"},
            "status",
            "string_too_long",
        ),
        (
            "update_task",
            {"path": SHED, "line": 20, "expected_text": SHED_TASK, "status": "]"},
            "status",
            "invalid_value",
        ),
    ],
)
async def test_parse_error_for_bad_queries_and_task_lines(
    shared_obsidian: SharedObsidian, tool: str, arguments: dict[str, object], field: str, reason: str
) -> None:
    session, vault = shared_obsidian.session, shared_obsidian.vault
    before = (vault / SHED).read_bytes()
    answer = await session.call(tool, arguments)
    details = assert_error(session, answer, "parse_error", server=SERVER, tool=tool, field=field, reason=reason)
    if reason == "invalid_query":
        assert (
            isinstance(details["position"], int) and f"(at position {details['position']})" in answer.payload["message"]
        )
    assert (vault / SHED).read_bytes() == before


async def test_permission_denied_for_a_changed_line_paths_and_read_only(vault: Path, index_env: dict[str, str]) -> None:
    before = (vault / SHED).read_bytes()
    async with running(obsidian(vault), index_env) as session:
        answer = await session.call(
            "update_task", {"path": SHED, "line": 21, "expected_text": SHED_TASK, "status": "x"}
        )
        details = assert_error(
            session, answer, "permission_denied", server=SERVER, tool="update_task", reason="changed"
        )
        assert details["line"] == 21 and details["current_text"] == "- [ ] Roof: OSB boards, felt, drip edge"
        for path, reason in (("../outside", "outside_vault"), (".obsidian/app", "hidden_path")):
            answer = await session.call("update_task", {"path": path, "line": 1, "expected_text": "", "status": "x"})
            assert_error(session, answer, "permission_denied", server=SERVER, tool="update_task", reason=reason)
    async with running(obsidian(vault, "--read-only"), index_env) as session:
        assert "update_task" not in await session.tool_names()
        answer = await session.call(
            "update_task", {"path": SHED, "line": 20, "expected_text": SHED_TASK, "status": "x"}
        )
        assert_error(session, answer, "permission_denied", server=SERVER, tool="update_task", reason="read_only")
        assert (await session.call("query_notes", {"query": "LIST FROM #project"})).error is None
    assert (vault / SHED).read_bytes() == before


async def test_not_found_for_a_missing_note(shared_obsidian: SharedObsidian) -> None:
    session = shared_obsidian.session
    answer = await session.call("update_task", {"path": "Projects/Nope", "line": 1, "expected_text": "", "status": "x"})
    assert_error(session, answer, "not_found", server=SERVER, tool="update_task", resource="note")


async def test_mcp_unavailable_and_internal_error(vault: Path, index_env: dict[str, str]) -> None:
    env = {**index_env, "OBSIDIAN_MCP_CRASH_TOOLS": "query_notes"}
    async with running(obsidian(vault), env) as session:
        answer = await session.call("query_notes", {"query": "LIST"})
        details = assert_error(session, answer, "internal_error", server=SERVER, tool="query_notes")
        assert answer.payload["message"] == f"internal error (request id {details['request_id']})"
    async with running(obsidian(vault), index_env) as session:
        assert (await session.call("query_notes", {"query": "LIST"})).error is None
        moved = vault.with_name("vault-unmounted")
        vault.rename(moved)
        try:
            calls: list[tuple[str, dict[str, object]]] = [
                ("query_notes", {"query": "LIST"}),
                ("update_task", {"path": SHED, "line": 20, "expected_text": SHED_TASK, "status": "x"}),
            ]
            for tool, arguments in calls:
                answer = await session.call(tool, arguments)
                assert_error(session, answer, "mcp_unavailable", server=SERVER, tool=tool, service="vault")
        finally:
            moved.rename(vault)
        assert (await session.call("query_notes", {"query": "LIST"})).error is None
