"""The block structure of a note as CommonMark reads it, from markdown-it-py's block parser.

Only block parsing runs (no inline parsing, no rendering): that is all it takes to know which
lines are code and which are headings. GitHub tables and footnote definitions (mdit-py-plugins)
are read as Obsidian reads them; both change where other blocks start (a footnote's indented
continuation is not code; a table ends a paragraph, so `---` after it is no setext underline).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@dataclass(frozen=True)
class HeadingBlock:
    """A heading outside any container: its lines `first` to `last` (0-based, inclusive; the last
    is the underline of a setext heading) and its level."""

    level: int
    first: int
    last: int
    setext: bool


@dataclass(frozen=True)
class Blocks:
    """What the block parser found: which lines are code, the top-level headings, and the blocks
    of inline content over more than one line (paragraphs, setext heading text, at any depth) as
    0-based `(first, end)` line ranges: the only places an inline code span can cross a line."""

    code: tuple[bool, ...]
    headings: tuple[HeadingBlock, ...]
    inline_runs: tuple[tuple[int, int], ...] = ()


@cache
def _parser() -> MarkdownIt:
    # Imported on first use: markdown-it costs ~80 ms at start-up, and notes without anything
    # ambiguous in them never need it (see `body.read_body`).
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark").enable("table")
    footnote_plugin(md, inline=False, move_to_end=False)
    return md


def parse_blocks(lines: Sequence[str]) -> Blocks:
    """Parse the note whose lines (without their line breaks) are `lines`."""
    from markdown_it.token import Token

    md = _parser()
    tokens: list[Token] = []
    md.block.parse("\n".join(lines), md, {}, tokens)
    code = [False] * len(lines)
    headings: list[HeadingBlock] = []
    runs: list[tuple[int, int]] = []
    for token in tokens:
        if token.map is None:
            continue
        first, end = token.map
        if token.type in ("fence", "code_block"):
            code[first:end] = [True] * (end - first)
        elif token.type == "heading_open":
            setext = token.markup in ("=", "-")
            if token.level == 0:
                headings.append(HeadingBlock(int(token.tag[1:]), first, end - 1, setext))
            if setext and end - first > 2:  # text over two lines or more, then the underline
                runs.append((first, end - 1))
        elif token.type == "paragraph_open" and end - first > 1:
            runs.append((first, end))
    return Blocks(tuple(code[: len(lines)]), tuple(headings), tuple(runs))
