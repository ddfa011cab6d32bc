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
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from obsidian_mcp import warnings
from obsidian_mcp.index.filters import folder_clause, tag_keys, tags_clause
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.query import Query, parse_query
from obsidian_mcp.index.results import SearchHit, SearchResult
from obsidian_mcp.index.store import COLUMNS, WEIGHTS
from obsidian_mcp.index.text import Term, lower_without_accents, snippet_around, token_spans, tokens
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.vault.errors import InvalidArgument

log = logging.getLogger("obsidian_mcp.index")

MAX_LIMIT = 100
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
) -> SearchResult:
    """Notes matching `query` (see `index.query`), best first; a `SEARCH_DEGRADED` warning when
    FTS5 refused the query and the stored text was scanned instead."""
    parsed = parse_query(query)
    _check(limit)
    keys = tag_keys(tags)
    folder_rel, _ = index.vault.resolve_folder(folder)
    return index.run(lambda snapshot: _search(snapshot, parsed, folder_rel, keys, limit), progress)


def _search(snapshot: Snapshot, query: Query, folder_rel: str, keys: list[str], limit: int) -> SearchResult:
    conn = snapshot.conn
    try:
        ranked, total = _ranked(conn, query.match_expression(), folder_rel, keys, limit)
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc):
            raise
        log.warning("FTS5 refused a parsed query; scanning instead", extra={"sqlite_error": str(exc)[:200]})
        return _scan(conn, query, folder_rel, keys, limit)
    notes = _notes(conn, [note_id for note_id, _ in ranked])
    hits = sorted(((rank, *notes[note_id]) for note_id, rank in ranked if note_id in notes), key=lambda h: h[:2])
    results = [
        _hit(path, title, -rank, locate(query.terms, columns, json.loads(headings)))
        for rank, path, title, headings, columns in hits
    ]
    return SearchResult(results=results, total=total)


def _ranked(
    conn: sqlite3.Connection, match: str, folder_rel: str, keys: list[str], limit: int
) -> tuple[list[tuple[int, float]], int]:
    """The best `limit` (note id, bm25 rank) pairs and the number of matching notes.

    Without filters FTS5 ranks on its own and a plain count follows (three times faster on
    common words than one query with a window count); with filters, one query in which SQLite
    scores only the notes that pass them. FTS5 always drives: `rowid IN (subquery)` would make
    it run the MATCH once per candidate row.
    """
    weights = ", ".join(str(w) for w in WEIGHTS)
    scored = f"SELECT rowid AS id, bm25(content_fts, {weights}) AS rank FROM content_fts WHERE content_fts MATCH ?"
    if not folder_rel and not keys:
        ranked = [(row[0], row[1]) for row in conn.execute(f"{scored} ORDER BY rank LIMIT ?", (match, limit))]
        if len(ranked) < limit:
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
    return SearchHit(
        path=path,
        title=title,
        score=float(f"{max(score, 0.0):.6g}") or 1e-6,
        line=where.line,
        heading=where.heading,
        snippet=where.snippet,
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
