"""Comments in a note: Obsidian's `%% ... %%` and HTML's `<!-- ... -->`; and its `$$ ... $$` math.

A comment opens at `%%` (or `<!--`) outside code — not in a code block, not in an inline code
span — and runs to the next `%%` (or `-->`) wherever that is: later on the line, or lines further
on, through blank lines, fences and headings alike (what is inside a comment is not code, so a
fence there opens nothing). A comment left open runs to the end of the note, as Obsidian hides
it. A backtick run opens an inline code span here only if its own line closes it (a span
crossing a line break is found after the comments: `code_spans`).

Display math, `$$ ... $$`, is found the same way and read like a comment: what is inside is
LaTeX, never a tag, a link, a field, a task or a heading, so every reader leaves it alone. Like
Obsidian, math needs its closing `$$` (an unclosed `$$` is text) and may start anywhere in a
line, a paragraph's included. Single-dollar inline math is not looked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from obsidian_mcp.structure.lines import Span, closing_backticks

_OPENER = re.compile(r"`+|%%|<!--|\$\$")
_CLOSERS = {"%%": "%%", "<!--": "-->", "$$": "$$"}
_MUST_CLOSE = frozenset({"$$"})  # left open, it opens nothing


def may_hold_comments(text: str) -> bool:
    """False when `text` surely holds no comment or math (the common case: nothing to look for)."""
    return "%%" in text or "<!--" in text or "$$" in text


def _closed_later(lines: Sequence[str], index: int, closer: str) -> bool:
    return any(closer in text for text in lines[index + 1 :])


def find_comments(lines: Sequence[str], code: Sequence[bool]) -> dict[int, tuple[Span, ...]]:
    """The comment (and math) spans of each line (by index) that has any. `code[i]` says whether
    line `i` is in a code block, where nothing opens a comment (a comment already open goes on
    through it)."""
    found: dict[int, tuple[Span, ...]] = {}
    closer: str | None = None  # the closer the open comment waits for
    for index, text in enumerate(lines):
        if closer is None and (code[index] or not may_hold_comments(text)):
            continue
        spans: list[Span] = []
        pos = 0
        if closer is not None:
            end = text.find(closer)
            if end < 0:
                found[index] = (Span(0, len(text)),)
                continue
            pos = end + len(closer)
            spans.append(Span(0, pos))
            closer = None
            if code[index]:  # the rest of the line is code: it opens no comment
                found[index] = tuple(spans)
                continue
        while (opening := _OPENER.search(text, pos)) is not None:
            token = opening.group()
            if token[0] == "`":
                pos = closing_backticks(text, opening) or opening.end()
                continue
            wanted = _CLOSERS[token]
            end = text.find(wanted, opening.end())
            if end < 0 and token in _MUST_CLOSE and not _closed_later(lines, index, wanted):
                pos = opening.end()
                continue
            if end < 0:
                spans.append(Span(opening.start(), len(text)))
                closer = wanted
                break
            pos = end + len(wanted)
            spans.append(Span(opening.start(), pos))
        if spans:
            found[index] = tuple(spans)
    return found


def without_comments(text: str, spans: tuple[Span, ...]) -> str:
    """The line as the CommonMark parser should read it: each comment removed together with the
    blanks right after it, so `%%note%% text` reads as `text` (not as text indented past a
    removed comment, which could make it code), and a line of nothing but comments reads blank."""
    out: list[str] = []
    pos = 0
    for span in spans:
        out.append(text[pos : span.start])
        pos = span.end
        while pos < len(text) and text[pos] in " \t":
            pos += 1
    out.append(text[pos:])
    return "".join(out)
