"""`similar_notes`: the notes closest in meaning to one note, by the meaning of the whole note.

It has no words to fall back on: while the vectors are being built it says `INDEX_BUILDING`
(`meaning.vector_state`), and it waits for the keyword index's first build.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from obsidian_mcp.index import notes_table
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.search.limits import CANDIDATES, check_limit
from obsidian_mcp.search.meaning import degraded, rounded, vector_state
from obsidian_mcp.search.results import SimilarHit, SimilarResult
from obsidian_mcp.vault.errors import NoteNotFound

if TYPE_CHECKING:  # imported with the vectors, on first use: see index.vectors
    from obsidian_mcp.semantic import NoteHit

log = logging.getLogger("obsidian_mcp.index")


def similar_notes(index: VaultIndex, path: str, limit: int = 10, progress: ProgressFn | None = None) -> SimilarResult:
    """The notes closest in meaning to the note at `path` (itself excluded), closest first; a
    missing note is `NoteNotFound`, a path outside the vault refused as `read_note` refuses it."""
    check_limit(limit)
    note = index.vault.resolve(path)
    return index.run(lambda snapshot: _similar(snapshot, index.vectors, note.rel, limit), progress)


def _similar(snapshot: Snapshot, vectors: VaultVectors, rel: str, limit: int) -> SimilarResult:
    conn = snapshot.conn
    if not notes_table.exists(conn, rel):
        raise NoteNotFound(rel)  # a file the index leaves out is no note here
    found: list[ToolWarning] = []
    hits: list[NoteHit] = []
    if vector_state(vectors, found, similar=True).usable:
        try:
            hits = vectors.similar(rel, limit + CANDIDATES // 5)  # a few more: some may be gone since
        except Exception:
            log.exception("finding similar notes failed")
            degraded(found)
    names = notes_table.titles_by_path(conn, [hit.path for hit in hits])
    results = [
        SimilarHit(path=hit.path, title=names[hit.path].title, score=rounded(hit.score), snippet=hit.snippet)
        for hit in hits
        if hit.path in names and hit.path != rel
    ]
    return SimilarResult(path=rel, results=results[:limit], warnings=found)
