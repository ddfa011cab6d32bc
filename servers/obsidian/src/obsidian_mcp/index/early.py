"""A fresh index's first build, begun before the server exists, so its first answer is complete sooner.

`obsidian-mcp` spends about a second importing the MCP SDK before it can assemble the server and
start the build. For a vault with no index yet, `begin` uses that second: on the process's only
thread it opens the build's worker pool (forking is only safe there, see `pool`), then a thread
lists the vault and puts the raw text of every note into a `PendingNotes` table, as the build's own
first step would (reading and FTS5 tokenising let go of the GIL, so the import goes on meanwhile).
The build takes both (`take`): it lists the vault again as usual, keeps the pending notes it
still has to read, reads only the notes that are new or changed since, and drops those gone.

Only a fresh index (no index file) of a vault large enough to be searched while it builds
(`pending.PARTIAL_MIN` notes) is filled ahead; a restart's index has the vectors preloaded instead
(`vectors.preload`). Anything that fails here is logged and left to the build, which then does
what it always did. Once per process.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from obsidian_mcp.index.pending import FILL_CHUNK, PARTIAL_MIN, PendingNotes
from obsidian_mcp.index.pool import ReadPool, open_pool
from obsidian_mcp.vault.paths import Vault

log = logging.getLogger("obsidian_mcp.index")


@dataclass(kw_only=True)
class EarlyStart:
    """What `begin` prepared for the build of the index at `location`."""

    location: Path
    pool: ReadPool | None
    notes: PendingNotes | None = None  # set by the thread, once every listed note is in
    thread: threading.Thread | None = None

    def pending(self) -> PendingNotes | None:
        """The filled pending notes, once the thread is done (None if it failed or the vault is small)."""
        if self.thread is not None:
            self.thread.join()
        return self.notes


_early: EarlyStart | None = None
_lock = threading.Lock()


def begin(vault: Vault, location: Path, workers: int) -> None:
    """Open the worker pool and start filling the pending notes of a fresh index at `location`.
    Call on the process's only thread, before anything else starts one."""
    global _early
    with _lock:
        if _early is not None or location.exists():
            return
        early = _early = EarlyStart(location=location, pool=open_pool(vault, workers) if workers else None)
        early.thread = threading.Thread(target=_fill, args=(early, vault), name="index-early", daemon=True)
        early.thread.start()


def _fill(early: EarlyStart, vault: Vault) -> None:
    notes: PendingNotes | None = None
    try:
        infos = list(vault.iter_notes())
        if len(infos) < PARTIAL_MIN:
            return
        notes = PendingNotes()
        for at in range(0, len(infos), FILL_CHUNK):
            notes.add(PendingNotes.read(vault, infos[at : at + FILL_CHUNK]), ())
        early.notes, notes = notes, None
        log.info("notes searchable before the server started", extra={"notes": len(early.notes)})
    except Exception:  # the build fills them itself
        log.warning("filling the pending notes ahead failed", exc_info=True)
    finally:
        if notes is not None:
            notes.close()


def prepared(location: Path) -> EarlyStart | None:
    """What `begin` prepared for the index at `location`, left for the build to take."""
    with _lock:
        return _early if _early is not None and _early.location == location else None


def take(location: Path) -> EarlyStart | None:
    """What `begin` prepared for the index at `location`, once; None for another index or none begun."""
    global _early
    with _lock:
        early = _early
        if early is None or early.location != location:
            return None
        _early = None
        return early
