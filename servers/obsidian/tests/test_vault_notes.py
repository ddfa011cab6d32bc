"""Note operations end to end on a temporary vault."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import (
    DocumentParseError,
    EtagMismatch,
    HeadingNotFound,
    InvalidArgument,
    NoteExists,
    NoteNotFound,
)
from obsidian_mcp.vault.markdown import Link
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.results import DeleteResult, FrontmatterResult, ReadNoteResult, WriteNoteResult, WriteResult
from obsidian_mcp.vault.storage import PathLocks, etag_of

RICH = "---\ntags: [fm]\n---\n# Title\nSee [[Other|o]] and #inline.\n" + "x" * 50 + "\n"


def _state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), os.stat(path).st_mtime_ns


# -- read_note ----------------------------------------------------------------------------------


def test_read_note_whole(vault: Vault) -> None:
    (vault.root / "Rich.md").write_text(RICH, encoding="utf-8")
    result = notes.read_note(vault, "Rich")
    assert result == ReadNoteResult(
        path="Rich.md",
        content=RICH,
        frontmatter={"tags": ["fm"]},
        tags=["fm", "inline"],
        links=[Link(target="Other", alias="o", kind="wikilink", line=5)],
        etag=etag_of(RICH.encode()),
        size=len(RICH),
        truncated=False,
        next_offset=None,
        warnings=[],
    )


def test_read_note_pages_but_parses_the_whole_note(vault: Vault) -> None:
    (vault.root / "Rich.md").write_text(RICH, encoding="utf-8")
    first = notes.read_note(vault, "Rich.md", max_chars=10)
    assert first.content == RICH[:10]
    assert (first.truncated, first.next_offset) == (True, 10)
    assert first.tags == ["fm", "inline"]
    assert first.size == len(RICH)
    assert [w.model_dump() for w in first.warnings] == [
        {
            "code": "CONTENT_TRUNCATED",
            "message": f"returned 10 of {len(RICH)} characters; call again with offset=10 for more",
            "next_offset": 10,
        }
    ]
    pieces: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = notes.read_note(vault, "Rich.md", offset=offset, max_chars=17)
        pieces.append(page.content)
        offset = page.next_offset
    assert "".join(pieces) == RICH
    assert notes.read_note(vault, "Rich.md", offset=len(RICH)).content == ""


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"offset": -1}, "offset"),
        ({"offset": 10_000}, "offset"),
        ({"max_chars": 0}, "max_chars"),
        ({"offset": True}, "offset"),
    ],
)
def test_read_note_bad_arguments(vault: Vault, kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        notes.read_note(vault, "Note", **kwargs)
    assert caught.value.field == field


def test_read_missing_and_broken_notes(vault: Vault) -> None:
    with pytest.raises(NoteNotFound):
        notes.read_note(vault, "Missing")
    (vault.root / "Bad.md").write_text("---\na: 1\nb: [\n---\nbody #t\n")
    with pytest.raises(DocumentParseError) as caught:
        notes.read_note(vault, "Bad")
    assert caught.value.line == 4
    lenient = notes.read_note(vault, "Bad", strict_frontmatter=False)
    assert lenient.content.endswith("body #t\n")
    assert lenient.frontmatter == {}
    [warning] = lenient.warnings
    assert (warning.code, warning.model_extra) == (
        "FRONTMATTER_INVALID",
        {"line": 4, "problem": caught.value.problem},
    )
    (vault.root / "Latin.md").write_bytes(b"caf\xe9")
    with pytest.raises(DocumentParseError):
        notes.read_note(vault, "Latin")


# -- list_notes ---------------------------------------------------------------------------------


def test_list_notes_pages_cover_every_note_once(vault: Vault) -> None:
    expected = {"Note.md", "alias.md", "aliasdir/Sub.md", "folder/Sub.md"}
    for index in range(23):
        folder = vault.root / f"d{index % 3}" / f"e{index % 2}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{index:02}.md").write_text(str(index))
        expected.add(f"d{index % 3}/e{index % 2}/n{index:02}.md")
    (vault.root / "d0" / ".n00.md.0123abcd.obsidian-mcp.tmp").write_text("temp")
    (vault.root / "d0" / "image.png").write_bytes(b"")
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = notes.list_notes(vault, limit=7, cursor=cursor)
        pages += 1
        assert len(page.notes) <= 7
        seen.extend(item.path for item in page.notes)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == seen
    assert len(seen) == len(set(seen))
    assert set(seen) == expected
    assert pages == -(-len(expected) // 7)


def test_list_notes_fields_and_folder(vault: Vault) -> None:
    page = notes.list_notes(vault, folder="folder", recursive=False)
    assert page.next_cursor is None
    [item] = page.notes
    assert item.path == "folder/Sub.md"
    assert item.size == 4
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", item.modified)


def test_list_notes_never_shows_hidden_things(vault: Vault) -> None:
    listed = [item.path for item in notes.list_notes(vault, limit=1000).notes]
    assert not any(part.startswith(".") for path in listed for part in path.split("/"))
    assert "link-out.md" not in listed


def test_list_notes_bad_arguments(vault: Vault) -> None:
    for cursor in ("", "not base64!", "bm90IGpzb24=", "W10="):
        with pytest.raises(InvalidArgument) as caught:
            notes.list_notes(vault, cursor=cursor)
        assert caught.value.field == "cursor"
    (vault.root / "folder" / "Two.md").write_text("2")
    cursor = notes.list_notes(vault, folder="folder", limit=1).next_cursor
    assert cursor is not None
    with pytest.raises(InvalidArgument) as mismatch:
        notes.list_notes(vault, folder="", cursor=cursor)
    assert mismatch.value.reason == "mismatch"
    with pytest.raises(InvalidArgument):
        notes.list_notes(vault, limit=0)
    with pytest.raises(NoteNotFound):
        notes.list_notes(vault, folder="nope")


# -- write_note ---------------------------------------------------------------------------------


def test_write_note_create_and_overwrite(vault: Vault, vault_locks: PathLocks) -> None:
    content = "\ufeff# New\r\nnö trailing newline"
    created = notes.write_note(vault, vault_locks, "deep/er/New", content)
    assert created == WriteNoteResult(path="deep/er/New.md", etag=etag_of(content.encode()), created=True)
    assert (vault.root / "deep" / "er" / "New.md").read_bytes() == content.encode()
    with pytest.raises(NoteExists):
        notes.write_note(vault, vault_locks, "deep/er/New", "again")
    replaced = notes.write_note(vault, vault_locks, "deep/er/New", "v2", mode="overwrite")
    assert replaced.created is False
    fresh = notes.write_note(vault, vault_locks, "Fresh", "v1", mode="overwrite")
    assert fresh.created is True
    with pytest.raises(InvalidArgument):
        notes.write_note(vault, vault_locks, "X", "v", mode="append")


def test_write_note_etag(vault: Vault, vault_locks: PathLocks) -> None:
    note = vault.root / "Note.md"
    etag = notes.read_note(vault, "Note").etag
    before = _state(note)
    with pytest.raises(EtagMismatch) as caught:
        notes.write_note(vault, vault_locks, "Note", "lost update", mode="overwrite", expected_etag="stale")
    assert caught.value.current_etag == etag
    assert _state(note) == before
    result = notes.write_note(vault, vault_locks, "Note", "ok", mode="overwrite", expected_etag=etag)
    assert result.etag == etag_of(b"ok")
    with pytest.raises(NoteNotFound):
        notes.write_note(vault, vault_locks, "Gone", "x", mode="overwrite", expected_etag=etag)


# -- edits through the vault --------------------------------------------------------------------


def test_append_to_note(vault: Vault, vault_locks: PathLocks) -> None:
    result = notes.append_to_note(vault, vault_locks, "Note", "- item\n", heading="Note")
    assert (vault.root / "Note.md").read_text() == "# Note\n\nHello\n- item\n"
    assert result.etag == etag_of((vault.root / "Note.md").read_bytes())
    assert result.created is False
    with pytest.raises(NoteNotFound):
        notes.append_to_note(vault, vault_locks, "Missing", "x")
    with pytest.raises(HeadingNotFound):
        notes.append_to_note(vault, vault_locks, "Note", "x", heading="Nope")
    made = notes.append_to_note(vault, vault_locks, "Log", "first\n", create_if_missing=True)
    assert made.created is True
    assert (vault.root / "Log.md").read_text() == "first\n"
    notes.append_to_note(vault, vault_locks, "Tasks", "- a\n", heading="## Todo", create_if_missing=True)
    assert (vault.root / "Tasks.md").read_text() == "## Todo\n- a\n"


def test_concurrent_appends_all_land(vault: Vault, vault_locks: PathLocks) -> None:
    (vault.root / "Busy.md").write_text("# Busy\n")
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def worker(number: int) -> None:
        try:
            barrier.wait()
            notes.append_to_note(vault, vault_locks, "Busy", f"line {number}\n")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    lines = (vault.root / "Busy.md").read_text().splitlines()
    assert lines[0] == "# Busy"
    assert sorted(lines[1:]) == [f"line {n}" for n in range(8)]


def test_replace_section_with_etag(vault: Vault, vault_locks: PathLocks) -> None:
    note = vault.root / "Note.md"
    before = _state(note)
    with pytest.raises(EtagMismatch):
        notes.replace_section(vault, vault_locks, "Note", "Note", "new\n", expected_etag="stale")
    with pytest.raises(HeadingNotFound):
        notes.replace_section(vault, vault_locks, "Note", "Missing", "new\n")
    assert _state(note) == before
    etag = etag_of(before[0])
    result = notes.replace_section(vault, vault_locks, "Note", "# Note", "Bye\n", expected_etag=etag)
    assert note.read_text() == "# Note\nBye\n"
    assert result == WriteResult(path="Note.md", etag=etag_of(b"# Note\nBye\n"), created=False)


def test_update_frontmatter(vault: Vault, vault_locks: PathLocks) -> None:
    note = vault.root / "Note.md"
    result = notes.update_frontmatter(vault, vault_locks, "Note", {"status": "draft", "n": 2}, [])
    assert note.read_text() == "---\nstatus: draft\nn: 2\n---\n# Note\n\nHello\n"
    assert result == FrontmatterResult(
        path="Note.md", etag=etag_of(note.read_bytes()), frontmatter={"status": "draft", "n": 2}
    )
    again = notes.update_frontmatter(vault, vault_locks, "Note", {}, ["absent"])
    assert again == result


def test_update_frontmatter_invalid_yaml_leaves_the_file(vault: Vault, vault_locks: PathLocks) -> None:
    note = vault.root / "Bad.md"
    note.write_text("---\ntitle: x\nlist: [a, b\nother: 1\n---\nbody\n")
    before = _state(note)
    with pytest.raises(DocumentParseError) as caught:
        notes.update_frontmatter(vault, vault_locks, "Bad", {"title": "y"}, [])
    assert caught.value.line == 4
    assert caught.value.path == "Bad.md"
    assert _state(note) == before


def test_delete_note_moves_to_trash(vault: Vault, vault_locks: PathLocks) -> None:
    (vault.root / "folder" / "Note.md").write_text("in folder")
    assert notes.delete_note(vault, vault_locks, "Note") == DeleteResult(path="Note.md", trashed_to=".trash/Note.md")
    assert notes.delete_note(vault, vault_locks, "folder/Note") == DeleteResult(
        path="folder/Note.md", trashed_to=".trash/Note 1.md"
    )
    assert (vault.root / ".trash" / "Note 1.md").read_text() == "in folder"
    with pytest.raises(NoteNotFound):
        notes.read_note(vault, "Note")
    with pytest.raises(NoteNotFound):
        notes.delete_note(vault, vault_locks, "Note")


def test_edits_on_disk_are_byte_exact(vault: Vault, vault_locks: PathLocks) -> None:
    note = vault.root / "Win.md"
    note.write_bytes("\ufeff---\r\ntitle: Ünï # c\r\n---\r\n## A\r\nold\r\n\r\n## B\r\nend".encode())
    notes.update_frontmatter(vault, vault_locks, "Win", {"n": 1}, [])
    notes.replace_section(vault, vault_locks, "Win", "A", "new\n")
    notes.append_to_note(vault, vault_locks, "Win", "more", heading="B")
    expected = "\ufeff---\r\ntitle: Ünï # c\r\nn: 1\r\n---\r\n## A\r\nnew\r\n\r\n## B\r\nend\r\nmore"
    assert note.read_bytes() == expected.encode()


# -- moving (the file side of move_note; the links are test_links_move.py's) ---------------------


def test_a_move_never_replaces_a_note_created_after_the_check(vault: Vault, vault_locks: PathLocks) -> None:
    planned = notes.check_move(vault, "Note", "folder/Moved")
    (vault.root / "folder" / "Moved.md").write_text("created meanwhile")
    with pytest.raises(NoteExists):
        notes.move_file(vault, vault_locks, planned)
    assert (vault.root / "Note.md").read_text() == "# Note\n\nHello\n"
    assert (vault.root / "folder" / "Moved.md").read_text() == "created meanwhile"
    notes.move_file(vault, vault_locks, notes.check_move(vault, "Note", "new/deep/Moved"))
    assert (vault.root / "new" / "deep" / "Moved.md").read_text() == "# Note\n\nHello\n"
    assert not (vault.root / "Note.md").exists()


def test_rewrite_note_writes_only_a_changed_text(vault: Vault, vault_locks: PathLocks) -> None:
    note = vault.root / "Note.md"
    before = _state(note)
    assert notes.rewrite_note(vault, vault_locks, "Note", lambda text, rel: text) is False
    assert _state(note) == before
    assert notes.rewrite_note(vault, vault_locks, "Note", lambda text, rel: text.replace("Hello", rel)) is True
    assert note.read_text() == "# Note\n\nNote.md\n"
