"""Queries of the `content` table and its FTS5 index `content_fts`: ranking by words, and the stored
line-aligned text that hits are located in.

MATCH expressions come from `search.query` (or `pending.with_tags`), built from folded tokens. Should
FTS5 still refuse one, the query functions that take an expression raise `QueryRefused` (they
alone look at SQLite's message); what to do then is the caller's (`search.by_words` scans).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from obsidian_mcp.index.filters import folder_clause, tags_clause
from obsidian_mcp.index.store import COLUMNS, WEIGHTS

LINE_COLUMNS = ("body", "frontmatter", "code")  # line-aligned columns, in order of preference


class QueryRefused(Exception):
    """FTS5 refused a MATCH expression (the message is SQLite's, cut to 200 characters)."""


@contextmanager
def _refusals() -> Iterator[None]:
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc):
            raise
        raise QueryRefused(str(exc)[:200]) from exc


class Ranked(NamedTuple):
    note_id: int
    rank: float  # bm25: lower is better


@dataclass(frozen=True, kw_only=True)
class Ranking:
    rows: list[Ranked]  # best first
    total: int  # every matching note (unless counting was not asked for)


def ranked(
    conn: sqlite3.Connection, match: str, folder_rel: str, keys: list[str], limit: int, *, count: bool = True
) -> Ranking:
    """The best `limit` notes for `match` by bm25 and the number of matching notes (without
    `count`, unfiltered: at most `limit`, sparing a second pass over the matches). Raises
    `QueryRefused`.

    Without filters FTS5 ranks on its own and a plain count follows (three times faster on
    common words than one query with a window count); with filters, one query in which SQLite
    scores only the notes that pass them. FTS5 always drives: `rowid IN (subquery)` would make
    it run the MATCH once per candidate row.
    """
    weights = ", ".join(str(w) for w in WEIGHTS)
    scored = f"SELECT rowid AS id, bm25(content_fts, {weights}) AS rank FROM content_fts WHERE content_fts MATCH ?"
    with _refusals():
        if not folder_rel and not keys:
            rows = [Ranked(row[0], row[1]) for row in conn.execute(f"{scored} ORDER BY rank LIMIT ?", (match, limit))]
            if len(rows) < limit or not count:
                return Ranking(rows=rows, total=len(rows))
            total = conn.execute("SELECT count(*) FROM content_fts WHERE content_fts MATCH ?", (match,)).fetchone()[0]
            return Ranking(rows=rows, total=total)
        where_folder, folder_params = folder_clause(folder_rel)
        where_tags, tag_params = tags_clause(keys)
        found = conn.execute(
            f"SELECT m.id, m.rank, count(*) OVER () FROM ({scored}) AS m CROSS JOIN notes AS n ON n.id = m.id "
            f"WHERE {where_folder} AND {where_tags} ORDER BY m.rank LIMIT ?",
            [match, *folder_params, *tag_params, limit],
        ).fetchall()
    return Ranking(rows=[Ranked(row[0], row[1]) for row in found], total=found[0][2] if found else 0)


def matching_paths(conn: sqlite3.Connection, match: str) -> set[str]:
    """The paths of the notes matching `match`."""
    rows = conn.execute(
        "SELECT n.path FROM content_fts CROSS JOIN notes AS n ON n.id = content_fts.rowid WHERE content_fts MATCH ?",
        (match,),
    )
    return {row[0] for row in rows}


def matching_among(conn: sqlite3.Connection, match: str, ids: Collection[int]) -> set[str]:
    """The paths of the notes among `ids` matching `match`. Raises `QueryRefused`."""
    if not ids:
        return set()
    marks = ", ".join("?" * len(ids))
    with _refusals():
        rows = conn.execute(
            "SELECT n.path FROM content_fts CROSS JOIN notes AS n ON n.id = content_fts.rowid "
            f"WHERE content_fts MATCH ? AND content_fts.rowid IN ({marks})",
            [match, *ids],
        )
        return {row[0] for row in rows}


class LineText(NamedTuple):
    """A note's names and its line-aligned columns, for finding the line a hit is on."""

    id: int
    path: str
    title: str
    headings: str  # JSON: [[line, level, text], ...]
    body: str
    frontmatter: str
    code: str

    def columns(self) -> dict[str, str]:
        return {"body": self.body, "frontmatter": self.frontmatter, "code": self.code}


def line_texts(conn: sqlite3.Connection, ids: Collection[int]) -> dict[int, LineText]:
    """The line-aligned text of each of the note `ids`."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(
        "SELECT n.id, n.path, n.title, n.headings, c.body, c.frontmatter, c.code FROM notes AS n "
        f"JOIN content AS c ON c.id = n.id WHERE n.id IN ({marks})",
        list(ids),
    )
    return {row[0]: LineText(*row) for row in rows}


class FullText(NamedTuple):
    """A note's names and every column of its stored text, in `store.COLUMNS` order."""

    id: int
    path: str
    title: str
    headings: str  # JSON
    columns: tuple[str, ...]


def full_texts(conn: sqlite3.Connection, folder_rel: str, keys: list[str]) -> Iterator[FullText]:
    """The stored text of every note under `folder_rel` having the tags `keys` (the slow path)."""
    where_folder, folder_params = folder_clause(folder_rel)
    where_tags, tag_params = tags_clause(keys)
    rows = conn.execute(
        f"SELECT n.id, n.path, n.title, n.headings, {', '.join('c.' + c for c in COLUMNS)} FROM notes AS n "
        f"JOIN content AS c ON c.id = n.id WHERE {where_folder} AND {where_tags}",
        [*folder_params, *tag_params],
    )
    return (
        FullText(note_id, path, title, headings, tuple(columns)) for note_id, path, title, headings, *columns in rows
    )


def body_lines(conn: sqlite3.Connection, path: str) -> list[str]:
    """The lines of the note's prose column ([] when the note is not indexed)."""
    row = conn.execute(
        "SELECT c.body FROM content AS c JOIN notes AS n ON n.id = c.id WHERE n.path = ?", (path,)
    ).fetchone()
    return (row[0] or "").split("\n") if row else []


class Frontmatter(NamedTuple):
    path: str
    values: str  # the frontmatter column: its lines without their keys


def frontmatter_with_wikilinks(conn: sqlite3.Connection) -> list[Frontmatter]:
    """The notes whose frontmatter values hold `[[`, with those values."""
    rows = conn.execute(
        "SELECT n.path, c.frontmatter FROM content AS c JOIN notes AS n ON n.id = c.id WHERE c.frontmatter LIKE '%[[%'"
    )
    return [Frontmatter(*row) for row in rows]


def aliases_by_note(conn: sqlite3.Connection) -> dict[int, list[str]]:
    """Each note id's aliases (notes without any are left out)."""
    return {note_id: text.split("\n") for note_id, text in conn.execute("SELECT id, aliases FROM content") if text}
