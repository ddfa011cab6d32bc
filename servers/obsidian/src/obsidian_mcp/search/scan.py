"""The slow path of search by words: the stored text scanned in Python, for a query FTS5 refused.

Should FTS5 still reject a query the parser let through, the same query is answered by scanning
the stored text of the notes that pass the filters (a simple weighted term count per column);
`by_words` then says so with `SEARCH_DEGRADED`.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from obsidian_mcp.index import fts
from obsidian_mcp.index.store import WEIGHTS
from obsidian_mcp.index.text import tokens
from obsidian_mcp.search.query import Query


@dataclass(frozen=True, kw_only=True)
class Scanned:
    note_id: int
    path: str
    title: str
    score: float  # higher is better


def column_score(query: Query, columns: Sequence[str]) -> float | None:
    """A simple weighted term count over the columns, or None when the note does not match."""
    words = [tokens(text) for text in columns]
    if any(term.find(column) is not None for term in query.excluded for column in words):
        return None
    score = 0.0
    for group in query.groups:
        found = [
            weight
            for term in group
            for weight, column in zip(WEIGHTS, words, strict=True)
            if term.find(column) is not None
        ]
        if not found:
            return None
        score += sum(found)
    length = sum(len(column) for column in words)
    return score / (1.0 + math.log1p(length))


def scan(conn: sqlite3.Connection, query: Query, folder_rel: str, keys: list[str]) -> list[Scanned]:
    """Every note under `folder_rel` with the tags `keys` that matches `query`, best first (then by path)."""
    scored = [
        Scanned(note_id=text.id, path=text.path, title=text.title, score=score)
        for text in fts.full_texts(conn, folder_rel, keys)
        if (score := column_score(query, text.columns)) is not None
    ]
    scored.sort(key=lambda item: (-item.score, item.path))
    return scored
