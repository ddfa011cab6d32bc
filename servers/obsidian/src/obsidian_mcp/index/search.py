"""Full-text search over the index: BM25 ranking, then the best line, its heading and a snippet.

Ranking is FTS5's `bm25` with column weights (title and aliases first, then headings and tags,
then prose, frontmatter values, and code last); `score` is its negation, so higher is better.
For each returned note the stored line-aligned text is scanned for the line matching the most
query terms (prose before frontmatter before code, earlier first): that gives `line`, the
enclosing `heading`, and a one-line `snippet` of about 160 characters around the match. A note
that matched only by title, alias or tag has `line` and `heading` null and the start of its text
as snippet.

Should FTS5 still reject a query the parser let through, the same query is answered by scanning
the stored text in Python (slower, same filters) with a `SEARCH_DEGRADED` warning.

By meaning (`mode`, see `search_notes`): "semantic" ranks notes by their closest chunk vector
(`index.vectors`); "hybrid" fuses the keyword ranking, an any-word keyword fallback when every word
matched too few notes, and the vector ranking, keeping exact matches on top (`semantic.fusion`).
Folder, tag and `-excluded` filters apply to every ranking. A hit the all-words search found keeps
its matching line; a hit found by meaning shows its closest passage. `similar_notes` ranks notes
by the meaning of a whole note.

Every hit says how it was found: `match` is "words" when the note holds the query's words (all of
them, or any of its content words: the fallback) and "meaning" when it was found by meaning alone.
A note found by meaning alone is left out when its similarity is below the model's floor
(`Embedder.min_similarity`), or when the model knows none of the query's words
(`Embedder.meaningful`: made-up words, private codes). So a query whose words occur in no note and
that is close in meaning to none answers no results, in every mode, rather than the nearest
unrelated notes (both calibrated by `bench/search_quality.py` on half its questions and checked
on the other half).

While the vectors are not ready (being built, or loading after a restart) `hybrid` and `semantic`
answer with the complete keyword ranking fused with what is embedded so far, and a
`SEMANTIC_NOT_READY` warning: never `INDEX_BUILDING`, which says notes with the words may be
missing. `similar_notes`, which has no words to fall back on, says `INDEX_BUILDING` then. Should
the vectors fail, the keyword search answers with `SEARCH_DEGRADED`.

While the keyword index itself is first built in the background, `search_notes` still answers
completely (`VaultIndex.run(during="search")`): the notes not yet indexed are searched in
`index.pending` and the best of them indexed within the call, so every hit comes from the index
with the fields it has once built, and `total` counts the others. Only when those notes could not
be read in time (`vault_index.SEARCH_WAIT`: a vault far beyond 10,000 notes, in its first seconds)
does the answer carry `INDEX_BUILDING` with how far it got. The vectors are built after the keyword
index, so meanwhile hybrid ranks by keywords alone (`SEMANTIC_NOT_READY`). `similar_notes` waits
for that build.
"""

from __future__ import annotations

import json
import logging
import math
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from obsidian_mcp import warnings
from obsidian_mcp.index.filters import folder_clause, tag_keys, tags_clause
from obsidian_mcp.index.progress import ProgressFn, partial_answer
from obsidian_mcp.index.query import Query, parse_query
from obsidian_mcp.index.results import SearchHit, SearchResult, SimilarHit, SimilarResult
from obsidian_mcp.index.store import COLUMNS, WEIGHTS
from obsidian_mcp.index.text import Term, lower_without_accents, snippet_around, token_spans, tokens
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault.errors import InvalidArgument, NoteNotFound

if TYPE_CHECKING:  # imported with the vectors, on first use: see index.vectors
    from obsidian_mcp.semantic import FusedHit, NoteHit

log = logging.getLogger("obsidian_mcp.index")

MAX_LIMIT = 100
Mode = Literal["hybrid", "keyword", "semantic"]
MODES: tuple[str, ...] = get_args(Mode)
CANDIDATES = 50  # notes taken from each ranking before fusing them (at least `limit`)
_LINE_COLUMNS = ("body", "frontmatter", "code")  # line-aligned columns, in order of preference


@dataclass(frozen=True)
class Location:
    line: int | None
    heading: str | None
    snippet: str


def heading_at(headings: Sequence[Sequence[Any]], line: int) -> str | None:
    """The text of the last heading at or above `line` (headings are [line, level, text])."""
    current: str | None = None
    for heading_line, _, text in headings:
        if heading_line > line:
            break
        current = str(text)
    return current


def locate(terms: Sequence[Term], columns: dict[str, str], headings: Sequence[Sequence[Any]]) -> Location:
    """The best matching line of a note for `terms`, its heading and a snippet."""
    firsts = {term.tokens[0] for term in terms}
    best: tuple[tuple[int, int, int], int, str, int] | None = None
    for rank, name in enumerate(_LINE_COLUMNS):
        column = columns.get(name) or ""
        if not column:
            continue
        raw_lines = column.split("\n")
        for index, folded in enumerate(lower_without_accents(column).split("\n")):
            if not any(first in folded for first in firsts):
                continue
            spans = token_spans(raw_lines[index])
            words = [word for word, _, _ in spans]
            hits = [at for at in (term.find(words) for term in terms) if at is not None]
            if not hits:
                continue
            key = (len(hits), -rank, -index)
            if best is None or key > best[0]:
                best = (key, index + 1, raw_lines[index], spans[min(hits)][1])
    if best is None:
        body = columns.get("body") or ""
        first = next((line for line in body.split("\n") if line.strip()), "")
        return Location(None, None, snippet_around(first, 0))
    _, line, text, position = best
    return Location(line, heading_at(headings, line), snippet_around(text, position))


def _check(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument("limit", "out_of_range", f"'limit' must be between 1 and {MAX_LIMIT}")


def search_notes(
    index: VaultIndex,
    query: str,
    folder: str = "",
    tags: Sequence[str] = (),
    limit: int = 20,
    progress: ProgressFn | None = None,
    mode: Mode = "keyword",
) -> SearchResult:
    """Notes matching `query` (see `index.query`), best first; a `SEARCH_DEGRADED` warning when
    FTS5 refused the query and the stored text was scanned instead. `mode`: "keyword" (the
    default here; the tool's default is "hybrid"), "hybrid" or "semantic" (see the module
    docstring)."""
    parsed = parse_query(query)
    _check(limit)
    if mode not in MODES:
        raise InvalidArgument("mode", "invalid", f"'mode' must be one of {', '.join(MODES)}")
    keys = tag_keys(tags)
    folder_rel, _ = index.vault.resolve_folder(folder)
    if mode == "keyword":
        return index.run(lambda snapshot: _search(snapshot, parsed, folder_rel, keys, limit), progress, during="search")
    asked = _Asked(query, parsed, folder_rel, keys, limit, mode == "semantic")
    return index.run(lambda snapshot: _by_meaning(snapshot, index.vectors, asked), progress, during="search")


def _catch_up(snapshot: Snapshot, query: Query, folder_rel: str, keys: list[str], best: int) -> int:
    """During a build: index the best pending notes matching `query` now (see `index.pending`);
    the number of the other pending notes that match, to add to the total (0 without a build)."""
    if snapshot.unindexed is None:
        return 0
    return snapshot.unindexed.catch_up(query.match_expression(), folder_rel, keys, best)


def _search(snapshot: Snapshot, query: Query, folder_rel: str, keys: list[str], limit: int) -> SearchResult:
    conn = snapshot.conn
    rest = _catch_up(snapshot, query, folder_rel, keys, limit)
    try:
        ranked, total = _ranked(conn, query.match_expression(), folder_rel, keys, limit)
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc):
            raise
        log.warning("FTS5 refused a parsed query; scanning instead", extra={"sqlite_error": str(exc)[:200]})
        scanned = _scan(conn, query, folder_rel, keys, limit)
        scanned.total += rest
        scanned.warnings.extend(partial_answer(snapshot.building))
        return scanned
    notes = _notes(conn, [note_id for note_id, _ in ranked])
    hits = sorted(((rank, *notes[note_id]) for note_id, rank in ranked if note_id in notes), key=lambda h: h[:2])
    results = [
        _hit(path, title, -rank, locate(query.terms, columns, json.loads(headings)))
        for rank, path, title, headings, columns in hits
    ]
    return SearchResult(results=results, total=total + rest, warnings=partial_answer(snapshot.building))


def _ranked(
    conn: sqlite3.Connection, match: str, folder_rel: str, keys: list[str], limit: int, *, count: bool = True
) -> tuple[list[tuple[int, float]], int]:
    """The best `limit` (note id, bm25 rank) pairs and the number of matching notes (without
    `count`, unfiltered: at most `limit`, sparing a second pass over the matches).

    Without filters FTS5 ranks on its own and a plain count follows (three times faster on
    common words than one query with a window count); with filters, one query in which SQLite
    scores only the notes that pass them. FTS5 always drives: `rowid IN (subquery)` would make
    it run the MATCH once per candidate row.
    """
    weights = ", ".join(str(w) for w in WEIGHTS)
    scored = f"SELECT rowid AS id, bm25(content_fts, {weights}) AS rank FROM content_fts WHERE content_fts MATCH ?"
    if not folder_rel and not keys:
        ranked = [(row[0], row[1]) for row in conn.execute(f"{scored} ORDER BY rank LIMIT ?", (match, limit))]
        if len(ranked) < limit or not count:
            return ranked, len(ranked)
        return ranked, conn.execute("SELECT count(*) FROM content_fts WHERE content_fts MATCH ?", (match,)).fetchone()[
            0
        ]
    where_folder, folder_params = folder_clause(folder_rel)
    where_tags, tag_params = tags_clause(keys)
    rows = conn.execute(
        f"SELECT m.id, m.rank, count(*) OVER () FROM ({scored}) AS m CROSS JOIN notes AS n ON n.id = m.id "
        f"WHERE {where_folder} AND {where_tags} ORDER BY m.rank LIMIT ?",
        [match, *folder_params, *tag_params, limit],
    ).fetchall()
    return [(row[0], row[1]) for row in rows], (rows[0][2] if rows else 0)


def _hit(path: str, title: str, score: float, where: Location) -> SearchHit:
    """A note found by its words (the query's, or the any-word query's)."""
    return SearchHit(
        path=path,
        title=title,
        score=float(f"{max(score, 0.0):.6g}") or 1e-6,
        line=where.line,
        heading=where.heading,
        snippet=where.snippet,
        match="words",
    )


def _notes(conn: sqlite3.Connection, ids: list[int]) -> dict[int, tuple[str, str, str, dict[str, str]]]:
    """(path, title, headings JSON, line-aligned columns) of each note id."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(
        "SELECT n.id, n.path, n.title, n.headings, c.body, c.frontmatter, c.code FROM notes AS n "
        f"JOIN content AS c ON c.id = n.id WHERE n.id IN ({marks})",
        ids,
    )
    return {row[0]: (row[1], row[2], row[3], dict(zip(_LINE_COLUMNS, row[4:], strict=True))) for row in rows}


# -- the slow path -----------------------------------------------------------------------------


def _column_score(query: Query, columns: Sequence[str]) -> float | None:
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


def _scan(conn: sqlite3.Connection, query: Query, folder_rel: str, keys: list[str], limit: int) -> SearchResult:
    where_folder, folder_params = folder_clause(folder_rel)
    where_tags, tag_params = tags_clause(keys)
    rows = conn.execute(
        f"SELECT n.path, n.title, n.headings, {', '.join('c.' + c for c in COLUMNS)} FROM notes AS n "
        f"JOIN content AS c ON c.id = n.id WHERE {where_folder} AND {where_tags}",
        [*folder_params, *tag_params],
    )
    scored: list[tuple[float, str, str, str, dict[str, str]]] = []
    for path, title, headings, *columns in rows:
        score = _column_score(query, columns)
        if score is not None:
            named = dict(zip(COLUMNS, columns, strict=True))
            scored.append((score, path, title, headings, named))
    scored.sort(key=lambda item: (-item[0], item[1]))
    results = [
        _hit(path, title, score, locate(query.terms, named, json.loads(headings)))
        for score, path, title, headings, named in scored[:limit]
    ]
    return SearchResult(results=results, total=len(scored), warnings=[warnings.search_degraded()])


# -- by meaning --------------------------------------------------------------------------------

_EXCLUDED_PIECE = re.compile(r'(?:^|(?<=\s))-(?:"[^"]*"?|\S+)')


@dataclass(frozen=True)
class _Asked:
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


@dataclass(frozen=True)
class _Vectors:
    usable: bool  # there are vectors to search (maybe not every note's yet)
    ready: bool  # every note is embedded: an answer by meaning alone is complete


def _state(vectors: VaultVectors, found: list[ToolWarning], *, similar: bool = False) -> _Vectors:
    """Whether the vectors can be searched: brings them up to date when little changed, and adds
    `SEMANTIC_NOT_READY` while they are being built or loaded (`INDEX_BUILDING` for `similar`,
    which has no words to fall back on; `SEARCH_DEGRADED` when there are none, or some failed) to
    `found`."""
    progress = vectors.catch_up()
    if progress is None:
        found.append(warnings.semantic_unavailable())
        return _Vectors(usable=False, ready=False)
    if progress.error is not None:  # a batch failed (logged): its notes are missing from the vectors
        _degraded(found)
    if not progress.complete:
        if similar:
            found.append(warnings.index_building(progress.done, progress.total, meanings=True))
        else:
            found.append(warnings.semantic_not_ready(progress.done, progress.total))
    return _Vectors(usable=True, ready=progress.complete)


def _degraded(found: list[ToolWarning]) -> None:
    if all(warning.code != warnings.SEARCH_DEGRADED for warning in found):
        found.append(warnings.semantic_unavailable())


def _allowed(conn: sqlite3.Connection, asked: _Asked) -> Callable[[str], bool] | None:
    """The folder, tag and exclusion filters as a test of a path; None when there are none."""
    inside: set[str] | None = None
    if asked.folder_rel or asked.keys:
        where_folder, folder_params = folder_clause(asked.folder_rel)
        where_tags, tag_params = tags_clause(asked.keys)
        rows = conn.execute(
            f"SELECT n.path FROM notes AS n WHERE {where_folder} AND {where_tags}", [*folder_params, *tag_params]
        )
        inside = {row[0] for row in rows}
    excluded: set[str] = set()
    if asked.query.excluded:
        match = " OR ".join(term.fts() for term in asked.query.excluded)
        rows = conn.execute(
            "SELECT n.path FROM content_fts CROSS JOIN notes AS n ON n.id = content_fts.rowid "
            "WHERE content_fts MATCH ?",
            (match,),
        )
        excluded = {row[0] for row in rows}
    if inside is None and not excluded:
        return None
    return lambda path: (inside is None or path in inside) and path not in excluded


def _semantic(
    vectors: VaultVectors, asked: _Asked, allow: Callable[[str], bool] | None, found: list[ToolWarning]
) -> list[NoteHit]:
    try:
        return vectors.search(asked.meaning, asked.depth, allow)
    except Exception:  # the model or the vectors failed: keywords alone answer
        log.exception("search by meaning failed")
        _degraded(found)
        return []


def _titles(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, tuple[int, str]]:
    """(note id, title) of each of `paths` the keyword index has: the others are gone or left out."""
    if not paths:
        return {}
    marks = ", ".join("?" * len(paths))
    rows = conn.execute(f"SELECT path, id, title FROM notes WHERE path IN ({marks})", list(paths))
    return {path: (note_id, title) for path, note_id, title in rows}


def _keyword_ranking(
    conn: sqlite3.Connection, query: Query, asked: _Asked, found: list[ToolWarning], *, count: bool = True
) -> tuple[list[tuple[str, float]], int, dict[str, tuple[int, str]]]:
    """A keyword ranking as (path, BM25 score), the number of matches (see `_ranked`), and
    (id, title) per path; FTS5 refusing the query falls back to the scan (`SEARCH_DEGRADED`)."""
    try:
        match = query.match_expression()
        ranked, total = _ranked(conn, match, asked.folder_rel, asked.keys, asked.depth, count=count)
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc):
            raise
        log.warning("FTS5 refused a parsed query; scanning instead", extra={"sqlite_error": str(exc)[:200]})
        scanned = _scan(conn, query, asked.folder_rel, asked.keys, asked.depth)
        found.extend(scanned.warnings)
        names = _titles(conn, [hit.path for hit in scanned.results])
        return [(hit.path, hit.score) for hit in scanned.results], scanned.total, names
    if not ranked:
        return [], total, {}
    marks = ", ".join("?" * len(ranked))
    rows = conn.execute(f"SELECT id, path, title FROM notes WHERE id IN ({marks})", [i for i, _ in ranked])
    paths = {note_id: (path, title) for note_id, path, title in rows}
    ranking = [(paths[note_id][0], -rank) for note_id, rank in ranked if note_id in paths]
    return ranking, total, {path: (note_id, title) for note_id, (path, title) in paths.items()}


def _fallback_query(asked: _Asked) -> Query | None:
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


def _by_meaning(snapshot: Snapshot, vectors: VaultVectors, asked: _Asked) -> SearchResult:
    from obsidian_mcp.semantic import fuse, needs_fallback

    conn = snapshot.conn
    found = partial_answer(snapshot.building)
    if snapshot.unindexed is not None or snapshot.building is not None:  # the keyword index is being built
        state = _Vectors(usable=False, ready=False)  # the vectors come after it
        found.append(warnings.semantic_not_ready(0, 0))
    else:
        state = _state(vectors, found)
    allow = _allowed(conn, asked) if state.usable else None
    semantic = _semantic(vectors, asked, allow, found) if state.usable else []
    names = _titles(conn, [hit.path for hit in semantic])
    fallback_query = _fallback_query(asked)
    worded = _worded(conn, asked, fallback_query, [names[hit.path][0] for hit in semantic if hit.path in names])
    floor = vectors.min_similarity if semantic and vectors.meaningful(asked.meaning) else math.inf
    semantic = [hit for hit in semantic if hit.path in names and (hit.score >= floor or hit.path in worded)]
    closest = {hit.path: hit for hit in semantic}
    if asked.semantic_only and state.ready:  # while the vectors are not ready, as hybrid: never less than the words
        hits = [_meaning_hit(hit, names[hit.path][1], hit.score, hit.path in worded) for hit in semantic[: asked.limit]]
        return SearchResult(results=hits, total=len(semantic), warnings=found)

    rest = _catch_up(snapshot, asked.query, asked.folder_rel, asked.keys, asked.limit)  # those shown
    keyword, keyword_total, keyword_names = _keyword_ranking(conn, asked.query, asked, found)
    keyword_total += rest
    names.update(keyword_names)
    fallback: list[tuple[str, float]] = []
    if fallback_query is not None and needs_fallback(keyword_total):
        _catch_up(snapshot, fallback_query, asked.folder_rel, asked.keys, asked.limit)
        fallback, _, fallback_names = _keyword_ranking(conn, fallback_query, asked, found, count=False)
        names.update(fallback_names)
    else:
        fallback_query = None
    fused = fuse(
        keyword,
        [(hit.path, hit.score) for hit in semantic],
        fallback=fallback,
        keyword_total=keyword_total,
        query=asked.text,
        titles={path: names[path][1] for path, _ in keyword},
    )
    total = len(fused) + max(0, keyword_total - len(keyword))
    chosen = fused[: asked.limit]
    located = _locations(conn, asked, fallback_query, chosen, names)
    hits = []
    for hit in chosen:
        title = names[hit.path][1]
        where = located.get(hit.path)
        if where is not None:
            hits.append(_hit(hit.path, title, hit.score, where))
        else:
            hits.append(_meaning_hit(closest[hit.path], title, hit.score, hit.path in worded))
    return SearchResult(results=hits, total=total, warnings=found)


def _worded(conn: sqlite3.Connection, asked: _Asked, fallback_query: Query | None, ids: list[int]) -> set[str]:
    """The paths among the notes `ids` that hold the query's words (all of them, or any of its
    content words): what was found by meaning among them has `match: "words"`."""
    if not ids:
        return set()
    match = asked.query.match_expression()
    if fallback_query is not None:
        match = f"({match}) OR ({fallback_query.match_expression()})"
    marks = ", ".join("?" * len(ids))
    try:
        rows = conn.execute(
            "SELECT n.path FROM content_fts CROSS JOIN notes AS n ON n.id = content_fts.rowid "
            f"WHERE content_fts MATCH ? AND content_fts.rowid IN ({marks})",
            [match, *ids],
        )
        return {row[0] for row in rows}
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc):
            raise
        return set()  # a query FTS5 refuses: the scan found the words, and says so (SEARCH_DEGRADED)


def _locations(
    conn: sqlite3.Connection,
    asked: _Asked,
    fallback_query: Query | None,
    chosen: Sequence[FusedHit],
    names: dict[str, tuple[int, str]],
) -> dict[str, Location]:
    """The matching line of the chosen hits found by words: by all the words when they matched,
    by the any-word query when only it and not the vectors found the note."""
    by_words = [hit.path for hit in chosen if hit.keyword_rank is not None]
    by_any = [hit.path for hit in chosen if hit.keyword_rank is None and hit.semantic_rank is None]
    located: dict[str, Location] = {}
    for path, _, headings, columns in _notes(conn, [names[path][0] for path in by_words + by_any]).values():
        terms = asked.query.terms if path in by_words or fallback_query is None else fallback_query.terms
        located[path] = locate(terms, columns, json.loads(headings))
    return located


def _meaning_hit(hit: NoteHit, title: str, score: float, worded: bool) -> SearchHit:
    """A note found by meaning, at its closest passage; `worded` when it holds the query's words too."""
    return SearchHit(
        path=hit.path,
        title=title,
        score=_rounded(score),
        line=hit.line,
        heading=hit.heading,
        snippet=hit.snippet,
        match="words" if worded else "meaning",
    )


def _rounded(score: float) -> float:
    return float(f"{score:.6g}")


def similar_notes(index: VaultIndex, path: str, limit: int = 10, progress: ProgressFn | None = None) -> SimilarResult:
    """The notes closest in meaning to the note at `path` (itself excluded), closest first; a
    missing note is `NoteNotFound`, a path outside the vault refused as `read_note` refuses it."""
    _check(limit)
    note = index.vault.resolve(path)
    return index.run(lambda snapshot: _similar(snapshot, index.vectors, note.rel, limit), progress)


def _similar(snapshot: Snapshot, vectors: VaultVectors, rel: str, limit: int) -> SimilarResult:
    conn = snapshot.conn
    if conn.execute("SELECT 1 FROM notes WHERE path = ?", (rel,)).fetchone() is None:
        raise NoteNotFound(rel)  # a file the index leaves out is no note here
    found: list[ToolWarning] = []
    hits: list[NoteHit] = []
    if _state(vectors, found, similar=True).usable:
        try:
            hits = vectors.similar(rel, limit + CANDIDATES // 5)  # a few more: some may be gone since
        except Exception:
            log.exception("finding similar notes failed")
            _degraded(found)
    names = _titles(conn, [hit.path for hit in hits])
    results = [
        SimilarHit(path=hit.path, title=names[hit.path][1], score=_rounded(hit.score), snippet=hit.snippet)
        for hit in hits
        if hit.path in names and hit.path != rel
    ]
    return SimilarResult(path=rel, results=results[:limit], warnings=found)
