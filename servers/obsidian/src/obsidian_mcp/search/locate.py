"""Where a note found by its words matches: the best line, the heading it is under, and a snippet.

The stored line-aligned text is scanned for the line matching the most query terms (prose before
frontmatter before code, earlier first): that gives `line`, the enclosing `heading`, and a one-line
`snippet` of about 160 characters around the match. A note that matched only by title, alias or
tag has `line` and `heading` null and the start of its text as snippet.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from obsidian_mcp.index import fts
from obsidian_mcp.index.fts import LINE_COLUMNS
from obsidian_mcp.index.text import Term, lower_without_accents, snippet_around, token_spans


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


def locate(terms: Sequence[Term], columns: Mapping[str, str], headings: Sequence[Sequence[Any]]) -> Location:
    """The best matching line of a note for `terms`, its heading and a snippet."""
    firsts = {term.tokens[0] for term in terms}
    best: tuple[tuple[int, int, int], int, str, int] | None = None
    for rank, name in enumerate(LINE_COLUMNS):
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


def locate_notes(conn: sqlite3.Connection, terms_of: Mapping[int, Sequence[Term]]) -> dict[int, Location]:
    """The location of each note id in `terms_of`, for its terms (a note gone meanwhile is missing)."""
    texts = fts.line_texts(conn, terms_of.keys())
    return {
        note_id: locate(terms_of[note_id], text.columns(), json.loads(text.headings)) for note_id, text in texts.items()
    }
