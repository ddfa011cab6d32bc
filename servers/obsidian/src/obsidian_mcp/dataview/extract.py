"""Metadata in a note's body: page-level inline fields and list items/tasks.

A line-based scanner, kept behind `extract_fields` / `extract_tasks` / `extract_list_items` so a
markdown-it based one can replace it. It skips fenced code (``` and ~~~), indented code blocks,
`%% comments %%` and `<!-- HTML comments -->` (both may span lines), and ignores `code spans`
when reading fields, tags and links. Page-level fields come from prose lines, headings,
blockquotes and plain (non-task) list items, as in Dataview; a task's fields stay on the task.
Nesting follows indentation (a tab counts 4 columns); an indented line under an item continues
that item's text. Setext headings are not recognised (ATX `#` headings are).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from obsidian_mcp.dataview.inline_fields import InlineField, line_fields
from obsidian_mcp.dataview.list_items import (
    ListDraft,
    ListItem,
    indent_width,
    is_thematic_break,
    links_in,
    read_list_line,
    tags_in,
    without_code_spans,
)

_FENCE = re.compile(r"[ \t]*(?:>[ \t]*)*(?P<fence>`{3,}|~{3,})")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*")
_QUOTE_PREFIX = re.compile(r"(?:[ \t]*>)+[ \t]?")


@dataclass(frozen=True)
class BodyMetadata:
    """Page-level fields, all list items, and the tags (with `#`) and wiki-link texts outside code."""

    fields: tuple[InlineField, ...]
    items: tuple[ListItem, ...]
    tags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


class _Comments:
    """Removes `%% ... %%` and `<!-- ... -->` from lines, remembering one left open."""

    def __init__(self) -> None:
        self.closer: str | None = None

    def strip(self, line: str) -> str:
        kept: list[str] = []
        index = 0
        while index <= len(line):
            if self.closer is not None:
                end = line.find(self.closer, index)
                if end < 0:
                    return "".join(kept)
                index, self.closer = end + len(self.closer), None
                continue
            starts = [(pos, opener) for opener in ("%%", "<!--") if (pos := line.find(opener, index)) >= 0]
            if not starts:
                kept.append(line[index:])
                break
            pos, opener = min(starts)
            kept.append(line[index:pos])
            index, self.closer = pos + len(opener), "%%" if opener == "%%" else "-->"
        return "".join(kept)


class _Scanner:
    def __init__(self) -> None:
        self.fields: list[InlineField] = []
        self.prose: list[str] = []  # prose and heading text, for tags and links
        self.items: list[ListDraft] = []
        self.stack: list[ListDraft] = []  # open list items, outermost first
        self.current: ListDraft | None = None  # the item continuation lines attach to
        self.section: str | None = None
        self.previous = "blank"  # kind of the previous line: blank, prose, list, heading, code

    def end_list(self) -> None:
        self.stack.clear()
        self.current = None

    def add_item(self, item: ListDraft) -> None:
        while self.stack and self.stack[-1].indent >= item.indent:
            self.stack.pop()
        if self.stack:
            item.parent = self.stack[-1].line
            self.stack[-1].children.append(item.line)
        self.items.append(item)
        self.stack.append(item)
        self.current = item

    def line(self, number: int, text: str) -> None:
        stripped = text.lstrip()
        if not stripped:
            self.previous = "blank"
            return
        unquoted = _QUOTE_PREFIX.sub("", text, count=1) if stripped.startswith(">") else text
        indent = indent_width(unquoted[: len(unquoted) - len(unquoted.lstrip())])
        if not self.stack and indent >= 4 and self.previous in ("blank", "code"):
            self.previous = "code"
            return
        if stripped.startswith("#") and (heading := _HEADING.fullmatch(text)):
            self.end_list()
            self.section = (heading.group("text") or "").strip()
            self.prose.append(self.section)
            self.fields += line_fields(without_code_spans(self.section), number)
            self.previous = "heading"
            return
        if item := read_list_line(text, number, self.section):
            self.add_item(item)
            self.previous = "list"
            return
        if is_thematic_break(text):
            self.end_list()
            self.previous = "prose"
            return
        if self.current is not None and (indent > self.current.indent or self.previous == "list"):
            self.current.lines.append(text.strip())
            return
        self.end_list()
        self.fields += line_fields(without_code_spans(text), number)
        self.prose.append(text)
        self.previous = "prose"

    def result(self) -> BodyMetadata:
        items = [draft.finish() for draft in self.items]
        fields = list(self.fields)
        for item in items:
            if not item.task:
                fields += item.fields
        fields.sort(key=lambda f: (f.line, f.start))
        tags = [tag for text in self.prose for tag in tags_in(text)] + [tag for item in items for tag in item.tags]
        links = [link for text in self.prose for link in links_in(text)] + [
            link for item in items for link in item.links
        ]
        return BodyMetadata(tuple(fields), tuple(items), tuple(dict.fromkeys(tags)), tuple(dict.fromkeys(links)))


def _lines(body: str) -> list[str]:
    lines = body.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def scan_body(body: str) -> BodyMetadata:
    """Page-level fields and all list items of a note body (without its frontmatter)."""
    scanner = _Scanner()
    comments = _Comments()
    fence: str | None = None
    # Lines end at "\n" only (a "\r" before it is dropped), so numbers are the file's lines:
    # `splitlines` would also split at U+2028, form feeds and other characters editors keep inline.
    for number, raw in enumerate(_lines(body), start=1):
        if fence is not None:
            closing = _FENCE.match(raw)
            if (
                closing
                and closing.group("fence")[0] == fence[0]
                and len(closing.group("fence")) >= len(fence)
                and not raw[closing.end() :].strip()
            ):
                fence = None
            continue
        text = comments.strip(raw)
        opening = _FENCE.match(text)
        if opening and (opening.group("fence")[0] == "~" or "`" not in text[opening.end() :]):
            fence = opening.group("fence")
            scanner.previous = "code"
            continue
        scanner.line(number, text)
    return scanner.result()


def extract_fields(body: str) -> list[InlineField]:
    """The page-level inline fields of a body, in order of appearance."""
    return list(scan_body(body).fields)


def extract_list_items(body: str) -> list[ListItem]:
    """Every list item of a body (tasks and plain bullets), in line order, with parents/children."""
    return list(scan_body(body).items)


def extract_tasks(body: str) -> list[ListItem]:
    """The tasks of a body (list items with a `[ ]` checkbox of any status), in line order."""
    return [item for item in scan_body(body).items if item.task]
