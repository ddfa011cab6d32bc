"""Bringing the index in line with the vault: which notes changed, and writing their records.

A note is re-read when its (mtime, size) differs from what was stored, or when it was *racy*:
modified within `RACY_SECONDS` of being indexed, where a second change in the same clock tick
could keep both values (the "racy git" problem). Racy notes are re-read and compared by content
hash until they settle. Nothing else reads files, so an unchanged vault costs one listing.

`SyncListener`s hear of every note `apply` reads or drops, with the bytes it read, so a cache
built from the notes (the pages of `query_notes`) stays in step without reading them again.

Reading a note (`read_note`: its bytes, their hash, the record `extract` makes of them) is kept
apart from storing it (`write_reads`), so the build of `index.build` can read batches without the
index's lock, in worker processes (`index.pool`), and write each in one short transaction. A note
whose hash is already stored is not parsed again; one that changed after it was read as unchanged
is parsed when written.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from obsidian_mcp.index import metadata
from obsidian_mcp.index.extract import NoteRecord, extract
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.store import COLUMNS
from obsidian_mcp.vault.errors import VaultError
from obsidian_mcp.vault.links import nfc_casefold, stem
from obsidian_mcp.vault.paths import NOTE_SUFFIX, NoteInfo, Vault, is_unlisted_name
from obsidian_mcp.vault.storage import etag_of, read_bytes


class SyncListener(Protocol):
    """Told, during a sync, of each note read (`record` is None when its text had not changed)
    and each note dropped; `index_reset` when the index starts over from an empty database."""

    def note_indexed(self, info: NoteInfo, data: bytes, digest: str, record: NoteRecord | None) -> None: ...

    def note_dropped(self, rel: str) -> None: ...

    def index_reset(self) -> None: ...


RACY_SECONDS = 2.0
BATCH = 200  # notes per transaction, and between progress reports
PROGRESS_MIN = 100  # smaller syncs report nothing


def plan_full(conn: sqlite3.Connection, infos: Iterable[NoteInfo]) -> tuple[list[NoteInfo], list[str]]:
    """(notes to read, paths gone) after a full listing of the vault, compared in SQL.

    The listing goes into a temporary table and is joined with `notes`, so no copy of the index
    is kept in memory between calls (it would cost ~250 bytes per note).
    """
    conn.execute(
        "CREATE TEMP TABLE IF NOT EXISTS listing(path TEXT PRIMARY KEY, mtime REAL NOT NULL, size INTEGER NOT NULL)"
        " WITHOUT ROWID"
    )
    conn.execute("BEGIN")  # one transaction: 50,000 rows in autocommit take ten times longer
    try:
        conn.execute("DELETE FROM temp.listing")
        conn.executemany("INSERT INTO temp.listing VALUES (?, ?, ?)", ((i.rel, i.mtime, i.size) for i in infos))
        changed = conn.execute(
            "SELECT l.path, l.size, l.mtime FROM temp.listing AS l LEFT JOIN notes AS n ON n.path = l.path "
            "WHERE n.id IS NULL OR n.racy OR n.mtime != l.mtime OR n.size != l.size ORDER BY l.path"
        )
        todo = [NoteInfo(rel=path, size=size, mtime=mtime) for path, size, mtime in changed]
        gone = [
            row[0] for row in conn.execute("SELECT path FROM notes WHERE path NOT IN (SELECT path FROM temp.listing)")
        ]
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute("DROP TABLE IF EXISTS temp.listing")
    return todo, gone


def plan_paths(conn: sqlite3.Connection, vault: Vault, paths: Iterable[Path]) -> tuple[list[NoteInfo], list[str]]:
    """(notes to read, paths gone) for specific files that may have changed (paths inside the vault).

    Each path is judged as `Vault.iter_notes` would list it: excluded paths, names under dot-folders, dot-files
    (temp files among them), names that are not valid UTF-8 and non-`.md` files are ignored; a
    path that is no longer a listable regular file (deleted, renamed away, unreadable, replaced by
    a folder) is gone, and any other is (re)read — new or changed. Symlinks whose target leaves
    the vault or is hidden are refused when read (`apply` drops them), as the listing skips them.
    """
    todo: list[NoteInfo] = []
    gone: list[str] = []
    for path in paths:
        if not path.is_relative_to(vault.root):
            continue
        parts = path.relative_to(vault.root).parts
        if not parts or any(is_unlisted_name(p) for p in parts) or vault.hides("/".join(parts)):
            continue
        if not parts[-1].endswith(NOTE_SUFFIX):
            continue
        rel = "/".join(parts)
        try:
            info = os.stat(path)
        except OSError:  # missing, or under a folder that is gone or unreadable: not listed either
            gone.append(rel)
            continue
        if stat.S_ISREG(info.st_mode):
            todo.append(NoteInfo(rel=rel, size=info.st_size, mtime=info.st_mtime))
        else:
            gone.append(rel)
    return todo, gone


def known_hashes(conn: sqlite3.Connection, rels: Sequence[str]) -> dict[str, str]:
    """The stored content hash of each of `rels` the index already has."""
    if not rels:
        return {}
    marks = ", ".join("?" * len(rels))
    return dict(conn.execute(f"SELECT path, hash FROM notes WHERE path IN ({marks})", list(rels)))


@dataclass(frozen=True)
class NoteRead:
    """One listed note as read now. `data` is None when it is gone, unreadable or refused since it
    was listed; `record` is None then, and when its bytes still have the hash the index stored."""

    info: NoteInfo  # as listed: the stored mtime is the listing's, never newer than the bytes read
    data: bytes | None
    digest: str = ""
    racy: bool = False
    record: NoteRecord | None = None


def read_note(vault: Vault, info: NoteInfo, known: str | None = None) -> NoteRead:
    """Read the listed note `info` and, unless its content hash is `known`, extract its record.
    Touches no database, so it runs in worker processes too (`index.pool`)."""
    try:
        data = read_bytes(vault.listed_location(info.rel))
    except (OSError, VaultError):  # gone, unreadable, or refused since it was listed (a swapped symlink)
        return NoteRead(info, None)
    digest = etag_of(data)
    racy = time.time() - info.mtime < RACY_SECONDS
    record = None if digest == known else extract(data.decode("utf-8", errors="replace"), info.rel)
    return NoteRead(NoteInfo(info.rel, len(data), info.mtime), data, digest, racy, record)


def read_notes(vault: Vault, batch: Sequence[tuple[NoteInfo, str | None]]) -> list[NoteRead]:
    """`read_note` for each (listed note, known hash) of a batch."""
    return [read_note(vault, info, known) for info, known in batch]


def write_reads(conn: sqlite3.Connection, reads: Sequence[NoteRead], listeners: Sequence[SyncListener] = ()) -> int:
    """Store notes read earlier (inside the caller's transaction), telling `listeners`. Returns the
    number of records written."""
    rels = [read.info.rel for read in reads]
    marks = ", ".join("?" * len(rels))
    known: dict[str, tuple[int, int, str]] = {
        path: (note_id, size, digest)
        for note_id, path, size, digest in conn.execute(
            f"SELECT id, path, size, hash FROM notes WHERE path IN ({marks})", rels
        )
    }
    return sum(_store(conn, read, known.get(read.info.rel), listeners) for read in reads)


def drop(conn: sqlite3.Connection, gone: Iterable[str], listeners: Sequence[SyncListener] = ()) -> None:
    """Delete the notes at `gone` (inside the caller's transaction), telling `listeners`."""
    for rel in gone:
        row = conn.execute("SELECT id FROM notes WHERE path = ?", (rel,)).fetchone()
        if row is not None:
            _delete(conn, row[0])
        for listener in listeners:
            listener.note_dropped(rel)


def _delete(conn: sqlite3.Connection, note_id: int) -> None:
    metadata.delete(conn, note_id)
    for table, key in (("content", "id"), ("tags", "note_id"), ("links", "note_id"), ("notes", "id")):
        conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (note_id,))


def _insert(conn: sqlite3.Connection, info: NoteInfo, digest: str, racy: bool, record: NoteRecord) -> int:
    cursor = conn.execute(
        "INSERT INTO notes(path, mtime, size, hash, racy, title, headings, body_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            info.rel,
            info.mtime,
            info.size,
            digest,
            int(racy),
            record.title,
            json.dumps(record.headings),
            record.body_line,
        ),
    )
    note_id = cursor.lastrowid
    assert note_id is not None
    name = stem(info.rel)
    values = (
        record.title if record.title == name else f"{record.title}\n{name}",  # the file name is searchable too
        "\n".join(record.aliases),
        "\n".join(text for _, _, text in record.headings),
        " ".join(record.tags),
        record.body,
        record.frontmatter,
        record.code,
    )
    conn.execute(
        f"INSERT INTO content(id, {', '.join(COLUMNS)}) VALUES (?, {', '.join('?' * len(COLUMNS))})", (note_id, *values)
    )
    conn.executemany(
        "INSERT INTO tags(note_id, tag, fold) VALUES (?, ?, ?)",
        [(note_id, tag, nfc_casefold(tag)) for tag in record.tags],
    )
    conn.executemany(
        "INSERT INTO links(note_id, line, kind, target, embed, key) VALUES (?, ?, ?, ?, ?, ?)",
        [(note_id, link.line, link.kind, link.target, int(link.embed), link.key) for link in record.links],
    )
    metadata.write(conn, note_id, record)
    return note_id


def apply(
    conn: sqlite3.Connection,
    vault: Vault,
    todo: list[NoteInfo],
    gone: list[str],
    progress: ProgressFn | None = None,
    listeners: Sequence[SyncListener] = (),
) -> int:
    """Read and index `todo`, drop `gone`, telling `listeners`. Returns the number of notes (re)indexed."""
    total = len(todo)
    report = progress if progress is not None and total >= PROGRESS_MIN else None
    indexed = 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        drop(conn, gone, listeners)
        for done, info in enumerate(todo, 1):
            indexed += _index_one(conn, vault, info, listeners)
            if done % BATCH == 0:
                conn.execute("COMMIT")
                if report is not None:
                    report(done, total)
                conn.execute("BEGIN IMMEDIATE")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if report is not None:
        report(total, total)
    return indexed


def _index_one(conn: sqlite3.Connection, vault: Vault, info: NoteInfo, listeners: Sequence[SyncListener]) -> int:
    """Index one note (or notice it is unchanged / gone). Returns 1 when its record was written."""
    known = conn.execute("SELECT id, size, hash FROM notes WHERE path = ?", (info.rel,)).fetchone()
    read = read_note(vault, info, known[2] if known is not None else None)
    return _store(conn, read, known, listeners)


def _store(
    conn: sqlite3.Connection, read: NoteRead, known: tuple[int, int, str] | None, listeners: Sequence[SyncListener]
) -> int:
    """Write what reading one note found over its stored row `known` (id, size, hash). Returns 1
    when a record was written."""
    rel = read.info.rel
    if read.data is None:
        if known is not None:
            _delete(conn, known[0])
            for listener in listeners:
                listener.note_dropped(rel)
        return 0
    if known is not None and known[1] == len(read.data) and known[2] == read.digest:
        conn.execute("UPDATE notes SET mtime = ?, racy = ? WHERE id = ?", (read.info.mtime, int(read.racy), known[0]))
        for listener in listeners:
            listener.note_indexed(read.info, read.data, read.digest, None)
        return 0
    record = read.record
    if record is None:  # read as unchanged against a hash that has changed since (another call wrote it)
        record = extract(read.data.decode("utf-8", errors="replace"), rel)
    if known is not None:
        _delete(conn, known[0])
    _insert(conn, read.info, read.digest, read.racy, record)
    for listener in listeners:
        listener.note_indexed(read.info, read.data, read.digest, record)
    return 1
