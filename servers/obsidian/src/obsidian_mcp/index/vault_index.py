"""The search index of one vault: kept fresh before every use, rebuilt when broken.

`VaultIndex.run(op)` brings the index up to date and then runs `op` on it, all under one lock
(tool calls run on worker threads; SQLite work is short, a first build is the exception).

Freshness. Notes this server wrote are re-indexed on every call (see `changes.TrackedLocks`).
The whole vault is listed and compared by (mtime, size) when the last listing is older than
`rescan_seconds` (default 2 s; 0 lists on every call). Listing costs about 10 µs per note, so
at 10,000 notes a listing per call would dominate a search; with the interval, edits made by
other programs (Obsidian, sync clients) are visible within `rescan_seconds`.

Recovery. Any SQLite error while syncing or querying makes the index start over once from an
empty database file; a second failure, or a database locked by another process for longer than
the busy timeout, moves this process to a private in-memory index. Errors are logged, never
shown to the caller.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from obsidian_mcp.index import sync
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.store import IndexStore, is_busy
from obsidian_mcp.vault.paths import Vault

log = logging.getLogger("obsidian_mcp.index")

T = TypeVar("T")
DEFAULT_RESCAN_SECONDS = 2.0


@dataclass(frozen=True)
class Snapshot:
    """What an operation sees: the connection, and every note path the index knows."""

    conn: sqlite3.Connection
    paths: Collection[str]


class VaultIndex:
    def __init__(
        self,
        vault: Vault,
        location: Path | None,
        *,
        changes: TrackedLocks | None = None,
        rescan_seconds: float = DEFAULT_RESCAN_SECONDS,
    ) -> None:
        self.vault = vault
        self.store = IndexStore(location, vault.root)
        self.changes = changes
        self.rescan_seconds = rescan_seconds
        self._lock = threading.Lock()
        self._stamps: dict[str, sync.Stamp] | None = None
        self._data_version: int | None = None
        self._last_listing: float | None = None
        self._seen_conn: sqlite3.Connection | None = None
        self._indexed = 0

    def run(self, op: Callable[[Snapshot], T], progress: sync.ProgressFn | None = None, *, full: bool = False) -> T:
        """Sync, then `op(snapshot)`; domain errors from either propagate unchanged. `full` forces
        a listing of the whole vault whatever the rescan interval."""
        self.vault.check_available()
        with self._lock:
            if full:
                self._last_listing = None
            failures = 0
            while True:
                try:
                    conn = self.store.connect()
                    stamps = self._sync(conn, progress)
                    return op(Snapshot(conn, stamps.keys()))
                except sqlite3.Error as exc:
                    failures += 1
                    self._forget()
                    log.warning("search index failure", extra={"sqlite_error": str(exc)[:200], "attempt": failures})
                    if self.store.in_memory and failures > 2:
                        raise
                    if is_busy(exc) or failures > 1:
                        self.store.use_memory("the index database is locked or keeps failing")
                    else:
                        self.store.reset("the index database failed")
                except BaseException:
                    self._forget()
                    raise

    def refresh(self, progress: sync.ProgressFn | None = None, *, full: bool = True) -> int:
        """Bring the index up to date now (with a full listing unless `full=False`); returns the
        number of notes (re)indexed."""
        return self.run(lambda snapshot: self._indexed, progress, full=full)

    def _forget(self) -> None:
        """After a failure the in-memory view may be ahead of the database: reload it next time."""
        self._stamps = None
        self._last_listing = None

    def _sync(self, conn: sqlite3.Connection, progress: sync.ProgressFn | None) -> dict[str, sync.Stamp]:
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if self._stamps is None or conn is not self._seen_conn or version != self._data_version:
            # first use, a new database, or another process wrote to it
            self._stamps = sync.load_stamps(conn)
            self._data_version = version
            self._seen_conn = conn
            self._last_listing = None
        stamps = self._stamps
        written = self.changes.drain() if self.changes is not None else set()
        now = time.monotonic()
        if self._last_listing is None or now - self._last_listing >= self.rescan_seconds:
            self._last_listing = now
            todo, gone = sync.plan_full(stamps, self.vault.iter_notes())
        else:
            todo, gone = sync.plan_paths(stamps, self.vault, written)
        self._indexed = sync.apply(conn, self.vault, stamps, todo, gone, progress) if todo or gone else 0
        return stamps
