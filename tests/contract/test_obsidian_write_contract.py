"""The obsidian write tools through real stdio: refusals change nothing, edits change only what was asked."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.contract.checks import assert_error
from tests.contract.harness import running

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"

HOSTILE = [
    "../escape",
    "/tmp/escape",
    "C:\\Windows\\escape",
    "a/../../escape",
    "..\\escape",
    ".obsidian/escape",
    ".git/config",
    "Projects/\x00escape",
    "Projects/.hidden/escape",
]
WRITE_CALLS = {
    "write_note": {"content": "x", "mode": "overwrite"},
    "append_to_note": {"content": "x", "create_if_missing": True},
    "replace_section": {"heading": "Tasks", "content": "x"},
    "update_frontmatter": {"set": {"x": 1}},
    "delete_note": {},
    "read_note": {},
}


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


async def test_every_path_tool_refuses_hostile_paths_and_changes_nothing(vault: Path) -> None:
    outside = vault.parent
    (outside / "escape.md").write_text("outside\n")
    before = tree_digest(outside)
    async with running(["obsidian-mcp", "--vault", str(vault)]) as session:
        for tool, extra in WRITE_CALLS.items():
            for path in HOSTILE:
                answer = await session.call(tool, {"path": path, **extra})
                assert answer.error == "permission_denied", (tool, path, answer.payload)
                assert_error(session, answer, "permission_denied", server=SERVER, tool=tool)
    assert tree_digest(outside) == before


async def test_create_refuses_an_existing_note_and_a_stale_etag_changes_nothing(vault: Path) -> None:
    note = vault / "Projects" / "Alpha.md"
    original = note.read_bytes()
    async with running(["obsidian-mcp", "--vault", str(vault)]) as session:
        answer = await session.call("write_note", {"path": "Projects/Alpha", "content": "new"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="write_note", reason="exists")
        etag = (await session.call("read_note", {"path": "Projects/Alpha"})).payload["etag"]
        note.write_bytes(original + b"\nchanged by another program\n")
        changed = note.read_bytes()
        answer = await session.call(
            "replace_section",
            {"path": "Projects/Alpha", "heading": "Milestones", "content": "x\n", "expected_etag": etag},
        )
        assert_error(
            session, answer, "permission_denied", server=SERVER, tool="replace_section", reason="etag_mismatch"
        )
    assert note.read_bytes() == changed


async def test_missing_heading_and_invalid_yaml_are_typed_and_leave_the_note_alone(vault: Path) -> None:
    broken = vault / "Broken.md"
    broken.write_bytes(b"---\ntitle: [unclosed\nstatus: x\n---\nbody\n")
    async with running(["obsidian-mcp", "--vault", str(vault)]) as session:
        answer = await session.call("replace_section", {"path": "Home", "heading": "No Such Heading", "content": "x"})
        assert_error(session, answer, "not_found", server=SERVER, tool="replace_section", resource="heading")
        answer = await session.call("update_frontmatter", {"path": "Broken", "set": {"status": "done"}})
        details = assert_error(
            session, answer, "parse_error", server=SERVER, tool="update_frontmatter", path="Broken.md"
        )
        assert isinstance(details["line"], int) and details["line"] >= 2
        read = await session.call("read_note", {"path": "Broken"})
        assert read.error is None and read.payload["frontmatter"] == {}
        assert [w["code"] for w in read.payload["warnings"]] == ["FRONTMATTER_INVALID"]
    assert broken.read_bytes() == b"---\ntitle: [unclosed\nstatus: x\n---\nbody\n"


async def test_edits_are_byte_exact_elsewhere_and_delete_goes_to_trash(vault: Path) -> None:
    crlf = vault / "Crlf.md"
    crlf.write_bytes(b"\xef\xbb\xbf---\r\ntitle: T # keep\r\n---\r\n# A\r\none\r\n# B\r\ntwo")
    async with running(["obsidian-mcp", "--vault", str(vault)]) as session:
        appended = await session.call("append_to_note", {"path": "Crlf", "content": "added\n", "heading": "A"})
        assert appended.error is None
        assert (await session.call("update_frontmatter", {"path": "Crlf", "set": {"status": "x"}})).error is None
        assert crlf.read_bytes() == (
            b"\xef\xbb\xbf---\r\ntitle: T # keep\r\nstatus: x\r\n---\r\n# A\r\none\r\nadded\r\n# B\r\ntwo"
        )
        answer = await session.call("delete_note", {"path": "Crlf"})
        assert answer.payload == {"path": "Crlf.md", "trashed_to": ".trash/Crlf.md"}
        assert not crlf.exists() and (vault / ".trash" / "Crlf.md").exists()
        listed = await session.call("list_notes", {"limit": 1000})
        assert all(not n["path"].startswith(".") for n in listed.payload["notes"])
