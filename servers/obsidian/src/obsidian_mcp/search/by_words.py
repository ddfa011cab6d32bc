"""Search by words: BM25 ranking over the index, then each hit's best line, heading and snippet.

Ranking is FTS5's `bm25` with column weights (title and aliases first, then headings and tags,
then prose, frontmatter values, and code last; `index.fts`); `score` is its negation, so higher is
better. Where a hit matches is `locate`'s.

Should FTS5 still reject a query the parser let through, `rank_by_words` answers it by scanning the
stored text in Python (slower, same filters: `scan`) and says so (`degraded`, which callers turn
into a `SEARCH_DEGRADED` warning). It is the one place that fallback is written; keyword search and
the keyword side of hybrid search both rank through it.

While the keyword index itself is first built in the background, a search still answers
completely (`VaultIndex.run(during="search")`): the notes not yet indexed are searched in
`index.pending` and the best of them indexed within the call (`catch_up`), so every hit comes from
the index with the fields it has once built, and `total` counts the others.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

from obsidian_mcp import warnings
from obsidian_mcp.index import fts, notes_table
from obsidian_mcp.index.progress import partial_answer
from obsidian_mcp.index.vault_index import Snapshot
from obsidian_mcp.search.locate import Location, locate_notes
from obsidian_mcp.search.query import Query
from obsidian_mcp.search.results import SearchHit, SearchResult
from obsidian_mcp.search.scan import scan

log = logging.getLogger("obsidian_mcp.index")


@dataclass(frozen=True, kw_only=True)
class WordHit:
    """A note ranked by its words."""

    note_id: int
    path: str
    title: str
    score: float  # higher is better: BM25 negated, or (the query refused) the scan's score as shown


@dataclass(frozen=True, kw_only=True)
class WordRanking:
    hits: list[WordHit]  # best first
    total: int  # every matching note (unless not counted: see `fts.ranked`)
    degraded: bool  # FTS5 refused the query: the stored text was scanned instead


def rank_by_words(
    conn: sqlite3.Connection, query: Query, folder_rel: str, keys: list[str], limit: int, *, count: bool = True
) -> WordRanking:
    """The best `limit` notes for `query` under `folder_rel` with the tags `keys`, and how many match."""
    try:
        ranking = fts.ranked(conn, query.match_expression(), folder_rel, keys, limit, count=count)
    except fts.QueryRefused as exc:
        log.warning("FTS5 refused a parsed query; scanning instead", extra={"sqlite_error": str(exc)})
        scanned = scan(conn, query, folder_rel, keys)
        hits = [
            WordHit(note_id=note.note_id, path=note.path, title=note.title, score=shown_score(note.score))
            for note in scanned[:limit]
        ]
        return WordRanking(hits=hits, total=len(scanned), degraded=True)
    titles = notes_table.titles_by_id(conn, [row.note_id for row in ranking.rows])
    hits = [
        WordHit(note_id=row.note_id, path=titles[row.note_id].path, title=titles[row.note_id].title, score=-row.rank)
        for row in ranking.rows
        if row.note_id in titles
    ]
    return WordRanking(hits=hits, total=ranking.total, degraded=False)


def catch_up(snapshot: Snapshot, query: Query, folder_rel: str, keys: list[str], best: int) -> int:
    """During a build: index the best pending notes matching `query` now (see `index.pending`);
    the number of the other pending notes that match, to add to the total (0 without a build)."""
    if snapshot.unindexed is None:
        return 0
    return snapshot.unindexed.catch_up(query.match_expression(), folder_rel, keys, best)


def search_by_words(snapshot: Snapshot, query: Query, folder_rel: str, keys: list[str], limit: int) -> SearchResult:
    """`search_notes(mode="keyword")` on what `snapshot` sees."""
    rest = catch_up(snapshot, query, folder_rel, keys, limit)
    ranking = rank_by_words(snapshot.conn, query, folder_rel, keys, limit)
    # ties by path; the scan's hits are in that order already
    hits = ranking.hits if ranking.degraded else sorted(ranking.hits, key=lambda hit: (-hit.score, hit.path))
    located = locate_notes(snapshot.conn, {hit.note_id: query.terms for hit in hits})
    results = [word_hit(hit.path, hit.title, hit.score, located[hit.note_id]) for hit in hits if hit.note_id in located]
    found = [warnings.search_degraded()] if ranking.degraded else []
    found += partial_answer(snapshot.building)
    return SearchResult(results=results, total=ranking.total + rest, warnings=found)


def shown_score(score: float) -> float:
    """A score by words as a hit shows it: six significant digits, above 0."""
    return float(f"{max(score, 0.0):.6g}") or 1e-6


def word_hit(path: str, title: str, score: float, where: Location) -> SearchHit:
    """A note found by its words (the query's, or the any-word query's)."""
    return SearchHit(
        path=path,
        title=title,
        score=shown_score(score),
        line=where.line,
        heading=where.heading,
        snippet=where.snippet,
        match="words",
    )
