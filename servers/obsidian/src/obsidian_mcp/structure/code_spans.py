"""Inline code spans that cross a line break.

A CommonMark code span runs from a run of backticks to the next run of the same length, and may
cross line breaks inside one block of inline content: a paragraph (also in a quote, a callout or
a list item) or the text of a setext heading. `lines.mask_inline_code` masks the spans within one
line wherever a line is read; this module finds the others, from the blocks of inline content the
parser found (`Blocks.inline_runs`), on the lines as read without their comments. A run left
unclosed in its block is literal text, as in CommonMark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from obsidian_mcp.structure.lines import BACKTICKS, Span, blank_spans, closing_backticks, mask_inline_code


def may_cross_lines(text: str) -> bool:
    """False when no code span in `text` can cross a line break: every backtick run is closed on
    its own line (or there is none, the common case)."""
    return "`" in text and any("`" in mask_inline_code(line) for line in text.split("\n") if "`" in line)


def find_crossing_spans(
    lines: Sequence[str], runs: Sequence[tuple[int, int]], comments: Mapping[int, tuple[Span, ...]]
) -> dict[int, tuple[Span, ...]]:
    """The parts, line by line (by index), of the code spans that cross a line break inside the
    `runs` of lines (0-based `(first, end)` ranges), comments left out."""
    visible = [blank_spans(text, comments[i]) if i in comments else text for i, text in enumerate(lines)]
    found: dict[int, list[Span]] = {}
    for first, end in runs:
        index, pos = first, 0
        while index < end:
            text = visible[index]
            opening = BACKTICKS.search(text, pos)
            if opening is None:
                index, pos = index + 1, 0
                continue
            closing = closing_backticks(text, opening)
            if closing is not None:  # a span within the line
                pos = closing
                continue
            later = _closing_later(visible, index + 1, end, len(opening.group()))
            if later is None:  # nothing closes it in the block: literal backticks
                pos = opening.end()
                continue
            last, stop = later
            found.setdefault(index, []).append(Span(opening.start(), len(text)))
            for middle in range(index + 1, last):
                found.setdefault(middle, []).append(Span(0, len(visible[middle])))
            found.setdefault(last, []).append(Span(0, stop))
            index, pos = last, stop
    return {index: tuple(spans) for index, spans in found.items()}


def _closing_later(visible: Sequence[str], start: int, end: int, width: int) -> tuple[int, int] | None:
    """(line, offset after it) of the first run of `width` backticks on lines `start` to `end`."""
    for index in range(start, end):
        for candidate in BACKTICKS.finditer(visible[index]):
            if len(candidate.group()) == width:
                return index, candidate.end()
    return None
