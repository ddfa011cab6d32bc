"""Private folders (`--exclude`, `OBSIDIAN_MCP_EXCLUDE`, interface.md §5) through a real server.

The same vault and the same index folder are served twice: first without exclusions, where every
probe below finds the private notes (so each check can fail), then with them, where nothing of an
excluded note reaches the client through any tool, resource or completion, writing into one is
refused (`permission_denied`, `excluded`), and no word of it is left in the index files, which the
second start rebuilds because the patterns changed."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from mcp.shared.exceptions import MCPError as McpProtocolError
from mcp_types import ResourceTemplateReference

from tests.contract import harness
from tests.contract.checks import assert_error, assert_protocol_error
from tests.contract.harness import Session, running

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"
SECRETS = ("zanzibarquokka", "quokkadeep", "zanzibarplan", "secretplans")
PATTERNS = ("Private/", "*.secret.md", "Templates/Secret.md", "Daily/2026-11-20.md")
DIARY = """---
status: active
tags: [secretplans]
---
# Diary

zanzibarquokka thoughts about [[Home]] and [[Alpha]].

- [ ] zanzibarquokka errand 📅 2026-11-20
"""


def obsidian(vault: Path, *flags: str) -> list[str]:
    """obsidian-mcp on `vault`, with its index in the folder beside the vault."""
    return harness.obsidian(vault, "--index-dir", str(vault.parent / "index"), *flags)


def excluding() -> list[str]:
    return [flag for pattern in PATTERNS for flag in ("--exclude", pattern)]


def with_private_notes(vault: Path) -> None:
    (vault / "Private" / "Sub").mkdir(parents=True)
    (vault / "Private" / "Diary.md").write_text(DIARY, encoding="utf-8")
    (vault / "Private" / "Sub" / "Deep.md").write_text("quokkadeep\n", encoding="utf-8")
    (vault / "Projects" / "Plan.secret.md").write_text("zanzibarplan #secretplans\n", encoding="utf-8")
    (vault / "Templates" / "Secret.md").write_text("zanzibarquokka template\n", encoding="utf-8")
    (vault / "Linker.md").write_text("See [[Diary]] and [[Deep]].\n", encoding="utf-8")
    os.symlink("Private/Diary.md", vault / "Alias.md")  # a way in through a public name


def digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def index_bytes(vault: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((vault.parent / "index").rglob("*")) if p.is_file())


def paths_in(payload: Any) -> str:
    """Everything a payload says, as text, to look for private names and words in."""
    return repr(payload)


async def probes(session: Session) -> dict[str, str]:
    """What the reading tools say about the private notes, each answer as text."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "list": ("list_notes", {"limit": 500}),
        "search_keyword": ("search_notes", {"query": "zanzibarquokka", "mode": "keyword"}),
        "search_hybrid": ("search_notes", {"query": "zanzibarquokka thoughts"}),
        "search_deep": ("search_notes", {"query": "quokkadeep", "mode": "keyword"}),
        "search_plan": ("search_notes", {"query": "zanzibarplan", "mode": "keyword"}),
        "tags": ("list_tags", {}),
        "backlinks_home": ("get_backlinks", {"path": "Home"}),
        "query_folder": ("query_notes", {"query": 'LIST FROM "Private"'}),
        "query_active": ("query_notes", {"query": 'TABLE status FROM "" WHERE status = "active"'}),
        "query_tasks": ("query_notes", {"query": "TASK WHERE !completed"}),
        "query_tag": ("query_notes", {"query": "LIST FROM #secretplans"}),
        "links": ("check_links", {"limit": 500}),
    }
    return {key: paths_in((await session.call(tool, args)).payload) for key, (tool, args) in calls.items()}


async def test_excluded_notes_are_missing_to_every_tool_and_leave_nothing_in_the_index(vault: Path) -> None:
    with_private_notes(vault)
    # Without exclusions every probe sees the private notes: the checks below can fail.
    async with running(obsidian(vault)) as session:
        seen = await probes(session)
        assert "Private/Diary.md" in seen["list"] and "Alias.md" in seen["list"]
        for key in ("search_keyword", "search_hybrid", "backlinks_home", "query_folder", "query_active"):
            assert "Private/Diary.md" in seen[key], key
        assert "Private/Sub/Deep.md" in seen["search_deep"]
        assert "Projects/Plan.secret.md" in seen["search_plan"]
        assert "secretplans" in seen["tags"] and "Private/Diary.md" in seen["query_tag"]
        assert "zanzibarquokka errand" in seen["query_tasks"]
        assert "Private/Diary.md" not in seen["links"]  # resolved: Linker's links are fine
        assert (await session.call("similar_notes", {"path": "Private/Diary"})).error is None
    assert all(word.encode() in index_bytes(vault) for word in SECRETS[:3])

    before = digest(vault)
    async with running(obsidian(vault, *excluding())) as session:
        seen = await probes(session)
        for key, text in seen.items():
            for hidden in ("Private/", "Alias.md", "Plan.secret", *SECRETS):
                assert hidden not in text, (key, hidden)
        # Linker's links now point nowhere, exactly as links to missing notes do.
        assert "Diary" in seen["links"] and "Deep" in seen["links"]

        async def missing_like(tool: str, arguments: dict[str, Any], resource: str = "note") -> None:
            answer = await session.call(tool, arguments)
            assert_error(session, answer, "not_found", server=SERVER, tool=tool, resource=resource)

        for path in ("Private/Diary", "Private/Sub/Deep.md", "Alias", "Projects/Plan.secret"):
            await missing_like("read_note", {"path": path})
            await missing_like("get_backlinks", {"path": path})
            await missing_like("similar_notes", {"path": path})
        await missing_like("list_notes", {"folder": "Private"}, "folder")
        await missing_like("search_notes", {"query": "x", "folder": "Private"}, "folder")
        await missing_like("check_links", {"folder": "Private/Sub"}, "folder")
        await missing_like("move_note", {"path": "Private/Diary", "new_path": "Public Diary"})
        await missing_like("daily_note", {"date": "2026-11-20", "create": False})
        await missing_like("write_note", {"path": "From Secret", "template": "Secret"}, "template")

        async def refused(tool: str, arguments: dict[str, Any]) -> None:
            answer = await session.call(tool, arguments)
            assert_error(session, answer, "permission_denied", server=SERVER, tool=tool, reason="excluded")

        await refused("write_note", {"path": "Private/New", "content": "x"})
        await refused("write_note", {"path": "Projects/New.secret", "content": "x"})
        await refused("write_note", {"path": "Private/From Template", "template": "Meeting"})
        await refused("append_to_note", {"path": "Private/Diary", "content": "x"})
        await refused("append_to_note", {"path": "Private/Other", "content": "x", "create_if_missing": True})
        await refused("replace_section", {"path": "Private/Diary", "heading": "Diary", "content": "x"})
        await refused("update_frontmatter", {"path": "Private/Diary", "set": {"status": "done"}})
        await refused("update_task", {"path": "Private/Diary", "line": 9, "expected_text": "x", "status": "x"})
        await refused("delete_note", {"path": "Private/Diary"})
        await refused("move_note", {"path": "Inbox", "new_path": "Private/Inbox"})
        await refused("daily_note", {"date": "2026-11-20"})
        renamed = await session.call("rename_tag", {"tag": "secretplans", "new_tag": "renamed"})
        assert renamed.error is None and "Private" not in paths_in(renamed.payload)

        listed = await session.client.list_resources()
        assert not [r for r in listed.resources if "Private" in str(r.uri) or "secret" in str(r.uri)]
        for path in ("Private/Diary.md", "Alias.md"):
            with pytest.raises(McpProtocolError) as raised:
                await session.client.read_resource(f"obsidian://note/{quote(path, safe='')}")
            assert_protocol_error(session, raised.value, -32002, "not_found", server=SERVER, resource="note")
        template = ResourceTemplateReference(uri="obsidian://note/{path}")
        completion = (await session.client.complete(template, {"name": "path", "value": "Priv"})).completion
        assert completion.values == []
        logged = "\n".join(session.stderr_lines())
        assert not any(word in logged for word in SECRETS)

    assert digest(vault) == before, "a refused or rebuilt call changed the vault"
    stored = index_bytes(vault)
    assert stored, "the index was written"
    assert not any(word.encode() in stored for word in SECRETS), "an excluded note's words are in the index"


async def test_the_environment_variable_and_moves_that_skip_private_links(vault: Path) -> None:
    with_private_notes(vault)
    env = {"OBSIDIAN_MCP_EXCLUDE": "Private/, *.secret.md"}
    async with running(obsidian(vault), env) as session:
        listed = paths_in((await session.call("list_notes", {"limit": 500})).payload)
        assert "Home.md" in listed
        assert "Private/" not in listed and "Plan.secret" not in listed
        answer = await session.call("write_note", {"path": "Private/New", "content": "x"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="write_note", reason="excluded")
        # Moving a public note rewrites public links to it, never the links inside excluded notes.
        diary = (vault / "Private" / "Diary.md").read_bytes()
        moved = await session.call("move_note", {"path": "Projects/Alpha", "new_path": "Projects/Alpha Two"})
        assert moved.error is None, moved.payload
        assert "[[Alpha Two" in (vault / "Home.md").read_text(encoding="utf-8")
        assert (vault / "Private" / "Diary.md").read_bytes() == diary
