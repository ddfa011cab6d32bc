"""The notes' Dataview metadata in the index's tables: frontmatter fields, inline fields, list items
and tasks (schema in `store.SCHEMA`).

* `fields`: one row per frontmatter key (`source` `frontmatter`, `value` the JSON of the YAML value,
  no line) and per inline field (`source` the wrapping: `line` for `key:: value`, `[`, `(`, or
  `emoji` for the Tasks plugin's emoji; `value` the raw text as written; `line` the file line,
  `col` where it starts; `item_line` the list item it is written in, NULL outside lists).
* `list_items`: every list item, tasks included (`status` is the checkbox character, NULL for a
  plain bullet), with its file `line`, `parent_line`, `section` heading, `tags` and `links` (JSON
  lists), and for tasks the raw `due`, `scheduled`, `start`, `completion`, `created`, `cancelled`,
  `priority` and `recurrence` (from the emoji or from `[due:: ...]`-style fields).
* `tasks`: a view of the tasks with their note's path.

Lines are file lines here; `dataview` counts them from the body's first line (`notes.body_line`).
Writing happens inside the sync's transaction, reading when the query pages are built.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from obsidian_mcp.index.extract import NoteRecord

if TYPE_CHECKING:
    from obsidian_mcp.dataview.extract import NoteMetadata
    from obsidian_mcp.dataview.inline_fields import InlineField
    from obsidian_mcp.dataview.list_items import ListItem

# A task's raw dates, priority and recurrence, each read from the field keys Dataview's task
# objects read it from (`dataview.list_objects.TASK_FIELDS`); `cancelled` from its own.
TASK_COLUMNS = ("due", "scheduled", "start", "completion", "created", "cancelled", "priority", "recurrence")
_ITEM_COLUMNS = (
    "note_id, line, line_count, parent_line, symbol, indent, status, text, section, block_id, tags, links, "
    + ", ".join(TASK_COLUMNS)
)
_FIELD_COLUMNS = "note_id, item_line, line, col, source, key, value"


def _task_values(item: ListItem, keys: Mapping[str, tuple[str, ...]]) -> list[str | None]:
    if not item.task:
        return [None] * len(TASK_COLUMNS)
    found: dict[str, str] = {}
    for inline in item.fields:
        found.setdefault(inline.key.strip().lower(), inline.value.strip())
    return [next((found[key] for key in keys.get(name, (name,)) if key in found), None) for name in TASK_COLUMNS]


def write(conn: sqlite3.Connection, note_id: int, record: NoteRecord) -> None:
    """Store `record`'s fields and list items for the note `note_id` (its old rows already gone)."""
    from obsidian_mcp.dataview.list_objects import TASK_FIELDS  # the engine, not at start-up

    shift = record.body_line - 1
    fields: list[tuple[object, ...]] = [
        (note_id, None, None, None, "frontmatter", str(key), json.dumps(value, ensure_ascii=False))
        for key, value in record.frontmatter_values.items()
    ]
    meta = record.metadata
    item_lines = {item.line for item in meta.items}  # a plain item's fields are the page's too: stored once
    fields += [
        (note_id, None, f.line + shift, f.start, f.wrapping, f.key, f.value)
        for f in meta.fields
        if f.line not in item_lines
    ]
    items: list[tuple[object, ...]] = []
    for item in meta.items:
        fields += [
            (note_id, item.line + shift, f.line + shift, f.start, f.wrapping, f.key, f.value) for f in item.fields
        ]
        items.append(
            (
                note_id,
                item.line + shift,
                item.line_count,
                item.parent + shift if item.parent is not None else None,
                item.symbol,
                item.indent,
                item.status,
                item.text,
                item.section,
                item.block_id,
                json.dumps(item.tags, ensure_ascii=False),
                json.dumps(item.links, ensure_ascii=False),
                *_task_values(item, TASK_FIELDS),
            )
        )
    conn.executemany(f"INSERT INTO fields({_FIELD_COLUMNS}) VALUES ({_marks(_FIELD_COLUMNS)})", fields)
    conn.executemany(f"INSERT INTO list_items({_ITEM_COLUMNS}) VALUES ({_marks(_ITEM_COLUMNS)})", items)


def _marks(columns: str) -> str:
    return ", ".join("?" * len(columns.split(",")))


def delete(conn: sqlite3.Connection, note_id: int) -> None:
    conn.execute("DELETE FROM fields WHERE note_id = ?", (note_id,))
    conn.execute("DELETE FROM list_items WHERE note_id = ?", (note_id,))


@dataclass
class StoredNote:
    """One note's metadata as read back: frontmatter as (key, JSON) pairs in written order, and
    the body's fields and list items (lines counted from the body's first line)."""

    frontmatter: list[tuple[str, str]] = field(default_factory=list)
    metadata: NoteMetadata | None = None


def read_all(conn: sqlite3.Connection, body_lines: dict[int, int]) -> dict[int, StoredNote]:
    """Every note's stored metadata, by note id; `body_lines` maps each note id to its
    `notes.body_line`."""
    from obsidian_mcp.dataview.extract import NoteMetadata
    from obsidian_mcp.dataview.inline_fields import InlineField

    notes: dict[int, StoredNote] = defaultdict(StoredNote)
    page_fields: dict[int, list[InlineField]] = defaultdict(list)
    item_fields: dict[tuple[int, int], list[InlineField]] = defaultdict(list)
    for note_id, item_line, line, col, source, key, value in conn.execute(
        f"SELECT {_FIELD_COLUMNS} FROM fields ORDER BY rowid"
    ):
        if source == "frontmatter":
            notes[note_id].frontmatter.append((key, value))
            continue
        shift = body_lines.get(note_id, 1) - 1
        inline = InlineField(key, value, line - shift, source, col)
        if item_line is None:
            page_fields[note_id].append(inline)
        else:
            item_fields[note_id, item_line].append(inline)
    rows: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in conn.execute(f"SELECT {_ITEM_COLUMNS} FROM list_items ORDER BY rowid"):
        rows[row[0]].append(row)
    for note_id in page_fields.keys() | rows.keys():
        shift = body_lines.get(note_id, 1) - 1
        items = _items(rows.get(note_id, ()), item_fields, note_id, shift)
        fields = list(page_fields.get(note_id, ()))
        fields += [inline for item in items if not item.task for inline in item.fields]
        fields.sort(key=lambda f: (f.line, f.start))
        notes[note_id].metadata = NoteMetadata(tuple(fields), items)
    return notes


def _items(
    rows: Sequence[tuple[Any, ...]],
    item_fields: dict[tuple[int, int], list[InlineField]],
    note_id: int,
    shift: int,
) -> tuple[ListItem, ...]:
    from obsidian_mcp.dataview.list_items import ListItem

    children: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        if row[3] is not None:
            children[row[3] - shift].append(row[1] - shift)
    items = []
    for _, line, line_count, parent, symbol, indent, status, text, section, block_id, tags, links, *_ in rows:
        items.append(
            ListItem(
                line=line - shift,
                symbol=symbol,
                status=status,
                text=text,
                indent=indent,
                line_count=line_count,
                parent=parent - shift if parent is not None else None,
                children=tuple(children.get(line - shift, ())),
                section=section,
                fields=tuple(item_fields.get((note_id, line), ())),
                tags=_strings(tags),
                links=_strings(links),
                block_id=block_id,
            )
        )
    return tuple(items)


def _strings(stored: str) -> tuple[str, ...]:
    """A JSON list of strings as stored (most items have no tags or links: no decoding then)."""
    return () if stored == "[]" else tuple(json.loads(stored))
