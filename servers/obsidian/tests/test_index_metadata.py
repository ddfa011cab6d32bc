"""Dataview's fields, inline fields, list items and tasks in the index's SQLite tables
(`index.metadata`): what the tables hold, that they follow every change, and that the query pages
are built from them alone, the same as pages read from the notes themselves."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from obsidian_mcp.dataview import Page
from obsidian_mcp.dataview.extract import scan_body
from obsidian_mcp.dataview.loader import split_note
from obsidian_mcp.dataview.pages.vault_pages import VaultPages
from obsidian_mcp.index import sync
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.vault.markdown import load_frontmatter
from obsidian_mcp.vault.paths import Vault

FIXTURE = Path(__file__).parent / "fixtures" / "dataview_vault"
SAMPLE_VAULT = Path(__file__).parents[3] / "examples" / "vault"

TASK_COLUMNS = (
    "path, line, status, text, section, parent_line, due, scheduled, start, completion, created, cancelled, "
    "priority, recurrence"
)
# (path, file line) -> the task row the `tasks` view holds, for both plugins' notations.
EXPECTED_TASKS: list[tuple[str, int, dict[str, Any]]] = [
    (
        "Tasks/Tasks Plugin.md",
        2,
        {
            "status": " ",
            "text": "Write report 📅 2024-05-03 ⏫",
            "section": "Sprint",
            "due": "2024-05-03",
            "priority": "high",
        },
    ),
    (
        "Tasks/Tasks Plugin.md",
        3,
        {"status": " ", "scheduled": "2024-05-01", "start": "2024-04-29", "priority": "medium"},
    ),
    ("Tasks/Tasks Plugin.md", 4, {"status": "x", "completion": "2024-04-28", "due": "2024-04-27", "priority": None}),
    ("Tasks/Tasks Plugin.md", 5, {"status": " ", "recurrence": "every week", "due": "2024-05-08"}),
    ("Tasks/Tasks Plugin.md", 6, {"status": "/", "priority": "highest", "due": None}),
    ("Tasks/Tasks Plugin.md", 7, {"status": "-", "cancelled": "2024-04-20"}),
    (
        "Tasks/Tasks Plugin.md",
        10,
        {"section": "Later", "created": "2024-04-01", "due": "2024-07-01", "priority": "low"},
    ),
    ("Tasks/Tasks Plugin.md", 11, {"status": ">", "due": "2024-05-20"}),
    ("Tasks/Dataview Tasks.md", 1, {"status": " ", "due": "2024-05-02", "section": None}),
    ("Tasks/Dataview Tasks.md", 2, {"status": "x", "completion": "2024-04-30", "due": "2024-04-29"}),
    ("Tasks/Dataview Tasks.md", 5, {"text": "Numbered task [due:: 2024-05-07]", "due": "2024-05-07"}),
    # Nested.md has 3 frontmatter lines: body line 2 is file line 5. Subtasks keep their parent.
    ("Tasks/Nested.md", 5, {"text": "Clean up the house", "parent_line": None, "section": "House"}),
    ("Tasks/Nested.md", 6, {"text": "Kitchen", "parent_line": 5}),
    ("Tasks/Nested.md", 13, {"text": "Task under bullet 📅 2024-05-01", "parent_line": 12, "due": "2024-05-01"}),
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "vault")
    return tmp_path / "vault"


def make(root: Path) -> VaultPages:
    return VaultPages(VaultIndex(Vault(root), None, rescan_seconds=0, watch=False))


def sql(pages: VaultPages, query: str, *params: object) -> list[sqlite3.Row]:
    def op(snapshot: Any) -> list[sqlite3.Row]:
        snapshot.conn.row_factory = sqlite3.Row
        try:
            return list(snapshot.conn.execute(query, params))
        finally:
            snapshot.conn.row_factory = None

    return pages.index.run(op)


def read_from_disk(root: Path, path: str) -> tuple[dict[str, Any], Any]:
    """What the engine reads of a note when it has its text: frontmatter and body metadata."""
    text = (root / path).read_text(encoding="utf-8")
    _, body, _ = split_note(text)
    scanned = scan_body(body)
    return load_frontmatter(text, path)[0], (scanned.fields, scanned.items)


def pages_by_path(pages: VaultPages) -> dict[str, Page]:
    pages.index.run(pages.current)
    return {page.path: page for page in pages}


def assert_same_as_disk(root: Path, pages: VaultPages) -> None:
    for path, page in pages_by_path(pages).items():
        frontmatter, (fields, items) = read_from_disk(root, path)
        assert page.metadata is not None, path
        assert dict(page.frontmatter) == frontmatter, path
        assert (page.metadata.fields, page.metadata.items) == (fields, items), path


@pytest.mark.parametrize("source", [FIXTURE, SAMPLE_VAULT], ids=["dataview fixture", "sample vault"])
def test_pages_built_from_the_tables_equal_the_notes_read_from_disk(tmp_path: Path, source: Path) -> None:
    shutil.copytree(source, tmp_path / "vault")
    assert_same_as_disk(tmp_path / "vault", make(tmp_path / "vault"))


def test_pages_updated_by_a_sync_equal_the_notes_read_from_disk(vault: Path) -> None:
    """A changed note's page comes from the record the sync extracted, not from the tables."""
    pages = make(vault)
    pages.index.run(pages.current)
    note = vault / "Tasks" / "Nested.md"
    note.write_text(note.read_text(encoding="utf-8") + "- [ ] Added later [due:: 2024-06-01] #new\n", encoding="utf-8")
    (vault / "Notes" / "New.md").write_text(
        "---\nstatus: fresh\nowner: '[[Bob]]'\n---\nkind:: test\n", encoding="utf-8"
    )
    assert_same_as_disk(vault, pages)


def test_building_the_pages_reads_no_note(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = make(vault)
    pages.index.refresh()

    def refuse(*_: object) -> bytes:
        raise AssertionError("a note file was read")

    monkeypatch.setattr(sync, "read_bytes", refuse)
    found = pages_by_path(pages)
    assert len(found) == sql(pages, "SELECT count(*) FROM notes")[0][0] == 22
    assert found["Tasks/Nested.md"].metadata is not None and len(found["Tasks/Nested.md"].metadata.items) == 9


@pytest.mark.parametrize(("path", "line", "expected"), EXPECTED_TASKS, ids=lambda v: str(v)[:30])
def test_the_tasks_view_holds_each_task(vault: Path, path: str, line: int, expected: dict[str, Any]) -> None:
    rows = sql(make(vault), f"SELECT {TASK_COLUMNS} FROM tasks WHERE path = ? AND line = ?", path, line)
    assert len(rows) == 1
    assert {key: rows[0][key] for key in expected} == expected


def test_fields_rows_hold_frontmatter_as_json_and_inline_fields_as_written(vault: Path) -> None:
    pages = make(vault)
    rows = sql(
        pages,
        "SELECT f.source, f.key, f.value, f.line, f.item_line FROM fields AS f JOIN notes AS n ON n.id = f.note_id "
        "WHERE n.path = ? ORDER BY f.rowid",
        "Tasks/Nested.md",
    )
    assert [tuple(row) for row in rows] == [
        ("frontmatter", "area", '"home"', None, None),
        ("[", "urgent", "true", 8, 8),
        ("emoji", "due", "2024-05-01", 13, 13),
    ]
    text = (vault / "Notes" / "Inline Fields.md").read_text(encoding="utf-8")
    line = next(n for n, written in enumerate(text.split("\n"), 1) if written.startswith("Link Field::"))
    found = sql(
        pages,
        "SELECT f.source, f.value FROM fields AS f JOIN notes AS n ON n.id = f.note_id WHERE n.path = ? AND f.line = ?",
        "Notes/Inline Fields.md",
        line,
    )
    assert [tuple(row) for row in found] == [("line", "[[Alpha]]")]


def test_plain_bullets_are_list_items_but_not_tasks(vault: Path) -> None:
    pages = make(vault)
    items = sql(
        pages,
        "SELECT i.line, i.status FROM list_items AS i JOIN notes AS n ON n.id = i.note_id WHERE n.path = ?",
        "Tasks/Nested.md",
    )
    assert [tuple(row) for row in items if row["status"] is None] == [(12, None)]
    assert len(sql(pages, "SELECT * FROM tasks WHERE path = ?", "Tasks/Nested.md")) == 8


def test_rows_follow_edits_and_deletions(vault: Path) -> None:
    pages = make(vault)
    count = "SELECT count(*) FROM tasks WHERE path = ?"
    assert sql(pages, count, "Tasks/Nested.md")[0][0] == 8
    note = vault / "Tasks" / "Nested.md"
    note.write_text("# Only one\n- [ ] Left [due:: 2025-01-01]\n", encoding="utf-8")
    rows = sql(pages, "SELECT line, due FROM tasks WHERE path = ?", "Tasks/Nested.md")
    assert [tuple(row) for row in rows] == [(2, "2025-01-01")]
    assert (
        sql(
            pages,
            "SELECT count(*) FROM fields AS f JOIN notes AS n ON n.id = f.note_id WHERE n.path = ?",
            "Tasks/Nested.md",
        )[0][0]
        == 1
    )
    note.unlink()
    assert sql(pages, count, "Tasks/Nested.md")[0][0] == 0
    orphans = "SELECT count(*) FROM {} WHERE note_id NOT IN (SELECT id FROM notes)"
    assert sql(pages, orphans.format("fields"))[0][0] == 0
    assert sql(pages, orphans.format("list_items"))[0][0] == 0


def test_nothing_in_code_or_comments_reaches_the_tables(tmp_path: Path) -> None:
    (tmp_path / "Note.md").write_text(
        "real:: yes\n```\nfake:: no\n- [ ] not a task\n```\n%%\nhidden:: no\n- [ ] hidden task\n%%\n"
        "    indented:: code\n- [ ] real task\n",
        encoding="utf-8",
    )
    pages = make(tmp_path)
    assert [row[0] for row in sql(pages, "SELECT key FROM fields")] == ["real"]
    assert [tuple(row) for row in sql(pages, "SELECT line, text FROM tasks")] == [(11, "real task")]
