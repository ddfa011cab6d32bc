"""What the engine of search by meaning takes and answers: a note to embed, and hits.

`content_hash` is the hash stored for a note when its caller gives none.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from obsidian_mcp.semantic.chunking import CHUNKER_VERSION


@dataclass(frozen=True)
class NoteText:
    """One note to embed: its vault path, full text, title as the caller knows it (None: from
    frontmatter or the file name), and optionally the caller's hash of it (see `stale`)."""

    path: str
    text: str
    title: str | None = None
    source_hash: str | None = None


@dataclass(frozen=True)
class ChunkHit:
    path: str
    chunk_no: int
    heading: str | None
    line: int
    snippet: str
    score: float  # cosine similarity, -1..1


@dataclass(frozen=True)
class NoteHit:
    """A note ranked by its best chunk: `score` is that chunk's cosine similarity, `line`,
    `heading` and `snippet` are that chunk's (for `similar`, the note vectors' similarity and the
    note's first chunk)."""

    path: str
    title: str
    score: float
    line: int
    heading: str | None
    snippet: str


def content_hash(text: str, title: str | None = None) -> str:
    """The hash stored for a note when the caller gives none: text, title and chunker version."""
    digest = hashlib.sha256(f"{CHUNKER_VERSION}\x00{title or ''}\x00".encode())
    digest.update(text.encode("utf-8", errors="surrogatepass"))
    return digest.hexdigest()[:32]
