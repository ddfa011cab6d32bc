"""The vault's index of meanings (`semantic`), kept in step with the keyword index.

`VaultIndex` owns one `VaultVectors`, which is one of its `sync.SyncListener`s: each sync tells it
which notes were read with new text and which were dropped, and `synced` (after the sync, under
the index's lock) hands them to a `semantic.SemanticBuilder` that embeds them on its own thread.

Start. Nothing happens before the first sync: neither numpy nor the model is imported, so start-up
costs nothing. A serving server starts the vectors as soon as its first build ends (so that a
restart answers its first search by meaning completely), any other process with its first call
that syncs. The first successful sync opens the vector tables and asks the builder to reconcile
them with the keyword index's notes and content hashes (a first build embeds every note, a warm
start only what changed while the server was down). The tables live in the keyword index's
database file, through a connection of their own (WAL: the builder's writes never interleave with
the keyword index's transactions), opened only after the keyword store's own connection, since that
store deletes a file it does not recognise; with an in-memory keyword index they are in a private
":memory:" database. A new keyword connection (the index started over, moved to memory, or its file
was replaced) opens them again and reconciles again. What is embedded is exactly what the keyword
index holds, so whatever it leaves out (hidden folders, excluded paths) is never embedded.

Freshness. Before a search by meaning, `catch_up` waits for the stored vectors and the model to
load (a restart: well under `CATCH_UP_SECONDS`), then for the builder when little is left to embed
(at most `CATCH_UP_NOTES` notes, at most `CATCH_UP_SECONDS`): a note just edited by any program is
then found by its new meaning. A larger backlog (a first build) stays in the background: searches
use what is embedded so far and say how far the build got (`SEMANTIC_NOT_READY`).

Failures stay here: a problem with the vector tables or the model is logged, never raised into the
keyword index (whose recovery would otherwise start over); searches by meaning then report it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from obsidian_mcp.index import notes_table, vector_table
from obsidian_mcp.index.at_exit import stop_at_exit
from obsidian_mcp.index.extract import NoteRecord
from obsidian_mcp.index.store import BUSY_TIMEOUT_SECONDS, IndexStore
from obsidian_mcp.vault.errors import VaultError
from obsidian_mcp.vault.paths import NoteInfo, Vault
from obsidian_mcp.vault.storage import etag_of, read_bytes

if TYPE_CHECKING:  # `semantic` itself is imported on the first sync: ~20 ms kept out of start-up
    from obsidian_mcp.index.vector_store import SemanticIndex
    from obsidian_mcp.semantic import BuildProgress, Embedder, NoteHit, NoteText, SemanticBuilder

log = logging.getLogger("obsidian_mcp.index")

CATCH_UP_NOTES = 200  # a backlog this small is embedded before a search by meaning answers (~0.2 s)
CATCH_UP_SECONDS = 2.0  # the longest a search waits for it
START_UP_SECONDS = 30.0  # the longest loading ahead waits for a client's first request (`defer_loading`)
STOP_SECONDS = 2.0  # how long stopping waits for the batch in flight


def _single_threaded_blas() -> None:
    """numpy's OpenBLAS runs a matrix-vector product on one thread per core. In a server whose
    cores are shared (the builder, other tool calls, other processes) that makes a search over
    10,000 notes' vectors three times slower (8 ms instead of 2.5 ms) and adds threads and
    buffers. Only effective before numpy is first imported; the user's own setting wins."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


_start_up_over = threading.Event()
_start_up_over.set()  # no server starting up: load ahead at once


def defer_loading() -> Callable[[], None]:
    """Hold the loading ahead of stored vectors and the model (`preload`, `VaultVectors.prepare`) until
    the function returned is called, or for START_UP_SECONDS at most. `obsidian-mcp` calls it once the
    client has the tool list, or at its first request that may need the index (`ContractServer.
    after_start_up`): numpy's import and the model's load (~0.5 s of CPU, holding the GIL) would
    otherwise slow every step of start-up, the SDK's import first; a client lists the tools long
    before its first search."""
    _start_up_over.clear()
    return _start_up_over.set


class _Preload:
    """What `preload` started: the stored vectors and the model of the index file at `location`,
    loading on a thread of their own before the server exists."""

    def __init__(self, location: Path) -> None:
        self.location = location
        self.identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file it read
        self.loaded: tuple[SemanticIndex, sqlite3.Connection] | None = None
        self.thread = threading.Thread(target=self._run, name="semantic-preload", daemon=True)

    def _run(self) -> None:
        _start_up_over.wait(START_UP_SECONDS)
        try:
            stat = os.stat(self.location)
            identity = (stat.st_dev, stat.st_ino)
            probe = sqlite3.connect(f"{self.location.as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_SECONDS)
            try:
                if not vector_table.has_vectors(probe):
                    return  # nothing stored: the build embeds everything anyway
            finally:
                probe.close()
            self.loaded = _load_stored(self.location, None)
            self.identity = identity
        except Exception:  # e.g. no vector tables: the first build, as if there had been no preload
            log.debug("no stored vectors loaded ahead", exc_info=True)

    def take(self, location: Path) -> tuple[SemanticIndex, sqlite3.Connection] | None:
        """Its loaded index, once loaded, if it read the file now at `location`; else None (closed)."""
        self.thread.join()
        loaded, self.loaded = self.loaded, None
        if loaded is None:
            return None
        try:
            stat = os.stat(location)
            same = location == self.location and self.identity == (stat.st_dev, stat.st_ino)
        except OSError:
            same = False
        if not same:  # the keyword store replaced the file meanwhile (or another location is used)
            loaded[0].close()
            loaded[1].close()
            return None
        return loaded


_preloaded: _Preload | None = None


def preload(location: Path) -> None:
    """Start loading the stored vectors of the index file at `location`, and the default model, on a
    thread of their own (`obsidian-mcp` before it imports the MCP SDK): a restart's first search by
    meaning then need not wait for them. Nothing starts without an index file. The first
    `VaultVectors.prepare` for this location with the default model takes what it loaded; anything
    else (another file, a failure) falls back to loading there. Once per process."""
    global _preloaded
    if _preloaded is not None or not location.is_file():
        return
    _single_threaded_blas()
    _preloaded = _Preload(location)
    _preloaded.thread.start()


def _take_preloaded(location: Path) -> tuple[SemanticIndex, sqlite3.Connection] | None:
    global _preloaded
    early, _preloaded = _preloaded, None
    return early.take(location) if early is not None else None


def _load_stored(location: Path, embedder: Embedder | None) -> tuple[SemanticIndex, sqlite3.Connection]:
    """The vector tables in the index file at `location`, their stored vectors read and the model loaded."""
    from obsidian_mcp.index.vector_store import SemanticIndex

    conn = sqlite3.connect(location, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_SECONDS)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        index = SemanticIndex(conn, embedder)
    except BaseException:
        conn.close()
        raise
    try:
        index.indexed_paths()  # reads the stored vectors
        index.embedder.embed([])  # loads the model
    except BaseException:
        index.close()
        conn.close()
        raise
    return index, conn


class VaultVectors:
    """The semantic side of one `VaultIndex` (see the module docstring)."""

    def __init__(
        self, vault: Vault, store: IndexStore, embedder: Embedder | None = None, *, enabled: bool = True
    ) -> None:
        """`enabled=False`: no vectors at all (searches by meaning answer with keywords alone)."""
        self.vault = vault
        self._store = store
        self._embedder = embedder  # None: semantic.default_embedder(), loaded on first use
        self.index: SemanticIndex | None = None
        self.builder: SemanticBuilder | None = None
        self._conn: sqlite3.Connection | None = None  # the vector tables' own connection
        self._source: sqlite3.Connection | None = None  # the keyword connection they were opened for
        self._loaded = threading.Event()  # the stored vectors are in memory (set by the builder)
        self._notes = 0  # notes of the keyword index when the tables were opened
        self._titles: dict[str, str] = {}  # path -> title as the keyword index has it
        self._changed: dict[str, None] = {}  # read with new text since the last `synced` (ordered set)
        self._removed: set[str] = set()
        self._moves: list[tuple[str, str]] = []
        self._moves_lock = threading.Lock()
        self._stopped = not enabled
        self._preparing: threading.Thread | None = None  # `prepare`'s thread
        self._prepared: tuple[SemanticIndex, sqlite3.Connection] | None = None  # what it loaded

    # -- sync.SyncListener: called during the keyword index's sync, under its lock --------------

    def note_indexed(self, info: NoteInfo, data: bytes, digest: str, record: NoteRecord | None) -> None:
        # Same text as before: nothing to embed. Tables not open yet (the keyword build runs first):
        # opening them reconciles every note anyway, so nothing is kept meanwhile (50k titles).
        if record is None or self._stopped or self.builder is None:
            return
        self._titles[info.rel] = record.title
        self._removed.discard(info.rel)
        self._changed[info.rel] = None

    def note_dropped(self, rel: str) -> None:
        if self._stopped or self.builder is None:
            return
        self._titles.pop(rel, None)
        self._changed.pop(rel, None)
        self._removed.add(rel)

    def index_reset(self) -> None:
        self._source = None  # the next `synced` opens the tables again (the file was deleted)
        self._drop_prepared()

    def prepare(self, conn: sqlite3.Connection) -> None:
        """Load the stored vectors and the model now, on a thread of their own, while the keyword
        index's first build runs: the first `synced` then takes them instead of loading them itself.
        Once per process, only when the index file `conn` reads holds vectors (a restart; a first
        build leaves the cores to the keyword index). Under the index's lock."""
        if self._stopped or self._preparing is not None or self._store.location is None:
            return
        try:
            if not vector_table.has_vectors(conn):
                return
        except sqlite3.OperationalError:  # no such table: never embedded here
            return
        self._preparing = threading.Thread(target=self._prepare, name="semantic-load", daemon=True)
        self._preparing.start()

    # -- called by VaultIndex and the index operations ----------------------------------------

    def synced(self, conn: sqlite3.Connection) -> None:
        """After each successful sync on `conn` (under the index's lock): open the tables if
        `conn` is new, else queue what the sync found changed. Never raises."""
        if self._stopped:
            return
        try:
            if conn is not self._source:
                self._open(conn)
            else:
                self._submit()
        except Exception:
            log.exception("the semantic index could not be updated; searching by meaning is off for now")
            self._close()
            self._source = conn  # not again on every call: the next start-over of the index retries

    def note_moved(self, old: str, new: str) -> None:
        """`move_note` moved a note: its vectors follow it at the next sync, without waiting for
        the builder to embed it again under its new name."""
        with self._moves_lock:
            self._moves.append((old, new))

    def catch_up(self) -> BuildProgress | None:
        """The builder's progress after waiting for it when little is left to embed (see the
        module docstring); None when there is no index of meanings."""
        builder = self.builder
        if builder is None:
            return None
        progress = builder.progress()
        if progress.complete:
            return progress
        # the stored vectors and the model load first (~1 s at 10,000 notes): then the backlog is known
        if not self._loaded.wait(CATCH_UP_SECONDS):
            return progress
        progress = builder.progress()
        backlog = progress.total - progress.done
        if not progress.complete and backlog <= CATCH_UP_NOTES:
            builder.wait(CATCH_UP_SECONDS)
            progress = builder.progress()
        return progress

    def search(self, text: str, limit: int, allow: Callable[[str], bool] | None = None) -> list[NoteHit]:
        """Notes closest in meaning to `text` (see `SemanticIndex.search`); [] until the stored
        vectors are loaded (never waits for that)."""
        index = self.index
        if index is None or not self._loaded.is_set():
            return []
        return index.search(text, limit, allow=allow)

    @property
    def min_similarity(self) -> float:
        """The cosine below which a note found by meaning alone is left out (the model's; see
        `semantic.model`): a query close in meaning to nothing answers nothing."""
        index = self.index
        return index.embedder.min_similarity if index is not None else 1.0

    def meaningful(self, text: str) -> bool:
        """Whether the model knows a word of `text` (see `semantic.Embedder.meaningful`)."""
        index = self.index
        return index is not None and index.embedder.meaningful(text)

    def similar(self, path: str, limit: int) -> list[NoteHit]:
        """Notes closest in meaning to the note `path`, itself excluded; [] until loaded."""
        index = self.index
        if index is None or not self._loaded.is_set():
            return []
        return index.similar(path, limit)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every change handed over so far is embedded (tests, benchmarks)."""
        builder = self.builder
        return builder is not None and builder.wait(timeout)

    def stop(self) -> None:
        """Finish the batch in flight and end the builder's thread; no more embedding after this."""
        self._stopped = True
        self._close()
        self._drop_prepared()

    # -- internals ------------------------------------------------------------------------------

    def _open(self, conn: sqlite3.Connection) -> None:
        from obsidian_mcp.semantic import SemanticBuilder

        self._close()
        rows = notes_table.digests(conn)
        _single_threaded_blas()
        index, self._conn = self._take_prepared() or self._semantic_index()
        loaded = threading.Event()
        builder = SemanticBuilder(index, self._load, on_progress=lambda _: loaded.set())
        self._titles = {path: title for path, _, title in rows}
        self._notes = len(rows)
        self._changed.clear()
        self._removed.clear()
        with self._moves_lock:
            self._moves.clear()
        self.index, self.builder, self._loaded, self._source = index, builder, loaded, conn
        stop_at_exit(self)
        builder.reconcile({path: digest for path, digest, _ in rows})

    def _semantic_index(self) -> tuple[SemanticIndex, sqlite3.Connection]:
        """The vector tables in the keyword index's file, else (in-memory index, or the file
        refuses them) in a private in-memory database; with their connection."""
        from obsidian_mcp.index.vector_store import SemanticIndex

        location = self._store.location
        if location is not None:
            conn: sqlite3.Connection | None = None
            try:
                conn = sqlite3.connect(
                    location, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_SECONDS
                )
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                return SemanticIndex(conn, self._embedder), conn
            except sqlite3.Error as exc:
                if conn is not None:
                    conn.close()
                log.warning("keeping the semantic index in memory", extra={"sqlite_error": str(exc)[:200]})
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        return SemanticIndex(conn, self._embedder), conn

    def _prepare(self) -> None:
        _start_up_over.wait(START_UP_SECONDS)
        try:
            location = self._store.location
            # what `preload` loaded of this very file with the default model, when it did
            early = _take_preloaded(location) if location is not None and self._embedder is None else None
            if early is not None:
                self._prepared = early
                return
            _single_threaded_blas()
            index, conn = self._semantic_index()
            index.indexed_paths()  # reads the stored vectors
            index.embedder.embed([])  # loads the model
            self._prepared = index, conn
        except Exception:  # the first `synced` tries again, and reports what fails
            log.warning("loading the stored vectors ahead failed", exc_info=True)

    def _take_prepared(self) -> tuple[SemanticIndex, sqlite3.Connection] | None:
        """What `prepare` loaded, once it is done, if the index file is still the one it read."""
        preparing = self._preparing
        if preparing is not None:
            preparing.join()
        prepared, self._prepared = self._prepared, None
        if prepared is not None and self._store.location is None:  # moved to memory since
            prepared[0].close()
            prepared[1].close()
            return None
        return prepared

    def _drop_prepared(self) -> None:
        if self._preparing is not None:
            self._preparing.join()
        prepared, self._prepared = self._prepared, None
        if prepared is not None:
            prepared[0].close()
            prepared[1].close()

    def _submit(self) -> None:
        builder = self.builder
        with self._moves_lock:
            moves, self._moves = self._moves, []
        if builder is None:  # off after a failure, until the index starts over
            self._changed.clear()
            self._removed.clear()
            return
        if not (self._changed or self._removed or moves):
            return
        # a moved note is embedded again all the same: its file name is part of what is embedded
        builder.submit(list(self._changed), sorted(self._removed), moves)
        self._changed.clear()
        self._removed.clear()

    def _load(self, path: str) -> NoteText | None:
        """The note as it is now, for the builder's thread (None: gone or unreadable)."""
        from obsidian_mcp.semantic import NoteText

        try:
            data = read_bytes(self.vault.listed_location(path))
        except (OSError, VaultError):
            return None
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        return NoteText(path, text, self._titles.get(path), etag_of(data))

    def _close(self) -> None:
        index, builder, conn = self.index, self.builder, self._conn
        self.index, self.builder, self._conn, self._source = None, None, None, None
        self._loaded = threading.Event()
        if builder is not None:
            builder.stop(STOP_SECONDS)
        if index is not None:
            index.close()
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error:
                log.debug("closing the semantic index connection failed", exc_info=True)
