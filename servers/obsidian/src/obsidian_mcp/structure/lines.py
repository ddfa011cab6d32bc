"""The lines of a note and what each one is: the shapes every reader of a note's structure shares.

Offsets are indices into the full text (a leading BOM counts as one character); `number` is the
1-based line in the whole text. A line ends at "\\n"; a "\\r" just before it belongs to the line
break (CRLF), any other "\\r" is text, as are U+2028, form feeds and the like (editors keep them
inside a line, so counting them as breaks would shift every line number after them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, NamedTuple

LineKind = Literal["prose", "code", "comment"]

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
BACKTICKS = re.compile(r"`+")  # a run of backticks: what opens or closes an inline code span


@dataclass(frozen=True, slots=True)
class Span:
    """`start:end` within one line's text."""

    start: int
    end: int


class SourceLine(NamedTuple):
    """One line. `text` excludes the line break; `end` is where it ends, `next` where the next starts.

    `kind` says what the line is: `code` (a fenced or indented code block, fence lines included),
    `comment` (nothing but Obsidian `%% %%` or HTML `<!-- -->` comment, or `$$` math, which is read
    the same way: see `comments`) or `prose` (everything else: paragraphs, headings, lists,
    quotes, tables, blank lines). `comments` are the parts of a prose line inside a comment or
    math (one that may have opened on an earlier line); `code_spans` the parts inside an inline
    code span that crosses a line break (`code_spans.py`; spans within one line are found by
    `mask_inline_code` whenever a line is read).

    A named tuple rather than a dataclass: a note has many lines, and this is four times cheaper to
    make than a frozen dataclass, while as immutable (lines are cached and shared by callers).
    """

    number: int
    start: int
    end: int
    next: int
    text: str
    kind: LineKind = "prose"
    comments: tuple[Span, ...] = ()
    code_spans: tuple[Span, ...] = ()  # parts of inline code spans that cross a line break

    @property
    def in_code(self) -> bool:
        """Not prose: code, or a line of comment. Tags, links, fields and tasks are never there."""
        return self.kind != "prose"

    @property
    def masked(self) -> str:
        """`text` with comments and inline code spans replaced by spaces, every offset kept: what
        tags and links are read from."""
        if not self.comments and not self.code_spans:
            return mask_inline_code(self.text)
        return mask_inline_code(blank_spans(self.text, self.comments + self.code_spans))

    def without_comments(self) -> str:
        """`text` with its comments removed (offsets after a comment move)."""
        return remove_spans(self.text, self.comments) if self.comments else self.text

    def prose_text(self) -> str:
        """`without_comments`, with the parts of code spans crossing a line break blanked too: the
        line as a reader of prose that masks code spans line by line (`mask_inline_code`) needs it."""
        if not self.code_spans:
            return self.without_comments()
        return remove_spans(blank_spans(self.text, self.code_spans), self.comments)


@dataclass(frozen=True)
class Heading:
    """A heading of the note (ATX `## x`, or setext: text lines underlined by `===` or `---`).

    Only headings outside any container count (not in quotes, callouts, list items or footnotes):
    those are the ones that cut a note into sections. `line` is the number of its first line;
    `start` the offset of that line and `end` the end of its last line before the line break (the
    underline, for a setext heading); `content_start` is just after that line break, where the
    section's body begins. `text` is the heading's text without markup or comments; a setext
    heading written over several lines has them joined by spaces.
    """

    level: int
    text: str
    line: int
    start: int
    end: int
    content_start: int
    setext: bool = False


def line_end(text: str, pos: int) -> tuple[int, int]:
    """(end of the line's content, start of the next line) for the line starting at `pos`."""
    nl = text.find("\n", pos)
    if nl == -1:
        return len(text), len(text)
    end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
    return end, nl + 1


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) for an ATX heading line (`# x`, with a space after the hashes), else None."""
    match = _ATX.match(line)
    if match is None:
        return None
    content = match.group(2) or ""
    content = _CLOSING_HASHES.sub("", content).strip(" \t")
    return len(match.group(1)), content


def mask_inline_code(line: str) -> str:
    """Replace inline code spans (matching backtick runs on the line) by spaces, keeping every offset."""
    if "`" not in line:
        return line
    out = list(line)
    pos = 0
    while (opening := BACKTICKS.search(line, pos)) is not None:
        closing = closing_backticks(line, opening)
        if closing is None:
            pos = opening.end()
            continue
        out[opening.start() : closing] = " " * (closing - opening.start())
        pos = closing
    return "".join(out)


def closing_backticks(line: str, opening: re.Match[str]) -> int | None:
    """Where the code span opened by the backtick run `opening` ends (after its closing run of the
    same width, on the same line), or None when nothing closes it."""
    width = len(opening.group())
    for candidate in BACKTICKS.finditer(line, opening.end()):
        if len(candidate.group()) == width:
            return candidate.end()
    return None


def blank_spans(text: str, spans: tuple[Span, ...]) -> str:
    """`text` with each span replaced by spaces."""
    for span in spans:
        text = text[: span.start] + " " * (span.end - span.start) + text[span.end :]
    return text


def remove_spans(text: str, spans: tuple[Span, ...]) -> str:
    """`text` without the spans."""
    for span in reversed(spans):
        text = text[: span.start] + text[span.end :]
    return text
