"""Queries of the `tags` table: tag counts, the notes carrying a tag, each note's tags.

Tags are stored as written with their folded form (`fold`); a tag `a` matches `a` itself and every
nested `a/...` as a prefix range (see `filters`).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from obsidian_mcp.index.filters import folder_clause, tags_clause


class TagSpelling(NamedTuple):
    """How many notes under a folder carry one spelling of a tag."""

    fold: str
    tag: str
    notes: int  # notes carrying it


def spellings(conn: sqlite3.Connection, folder_rel: str) -> list[TagSpelling]:
    """Every spelling of every tag of the notes under `folder_rel` ('' the whole vault), counted."""
    where, params = folder_clause(folder_rel)
    rows = conn.execute(
        f"SELECT t.fold, t.tag, count(*) FROM tags AS t JOIN notes AS n ON n.id = t.note_id WHERE {where} "
        "GROUP BY t.fold, t.tag",
        params,
    )
    return [TagSpelling(*row) for row in rows]


def carrying(conn: sqlite3.Connection, key: str) -> list[str]:
    """Paths of the notes with the tag `key` (folded) or one nested under it, sorted."""
    rows = conn.execute(
        "SELECT DISTINCT n.path FROM tags AS t JOIN notes AS n ON n.id = t.note_id "
        "WHERE t.fold = ? OR (t.fold > ? AND t.fold < ?) ORDER BY n.path",
        (key, key + "/", key + "0"),
    )
    return [row[0] for row in rows]


def by_note(conn: sqlite3.Connection) -> dict[int, list[str]]:
    """Each note id's tags as written, in stored order."""
    tags: dict[int, list[str]] = defaultdict(list)
    for note_id, tag in conn.execute("SELECT note_id, tag FROM tags ORDER BY rowid"):
        tags[note_id].append(tag)
    return tags


def count_having(conn: sqlite3.Connection, rels: Sequence[str], keys: Sequence[str]) -> int:
    """How many of the notes at `rels` have every tag in `keys` (or one nested under it)."""
    where, params = tags_clause(list(keys))
    marks = ", ".join("?" * len(rels))
    row = conn.execute(f"SELECT count(*) FROM notes AS n WHERE n.path IN ({marks}) AND {where}", [*rels, *params])
    return int(row.fetchone()[0])
