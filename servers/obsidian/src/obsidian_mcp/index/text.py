"""Folding and tokenising text the way the index does, for queries, line finding and snippets.

SQLite's `unicode61` tokenizer (with `remove_diacritics 2`) splits on everything that is not a
letter or a digit, lower-cases, and drops diacritics. `lower_without_accents` + `tokens`
approximate that in Python so that the query we build and the lines we point at agree with what
FTS5 matched: `café`, `Café` and `cafe` are one token; `project/alpha` is the two tokens
`project alpha`. `snippet_around` cuts the one-line excerpts search results and backlinks show.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r"[^\W_]+")
# Combining marks left by canonical decomposition (accents, umlauts, cedillas, ...).
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_SPACES = re.compile(r"\s+")
SNIPPET_CHARS = 160


def lower_without_accents(text: str) -> str:
    """Lower-case without diacritics. Keeps the number of line breaks, so folded lines align."""
    return _MARKS.sub("", unicodedata.normalize("NFD", text)).lower()


def tokens(text: str) -> list[str]:
    """The folded tokens of `text`."""
    return _TOKEN.findall(lower_without_accents(text))


def token_spans(line: str) -> list[tuple[str, int, int]]:
    """(folded token, start, end) for each token of `line`; offsets index the original `line`."""
    return [(lower_without_accents(m.group()), m.start(), m.end()) for m in _TOKEN.finditer(line)]


def one_line(text: str) -> str:
    """Whitespace runs (tabs, line breaks) collapsed to single spaces, ends trimmed."""
    return _SPACES.sub(" ", text).strip()


def snippet_around(text: str, position: int, width: int = SNIPPET_CHARS) -> str:
    """About `width` characters of `text` on one line, around `position`, marked with … where cut."""
    if len(text) <= width:
        return one_line(text)
    start = max(0, min(position - width // 3, len(text) - width))
    if start > 0:  # begin at a word boundary when one is near
        space = text.find(" ", start, start + 20)
        start = space + 1 if space != -1 else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", end - 20, end)
        end = space if space > start else end
    return ("…" if start > 0 else "") + one_line(text[start:end]) + ("…" if end < len(text) else "")


@dataclass(frozen=True)
class Term:
    """One thing to look for: a word or a phrase (folded tokens), the last token maybe a prefix."""

    tokens: tuple[str, ...]
    prefix: bool = False

    def fts(self) -> str:
        """The term as an FTS5 string: only token characters and spaces inside the quotes."""
        return '"' + " ".join(self.tokens) + '"' + (" *" if self.prefix else "")

    def find(self, line_tokens: Sequence[str]) -> int | None:
        """Index of the first token of the first occurrence in `line_tokens`, or None."""
        width = len(self.tokens)
        last = width - 1
        for start in range(len(line_tokens) - width + 1):
            for offset, want in enumerate(self.tokens):
                have = line_tokens[start + offset]
                if have != want and not (self.prefix and offset == last and have.startswith(want)):
                    break
            else:
                return start
        return None
