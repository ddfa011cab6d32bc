"""The build of the keyword index, on a thread of its own: list the vault, then read and write it batch by batch.

A `VaultIndex` runs one `Build` for its first sync (started with the server, or by the first call
that needs the index) and after every start-over of its database. It takes the index's lock only
while it touches the database, so a call waits for at most one batch:

1. start the change feed (once per process), under the lock, so no call drains a feed that was
   not yet watching, and so every change made after the listing begins is heard;
2. list the vault, without the lock (0.6 s at 50,000 notes);
3. compare the listing with the index (`sync.plan_full`) and drop the notes gone, under the lock;
4. read and parse `sync.BATCH` notes at a time without the lock, in worker processes when a
   `pool.ReadPool` could be opened (the next batches are read while one is written), and write
   each batch in a transaction of its own under the lock, then wake the calls waiting;
5. list again if a call found that the change feed could not tell what changed (`relist`).

Freshness while it runs. A call answering from the partial index first re-indexes the notes it
knows changed (writes through the server, the change feed) and marks them *touched*, with a
generation number that grows under the lock. A batch remembers the generation at which it was
handed out for reading; when it is written, the notes touched after that are left as the call
wrote them, since the call read them later than the batch did. Notes the listing did not find are
dropped only if no call touched them since the listing began (a call may have indexed a note
created after it). So a note changed during the build is never left stale: either a call read it
after the change, or the build did.

Stopping (`stop`, and at interpreter exit) lets the batch being written commit, then ends the
thread and the worker processes; every committed batch stays, so the next start only reads what is
left (its listing finds the rest missing or changed). Should anything but SQLite fail (the vault
became unreadable), the build ends with that `error`, which the calls waiting for it raise; the
next call starts a new build.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from obsidian_mcp.index import sync
from obsidian_mcp.index.at_exit import stop_at_exit
from obsidian_mcp.index.early import EarlyStart
from obsidian_mcp.index.pending import FILL_CHUNK, PARTIAL_MIN, PendingNotes
from obsidian_mcp.index.pool import ReadPool
from obsidian_mcp.index.progress import IndexProgress, ProgressPoints
from obsidian_mcp.index.sync import NoteRead, SyncListener
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.vault.paths import NoteInfo, Vault

log = logging.getLogger("obsidian_mcp.index")

LISTING_WAIT = 0.5  # seconds a call waits for the listing before answering from the index as it is
STOP_SECONDS = 5.0  # how long stopping waits for the batch in flight


class _Restart(Exception):
    """The database started over under the build: list again, into the new one."""


class _Stopped(Exception):
    """`stop` was called."""


@dataclass
class _Batch:
    generation: int  # the touch generation when it was handed out for reading
    notes: list[tuple[NoteInfo, str | None]]  # (listed note, its stored hash)
    reading: Future[list[NoteRead]] | None  # in a worker process; None: read on the build's thread


class BuildHost(Protocol):
    """What a build needs of the index it fills (`vault_index.VaultIndex` is one): passed in, so
    this module never imports the index that runs it."""

    @property
    def lock(self) -> threading.Condition:
        """The index's one lock, notified whenever the build progresses."""

    @property
    def vault(self) -> Vault: ...

    @property
    def vectors(self) -> VaultVectors: ...

    @property
    def listeners(self) -> Sequence[SyncListener]:
        """Told of every note a batch writes or drops (under the lock)."""

    @property
    def background(self) -> bool:
        """Whether calls may answer during the build (a serving server)."""

    @property
    def epoch(self) -> int:
        """Grows whenever the database starts over: the build then lists again, into the new one."""

    def connect(self) -> sqlite3.Connection: ...

    def start_feed(self) -> None: ...

    def calls_first(self) -> None:
        """Without the lock: let the calls waiting for it have it first."""

    def recover(self, exc: sqlite3.Error, failures: int) -> None: ...

    def build_done(self, build: Build, listed_at: float, listing_seconds: float) -> None: ...

    def build_ended(self, build: Build) -> None: ...


class Build:
    """One build of the index (see the module docstring). Its fields are read and written under the
    index's lock."""

    def __init__(self, index: BuildHost, pool: ReadPool | None, early: EarlyStart | None = None) -> None:
        """`early`: what `index.early` prepared before the server started (its pool is `pool`)."""
        self.index = index
        self._early = early
        self.started = time.monotonic()
        self.progress = IndexProgress(0, 0, listing=True)
        self.points = ProgressPoints()  # one per batch written, for the calls waiting to report
        self.indexed = 0  # records written
        self.relist = False  # a call could not tell what changed: list again before finishing
        self.finished = False
        self.error: BaseException | None = None  # what ended it, when not SQLite and not `stop`
        self._pool = pool
        self._workers = pool.workers if pool is not None else 0
        self._generation = 0
        self._touched: dict[str, int] = {}
        self._unread: set[str] = set()  # planned, not yet handed out for reading
        self.pending: PendingNotes | None = None  # the notes still to write, searchable (index.pending)
        self._batches_started: float | None = None  # when the first batch was handed out
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._main, name="index-build", daemon=True)

    # -- for the index and its calls ------------------------------------------------------------

    def start(self) -> None:
        stop_at_exit(self)
        self._thread.start()

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """End the build after the batch being written (never call with the index's lock held)."""
        self._stopping.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def answers_early(self) -> bool:
        """Whether a call that can answer from part of the index should go ahead now: the build has
        many notes to read, or is still listing a vault large enough to take `LISTING_WAIT`."""
        if self.finished:
            return False
        if self.progress.listing:
            return time.monotonic() - self.started >= LISTING_WAIT
        return self.progress.total >= PARTIAL_MIN

    def searchable(self) -> IndexProgress | None:
        """None when a search can find every note now (the pending notes are all in
        `pending`), else how far it can: notes written or pending, of the notes to read."""
        pending = self.pending
        if pending is not None and pending.ready:
            return None
        if self.progress.listing:
            return self.progress
        filled = pending.filled if pending is not None else 0
        return IndexProgress(max(filled, self.progress.done), self.progress.total)

    def eta(self) -> float | None:
        """Seconds the build should still take at the rate it wrote batches so far (None: unknown yet)."""
        if self.progress.listing or self._batches_started is None:
            return None
        done, total = self.progress.done, self.progress.total
        if done >= total:
            return 0.0
        if done == 0:
            return None
        return (total - done) * (time.monotonic() - self._batches_started) / done

    def early_in(self) -> float | None:
        """Seconds until `answers_early` may turn true by itself (None: only a batch can change it)."""
        if not self.progress.listing:
            return None
        return max(0.0, self.started + LISTING_WAIT - time.monotonic())

    def will_read(self, rel: str) -> bool:
        """Whether this build is still to read `rel`, if it exists (while it lists: any note)."""
        return self.progress.listing or rel in self._unread

    def touch(self, rels: Iterable[str]) -> None:
        """A call re-indexed or dropped these notes: batches read before now must not overwrite them."""
        self._generation += 1
        for rel in rels:
            self._touched[rel] = self._generation

    # -- the thread -----------------------------------------------------------------------------

    def _main(self) -> None:
        failures = 0
        succeeded = False
        try:
            while not succeeded:
                try:
                    succeeded = self._pass()
                except _Restart:
                    continue
                except sqlite3.Error as exc:
                    failures += 1
                    with self.index.lock:
                        self.index.recover(exc, failures)  # raises once even memory keeps failing
        except _Stopped:
            pass
        except BaseException as exc:  # handed to the calls waiting, which raise it
            self.error = exc
            log.warning("the index build failed", extra={"error": type(exc).__name__})
        finally:
            if self._pool is not None:
                self._pool.close()
            with self.index.lock:
                self._drop_pending()
                self.index.build_ended(self)

    def _pass(self) -> bool:
        """List, plan and write once; True when the index is complete, False to list again."""
        index = self.index
        with index.lock:
            self._drop_pending()
            self._check()
            conn = index.connect()
            epoch = index.epoch
            if index.background:
                index.vectors.prepare(conn)  # the stored vectors load meanwhile (see index.vectors)
            index.start_feed()
            listed_from = self._generation
            self.relist = False
            self._publish(IndexProgress(0, 0, listing=True))
        listed_at = time.monotonic()
        infos = list(index.vault.iter_notes())
        listing_seconds = time.monotonic() - listed_at
        ahead = self._early.pending() if self._early is not None else None  # without the lock: it may still fill
        self._early = None
        with index.lock:
            conn = self._connection(epoch)
            todo, gone = sync.plan_full(conn, infos)
            del infos
            gone = [rel for rel in gone if self._touched.get(rel, 0) <= listed_from]
            if gone:
                with _transaction(conn):
                    sync.drop(conn, gone, index.listeners)
            self._unread = {info.rel for info in todo}
            batches = (todo[at : at + sync.BATCH] for at in range(0, len(todo), sync.BATCH))
            pending: deque[_Batch] = deque()
            self._batches_started = time.monotonic()
            self._hand_out(conn, batches, pending)
            to_fill = todo
            if index.background and len(todo) >= PARTIAL_MIN:
                self.pending = ahead if ahead is not None else PendingNotes()
                to_fill = self.pending.keep(todo) if ahead is not None else todo
            elif ahead is not None:
                ahead.close()
            self._publish(IndexProgress(0, len(todo)))
        self._fill(to_fill, epoch)
        done = 0
        while pending:
            batch = pending.popleft()
            reads = self._read(batch)
            index.calls_first()
            with index.lock:
                conn = self._connection(epoch)
                fresh = [read for read in reads if self._touched.get(read.info.rel, 0) <= batch.generation]
                with _transaction(conn):
                    self.indexed += sync.write_reads(conn, fresh, index.listeners)
                if self.pending is not None:
                    self.pending.discard(read.info.rel for read in reads)
                done += len(reads)
                self._hand_out(conn, batches, pending)
                self._publish(IndexProgress(done, len(todo)), point=True)
        if self._pool is not None:  # every batch is read: end the workers before the calls go on
            self._pool.close()
            self._pool = None
        with index.lock:
            self._connection(epoch)
            self._drop_pending()
            if self.relist:
                return False
            index.build_done(self, listed_at, listing_seconds)
            self.finished = True
        log.info(
            "search index built",
            extra={
                "notes_read": done,
                "listing_seconds": round(listing_seconds, 3),
                "seconds": round(time.monotonic() - self.started, 3),
                "worker_processes": self._workers,
            },
        )
        return True

    def _fill(self, todo: list[NoteInfo], epoch: int) -> None:
        """Put the raw text of every note to read into `pending`, a chunk at a time (read without
        the lock), then mark it ready and wake the calls waiting for it."""
        pending = self.pending
        if pending is None:
            return
        chunks = [todo[at : at + FILL_CHUNK] for at in range(0, len(todo), FILL_CHUNK)]
        # a thread reads the next chunk while this one is written (SQLite lets go of the GIL)
        with ThreadPoolExecutor(1, thread_name_prefix="pending-read") as reader:
            reading = reader.submit(PendingNotes.read, self.index.vault, chunks[0]) if chunks else None
            for at in range(len(chunks)):
                assert reading is not None
                read = reading.result()
                if at + 1 < len(chunks):
                    reading = reader.submit(PendingNotes.read, self.index.vault, chunks[at + 1])
                self._check()
                self.index.calls_first()
                with self.index.lock:
                    self._connection(epoch)
                    pending.add(read, self._touched)
        with self.index.lock:
            pending.ready = True
            self.index.lock.notify_all()
        log.info("notes searchable before they are indexed", extra={"notes": len(pending)})

    def _drop_pending(self) -> None:
        if self.pending is not None:
            self.pending.close()
            self.pending = None

    def _hand_out(self, conn: sqlite3.Connection, batches: Iterator[list[NoteInfo]], pending: deque[_Batch]) -> None:
        """Hand out batches until the readers are busy: one more than the workers, so one is always
        ready when a batch is written; one at a time when the build reads them itself."""
        room = (self._pool.workers + 1 if self._pool is not None else 1) - len(pending)
        for _ in range(room):
            infos = next(batches, None)
            if infos is None:
                return
            known = sync.known_hashes(conn, [info.rel for info in infos])
            self._unread.difference_update(info.rel for info in infos)
            notes = [(info, known.get(info.rel)) for info in infos]
            pending.append(_Batch(self._generation, notes, self._submit(notes)))

    def _submit(self, notes: list[tuple[NoteInfo, str | None]]) -> Future[list[NoteRead]] | None:
        if self._pool is None:
            return None
        try:
            return self._pool.read(notes)
        except (RuntimeError, BrokenProcessPool) as exc:  # the interpreter is exiting, or a worker died
            self._drop_pool(exc)
            return None

    def _read(self, batch: _Batch) -> list[NoteRead]:
        """The batch's notes read (waiting for its worker), without the index's lock."""
        self._check()
        if batch.reading is not None:
            try:
                return batch.reading.result()
            except BrokenProcessPool as exc:
                self._drop_pool(exc)
            except CancelledError:  # the pool was dropped after this batch was handed out
                pass
        return sync.read_notes(self.index.vault, batch.notes)

    def _drop_pool(self, exc: BaseException) -> None:
        if self._pool is not None:
            log.warning("reading notes on one thread: the worker processes stopped", extra={"reason": str(exc)[:200]})
            self._pool.close()
            self._pool = None

    def _connection(self, epoch: int) -> sqlite3.Connection:
        """The index's connection, if the database is still the one this pass began in."""
        self._check()
        conn = self.index.connect()
        if self.index.epoch != epoch:
            raise _Restart
        return conn

    def _check(self) -> None:
        if self._stopping.is_set():
            raise _Stopped

    def _publish(self, progress: IndexProgress, *, point: bool = False) -> None:
        self.progress = progress
        if point:
            self.points.add(progress)
        self.index.lock.notify_all()


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
