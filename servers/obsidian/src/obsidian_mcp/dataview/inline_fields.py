"""Inline fields in one line of markdown: `[key:: value]`, `(key:: value)` and a whole-line
`key:: value`, found the way Dataview finds them (brackets may nest; `\\` escapes a bracket)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Wrapping = Literal["[", "(", "line", "emoji"]
_CLOSERS = {"[": "]", "(": ")"}
_OPENERS: tuple[Literal["[", "("], ...] = ("[", "(")
_EMOJI = "\u2600-\u27bf\U0001f300-\U0001faff"
_FULL_LINE_KEY = re.compile(rf"[^\w{_EMOJI}]*(?P<key>[\w\s/{_EMOJI}-]+?)[_*~`]*")


@dataclass(frozen=True, slots=True)
class InlineField:
    """A field as written: `value` is the raw text (typed later), `line` the 1-based body line."""

    key: str
    value: str
    line: int
    wrapping: Wrapping
    start: int = 0  # column where the field starts, to order fields within a line


def _closing(text: str, start: int, opener: str) -> int | None:
    """Index of the bracket closing `opener`, scanning from `start`, or None."""
    closer, depth, escaped = _CLOSERS[opener], 0, False
    for index in range(start, len(text)):
        char = text[index]
        if char == "\\":
            escaped = not escaped
            continue
        if escaped:
            escaped = False
            continue
        if char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth < 0:
                return index
    return None


def bracketed_fields(text: str, line: int) -> list[InlineField]:
    """`[key:: value]` and `(key:: value)` fields, in order, overlapping ones dropped."""
    found: list[tuple[int, int, InlineField]] = []
    for opener in _OPENERS:
        index = text.find(opener)
        while index >= 0:
            separator = text.find("::", index + 1)
            key = text[index + 1 : separator].strip() if separator >= 0 else ""
            end = None
            if separator >= 0 and not any(char in key for char in "[]()"):
                end = _closing(text, separator + 2, opener)
            if end is None:
                index = text.find(opener, index + 1)
                continue
            value = text[separator + 2 : end].strip()
            found.append((index, end + 1, InlineField(key, value, line, opener, index)))
            index = text.find(opener, end + 1)
    found.sort(key=lambda item: item[0])
    kept: list[InlineField] = []
    last_end = -1
    for start, end, field in found:
        if start > last_end:
            kept.append(field)
            last_end = end - 1
    return kept


def full_line_field(text: str, line: int) -> InlineField | None:
    """`Key:: value` filling the line (markdown around the key, like `**Key**::`, is ignored)."""
    separator = text.find("::")
    if separator < 0:
        return None
    match = _FULL_LINE_KEY.fullmatch(text[:separator].strip())
    if match is None or not match.group("key").strip():
        return None
    return InlineField(match.group("key").strip(), text[separator + 2 :].strip(), line, "line")


def line_fields(text: str, line: int) -> list[InlineField]:
    """The fields of a prose line: its bracketed fields, or else a whole-line field."""
    if "::" not in text:
        return []
    text = text.strip()
    fields = bracketed_fields(text, line)
    if fields:
        return fields
    whole = full_line_field(text, line)
    return [whole] if whole else []
