"""The search index of one vault: kept fresh before every use, built in the background, rebuilt when broken.

`VaultIndex.run(op)` brings the index up to date and then runs `op` on it, under one lock (tool
calls run on worker threads; SQLite work is short).

Build. The first sync of a process (and the first after the database started over) is a `Build`
(`index.build`): it lists the whole vault and reads every note that is new or changed since the
index was last written, on a thread of its own, a batch at a time, parsing in worker processes
where the cores allow (`index.pool`). It holds the lock only while it writes a batch, so a call
never waits for more than one batch (~50 ms). A serving server starts it before it answers
anything (`start`); otherwise the first call that needs the index starts it.

Which calls wait for the build. The rule: every answer is complete, unless it says otherwise.
* Search (`during="search"`): `search_notes` answers at once, completely, once the build has put the
  notes it is still to read into its `pending` table (`index.pending`: their raw text, searchable
  without parsing; ~1 s at 10,000 notes): a search indexes the best pending matches within the call
  and counts the rest. Searches wait for that until `SEARCH_WAIT` seconds after the build began; a
  vault too large to read in that time (beyond ~20,000 notes here) gets, meanwhile, answers from the
  notes indexed or pending so far with an `INDEX_BUILDING` warning (`done`, `total`) and one
  progress notification.
* Dataview queries (`during="query"`): `query_notes` waits for the build, reporting its progress,
  when at the rate it writes batches it will end within `QUERY_WAIT` seconds (about 30,000 notes
  to read here); otherwise it answers from the notes indexed so far with `INDEX_BUILDING`.
* Hints (`during="hint"`): the recent-notes resource list and path completion answer at once from
  the notes indexed so far; they have no warnings.
* Wait (the default): whatever a missing note would make wrong rather than incomplete —
  `list_tags` (counts), `get_backlinks` and `check_links` (a link to a note not yet indexed would
  look broken), `move_note` and `rename_tag` (they rewrite every note that refers to the target),
  `similar_notes` (a note not yet indexed would be "not found").
A build with fewer than `build.PARTIAL_MIN` notes to read (well under a second) is waited for by
every call, and so is the listing until it has taken `build.LISTING_WAIT`.

Freshness. Before every call the index re-checks the notes that changed since the last one and
then answers, so a note created, changed, renamed or deleted by any program before the call is
reflected in it. Two sources name those notes: writes made through this server (see
`changes.TrackedLocks`) and, on Linux, an inotify change feed on every indexed folder (see
`watch.ChangeFeed`), drained without blocking on the caller's thread. Only the named notes are
stat-ed and read (`sync.plan_paths`), so an unchanged vault costs one empty read of the feed,
whatever its size. The build lists the whole vault (starting the feed first, so nothing between
the two is lost), and so does any call after the feed answered "cannot tell" (queue overflow, a
folder created, moved or deleted). With the feed working, a safety listing still runs every
`rescan_seconds` (default 300 s); `0` lists before every call. During the build, a call answering
from the partial index re-indexes the notes it was told changed before answering (the build never
overwrites them with an older read: see `index.build`); when the feed cannot tell (or there is
none and a listing is due), the call lists the vault and re-reads what changed except the notes
the build is still to read (after a feed that could not tell, the build lists again before it
finishes, for what changed while it listed). So a note in the
indexed part is fresh in every answer, and no note changed during the build ends up stale.

Without the feed (not Linux, a network or FUSE file system, the inotify watch or instance limit
reached, or the feed failed later) the index falls back to listing the whole vault and comparing
(mtime, size) when the last listing is older than `rescan_seconds` (default 2 s) or ten times
what the last listing took if that is longer, so listing never takes more than a tenth of the
time. Listing costs about 10 µs per note (0.1 s at 10,000 notes), so there, edits made by other
programs become visible within 2 s on vaults up to ~20,000 notes, a few seconds beyond.

Recovery. Any SQLite error while syncing or querying makes the index start over once from an
empty database file (with a new build); a second failure, or a database locked by another process
for longer than the busy timeout, moves this process to a private in-memory index. A database
file replaced under us is built again too. Errors are logged, never shown to the caller.

Listeners (`sync.SyncListener`, in `listeners`) hear of every note each sync reads or drops, and
of every start-over; the Dataview pages of `dataview.pages` are kept fresh that way, and so is the
index of meanings, `vectors` (`index.vectors`: embedded in the background after each sync, from
the end of a serving server's first build, else from the first call after it; its stored vectors
and model load while that build runs; calls answering during the build leave it alone).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from obsidian_mcp.index import notes_table, sync
from obsidian_mcp.index.build import Build
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.early import take as take_early
from obsidian_mcp.index.pending import Unindexed
from obsidian_mcp.index.pool import default_workers, open_pool
from obsidian_mcp.index.progress import IndexProgress, ProgressFn
from obsidian_mcp.index.store import IndexStore, is_busy
from obsidian_mcp.index.sync import SyncListener
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.index.watch import ChangeFeed
from obsidian_mcp.vault.paths import NoteInfo, Vault

if TYPE_CHECKING:
    from obsidian_mcp.semantic import Embedder

log = logging.getLogger("obsidian_mcp.index")

T = TypeVar("T")
During = Literal["wait", "hint", "search", "query"]
"""What a call does while the first build runs (see the module docstring)."""
SEARCH_WAIT = 3.0  # seconds after a build began until which searches wait for its pending notes
CALLS_FIRST_SECONDS = 0.5  # the longest the build lets waiting calls go first, before each batch
QUERY_WAIT = 20.0  # seconds a Dataview query waits for the build to end before answering flagged
DEFAULT_RESCAN_SECONDS = 2.0  # listing interval without the change feed
FEED_RESCAN_SECONDS = 300.0  # safety listing interval while the change feed works


class Snapshot:
    """What an operation sees: the connection, (loaded on first use) every note path, how far the
    build got when the operation answers from part of the index (`building`: notes may be missing;
    else None), and during a build the notes not yet indexed, for searches (`unindexed`)."""

    def __init__(
        self, conn: sqlite3.Connection, building: IndexProgress | None = None, unindexed: Unindexed | None = None
    ) -> None:
        self.conn = conn
        self.building = building
        self.unindexed = unindexed

    @cached_property
    def paths(self) -> frozenset[str]:
        return notes_table.all_paths(self.conn)


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
        workers: int | None = None,
    ) -> None:
        """`rescan_seconds`: how often the whole vault is listed (0: before every call; None: 300 s
        while the change feed works, 2 s without it). `watch=False` never starts the feed.
        `embedder`: the model of the index of meanings (None: the default, loaded on first use);
        `semantic=False` keeps no index of meanings (benchmarks of the keyword index alone).
        `workers`: processes parsing notes during a build (None: `pool.default_workers()`; 0: none)."""
        self.vault = vault
        self.store = IndexStore(location, vault.root, vault.exclusions.fingerprint)
        self.changes = changes
        self.rescan_seconds = rescan_seconds
        self.feed: ChangeFeed | None = ChangeFeed() if watch else None
        self.lock = threading.Condition()  # the one lock; notified whenever the build progresses
        self._waiting = 0  # calls waiting for the lock: the build lets them go first (`calls_first`)
        self._waiting_lock = threading.Lock()
        self.epoch = 0  # grows whenever the database starts over or is replaced: a build lists again
        self._workers = default_workers() if workers is None else workers
        self._feed_started = False
        self._conn: sqlite3.Connection | None = None  # the connection the index was last synced on
        self._build: Build | None = None  # the build under way
        self._built = False  # a build completed on the current database
        self.background = False  # `start` was called: calls that can, answer during a build
        self._last_listing: float | None = None
        self._listing_seconds = 0.0
        self._indexed = 0
        self._build_indexed = 0  # notes the last build (re)indexed, counted by the next `refresh`
        self.vectors = VaultVectors(vault, self.store, embedder, enabled=semantic)
        self.listeners: list[SyncListener] = [self.vectors]  # add before the first call; told under the lock

    def start(self) -> None:
        """Build now, in the background, and from now on let the calls that can answer from part of
        the index while a build runs (see the module docstring). Called by a server about to serve."""
        with self.lock:
            self.background = True
            if self._build is None and not self._built:
                self._begin_build()

    @property
    def built(self) -> bool:
        """A build completed on the current database: the index holds every note (`list_vaults`)."""
        return self._built

    def run(
        self,
        op: Callable[[Snapshot], T],
        progress: ProgressFn | None = None,
        *,
        full: bool = False,
        during: During = "wait",
    ) -> T:
        """Sync, then `op(snapshot)`; domain errors from either propagate unchanged. `full` forces
        a listing of the whole vault (unless one began since this call did). `during` says what
        the call does while a large build runs (see the module docstring): "wait" for it, reporting
        its progress; answer at once from the part indexed ("hint"); search the part indexed and
        the pending notes ("search"); or wait unless the build cannot end in time ("query")."""
        self.vault.check_available()
        asked = time.monotonic()
        failures = 0
        with self._waiting_lock:
            self._waiting += 1
        with self.lock:
            with self._waiting_lock:
                self._waiting -= 1
            while True:
                try:
                    build = self._await_build(progress, during, asked)
                    conn = self.connect()
                    if build is not None:
                        self._sync_during(conn, build)
                        return op(self._during(conn, build, during))
                    if not self._built:
                        continue  # the database was replaced while this call waited: build again
                    if full and (self._last_listing is None or self._last_listing < asked):
                        self._last_listing = None
                    self._sync(conn, progress, asked)
                    self.vectors.synced(conn)  # after connect(): see index.vectors
                    return op(Snapshot(conn))
                except sqlite3.Error as exc:
                    failures += 1
                    self.recover(exc, failures)
                except BaseException:
                    self._forget()
                    raise

    def refresh(self, progress: ProgressFn | None = None, *, full: bool = True) -> int:
        """Bring the index up to date now (with a full listing unless `full=False`); returns the
        number of notes (re)indexed, a build this call waited for included."""
        return self.run(lambda snapshot: self._indexed, progress, full=full)

    def close(self) -> None:
        """Stop the build, the change feed and the embedding (the index stays usable, by periodic
        listing, without search by meaning)."""
        build = self._build
        if build is not None:
            build.stop()  # without the lock: the batch it is writing needs it
        with self.lock:
            self.vectors.stop()
            if self.feed is not None:
                self.feed.close()
                self.feed = None

    # -- for `index.build` ---------------------------------------------------------------------

    def calls_first(self, longest: float = CALLS_FIRST_SECONDS) -> None:
        """Before the build takes the lock for a batch (without it): let the calls waiting for the
        lock have it first (Python's locks are not fair: the build could take it again and again),
        for at most `longest` seconds."""
        deadline = time.monotonic() + longest
        while self._waiting and time.monotonic() < deadline:
            time.sleep(0.001)

    # -- for `index.build`, under the lock ---------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        """The store's connection; a new one (the file was replaced, or the index started over)
        means a new database, which a build must fill."""
        conn = self.store.connect()
        if conn is not self._conn:
            if self._conn is not None:
                self._start_over()
            self._conn = conn
        return conn

    def start_feed(self) -> None:
        """Start the change feed, once per process (a failure is logged once, then listing takes over)."""
        if self.feed is not None and not self._feed_started:
            self._feed_started = True
            if not self.feed.start(self.vault.root, self.vault.exclusions):
                self.feed = None

    def recover(self, exc: sqlite3.Error, failures: int) -> None:
        """After an SQLite error: start over from an empty database file, or from memory when the
        file is locked or keeps failing; raises when even memory fails again."""
        self._forget()
        log.warning("search index failure", extra={"sqlite_error": str(exc)[:200], "attempt": failures})
        if self.store.in_memory and failures > 2:
            raise exc
        if is_busy(exc) or failures > 1:
            self.store.use_memory("the index database is locked or keeps failing")
        else:
            self.store.reset("the index database failed")
        self._start_over()
        for listener in self.listeners:
            listener.index_reset()

    def build_done(self, build: Build, listed_at: float, listing_seconds: float) -> None:
        """The build wrote every note of its last listing: the index is complete."""
        if self._last_listing is None or self._last_listing < listed_at:
            self._last_listing, self._listing_seconds = listed_at, listing_seconds
        self._built = True
        self._build_indexed = build.indexed
        self._build = None
        if self.background and self._conn is not None:
            # A serving server starts the vectors now, so that they are loaded (a restart) or
            # building when the first search by meaning comes; otherwise the next call that syncs.
            self.vectors.synced(self._conn)

    def build_ended(self, build: Build) -> None:
        """The build's thread is ending (done, stopped or failed): wake every call waiting for it."""
        build.finished = True
        if self._build is build:
            self._build = None
        self.lock.notify_all()

    # -- internals ------------------------------------------------------------------------------

    def _begin_build(self) -> Build:
        early = take_early(self.store.location) if self.store.location is not None else None
        pool = early.pool if early is not None else (open_pool(self.vault, self._workers) if self._workers else None)
        build = self._build = Build(self, pool, early)
        build.start()
        return build

    def _await_build(self, progress: ProgressFn | None, during: During, asked: float) -> Build | None:
        """The build a call goes ahead of, or None once the index is built: waits for it otherwise
        (starting it if none ran yet), reporting each batch written. Raises the error that ended
        the build waited for."""
        joined: Build | None = None  # the build this call waits for
        seen = 0  # its progress points reported so far
        while True:
            if joined is not None:
                fresh = joined.points.since(seen)
                seen += len(fresh)
                self._report(fresh, progress)
                if joined.finished and joined.error is not None:
                    raise joined.error
            build = self._build
            if build is None:
                if self._built:
                    return None
                build = self._begin_build()
            timeout = self._goes_ahead(build, during, asked)
            if timeout == 0.0:
                reached = build.searchable() if during == "search" else build.progress
                if reached is not None:  # an answer from part of the notes: say how far, once
                    self._report([reached], progress)
                return build
            if build is not joined:
                joined, seen = build, max(0, len(build.points) - 1)  # from where the build is now
                continue
            self.lock.wait(timeout)

    def _goes_ahead(self, build: Build, during: During, asked: float) -> float | None:
        """0 when a `during` call asked at `asked` answers during `build` now; else how long to wait
        before asking again (None: until the build progresses)."""
        if during == "wait" or not self.background:
            return None
        now = time.monotonic()
        if during == "search" and build.searchable() is None:
            return 0.0  # complete: the pending notes are searchable
        early = build.answers_early()
        if during == "hint":
            return 0.0 if early else build.early_in()
        # a search waits for the pending notes until `SEARCH_WAIT` after the build began (then
        # every search answers at once, flagged); a query up to `QUERY_WAIT` after it was asked
        left = (build.started + SEARCH_WAIT if during == "search" else asked + QUERY_WAIT) - now
        if early and during == "query":
            eta = build.eta()
            if eta is not None and eta > left:
                return 0.0  # the build cannot end in time: answer from what is indexed, flagged
        if early and left <= 0:
            return 0.0
        later = [t for t in (build.early_in(), left if left > 0 else None) if t is not None]
        return max(0.01, min(later)) if later else None

    def _during(self, conn: sqlite3.Connection, build: Build, during: During) -> Snapshot:
        """What a call answering during `build` sees."""
        if during == "search":
            unindexed = (
                Unindexed(build.pending, conn, self.vault, build.touch, self.listeners)
                if build.pending is not None
                else None
            )
            return Snapshot(conn, build.searchable(), unindexed)
        return Snapshot(conn, build.progress)

    def _report(self, points: list[IndexProgress], progress: ProgressFn | None) -> None:
        """Tell `progress` of these points of a large build, without holding the lock."""
        points = [point for point in points if point.total >= sync.PROGRESS_MIN]
        if progress is None or not points:
            return
        self.lock.release()
        try:
            for point in points:
                progress(point.done, point.total)
        finally:
            self.lock.acquire()

    def _start_over(self) -> None:
        """The database is new: build it again (a running build lists again into it)."""
        self.epoch += 1
        self._built = False

    def _forget(self) -> None:
        """After a failure, list the whole vault next time: writes drained this time may be lost."""
        self._last_listing = None
        if self._build is not None:
            self._build.relist = True

    def _drain(self) -> set[Path] | None:
        """The notes written through the server or named by the change feed since the last call;
        None when the feed cannot tell (the whole vault must be listed)."""
        written = self.changes.drain() if self.changes is not None else set()
        feed = self.feed if self._feed_started else None
        changed = feed.drain() if feed is not None else set()
        if feed is not None and not feed.active:
            self.feed = None  # it failed while re-watching (logged): back to periodic listing
        if changed is None:
            return None
        return written | {self.vault.root / rel for rel in changed}

    def _sync(self, conn: sqlite3.Connection, progress: ProgressFn | None, asked: float) -> None:
        """Bring the index up to date for a call made at `asked` (a listing that began since counts)."""
        changed = self._drain()
        now = time.monotonic()
        last = self._last_listing
        if last is None or changed is None or (now - last >= self._interval() and last < asked):
            self._last_listing = now
            todo, gone = sync.plan_full(conn, self.vault.iter_notes())
            self._listing_seconds = time.monotonic() - now
        else:
            todo, gone = sync.plan_paths(conn, self.vault, changed)
        indexed = sync.apply(conn, self.vault, todo, gone, progress, self.listeners) if todo or gone else 0
        self._indexed, self._build_indexed = indexed + self._build_indexed, 0

    def _sync_during(self, conn: sqlite3.Connection, build: Build) -> None:
        """A call answering during the build: re-index the notes known to have changed. When the
        feed cannot tell which (or there is no feed and a listing is due), list the vault and
        re-index what changed, appeared or went, except the notes the build is still to read (it
        lists again before it finishes, for what the feed lost while it was listing itself)."""
        changed = self._drain()
        todo, gone = sync.plan_paths(conn, self.vault, changed) if changed else ([], [])
        last = max(self._last_listing or build.started, build.started)
        if changed is None or (self.feed is None and time.monotonic() - last >= self._interval()):
            build.relist |= changed is None
            listed, went = self._list_during(conn, build)
            taken = {info.rel for info in todo}
            todo += [info for info in listed if info.rel not in taken]
            gone = sorted({*gone, *went})
        self._indexed = 0
        if todo or gone:
            rels = [info.rel for info in todo] + gone
            build.touch(rels)
            if build.pending is not None:
                build.pending.discard(rels)
            self._indexed = sync.apply(conn, self.vault, todo, gone, None, self.listeners)

    def _list_during(self, conn: sqlite3.Connection, build: Build) -> tuple[list[NoteInfo], list[str]]:
        """A full listing compared with the index, leaving the build the notes it is still to read
        unless they changed since they were made searchable (`pending`): (notes to read now, notes
        gone)."""
        started = time.monotonic()
        todo, gone = sync.plan_full(conn, self.vault.iter_notes())
        self._last_listing, self._listing_seconds = started, time.monotonic() - started
        indexed = notes_table.all_paths(conn)
        pending = build.pending
        return [
            info
            for info in todo
            if info.rel in indexed or not build.will_read(info.rel) or (pending is not None and pending.changed(info))
        ], gone

    def _interval(self) -> float:
        """Seconds between full listings: `rescan_seconds` (or the default for the current mode),
        at least ten times what the last listing took; 0 lists on every call."""
        if self.rescan_seconds == 0:
            return 0.0
        default = FEED_RESCAN_SECONDS if self.feed is not None else DEFAULT_RESCAN_SECONDS
        base = default if self.rescan_seconds is None else self.rescan_seconds
        return max(base, 10 * self._listing_seconds)
