"""Turning what a user typed into a safe FTS5 MATCH expression.

The user's text never reaches MATCH as written. It is read as a small search language and
rebuilt from folded tokens, each inside double quotes, so FTS5 operators, column filters and
syntax errors cannot be smuggled in:

* `word` → the token string `"word"`; several terms are ANDed.
* `"a phrase"` → a phrase; `word*` / `"a phr"*` → a prefix on the last token.
* `-word` / `-"a phrase"` → excluded (NOT), allowed only next to at least one positive term.
* `OR` between two terms → either; it binds tighter than the implicit AND (`a OR b c` is
  `(a OR b) AND c`). `AND` between terms is the default and is dropped.
* Everything else is literal text or dropped: `NEAR(a b)` is the words `near a b`, `title:x` the
  words `title x`; `^`, `(`, a lone `*`, an unbalanced `"` and punctuation-only words vanish;
  control characters are spaces.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from obsidian_mcp.index.text import Term, tokens
from obsidian_mcp.vault.errors import InvalidArgument

MAX_QUERY_CHARS = 1000
MAX_TERMS = 64
_OPERATORS = ("OR", "AND")


@dataclass(frozen=True)
class Query:
    """A parsed query: positive term groups (AND of ORs) and excluded terms."""

    groups: tuple[tuple[Term, ...], ...]
    excluded: tuple[Term, ...] = field(default_factory=tuple)

    @property
    def terms(self) -> list[Term]:
        """The positive terms, for finding the best line of a matching note."""
        return [term for group in self.groups for term in group]

    def match_expression(self) -> str:
        parts = [" OR ".join(t.fts() for t in group) for group in self.groups]
        parts = [part if len(group) == 1 else f"({part})" for part, group in zip(parts, self.groups, strict=True)]
        expression = " AND ".join(parts)
        for term in self.excluded:
            expression = f"({expression}) NOT {term.fts()}"
        return expression


@dataclass
class _Piece:
    text: str
    prefix: bool = False
    negated: bool = False
    operator: bool = False


def _clean(text: str) -> str:
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)


def _scan(text: str) -> list[_Piece]:
    """Split the text into words, phrases and operators (no meaning given yet)."""
    pieces: list[_Piece] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        negated = text[i] == "-" and i + 1 < n and not text[i + 1].isspace()
        if negated:
            i += 1
        if text[i] == '"':
            close = text.find('"', i + 1)
            if close == -1:  # unbalanced: the quote is just punctuation
                i += 1
                continue
            phrase, i = text[i + 1 : close], close + 1
            prefix = i < n and text[i] == "*"
            while i < n and text[i] == "*":
                i += 1
            pieces.append(_Piece(phrase, prefix=prefix, negated=negated))
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] != '"':
            i += 1
        word = text[start:i]
        stripped = word.rstrip("*")
        if stripped in _OPERATORS and not negated and stripped == word:
            pieces.append(_Piece(word, operator=True))
        else:
            pieces.append(_Piece(stripped, prefix=stripped != word, negated=negated))
    return pieces


def parse_query(query: str) -> Query:
    """Parse `query`; raises `InvalidArgument(field="query")` when nothing searchable remains."""
    if not isinstance(query, str):
        raise InvalidArgument("query", "invalid_type", "'query' must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument("query", "too_long", f"the query is longer than {MAX_QUERY_CHARS} characters")
    pieces = [p for p in _scan(_clean(query)) if p.operator or tokens(p.text)]
    if pieces and all(p.operator for p in pieces):  # "OR", "AND AND": the words themselves
        pieces = [_Piece(p.text) for p in pieces]
    groups: list[list[Term]] = []
    excluded: list[Term] = []
    join_next = False
    for index, piece in enumerate(pieces):
        if piece.operator:
            before = index > 0 and not pieces[index - 1].operator and not pieces[index - 1].negated
            after = index + 1 < len(pieces) and not pieces[index + 1].operator and not pieces[index + 1].negated
            join_next = piece.text == "OR" and before and after
            continue
        term = Term(tuple(tokens(piece.text)), piece.prefix)
        if piece.negated:
            excluded.append(term)
        elif join_next and groups:
            groups[-1].append(term)
        else:
            groups.append([term])
        join_next = False
    if not groups:
        if excluded:
            raise InvalidArgument(
                "query", "no_positive_terms", "the query only excludes words ('-word'); add a word to look for"
            )
        raise InvalidArgument("query", "empty", "the query has no words to search for")
    if sum(len(g) for g in groups) + len(excluded) > MAX_TERMS:
        raise InvalidArgument("query", "too_many_terms", f"the query has more than {MAX_TERMS} terms")
    return Query(tuple(tuple(g) for g in groups), tuple(excluded))
