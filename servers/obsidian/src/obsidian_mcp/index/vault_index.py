"""The search index of one vault: kept fresh before every use, rebuilt when broken.

`VaultIndex.run(op)` brings the index up to date and then runs `op` on it, all under one lock
(tool calls run on worker threads; SQLite work is short, a first build is the exception).

Freshness. Notes this server wrote are re-indexed on every call (see `changes.TrackedLocks`).
The whole vault is listed and compared by (mtime, size) when the last listing is older than
the rescan interval: `rescan_seconds` (default 2 s), or ten times what the last listing took if
that is longer, so listing never takes more than a tenth of the time; 0 lists on every call.
Listing costs about 10 µs per note (0.1 s at 10,000 notes), which would dominate every search;
with the interval, edits made by other programs (Obsidian, sync clients) are visible within
2 s on vaults up to ~20,000 notes, a few seconds beyond.

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
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TypeVar

from obsidian_mcp.index import sync
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.store import IndexStore, is_busy
from obsidian_mcp.vault.paths import Vault

log = logging.getLogger("obsidian_mcp.index")

T = TypeVar("T")
DEFAULT_RESCAN_SECONDS = 2.0


class Snapshot:
    """What an operation sees: the connection, and (loaded on first use) every note path."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @cached_property
    def paths(self) -> frozenset[str]:
        return frozenset(row[0] for row in self.conn.execute("SELECT path FROM notes"))


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
        self._last_listing: float | None = None
        self._listing_seconds = 0.0
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
                    self._sync(conn, progress)
                    return op(Snapshot(conn))
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
        """After a failure, list the whole vault next time: writes drained this time may be lost."""
        self._last_listing = None

    def _sync(self, conn: sqlite3.Connection, progress: sync.ProgressFn | None) -> None:
        written = self.changes.drain() if self.changes is not None else set()
        now = time.monotonic()
        interval = max(self.rescan_seconds, 10 * self._listing_seconds) if self.rescan_seconds > 0 else 0.0
        if self._last_listing is None or now - self._last_listing >= interval:
            self._last_listing = now
            todo, gone = sync.plan_full(conn, self.vault.iter_notes())
            self._listing_seconds = time.monotonic() - now
        else:
            todo, gone = sync.plan_paths(conn, self.vault, written)
        self._indexed = sync.apply(conn, self.vault, todo, gone, progress) if todo or gone else 0
