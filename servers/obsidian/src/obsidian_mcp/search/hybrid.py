"""Search by meaning (`mode` "semantic"), and its fusion with search by words (`mode` "hybrid").

"semantic" ranks notes by their closest chunk vector (`index.vectors`); "hybrid" fuses the keyword
ranking, an any-word keyword fallback when every word matched too few notes, and the vector
ranking, keeping exact matches on top (`semantic.fusion`). Folder, tag and `-excluded` filters
apply to every ranking. A hit the all-words search found keeps its matching line; a hit found by
meaning shows its closest passage. What is found by meaning alone obeys the no-noise rule
(`meaning.without_noise`).

Every hit says how it was found: `match` is "words" when the note holds the query's words (all of
them, or any of its content words: the fallback) and "meaning" when it was found by meaning alone.

While the vectors are not ready (being built, or loading after a restart) both modes answer with
the complete keyword ranking fused with what is embedded so far, and a `SEMANTIC_NOT_READY`
warning: never `INDEX_BUILDING`, which says notes with the words may be missing. Should the vectors
fail, the keyword search answers with `SEARCH_DEGRADED`. While the keyword index itself is first
built, the vectors come after it, so hybrid ranks by keywords alone (`SEMANTIC_NOT_READY`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from obsidian_mcp import warnings
from obsidian_mcp.index import fts, notes_table
from obsidian_mcp.index.filters import paths_under
from obsidian_mcp.index.notes_table import NoteTitle
from obsidian_mcp.index.progress import partial_answer
from obsidian_mcp.index.vault_index import Snapshot
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.search.by_words import WordRanking, catch_up, rank_by_words, word_hit
from obsidian_mcp.search.limits import CANDIDATES
from obsidian_mcp.search.locate import Location, locate_notes
from obsidian_mcp.search.meaning import VectorState, closest, meaning_hit, vector_state, without_noise
from obsidian_mcp.search.query import Query, parse_query
from obsidian_mcp.search.results import SearchHit, SearchResult
from obsidian_mcp.vault.errors import InvalidArgument

if TYPE_CHECKING:  # imported with the vectors, on first use: see index.vectors
    from obsidian_mcp.semantic import FusedHit

_EXCLUDED_PIECE = re.compile(r'(?:^|(?<=\s))-(?:"[^"]*"?|\S+)')


@dataclass(frozen=True)
class Asked:
    """A search by meaning as asked."""

    text: str  # the query as typed
    query: Query
    folder_rel: str
    keys: list[str]
    limit: int
    semantic_only: bool

    @property
    def depth(self) -> int:
        return max(CANDIDATES, self.limit)

    @property
    def meaning(self) -> str:
        """What is embedded: the query without its `-excluded` terms."""
        return " ".join(_EXCLUDED_PIECE.sub(" ", self.text).split()) or self.text


def _allowed(conn: sqlite3.Connection, asked: Asked) -> Callable[[str], bool] | None:
    """The folder, tag and exclusion filters as a test of a path; None when there are none."""
    inside = paths_under(conn, asked.folder_rel, asked.keys) if asked.folder_rel or asked.keys else None
    excluded: set[str] = set()
    if asked.query.excluded:
        excluded = fts.matching_paths(conn, " OR ".join(term.fts() for term in asked.query.excluded))
    if inside is None and not excluded:
        return None
    return lambda path: (inside is None or path in inside) and path not in excluded


def _fallback_query(asked: Asked) -> Query | None:
    """The any-word query of `semantic.fusion` with the question's exclusions, or None."""
    from obsidian_mcp.semantic import any_word_query

    any_words = any_word_query(asked.text)
    if any_words is None:
        return None
    try:
        parsed = parse_query(any_words)
    except InvalidArgument:
        return None
    return Query(parsed.groups, asked.query.excluded)


def _ranked(
    conn: sqlite3.Connection, query: Query, asked: Asked, found: list[ToolWarning], *, count: bool = True
) -> WordRanking:
    """A keyword ranking for `asked` (`SEARCH_DEGRADED` added to `found` when the text was scanned)."""
    ranking = rank_by_words(conn, query, asked.folder_rel, asked.keys, asked.depth, count=count)
    if ranking.degraded:
        found.append(warnings.search_degraded())
    return ranking


def search_by_meaning(snapshot: Snapshot, vectors: VaultVectors, asked: Asked) -> SearchResult:
    """`search_notes(mode="semantic" or "hybrid")` on what `snapshot` sees."""
    from obsidian_mcp.semantic import fuse, needs_fallback

    conn = snapshot.conn
    found = partial_answer(snapshot.building)
    if snapshot.unindexed is not None or snapshot.building is not None:  # the keyword index is being built
        state = VectorState(usable=False, ready=False)  # the vectors come after it
        found.append(warnings.semantic_not_ready(0, 0))
    else:
        state = vector_state(vectors, found)
    allow = _allowed(conn, asked) if state.usable else None
    semantic = closest(vectors, asked.meaning, asked.depth, allow, found) if state.usable else []
    names = notes_table.titles_by_path(conn, [hit.path for hit in semantic])
    fallback_query = _fallback_query(asked)
    worded = _worded(conn, asked, fallback_query, [names[hit.path].id for hit in semantic if hit.path in names])
    semantic = without_noise(vectors, asked.meaning, semantic, worded, names)
    by_path = {hit.path: hit for hit in semantic}
    if asked.semantic_only and state.ready:  # while the vectors are not ready, as hybrid: never less than the words
        hits = [
            meaning_hit(hit, names[hit.path].title, hit.score, hit.path in worded) for hit in semantic[: asked.limit]
        ]
        return SearchResult(results=hits, total=len(semantic), warnings=found)

    rest = catch_up(snapshot, asked.query, asked.folder_rel, asked.keys, asked.limit)  # those shown
    keyword = _ranked(conn, asked.query, asked, found)
    keyword_total = keyword.total + rest
    names.update(_titles(keyword))
    fallback: list[tuple[str, float]] = []
    if fallback_query is not None and needs_fallback(keyword_total):
        catch_up(snapshot, fallback_query, asked.folder_rel, asked.keys, asked.limit)
        any_word = _ranked(conn, fallback_query, asked, found, count=False)
        names.update(_titles(any_word))
        fallback = [(hit.path, hit.score) for hit in any_word.hits]
    else:
        fallback_query = None
    fused = fuse(
        [(hit.path, hit.score) for hit in keyword.hits],
        [(hit.path, hit.score) for hit in semantic],
        fallback=fallback,
        keyword_total=keyword_total,
        query=asked.text,
        titles={hit.path: hit.title for hit in keyword.hits},
    )
    total = len(fused) + max(0, keyword_total - len(keyword.hits))
    chosen = fused[: asked.limit]
    located = _locations(conn, asked, fallback_query, chosen, names)
    results: list[SearchHit] = []
    for hit in chosen:
        title = names[hit.path].title
        where = located.get(hit.path)
        if where is not None:
            results.append(word_hit(hit.path, title, hit.score, where))
        else:
            results.append(meaning_hit(by_path[hit.path], title, hit.score, hit.path in worded))
    return SearchResult(results=results, total=total, warnings=found)


def _titles(ranking: WordRanking) -> dict[str, NoteTitle]:
    return {hit.path: NoteTitle(hit.note_id, hit.path, hit.title) for hit in ranking.hits}


def _worded(conn: sqlite3.Connection, asked: Asked, fallback_query: Query | None, ids: list[int]) -> set[str]:
    """The paths among the notes `ids` that hold the query's words (all of them, or any of its
    content words): what was found by meaning among them has `match: "words"`."""
    match = asked.query.match_expression()
    if fallback_query is not None:
        match = f"({match}) OR ({fallback_query.match_expression()})"
    try:
        return fts.matching_among(conn, match, ids)
    except fts.QueryRefused:
        return set()  # a query FTS5 refuses: the scan found the words, and says so (SEARCH_DEGRADED)


def _locations(
    conn: sqlite3.Connection,
    asked: Asked,
    fallback_query: Query | None,
    chosen: Sequence[FusedHit],
    names: Mapping[str, NoteTitle],
) -> dict[str, Location]:
    """The matching line of the chosen hits found by words: by all the words when they matched,
    by the any-word query when only it and not the vectors found the note."""
    by_words = {hit.path for hit in chosen if hit.keyword_rank is not None}
    by_any = [hit.path for hit in chosen if hit.keyword_rank is None and hit.semantic_rank is None]
    any_terms = fallback_query.terms if fallback_query is not None else asked.query.terms
    paths = {names[path].id: path for path in [*by_words, *by_any]}
    terms_of = {note_id: asked.query.terms if path in by_words else any_terms for note_id, path in paths.items()}
    return {paths[note_id]: where for note_id, where in locate_notes(conn, terms_of).items()}
