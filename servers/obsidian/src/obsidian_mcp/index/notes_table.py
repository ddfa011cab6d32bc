"""Queries of the `notes` table: which notes the index holds, their titles, ages and hashes.

Each function takes the index's connection and answers typed rows (`NamedTuple`s of the columns
read) or plain values; the operations above `index` never see SQL. Writing notes is `sync`'s.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from typing import NamedTuple


class NoteTitle(NamedTuple):
    id: int
    path: str
    title: str


class RecentRow(NamedTuple):
    path: str
    title: str
    size: int
    mtime: float


class PageRow(NamedTuple):
    """What the Dataview pages read of a note."""

    id: int
    path: str
    hash: str
    size: int
    mtime: float
    body_line: int


class NoteDigest(NamedTuple):
    """What the index of meanings reads of a note."""

    path: str
    hash: str
    title: str


def all_paths(conn: sqlite3.Connection) -> frozenset[str]:
    """The path of every indexed note."""
    return frozenset(row[0] for row in conn.execute("SELECT path FROM notes"))


def exists(conn: sqlite3.Connection, path: str) -> bool:
    return conn.execute("SELECT 1 FROM notes WHERE path = ?", (path,)).fetchone() is not None


def titles_by_path(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, NoteTitle]:
    """The id and title of each of `paths` the index has: the others are gone or left out."""
    if not paths:
        return {}
    marks = ", ".join("?" * len(paths))
    rows = conn.execute(f"SELECT id, path, title FROM notes WHERE path IN ({marks})", list(paths))
    return {row[1]: NoteTitle(*row) for row in rows}


def titles_by_id(conn: sqlite3.Connection, ids: Collection[int]) -> dict[int, NoteTitle]:
    """The path and title of each of the note `ids` the index has."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(f"SELECT id, path, title FROM notes WHERE id IN ({marks})", list(ids))
    return {row[0]: NoteTitle(*row) for row in rows}


def recent(conn: sqlite3.Connection, limit: int) -> list[RecentRow]:
    """The `limit` most recently modified notes, newest first."""
    query = "SELECT path, title, size, mtime FROM notes ORDER BY mtime DESC, path LIMIT ?"
    return [RecentRow(*row) for row in conn.execute(query, (limit,))]


def ages(conn: sqlite3.Connection) -> dict[str, float]:
    """Each note's path and mtime."""
    return dict(conn.execute("SELECT path, mtime FROM notes"))


def page_rows(conn: sqlite3.Connection) -> list[PageRow]:
    return [PageRow(*row) for row in conn.execute("SELECT id, path, hash, size, mtime, body_line FROM notes")]


def digests(conn: sqlite3.Connection) -> list[NoteDigest]:
    return [NoteDigest(*row) for row in conn.execute("SELECT path, hash, title FROM notes")]
