"""Reading a note body into lines that know what they are, and its headings.

Most notes hold nothing that CommonMark could read two ways, and for them the plain reading —
every line prose, a line starting `#` a heading — is exactly what CommonMark gives. `_plain`
decides that, conservatively: nothing that could open a fenced code block (a run of three
backticks or tildes), an indented code block (four spaces or a tab among a line's leading
spaces, quote markers and list markers: no code block is indented without them), a comment
(`%%`, `<!--`) or math (`$$`), a setext heading (a line of `=` or `-` under a non-blank line),
an HTML block (a line starting `<`), a heading inside a list item (a `#` line indented one to
three spaces: at the margin, an ATX heading always ends a list, a quote or a paragraph), a link
reference definition or footnote (`]:`, whose title or body can run over later lines), or a
backtick run its line does not close (an inline code span may go on past the line break). Every
other note goes through markdown-it-py (`commonmark.parse_blocks`), with comments found first.

Comments and code depend on each other: `%%` in code opens no comment, and a fence inside a
comment opens no code. So the parser first reads the note as written; comments are then found
outside the code it saw (`comments.find_comments`) and the note is parsed again without them.
The second reading can move code (a fence that was inside a comment is gone); comments are found
again against it, until nothing changes (almost always at once; the loop is bounded). Inline
code spans that cross a line break are found last, inside the blocks of inline content the final
reading gave (`code_spans`): in CommonMark, inline content never changes the blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from obsidian_mcp.structure.code_spans import find_crossing_spans, may_cross_lines
from obsidian_mcp.structure.comments import find_comments, may_hold_comments, without_comments
from obsidian_mcp.structure.commonmark import Blocks, HeadingBlock, parse_blocks
from obsidian_mcp.structure.lines import Heading, LineKind, SourceLine, Span, atx_heading, line_end

# What `_plain` looks for. Anywhere: fence runs, comment openers, `]:`. At the start of a line:
# four spaces or a tab among the leading spaces, `>` and list markers (no indented code block
# without them; a run of spaces inside a table row or after text opens nothing), `<`, a `#`
# indented one to three spaces, and a line of `=` or `-` right after a non-blank line.
_AMBIGUOUS_MARKS = ("```", "~~~", "%%", "<!--", "$$", "]:")
_AMBIGUOUS_LINE = re.compile(r"\n[ >\-+*0-9.)]*(?:    |\t)|\n {0,3}<|\n {1,3}#")
_UNDERLINE = re.compile(r"\n {0,3}(?:=+|-+)[ \t\r]*(?=\n|$)")  # each pattern starts with a literal: fast
_MAX_PASSES = 4


@dataclass(frozen=True)
class BodyStructure:
    """The lines of a note from some offset on (each with its kind) and its headings."""

    lines: tuple[SourceLine, ...]
    headings: tuple[Heading, ...]


def _split(text: str, offset: int) -> tuple[list[int], list[int], list[int]]:
    """(starts, ends, nexts) of the lines from `offset` on."""
    starts: list[int] = []
    ends: list[int] = []
    nexts: list[int] = []
    pos = offset
    while pos < len(text):
        end, nxt = line_end(text, pos)
        starts.append(pos)
        ends.append(end)
        nexts.append(nxt)
        pos = nxt
    return starts, ends, nexts


def _plain(body: str) -> bool:
    """True when `body` holds nothing CommonMark could read otherwise than the plain reading."""
    if any(mark in body for mark in _AMBIGUOUS_MARKS):  # substring searches: ten times a regex's speed
        return False
    if may_cross_lines(body):
        return False
    text = "\n" + body
    if _AMBIGUOUS_LINE.search(text) is not None:
        return False
    for underline in _UNDERLINE.finditer(text):
        above = text[text.rfind("\n", 0, underline.start()) + 1 : underline.start()]
        if above.strip(" \t\r"):
            return False
    return True


def _parse(texts: list[str]) -> tuple[Blocks, dict[int, tuple[Span, ...]]]:
    """The block structure of the lines, read without their comments, and those comments."""
    blocks = parse_blocks(texts)
    if not any(may_hold_comments(text) for text in texts):
        return blocks, {}
    comments: dict[int, tuple[Span, ...]] = {}
    code = blocks.code
    for _ in range(_MAX_PASSES):
        found = find_comments(texts, code)
        if found == comments:
            break
        comments = found
        read = [without_comments(text, comments[i]) if i in comments else text for i, text in enumerate(texts)]
        blocks = parse_blocks(read)
        # A line the parser read blank because it held only comment is no code that could hide
        # that comment (a blank line between two indented code lines belongs to their block).
        code = tuple(flag and (i not in comments or bool(read[i].strip(" \t"))) for i, flag in enumerate(blocks.code))
    return blocks, comments


def _kind(text: str, code: bool, spans: tuple[Span, ...]) -> LineKind:
    if spans and not without_comments(text, spans).strip(" \t"):
        return "comment"
    return "code" if code else "prose"


@lru_cache(maxsize=2)
def read_body(text: str, offset: int = 0) -> BodyStructure:
    """The structure of `text[offset:]` read as a note of its own, with offsets into `text` and
    line numbers counted from the start of `text`. Cached: the index and the edits read the same
    note several times in a row."""
    starts, ends, nexts = _split(text, offset)
    texts = [text[start:end] for start, end in zip(starts, ends, strict=True)]
    first = text.count("\n", 0, offset) + 1
    if _plain(text[offset:]):
        lines = tuple(SourceLine(first + i, starts[i], ends[i], nexts[i], line) for i, line in enumerate(texts))
        headings = [
            Heading(found[0], found[1], first + i, starts[i], ends[i], nexts[i])
            for i, line in enumerate(texts)
            if line[:1] == "#" and (found := atx_heading(line)) is not None
        ]
        return BodyStructure(lines, tuple(headings))
    blocks, comments = _parse(texts)
    crossing = find_crossing_spans(texts, blocks.inline_runs, comments) if blocks.inline_runs else {}
    lines = tuple(
        SourceLine(
            first + i,
            starts[i],
            ends[i],
            nexts[i],
            line,
            kind := _kind(line, blocks.code[i], comments.get(i, ())),
            comments.get(i, ()) if kind != "code" else (),
            crossing.get(i, ()),
        )
        for i, line in enumerate(texts)
    )
    return BodyStructure(lines, tuple(_heading(block, lines) for block in blocks.headings))


def _heading(block: HeadingBlock, lines: tuple[SourceLine, ...]) -> Heading:
    head, last = lines[block.first], lines[block.last]
    if block.setext:
        text = " ".join(line.without_comments().strip(" \t") for line in lines[block.first : block.last])
    else:
        found = atx_heading(head.without_comments())
        text = found[1] if found is not None else ""
    return Heading(block.level, text, head.number, head.start, last.end, last.next, block.setext)
