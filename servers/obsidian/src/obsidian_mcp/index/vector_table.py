"""Queries of the vector tables of the index of meanings (`vector_store.SemanticIndex` owns them).

* `semantic_meta(key, value)`: the schema version and the model marker.
* `semantic_notes(path, hash, title)`: one row per embedded note.
* `semantic_chunks(path, chunk_no, heading, line, text, vector)`: the chunks, each vector as
  float16 little-endian bytes.

Each function takes the connection it runs on (the writer's, or the store's reading connection);
transactions are the caller's (`transaction`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS semantic_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS semantic_notes(path TEXT PRIMARY KEY, hash TEXT NOT NULL, title TEXT NOT NULL)"
    " WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS semantic_chunks(path TEXT NOT NULL, chunk_no INTEGER NOT NULL, heading TEXT,"
    " line INTEGER NOT NULL, text TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (path, chunk_no))",
)
_NOTE_TABLES = ("semantic_notes", "semantic_chunks")


class ChunkRow(NamedTuple):
    """A chunk as stored in `semantic_chunks` (its note's path aside)."""

    chunk_no: int
    heading: str | None
    line: int
    text: str  # the start of the cleaned text
    vector: bytes  # float16, little-endian


class ChunkVector(NamedTuple):
    path: str
    chunk_no: int
    vector: bytes


class ShownChunk(NamedTuple):
    """What a hit shows of a chunk."""

    path: str
    chunk_no: int
    title: str
    heading: str | None
    line: int
    text: str


# -- connections and transactions ------------------------------------------------------------------


def database_file(conn: sqlite3.Connection) -> str:
    """The file of the connection's main database ("" in memory)."""
    return next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")


def open_reader(file: str, timeout: float, cache_kib: int) -> sqlite3.Connection:
    """A read-only connection to `file` with a page cache of `cache_kib`."""
    reader = sqlite3.connect(file, isolation_level=None, check_same_thread=False, timeout=timeout)
    reader.execute("PRAGMA query_only = ON")
    reader.execute(f"PRAGMA cache_size = -{cache_kib}")
    return reader


def shrink_memory(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA shrink_memory")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One transaction on the connection, whatever its isolation level."""
    if conn.isolation_level is None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    else:
        with conn:
            yield


# -- the schema ------------------------------------------------------------------------------------


def create(conn: sqlite3.Connection) -> None:
    """The tables, where missing."""
    for statement in SCHEMA:
        conn.execute(statement)


def meta(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM semantic_meta").fetchall())


def set_meta(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    conn.executemany("INSERT OR REPLACE INTO semantic_meta(key, value) VALUES (?, ?)", list(values.items()))


def recreate_note_tables(conn: sqlite3.Connection) -> None:
    """Drop the note and chunk tables and create them anew (another schema version)."""
    for table in _NOTE_TABLES:
        conn.execute(f"DROP TABLE {table}")
    for statement in SCHEMA[1:]:
        conn.execute(statement)


def has_vectors(conn: sqlite3.Connection) -> bool:
    """Whether any note is embedded (raises `sqlite3.OperationalError` without the tables)."""
    return conn.execute("SELECT 1 FROM semantic_notes LIMIT 1").fetchone() is not None


# -- reading ---------------------------------------------------------------------------------------


def note_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM semantic_notes").fetchone()[0])


def chunk_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM semantic_chunks").fetchone()[0])


def note_paths(conn: sqlite3.Connection) -> list[str]:
    return [path for (path,) in conn.execute("SELECT path FROM semantic_notes")]


def note_hashes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(path, hash) of every embedded note."""
    return conn.execute("SELECT path, hash FROM semantic_notes").fetchall()


def note_hash(conn: sqlite3.Connection, path: str) -> str | None:
    row = conn.execute("SELECT hash FROM semantic_notes WHERE path = ?", (path,)).fetchone()
    return row[0] if row is not None else None


def chunk_vectors(conn: sqlite3.Connection, batch: int) -> Iterator[list[ChunkVector]]:
    """Every stored chunk vector by path and chunk number, `batch` rows at a time."""
    cursor = conn.execute("SELECT path, chunk_no, vector FROM semantic_chunks ORDER BY path, chunk_no")
    while rows := cursor.fetchmany(batch):
        yield [ChunkVector(*row) for row in rows]


def shown_chunks(conn: sqlite3.Connection, keys: Sequence[tuple[str, int]]) -> list[ShownChunk]:
    """What each (path, chunk number) of `keys` shows, with its note's title; missing ones are left out."""
    values = ", ".join("(?, ?)" for _ in keys)
    # a join from the wanted keys: SQLite scans the table for `(path, chunk_no) IN (VALUES ...)`
    rows = conn.execute(
        f"WITH wanted(path, chunk_no) AS (VALUES {values})"
        " SELECT c.path, c.chunk_no, n.title, c.heading, c.line, c.text FROM wanted w"
        " JOIN semantic_chunks c ON c.path = w.path AND c.chunk_no = w.chunk_no"
        " JOIN semantic_notes n ON n.path = c.path",
        [value for pair in keys for value in pair],
    ).fetchall()
    return [ShownChunk(*row) for row in rows]


# -- writing (inside the caller's transaction) -------------------------------------------------------


def rename(conn: sqlite3.Connection, old: str, new: str) -> None:
    """Move `old`'s rows to `new`, replacing whatever `new` had."""
    for table in ("semantic_chunks", "semantic_notes"):
        conn.execute(f"DELETE FROM {table} WHERE path = ?", (new,))
        conn.execute(f"UPDATE {table} SET path = ? WHERE path = ?", (new, old))


def delete(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    for path in paths:
        conn.execute("DELETE FROM semantic_chunks WHERE path = ?", (path,))
        conn.execute("DELETE FROM semantic_notes WHERE path = ?", (path,))


def insert(conn: sqlite3.Connection, path: str, digest: str, title: str, rows: Sequence[ChunkRow]) -> None:
    conn.execute("INSERT INTO semantic_notes(path, hash, title) VALUES (?, ?, ?)", (path, digest, title))
    conn.executemany(
        "INSERT INTO semantic_chunks(path, chunk_no, heading, line, text, vector) VALUES (?, ?, ?, ?, ?, ?)",
        [(path, *row) for row in rows],
    )


def clear(conn: sqlite3.Connection) -> None:
    """Forget every note."""
    conn.execute("DELETE FROM semantic_chunks")
    conn.execute("DELETE FROM semantic_notes")
