"""The search index of one vault: kept fresh before every use, rebuilt when broken.

`VaultIndex.run(op)` brings the index up to date and then runs `op` on it, all under one lock
(tool calls run on worker threads; SQLite work is short, a first build is the exception).

Freshness. Before every call the index re-checks the notes that changed since the last one and
then answers, so a note created, changed, renamed or deleted by any program before the call is
reflected in it. Two sources name those notes: writes made through this server (see
`changes.TrackedLocks`) and, on Linux, an inotify change feed on every indexed folder (see
`watch.ChangeFeed`), drained without blocking on the caller's thread. Only the named notes are
stat-ed and read (`sync.plan_paths`), so an unchanged vault costs one empty read of the feed,
whatever its size. The first call lists the whole vault (starting the feed first, so nothing
between the two is lost), and so does any call after the feed answered "cannot tell" (queue
overflow, a folder created, moved or deleted). With the feed working, a safety listing still runs
every `rescan_seconds` (default 300 s); `0` lists before every call.

Without the feed (not Linux, a network or FUSE file system, the inotify watch or instance limit
reached, or the feed failed later) the index falls back to listing the whole vault and comparing
(mtime, size) when the last listing is older than `rescan_seconds` (default 2 s) or ten times
what the last listing took if that is longer, so listing never takes more than a tenth of the
time. Listing costs about 10 µs per note (0.1 s at 10,000 notes), so there, edits made by other
programs become visible within 2 s on vaults up to ~20,000 notes, a few seconds beyond.

Recovery. Any SQLite error while syncing or querying makes the index start over once from an
empty database file; a second failure, or a database locked by another process for longer than
the busy timeout, moves this process to a private in-memory index. Errors are logged, never
shown to the caller.

Listeners (`sync.SyncListener`, in `listeners`) hear of every note each sync reads or drops, and
of every start-over; the Dataview pages of `index.pages` are kept fresh that way, and so is the
index of meanings, `vectors` (`index.vectors`: embedded in the background after each sync).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from obsidian_mcp.index import sync
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.store import IndexStore, is_busy
from obsidian_mcp.index.sync import SyncListener
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.index.watch import ChangeFeed
from obsidian_mcp.vault.paths import Vault

if TYPE_CHECKING:
    from obsidian_mcp.semantic import Embedder

log = logging.getLogger("obsidian_mcp.index")

T = TypeVar("T")
DEFAULT_RESCAN_SECONDS = 2.0  # listing interval without the change feed
FEED_RESCAN_SECONDS = 300.0  # safety listing interval while the change feed works


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
        rescan_seconds: float | None = None,
        watch: bool = True,
        embedder: Embedder | None = None,
        semantic: bool = True,
    ) -> None:
        """`rescan_seconds`: how often the whole vault is listed (0: before every call; None: 300 s
        while the change feed works, 2 s without it). `watch=False` never starts the feed.
        `embedder`: the model of the index of meanings (None: the default, loaded on first use);
        `semantic=False` keeps no index of meanings (benchmarks of the keyword index alone)."""
        self.vault = vault
        self.store = IndexStore(location, vault.root, vault.exclusions.fingerprint)
        self.changes = changes
        self.rescan_seconds = rescan_seconds
        self.feed: ChangeFeed | None = ChangeFeed() if watch else None
        self._feed_started = False
        self._lock = threading.Lock()
        self._last_listing: float | None = None
        self._listing_seconds = 0.0
        self._indexed = 0
        self.vectors = VaultVectors(vault, self.store, embedder, enabled=semantic)
        self.listeners: list[SyncListener] = [self.vectors]  # add before the first call; told under the lock

    def run(self, op: Callable[[Snapshot], T], progress: ProgressFn | None = None, *, full: bool = False) -> T:
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
                    self.vectors.synced(conn)  # after connect(): see index.vectors
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
                    for listener in self.listeners:
                        listener.index_reset()
                except BaseException:
                    self._forget()
                    raise

    def refresh(self, progress: ProgressFn | None = None, *, full: bool = True) -> int:
        """Bring the index up to date now (with a full listing unless `full=False`); returns the
        number of notes (re)indexed."""
        return self.run(lambda snapshot: self._indexed, progress, full=full)

    def close(self) -> None:
        """Stop the change feed and the embedding (the index stays usable, by periodic listing,
        without search by meaning)."""
        with self._lock:
            self.vectors.stop()
            if self.feed is not None:
                self.feed.close()
                self.feed = None

    def _forget(self) -> None:
        """After a failure, list the whole vault next time: writes drained this time may be lost."""
        self._last_listing = None

    def _sync(self, conn: sqlite3.Connection, progress: ProgressFn | None) -> None:
        written = self.changes.drain() if self.changes is not None else set()
        feed = self.feed
        if feed is not None and not self._feed_started:
            self._feed_started = True  # one attempt: a failure is logged once, then listing takes over
            if not feed.start(self.vault.root, self.vault.exclusions):
                feed = self.feed = None
            self._last_listing = None  # list after starting, so nothing in between is missed
        changed = feed.drain() if feed is not None else set()
        if feed is not None and not feed.active:
            self.feed = None  # it failed while re-watching (logged): back to periodic listing
        now = time.monotonic()
        if self._last_listing is None or changed is None or now - self._last_listing >= self._interval():
            self._last_listing = now
            todo, gone = sync.plan_full(conn, self.vault.iter_notes())
            self._listing_seconds = time.monotonic() - now
        else:
            changed_paths = {self.vault.root / rel for rel in changed}
            todo, gone = sync.plan_paths(conn, self.vault, written | changed_paths)
        self._indexed = sync.apply(conn, self.vault, todo, gone, progress, self.listeners) if todo or gone else 0

    def _interval(self) -> float:
        """Seconds between full listings: `rescan_seconds` (or the default for the current mode),
        at least ten times what the last listing took; 0 lists on every call."""
        if self.rescan_seconds == 0:
            return 0.0
        default = FEED_RESCAN_SECONDS if self.feed is not None else DEFAULT_RESCAN_SECONDS
        base = default if self.rescan_seconds is None else self.rescan_seconds
        return max(base, 10 * self._listing_seconds)
