"""obsidian-mcp's periodic notes, templates, check_links and rename_tag through a real server:
each works on the sample vault, and every error path they add answers in the contract and
changes nothing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.contract.checks import assert_error
from tests.contract.harness import obsidian, running

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"


def digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def with_templates_folder(vault: Path) -> None:
    (vault / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}', encoding="utf-8")


async def test_every_new_error_path_is_typed_and_changes_nothing(vault: Path, index_env: dict[str, str]) -> None:
    with_templates_folder(vault)
    before = digest(vault)
    async with running(obsidian(vault), index_env) as session:

        async def refused(tool: str, arguments: dict[str, object], code: str, **details: object) -> None:
            answer = await session.call(tool, arguments)
            assert_error(session, answer, code, server=SERVER, tool=tool, **details)

        # daily_note(period)
        await refused("daily_note", {"period": "fortnight"}, "parse_error", field="period")
        await refused(
            "daily_note",
            {"date": "2026-11-23", "period": "week", "create": False},
            "not_found",
            resource="note",
            path="2026-W48.md",
        )
        # write_note(template)
        await refused(
            "write_note",
            {"path": "New", "template": "No Such Template"},
            "not_found",
            resource="template",
            path="Templates/No Such Template.md",
        )
        await refused("write_note", {"path": "New"}, "parse_error", field="content", reason="missing")
        await refused(
            "write_note", {"path": "New", "template": "../escape"}, "permission_denied", reason="outside_vault"
        )
        await refused(
            "write_note", {"path": "New", "template": ".obsidian/app"}, "permission_denied", reason="hidden_path"
        )
        await refused("write_note", {"path": "Home", "template": "Meeting"}, "permission_denied", reason="exists")
        # check_links
        await refused("check_links", {"folder": "No Such Folder"}, "not_found", resource="folder")
        await refused("check_links", {"folder": ".obsidian"}, "permission_denied", reason="hidden_path")
        await refused("check_links", {"cursor": "not a cursor"}, "parse_error", field="cursor", reason="invalid")
        await refused("check_links", {"limit": 0}, "parse_error", field="limit")
        page = await session.call("check_links", {"limit": 1})
        await refused(
            "check_links",
            {"folder": "Projects", "cursor": page.payload["next_cursor"]},
            "parse_error",
            reason="mismatch",
        )
        # rename_tag
        await refused(
            "rename_tag", {"tag": "two words", "new_tag": "x"}, "parse_error", field="tag", reason="invalid_tag"
        )
        await refused("rename_tag", {"tag": "project", "new_tag": "a//b"}, "parse_error", field="new_tag")
        await refused(
            "rename_tag", {"tag": "#work", "new_tag": "work"}, "parse_error", field="new_tag", reason="same_tag"
        )
        await refused("rename_tag", {"tag": "work"}, "parse_error", field="new_tag", reason="missing")
    assert digest(vault) == before


async def test_the_vault_vanishing_is_mcp_unavailable_for_the_new_tools(vault: Path, index_env: dict[str, str]) -> None:
    async with running(obsidian(vault), index_env) as session:
        assert (await session.call("check_links", {})).error is None
        moved = vault.with_name("vault-unmounted")
        vault.rename(moved)
        try:
            for tool, arguments in [
                ("check_links", {}),
                ("rename_tag", {"tag": "work", "new_tag": "job"}),
                ("daily_note", {"period": "month"}),
            ]:
                answer = await session.call(tool, arguments)
                assert_error(session, answer, "mcp_unavailable", server=SERVER, tool=tool, service="vault")
        finally:
            moved.rename(vault)


async def test_read_only_mode_hides_rename_tag_and_keeps_the_readers(vault: Path, index_env: dict[str, str]) -> None:
    before = digest(vault)
    async with running(obsidian(vault, "--read-only"), index_env) as session:
        names = set(await session.tool_names())
        assert "rename_tag" not in names and {"check_links", "daily_note"} <= names
        answer = await session.call("rename_tag", {"tag": "work", "new_tag": "job"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="rename_tag", reason="read_only")
        answer = await session.call("daily_note", {"date": "2026-11-23", "period": "week"})
        assert_error(session, answer, "not_found", server=SERVER, tool="daily_note", resource="note")
        assert (await session.call("check_links", {})).error is None
    assert digest(vault) == before


async def test_the_new_tools_work_on_the_sample_vault(vault: Path, index_env: dict[str, str]) -> None:
    with_templates_folder(vault)
    plugin = vault / ".obsidian" / "plugins" / "periodic-notes"
    plugin.mkdir(parents=True)
    settings = {
        "calendarSets": [{"id": "Default", "week": {"enabled": True, "folder": "Weekly", "format": "GGGG-[W]WW"}}]
    }
    (plugin / "data.json").write_text(json.dumps(settings), encoding="utf-8")
    async with running(obsidian(vault), index_env) as session:
        week = await session.call("daily_note", {"date": "2027-01-01", "period": "week"})
        assert (week.payload["path"], week.payload["created"]) == ("Weekly/2026-W53.md", True)
        month = await session.call("daily_note", {"date": "2026-11-23", "period": "month"})
        assert month.payload["path"] == "2026-11.md"

        written = await session.call("write_note", {"path": "Meetings/Kickoff", "template": "Meeting", "content": "x"})
        assert written.error is None and written.payload["warnings"] == []
        text = (vault / "Meetings" / "Kickoff.md").read_text(encoding="utf-8")
        assert text.startswith('---\ntitle: "Kickoff"\n') and "{{" not in text and text.endswith("\nx")

        checked = await session.call("check_links", {})
        assert checked.error is None
        assert {"path": "Inbox.md", "line": 6, "target": "Kitchen Renovation"} in checked.payload["unresolved"]
        assert "Meetings/Kickoff.md" in checked.payload["orphans"]  # nothing links to the new note yet

        renamed = await session.call("rename_tag", {"tag": "project/alpha", "new_tag": "alpha"})
        assert renamed.error is None and "Projects/Alpha.md" in renamed.payload["updated_notes"]
        # the index saw the rewrites at once: the old tag is gone, the new one finds the notes
        tags = {entry["tag"] for entry in (await session.call("list_tags", {})).payload["tags"]}
        assert "alpha" in tags and "project/alpha" not in tags
        found = await session.call("search_notes", {"query": "sync engine", "tags": ["alpha"]})
        assert "Projects/Alpha.md" in {hit["path"] for hit in found.payload["results"]}
