"""The index database: where it lives, its schema, and recovering from a broken file.

One SQLite file per vault, `<index dir>/<vault name>-<hash of the vault's real path>/index.sqlite3`,
never inside the vault (a location inside it is refused for a private in-memory database). It is
a cache: whenever it cannot be trusted (garbage bytes, another schema version, another vault's
data or excluded paths, a file replaced underneath us) it is deleted and rebuilt from the notes, with a warning in
the log. When it cannot be used at all (the folder is not writable, another process holds it
locked for too long) the server keeps a private in-memory index instead.

Dataview's fields, inline fields, list items and tasks live in `fields` and `list_items` (see
`index.metadata`). Text lives in `content`; `content_fts` is an external-content FTS5 index over it kept in step by
triggers, so the stored text serves both ranking and the line/snippet work after it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
from contextlib import suppress
from pathlib import Path

log = logging.getLogger("obsidian_mcp.index")

SCHEMA_VERSION = 5  # bump whenever the schema or what `extract` stores changes: old indexes rebuild
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_SECONDS = 10.0
COLUMNS = ("title", "aliases", "headings", "tags", "body", "frontmatter", "code")
# bm25 column weights, in COLUMNS order: names first, structure next, prose, then metadata and code.
WEIGHTS = (10.0, 8.0, 4.0, 4.0, 1.0, 0.5, 0.2)

_column_list = ", ".join(COLUMNS)
_new_values = ", ".join(f"new.{c}" for c in COLUMNS)
_old_values = ", ".join(f"old.{c}" for c in COLUMNS)
SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE notes(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    mtime REAL NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT NOT NULL,
    racy INTEGER NOT NULL,
    title TEXT NOT NULL,
    headings TEXT NOT NULL,
    body_line INTEGER NOT NULL
);
CREATE TABLE content(id INTEGER PRIMARY KEY, {_column_list});
CREATE VIRTUAL TABLE content_fts USING fts5(
    {_column_list}, content='content', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER content_added AFTER INSERT ON content BEGIN
    INSERT INTO content_fts(rowid, {_column_list}) VALUES (new.id, {_new_values});
END;
CREATE TRIGGER content_removed AFTER DELETE ON content BEGIN
    INSERT INTO content_fts(content_fts, rowid, {_column_list}) VALUES ('delete', old.id, {_old_values});
END;
CREATE TABLE tags(note_id INTEGER NOT NULL, tag TEXT NOT NULL, fold TEXT NOT NULL);
CREATE INDEX tags_by_fold ON tags(fold);
CREATE INDEX tags_by_note ON tags(note_id);
CREATE TABLE links(
    note_id INTEGER NOT NULL, line INTEGER NOT NULL, kind TEXT NOT NULL,
    target TEXT NOT NULL, embed INTEGER NOT NULL, key TEXT NOT NULL
);
CREATE INDEX links_by_key ON links(key);
CREATE INDEX links_by_note ON links(note_id);
CREATE TABLE fields(
    note_id INTEGER NOT NULL, item_line INTEGER, line INTEGER, col INTEGER,
    source TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL
);
CREATE INDEX fields_by_note ON fields(note_id);
CREATE TABLE list_items(
    note_id INTEGER NOT NULL, line INTEGER NOT NULL, line_count INTEGER NOT NULL, parent_line INTEGER,
    symbol TEXT NOT NULL, indent INTEGER NOT NULL, status TEXT, text TEXT NOT NULL, section TEXT,
    block_id TEXT, tags TEXT NOT NULL, links TEXT NOT NULL,
    due TEXT, scheduled TEXT, start TEXT, completion TEXT, created TEXT, cancelled TEXT,
    priority TEXT, recurrence TEXT
);
CREATE INDEX list_items_by_note ON list_items(note_id);
CREATE VIEW tasks AS
    SELECT n.path, i.line, i.status, i.text, i.tags, i.section, i.parent_line, i.due, i.scheduled, i.start,
           i.completion, i.created, i.cancelled, i.priority, i.recurrence
    FROM list_items AS i JOIN notes AS n ON n.id = i.note_id WHERE i.status IS NOT NULL;
"""


def default_index_dir() -> Path:
    """The user cache folder for obsidian-mcp (e.g. ~/.cache/obsidian-mcp)."""
    import platformdirs  # ~30 ms to import: only when no OBSIDIAN_MCP_INDEX_DIR is given

    return Path(platformdirs.user_cache_dir("obsidian-mcp"))


def index_location(index_dir: Path, vault_root: Path) -> Path:
    """The database file of the vault at `vault_root` (a real path) under `index_dir`."""
    digest = hashlib.sha256(os.fsencode(vault_root)).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", vault_root.name).strip("-.")[:40] or "vault"
    return index_dir.expanduser() / f"{name}-{digest}" / "index.sqlite3"


def is_busy(exc: sqlite3.Error) -> bool:
    """The database is locked by another connection (SQLITE_BUSY / SQLITE_LOCKED)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (5, 6)


class IndexStore:
    """Owns the one connection to the index database. Not thread-safe: the caller serialises."""

    def __init__(self, location: Path | None, vault_root: Path, exclusions: str = "") -> None:
        """`exclusions`: the fingerprint of the vault's private-folder patterns; an index built under
        other patterns is rebuilt, so nothing of a note excluded now survives in it."""
        self.vault_root = vault_root
        self.exclusions = exclusions
        self.location = location
        if location is not None and Path(os.path.realpath(location)).is_relative_to(vault_root):
            log.warning("the index folder is inside the vault; keeping the index in memory instead")
            self.location = None
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None

    @property
    def in_memory(self) -> bool:
        return self.location is None

    # -- opening ------------------------------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        """The open connection, after checking the file is still ours; (re)creates it as needed."""
        if self._conn is not None and not self._still_ours():
            self.close()
        if self._conn is None:
            try:
                self._conn = self._open()
            except OSError as exc:  # the folder or file cannot be created, read or deleted
                self.use_memory(f"the index file is not usable ({os.strerror(exc.errno or 0)})")
                self._conn = self._open()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        if self.location is None:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self._create(conn)
            return conn
        self.location.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self._header_is_foreign():
            self._delete("the index file is not an SQLite database")
        conn = self._connect_file()
        try:
            problem = self._foreign(conn)
            if problem is not None:
                conn.close()
                self._delete(problem)
                conn = self._connect_file()
            if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                self._create(conn)
        except BaseException:
            conn.close()
            raise
        self._identity = self._file_identity()
        return conn

    def _connect_file(self) -> sqlite3.Connection:
        assert self.location is not None
        conn = sqlite3.connect(
            self.location, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_SECONDS
        )
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            conn.close()
            raise
        return conn

    def _foreign(self, conn: sqlite3.Connection) -> str | None:
        """Why an existing database is not ours to use (schema version, vault), or None."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            return None  # brand new
        if version != SCHEMA_VERSION:
            return f"the index has schema version {version}, not {SCHEMA_VERSION}"
        row = conn.execute("SELECT value FROM meta WHERE key = 'vault'").fetchone()
        if row is None or row[0] != os.fsdecode(self.vault_root):
            return "the index belongs to another vault"
        row = conn.execute("SELECT value FROM meta WHERE key = 'exclusions'").fetchone()
        if (row[0] if row is not None else "") != self.exclusions:
            return "the excluded paths changed"
        return None

    def _create(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(SCHEMA):
                conn.execute(statement)
            conn.execute("INSERT INTO meta(key, value) VALUES ('vault', ?)", (os.fsdecode(self.vault_root),))
            conn.execute("INSERT INTO meta(key, value) VALUES ('exclusions', ?)", (self.exclusions,))
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # -- trusting the file --------------------------------------------------------------------

    def _file_identity(self) -> tuple[int, int] | None:
        if self.location is None:
            return None
        try:
            info = os.stat(self.location)
        except OSError:
            return None
        return info.st_dev, info.st_ino

    def _header_is_foreign(self) -> bool:
        """True when the file exists with bytes that are not an SQLite header (an empty file is fine)."""
        if self.location is None:
            return False
        try:
            with open(self.location, "rb") as handle:
                head = handle.read(len(SQLITE_MAGIC))
        except FileNotFoundError:
            return False
        except OSError:
            return True
        return bool(head) and head != SQLITE_MAGIC

    def _still_ours(self) -> bool:
        """The file at our location is the one we opened, has an SQLite header and our schema."""
        if self.location is None or self._conn is None:
            return True
        if self._file_identity() != self._identity or self._header_is_foreign():
            return False
        try:
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error:
            return False
        return bool(version == SCHEMA_VERSION)

    # -- starting over ------------------------------------------------------------------------

    def close(self) -> None:
        if self._conn is not None:
            with suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None
        self._identity = None

    def _delete(self, reason: str) -> None:
        if self.location is None:
            return
        log.warning("rebuilding the search index", extra={"reason": reason})
        for suffix in ("", "-wal", "-shm", "-journal"):
            with suppress(FileNotFoundError):
                os.unlink(f"{self.location}{suffix}")

    def reset(self, reason: str) -> None:
        """Close and delete the database; the next `connect` starts an empty one."""
        self.close()
        try:
            self._delete(reason)
        except OSError as exc:
            self.use_memory(f"cannot delete the broken index ({os.strerror(exc.errno or 0)})")

    def use_memory(self, reason: str) -> None:
        """Give up on the file for this process: keep the index in memory from now on."""
        if self.location is not None:
            log.warning("keeping the search index in memory", extra={"reason": reason})
        self.close()
        self.location = None


def _statements(script: str) -> list[str]:
    """Split the schema into statements (trigger bodies keep their inner semicolons)."""
    out: list[str] = []
    current = ""
    for part in script.split(";"):
        current += part + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" \n;"):
                out.append(current.strip())
            current = ""
    return out
