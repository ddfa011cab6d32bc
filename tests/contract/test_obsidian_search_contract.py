"""obsidian-mcp's search and link tools through real stdio: each works on the sample vault, each
error code they can return is produced, and a large vault answers while its index builds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp_types import TextContent

from tests.contract.checks import assert_error
from tests.contract.harness import REPO, UV, SharedObsidian, obsidian, running, server_env

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


async def test_search_tags_and_backlinks_answer_on_the_sample_vault(
    vault: Path, index_env: dict[str, str], tmp_path: Path
) -> None:
    before = tree(vault)
    async with running(obsidian(vault), index_env) as session:
        found = await session.call("search_notes", {"query": "roofing felt", "limit": 5, "mode": "keyword"})
        assert found.error is None, found.payload
        assert found.payload["total"] == 3
        top = found.payload["results"][0]
        assert set(top) == {"path", "title", "score", "line", "heading", "snippet", "match"}
        assert top["match"] == "words"
        assert "roofing felt" in top["snippet"].lower() and top["score"] > 0

        tags = await session.call("list_tags", {})
        counted = {entry["tag"]: entry["count"] for entry in tags.payload["tags"]}
        assert counted["café"] >= 1 and counted["project/alpha"] >= 1
        assert "fake-tag" not in counted  # only inside code in the cheatsheet

        links = await session.call("get_backlinks", {"path": "Projects/Meeting Notes"})
        assert links.error is None, links.payload
        assert "Daily/2026-11-23.md" not in {b["path"] for b in links.payload["backlinks"]}
        assert "Daily/2026-11-23.md" in {a["path"] for a in links.payload["ambiguous"]}
    assert tree(vault) == before, "reading tools must not write inside the vault"
    assert list((tmp_path / "index").rglob("index.sqlite3")), "the index lives in OBSIDIAN_MCP_INDEX_DIR"


async def test_move_note_rewrites_links_and_daily_note_follows_the_settings(
    vault: Path, index_env: dict[str, str]
) -> None:
    async with running(obsidian(vault), index_env) as session:
        moved = await session.call("move_note", {"path": "Projects/Garden Shed", "new_path": "Archive/Shed Build"})
        assert moved.error is None, moved.payload
        assert moved.payload["new_path"] == "Archive/Shed Build.md"
        assert "Home.md" in moved.payload["updated_notes"]
        assert "[[Shed Build]] — building it" in (vault / "Home.md").read_text(encoding="utf-8")
        assert not (vault / "Projects" / "Garden Shed.md").exists()

        made = await session.call("daily_note", {"date": "2026-11-22"})
        assert made.error is None, made.payload
        assert made.payload["path"] == "Daily/2026-11-22.md" and made.payload["created"] is True
        assert "# 2026-11-22" in made.payload["content"] and 'date: "2026-11-22"' in made.payload["content"]
        again = await session.call("daily_note", {"date": "2026-11-22"})
        assert again.payload["created"] is False and again.payload["content"] == made.payload["content"]

        found = await session.call("search_notes", {"query": "Shed Build"})
        assert found.payload["results"][0]["path"] == "Archive/Shed Build.md"


async def test_not_found_for_missing_notes_folders_and_daily_notes(shared_obsidian: SharedObsidian) -> None:
    session, vault = shared_obsidian.session, shared_obsidian.vault
    answer = await session.call("get_backlinks", {"path": "Projects/No Such Note"})
    assert_error(session, answer, "not_found", server=SERVER, tool="get_backlinks", resource="note")
    answer = await session.call("daily_note", {"date": "2026-11-22", "create": False})
    assert_error(session, answer, "not_found", server=SERVER, tool="daily_note", path="Daily/2026-11-22.md")
    answer = await session.call("search_notes", {"query": "shed", "folder": "Nowhere"})
    assert_error(session, answer, "not_found", server=SERVER, tool="search_notes", resource="folder")
    answer = await session.call("list_tags", {"folder": "Nowhere"})
    assert_error(session, answer, "not_found", server=SERVER, tool="list_tags", resource="folder")
    answer = await session.call("move_note", {"path": "Nope", "new_path": "Elsewhere"})
    assert_error(session, answer, "not_found", server=SERVER, tool="move_note", resource="note")
    assert not (vault / "Daily" / "2026-11-22.md").exists()


async def test_permission_denied_for_moves_onto_notes_and_out_of_the_vault(
    vault: Path, index_env: dict[str, str]
) -> None:
    (vault.parent / "outside.md").write_text("outside\n", encoding="utf-8")
    async with running(obsidian(vault), index_env) as session:
        answer = await session.call("move_note", {"path": "Inbox", "new_path": "Home"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="move_note", reason="exists")
        answer = await session.call("move_note", {"path": "Inbox", "new_path": "../outside-2"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="move_note", reason="outside_vault")
        answer = await session.call("move_note", {"path": "Inbox", "new_path": ".obsidian/Inbox"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="move_note", reason="hidden_path")
        answer = await session.call("search_notes", {"query": "x", "folder": "../"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="search_notes", reason="outside_vault")
        answer = await session.call("get_backlinks", {"path": "/etc/passwd"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="get_backlinks", reason="outside_vault")
        answer = await session.call("list_tags", {"folder": ".obsidian"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="list_tags", reason="hidden_path")
        settings = vault / ".obsidian" / "daily-notes.json"
        settings.write_text('{"folder": "../elsewhere"}', encoding="utf-8")
        answer = await session.call("daily_note", {"date": "2026-11-22"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="daily_note", reason="outside_vault")
    assert (vault / "Inbox.md").exists() and (vault.parent / "outside.md").read_text() == "outside\n"
    assert not (vault.parent / "elsewhere").exists()
    assert not (vault.parent / "outside-2.md").exists()


@pytest.mark.parametrize(
    ("tool", "arguments", "field", "reason"),
    [
        ("search_notes", {"query": ""}, "query", "empty"),
        ("search_notes", {"query": '"" * ^ ((('}, "query", "empty"),
        ("search_notes", {"query": "-draft"}, "query", "no_positive_terms"),
        ("search_notes", {"query": "x" * 1001}, "query", "string_too_long"),
        ("search_notes", {"query": "x", "limit": 0}, "limit", "greater_than_equal"),
        ("daily_note", {"date": "2026-13-45"}, "date", "invalid_date"),
        ("daily_note", {"date": "23/11/2026"}, "date", "invalid_date"),
        ("daily_note", {"create": "sometimes"}, "create", "bool_parsing"),
        ("list_tags", {"folder": 7}, "folder", "string_type"),
        ("get_backlinks", {}, "path", "missing"),
        ("move_note", {"path": "Inbox"}, "new_path", "missing"),
        ("search_notes", {"query": "x", "tags": "project"}, "tags", "list_type"),
    ],
)
async def test_parse_error_for_unusable_queries_and_dates(
    shared_obsidian: SharedObsidian, tool: str, arguments: dict[str, object], field: str, reason: str
) -> None:
    session = shared_obsidian.session
    answer = await session.call(tool, arguments)
    assert_error(session, answer, "parse_error", server=SERVER, tool=tool, field=field, reason=reason)


async def test_internal_error_in_a_search_tool_is_hidden(vault: Path, index_env: dict[str, str]) -> None:
    env = {**index_env, "OBSIDIAN_MCP_CRASH_TOOLS": "search_notes"}
    async with running(obsidian(vault), env) as session:
        answer = await session.call("search_notes", {"query": "shed"})
        details = assert_error(session, answer, "internal_error", server=SERVER, tool="search_notes")
        assert answer.payload["message"] == f"internal error (request id {details['request_id']})"


async def test_mcp_unavailable_when_the_vault_vanishes(vault: Path, index_env: dict[str, str]) -> None:
    async with running(obsidian(vault), index_env) as session:
        assert (await session.call("search_notes", {"query": "shed"})).error is None
        moved = vault.with_name("vault-unmounted")
        vault.rename(moved)
        try:
            for tool, arguments in [
                ("search_notes", {"query": "shed"}),
                ("list_tags", {}),
                ("get_backlinks", {"path": "Home"}),
                ("move_note", {"path": "Inbox", "new_path": "Inbox 2"}),
                ("daily_note", {"date": "2026-11-23"}),
            ]:
                answer = await session.call(tool, arguments)
                assert_error(session, answer, "mcp_unavailable", server=SERVER, tool=tool, service="vault")
        finally:
            moved.rename(vault)
        assert (await session.call("search_notes", {"query": "shed"})).error is None


async def test_read_only_mode_refuses_move_and_never_creates_daily_notes(
    vault: Path, index_env: dict[str, str]
) -> None:
    async with running(obsidian(vault, "--read-only"), index_env) as session:
        names = await session.tool_names()
        assert "move_note" not in names and {"search_notes", "daily_note", "get_backlinks"} <= set(names)
        answer = await session.call("move_note", {"path": "Inbox", "new_path": "Elsewhere"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="move_note", reason="read_only")
        answer = await session.call("daily_note", {"date": "2026-11-22"})
        assert_error(session, answer, "not_found", server=SERVER, tool="daily_note", resource="note")
        existing = await session.call("daily_note", {"date": "2026-11-23"})
        assert existing.error is None and existing.payload["created"] is False
    assert (vault / "Inbox.md").exists() and not (vault / "Daily" / "2026-11-22.md").exists()


async def test_a_large_vault_answers_completely_while_its_index_builds_and_waiting_tools_report_progress(
    tmp_path: Path, index_env: dict[str, str]
) -> None:
    root = tmp_path / "big"
    for n in range(3000):  # well above what a call waits for (build.PARTIAL_MIN)
        folder = root / f"area {n % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        body = f"# Note {n}\n\nSome text about topic{n % 37} and the lighthouse {n}.\n\n#batch{n % 5}\n"
        (folder / f"note {n}.md").write_text(body, encoding="utf-8")
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    async with running(obsidian(root), index_env) as session:
        first = await session.call("search_notes", {"query": "lighthouse", "mode": "keyword", "limit": 1})
        assert first.error is None, first.payload
        assert first.payload["warnings"] == [] and first.payload["total"] == 3000  # complete from the first call
        last = await session.call("search_notes", {"query": "lighthouse 2999", "mode": "keyword"})
        assert [hit["path"] for hit in last.payload["results"]] == ["area 19/note 2999.md"]
        hybrid = await session.call("search_notes", {"query": "topic36 lighthouse"})
        assert hybrid.payload["total"] >= 81 and {hit["match"] for hit in hybrid.payload["results"]} == {"words"}
        assert "INDEX_BUILDING" not in [warning["code"] for warning in hybrid.payload["warnings"]]

        result = await session.client.call_tool("list_tags", {}, progress_callback=on_progress)
        assert isinstance(result.content[0], TextContent)
        counted = {entry["tag"]: entry["count"] for entry in json.loads(result.content[0].text)["tags"]}
        assert counted == {f"batch{k}": 600 for k in range(5)}  # it waited for the whole index
        assert all(total == 3000 for _, total in seen) and [p for p, _ in seen] == sorted(p for p, _ in seen)
        assert not seen or seen[-1][0] == 3000

        again = await session.call("search_notes", {"query": "lighthouse 1234", "mode": "keyword"})
        assert again.payload["warnings"] == [] and again.payload["results"][0]["path"] == "area 14/note 1234.md"


@pytest.mark.transport_independent(reason="the server exits before choosing a transport")
def test_an_index_folder_inside_the_vault_is_refused_at_start(vault: Path) -> None:
    proc = subprocess.run(
        [UV, "run", "--quiet", "--locked", *obsidian(vault, "--index-dir", str(vault / ".obsidian" / "index"))],
        cwd=REPO,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "outside the vault" in json.loads(lines[0])["message"]
    assert not (vault / ".obsidian" / "index").exists()
