"""Embedding notes in the background: a queue of paths worked off in batches on one thread.

The caller says *which* notes changed (`submit`, or `reconcile` with the vault's {path: hash});
the builder's thread reads each note's current text through the caller's `load` function when
its turn comes (so a note edited twice while queued is embedded once, in its latest state),
chunks and embeds a batch without holding any lock, and stores it in one transaction. It is the
only writer of its store (a `VectorStore`: `index.vector_store.SemanticIndex`) for as long as it
runs; searches go on meanwhile and see each batch as soon as it is stored.

`progress()` says how far it got: `done`/`total` count the notes handled since the queue was last
empty, and `complete` is True once nothing is queued or in flight — until then a search should
carry a `SEMANTIC_NOT_READY` warning. Whenever it runs out of work, it asks the index to give back
what only paid while embedding (`VectorStore.release_memory`). `wait()` blocks until complete
(for tests and tools), `stop()` finishes the current batch and ends the thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from obsidian_mcp.semantic.model import Embedder
from obsidian_mcp.semantic.notes import NoteText

log = logging.getLogger("obsidian_mcp.semantic")

BATCH_NOTES = 128
Loader = Callable[[str], NoteText | None]
"""Returns the note at a vault path as it is now, or None when it no longer exists."""


class VectorStore(Protocol):
    """What the builder needs of the store it fills (`index.vector_store.SemanticIndex` is one):
    typed here, so that this package never imports the index that keeps the vectors."""

    @property
    def embedder(self) -> Embedder: ...

    def stale(self, current: Mapping[str, str]) -> tuple[list[str], list[str]]: ...

    def rename_note(self, old: str, new: str) -> bool: ...

    def release_memory(self) -> None: ...

    def prepare(self, notes: Sequence[NoteText]) -> Sequence[Any]:
        """Chunk and embed `notes` (no lock held), for `apply`."""

    def apply(self, prepared: Sequence[Any], removed: Sequence[str] = ()) -> None: ...


@dataclass(frozen=True)
class BuildProgress:
    done: int  # notes handled since the queue was last empty
    total: int  # done + queued + in flight
    complete: bool  # nothing queued or in flight: the index reflects every submission
    running: bool  # the worker thread is alive
    error: str | None = None  # the last batch failure, if any (its notes count as done)


class SemanticBuilder:
    def __init__(
        self,
        index: VectorStore,
        load: Loader,
        *,
        batch_size: int = BATCH_NOTES,
        on_progress: Callable[[BuildProgress], None] | None = None,
    ) -> None:
        self.index = index
        self._load = load
        self._batch_size = batch_size
        self._on_progress = on_progress
        self._changed = threading.Condition()
        self._pending: dict[str, bool] = {}  # path -> True: (re)embed, False: remove; in order
        self._renames: list[tuple[str, str]] = []
        self._reconcile: Mapping[str, str] | None = None
        self._in_flight = 0
        self._reporting = False
        self._done = 0
        self._error: str | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None

    # -- the caller's side ------------------------------------------------------------------

    def submit(
        self, paths: Iterable[str] = (), removed: Iterable[str] = (), renamed: Iterable[tuple[str, str]] = ()
    ) -> None:
        """Queue notes to (re)embed, paths to forget and (old, new) renames; returns at once."""
        with self._changed:
            if self._stopping:
                raise RuntimeError("the semantic builder was stopped")
            self._restart_count()
            for old, new in renamed:
                if old in self._pending:
                    self._pending[new] = self._pending.pop(old)
                self._renames.append((old, new))
            for path in removed:
                self._pending.pop(path, None)
                self._pending[path] = False
            for path in paths:
                self._pending.pop(path, None)
                self._pending[path] = True
            self._start()
            self._changed.notify_all()

    def reconcile(self, current: Mapping[str, str]) -> None:
        """Queue whatever differs between the vault, given as {path: hash}, and the index
        (`SemanticIndex.stale`); the comparison itself runs on the builder's thread."""
        with self._changed:
            if self._stopping:
                raise RuntimeError("the semantic builder was stopped")
            self._restart_count()
            self._reconcile = dict(current)
            self._start()
            self._changed.notify_all()

    def progress(self) -> BuildProgress:
        with self._changed:
            return self._progress()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until complete (or stopped, or `timeout` seconds); returns `complete`."""
        with self._changed:
            self._changed.wait_for(lambda: self._complete() or self._stopping, timeout)
            return self._complete()

    def stop(self, timeout: float | None = None) -> None:
        """Finish the batch in flight, then end the thread; queued work is dropped."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    # -- internals ------------------------------------------------------------------------------

    def _idle(self) -> bool:
        return not self._pending and not self._renames and self._reconcile is None and self._in_flight == 0

    def _complete(self) -> bool:
        return self._idle() and not self._reporting

    def _progress(self, *, reporting: bool = False) -> BuildProgress:
        running = self._thread is not None and self._thread.is_alive()
        total = self._done + self._in_flight + len(self._pending)
        complete = self._idle() if reporting else self._complete()
        return BuildProgress(self._done, total, complete, running, self._error)

    def _restart_count(self) -> None:
        if self._idle():
            self._done = 0
            self._error = None

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="semantic-builder", daemon=True)
            self._thread.start()

    def _report(self, progress: BuildProgress) -> None:
        if self._on_progress is None:
            return
        try:
            self._on_progress(progress)
        except Exception:
            log.exception("semantic build progress callback failed")

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._stopping or not self._idle())
                if self._stopping:
                    self._changed.notify_all()
                    return
                reconcile, self._reconcile = self._reconcile, None
                renames, self._renames = self._renames, []
                batch: list[tuple[str, bool]] = []
                if reconcile is None and not renames:
                    while self._pending and len(batch) < self._batch_size:
                        path = next(iter(self._pending))
                        batch.append((path, self._pending.pop(path)))
                self._in_flight = len(batch) + (1 if reconcile is not None or renames else 0)
            try:
                if reconcile is not None:
                    todo, gone = self.index.stale(reconcile)  # loads the stored vectors
                    with self._changed:
                        for path in gone:
                            self._pending.setdefault(path, False)
                        for path in todo:
                            self._pending.setdefault(path, True)
                    if not todo:  # a restart: load the model before the first query needs it
                        self.index.embedder.embed([])
                for old, new in renames:
                    self.index.rename_note(old, new)
                if batch:
                    self._work(batch)
            except Exception as exc:
                log.exception("semantic index batch failed")
                with self._changed:
                    self._error = f"{type(exc).__name__}: {exc}"[:300]
            with self._changed:
                self._done += len(batch)
                self._in_flight = 0
                # not `complete` for waiters until the progress callback has heard it first
                self._reporting = True
                progress = self._progress(reporting=True)
            try:
                if progress.complete:
                    self.index.release_memory()
                self._report(progress)
            finally:
                with self._changed:
                    self._reporting = False
                    self._changed.notify_all()

    def _work(self, batch: list[tuple[str, bool]]) -> None:
        notes: list[NoteText] = []
        removed: list[str] = []
        for path, embed in batch:
            try:
                note = self._load(path) if embed else None
            except Exception:  # unreadable right now: keep what is stored, a later change retries
                log.warning("cannot read a note to embed it", exc_info=True, extra={"path": path})
                continue
            if note is None:
                removed.append(path)
            else:
                notes.append(note)
        self.index.apply(self.index.prepare(notes), removed)
