"""move_note: the file moves atomically and links everywhere keep pointing where they pointed."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from obsidian_mcp import search
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.links import move
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import InvalidArgument, NoteExists, NoteNotFound, PathRefused
from obsidian_mcp.vault.paths import Vault

SHED = """# Garden Shed

Materials in [list](../Resources/Reading%20List.md) and ![plan](img/plan.png).
Part of [[Alpha]]; see [[#Materials]] and [me](Garden%20Shed.md).
"""
HOME = """# Home

- [[Garden Shed]] — building it
- [[Garden Shed|the shed]] and [[Garden Shed#Materials]] and ![[Garden Shed#^roof]]
- [[Projects/Garden Shed]] and [[projects/garden shed.md|x]] and [[ Garden Shed ]]
- [shed](Projects/Garden%20Shed.md#Plan) and [raw](<Projects/Garden Shed.md>)
- `[[Garden Shed]]` in code stays, [[Alpha]] too

```
[[Garden Shed]]
```
"""
HOME_AFTER = """# Home

- [[Shed Build]] — building it
- [[Shed Build|the shed]] and [[Shed Build#Materials]] and ![[Shed Build#^roof]]
- [[Archive/2026/Shed Build]] and [[Archive/2026/Shed Build.md|x]] and [[ Shed Build ]]
- [shed](Archive/2026/Shed%20Build.md#Plan) and [raw](<Archive/2026/Shed Build.md>)
- `[[Garden Shed]]` in code stays, [[Alpha]] too

```
[[Garden Shed]]
```
"""
DAILY = b"\xef\xbb\xbf# Day\r\n\r\nWorked on [[Garden Shed]].\r\n[rel](../Projects/Garden%20Shed.md)"
DAILY_AFTER = b"\xef\xbb\xbf# Day\r\n\r\nWorked on [[Shed Build]].\r\n[rel](../Archive/2026/Shed%20Build.md)"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    files = {
        "Projects/Garden Shed.md": SHED,
        "Home.md": HOME,
        "Resources/Reading List.md": "books\n",
        "Projects/Alpha.md": "# Alpha\n",
        "Projects/Meeting Notes.md": "# Sync\n",
        "Journal.md": "Sync notes: [[Meeting Notes]] and [[Alpha]].\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "Daily").mkdir()
    (root / "Daily" / "2026-11-23.md").write_bytes(DAILY)
    (root / "Projects" / "img").mkdir()
    (root / "Projects" / "img" / "plan.png").write_bytes(b"\x89PNG")
    return root


@pytest.fixture
def locks() -> TrackedLocks:
    return TrackedLocks()


@pytest.fixture
def index(root: Path, tmp_path: Path, locks: TrackedLocks) -> VaultIndex:
    return VaultIndex(Vault(root), tmp_path / "index.sqlite3", changes=locks, rescan_seconds=3600)


def test_links_in_every_style_follow_the_note(root: Path, index: VaultIndex, locks: TrackedLocks) -> None:
    result = move.move_note(index, locks, "Projects/Garden Shed", "Archive/2026/Shed Build")
    assert result.path == "Projects/Garden Shed.md" and result.new_path == "Archive/2026/Shed Build.md"
    assert result.updated_notes == ["Archive/2026/Shed Build.md", "Daily/2026-11-23.md", "Home.md"]
    assert result.warnings == []
    assert not (root / "Projects" / "Garden Shed.md").exists()
    assert (root / "Home.md").read_text(encoding="utf-8") == HOME_AFTER
    assert (root / "Daily" / "2026-11-23.md").read_bytes() == DAILY_AFTER  # BOM, CRLF, no final newline kept
    assert (root / "Archive" / "2026" / "Shed Build.md").read_text(encoding="utf-8") == (
        "# Garden Shed\n\n"
        "Materials in [list](../../Resources/Reading%20List.md) and ![plan](../../Projects/img/plan.png).\n"
        "Part of [[Alpha]]; see [[#Materials]] and [me](Shed%20Build.md).\n"
    )
    assert (root / "Journal.md").read_text(encoding="utf-8") == "Sync notes: [[Meeting Notes]] and [[Alpha]].\n"


def test_a_name_that_is_no_longer_unique_becomes_a_full_path(
    root: Path, index: VaultIndex, locks: TrackedLocks
) -> None:
    result = move.move_note(index, locks, "Projects/Alpha", "Archive/Meeting Notes")
    assert result.warnings == []
    # links to the moved note: its new name is shared, so the full path; and [[Meeting Notes]],
    # which meant Projects/Meeting Notes, would now be ambiguous: it gets that note's full path.
    assert (root / "Journal.md").read_text(encoding="utf-8") == (
        "Sync notes: [[Projects/Meeting Notes]] and [[Archive/Meeting Notes]].\n"
    )
    assert "Part of [[Archive/Meeting Notes]];" in (root / "Projects" / "Garden Shed.md").read_text(encoding="utf-8")
    assert "- `[[Garden Shed]]` in code stays, [[Archive/Meeting Notes]] too" in (root / "Home.md").read_text()


def test_ambiguous_links_are_left_alone_and_reported(root: Path, index: VaultIndex, locks: TrackedLocks) -> None:
    (root / "Areas").mkdir()
    (root / "Areas" / "Meeting Notes.md").write_text("# Team\n")
    result = move.move_note(index, locks, "Projects/Meeting Notes", "Projects/Alpha Sync")
    assert (root / "Journal.md").read_text(encoding="utf-8") == "Sync notes: [[Meeting Notes]] and [[Alpha]].\n"
    assert result.updated_notes == []
    [warning] = result.warnings
    assert warning.code == "AMBIGUOUS_LINKS"
    assert warning.model_dump()["links"] == [{"path": "Journal.md", "line": 1, "target": "Meeting Notes"}]


def test_without_update_links_only_the_file_moves(root: Path, index: VaultIndex, locks: TrackedLocks) -> None:
    result = move.move_note(index, locks, "Projects/Garden Shed", "Shed", update_links=False)
    assert result.updated_notes == [] and (root / "Shed.md").read_text(encoding="utf-8") == SHED
    assert (root / "Home.md").read_text(encoding="utf-8") == HOME


def test_refusals_change_nothing(root: Path, index: VaultIndex, locks: TrackedLocks) -> None:
    with pytest.raises(NoteExists):
        move.move_note(index, locks, "Projects/Garden Shed", "Home")
    with pytest.raises(NoteNotFound):
        move.move_note(index, locks, "Projects/No Such Note", "Elsewhere")
    with pytest.raises(PathRefused) as refused:
        move.move_note(index, locks, "Projects/Garden Shed", "../outside")
    assert refused.value.reason == "outside_vault"
    with pytest.raises(PathRefused) as refused:
        move.move_note(index, locks, "Projects/Garden Shed", ".trash/Shed")
    assert refused.value.reason == "hidden_path"
    with pytest.raises(InvalidArgument):
        move.move_note(index, locks, "Projects/Garden Shed", "Projects/Garden Shed.md")
    assert (root / "Projects" / "Garden Shed.md").read_text(encoding="utf-8") == SHED
    assert (root / "Home.md").read_text(encoding="utf-8") == HOME
    assert not (root.parent / "outside.md").exists() and not (root / ".trash").exists()


def test_a_failed_rewrite_is_reported_and_the_move_stands(
    root: Path, index: VaultIndex, locks: TrackedLocks, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = notes.atomic_write

    def failing(path: Path, data: bytes) -> None:
        if path.name == "Home.md":
            raise OSError(errno.EACCES, "denied")
        real(path, data)

    monkeypatch.setattr(notes, "atomic_write", failing)
    result = move.move_note(index, locks, "Projects/Garden Shed", "Archive/2026/Shed Build")
    assert (root / "Archive" / "2026" / "Shed Build.md").exists()
    assert "Home.md" not in result.updated_notes and "Daily/2026-11-23.md" in result.updated_notes
    [warning] = result.warnings
    assert warning.code == "PARTIAL_RESULTS" and [f["path"] for f in warning.model_dump()["failed"]] == ["Home.md"]
    assert (root / "Home.md").read_text(encoding="utf-8") == HOME


def test_the_index_sees_the_move_at_once(index: VaultIndex, locks: TrackedLocks) -> None:
    assert [h.path for h in search.search_notes(index, '"materials in"').results] == ["Projects/Garden Shed.md"]
    move.move_note(index, locks, "Projects/Garden Shed", "Archive/Shed Build")
    assert [h.path for h in search.search_notes(index, '"materials in"').results] == ["Archive/Shed Build.md"]
    assert search.search_notes(index, '"Shed Build"').results[0].path == "Archive/Shed Build.md"
