"""Metadata in a note's body: page-level inline fields and list items/tasks.

What is code, comment or heading is `obsidian_mcp.structure`'s reading (CommonMark, with
Obsidian's comments): fenced and indented code blocks, `%% comments %%` and `<!-- HTML comments
-->` hold no fields, tasks, tags or links, and `code spans` are ignored when reading them.
Page-level fields come from prose lines, headings (ATX and setext), blockquotes and plain
(non-task) list items, as in Dataview; a task's fields stay on the task. Nesting follows
indentation (a tab counts 4 columns); an indented line under an item continues that item's text.
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
from obsidian_mcp.structure import BodyStructure, read_body

_QUOTE_PREFIX = re.compile(r"(?:[ \t]*>)+[ \t]?")


@dataclass(frozen=True)
class NoteMetadata:
    """What queries read of a body: its page-level fields and all its list items (tasks and plain
    bullets), line numbers counted from the body's first line. The index stores it in its tables."""

    fields: tuple[InlineField, ...]
    items: tuple[ListItem, ...]


@dataclass(frozen=True)
class BodyMetadata(NoteMetadata):
    """`NoteMetadata` plus the tags (with `#`) and wiki-link texts outside code."""

    tags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


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

    def heading(self, number: int, text: str | None, section: str | None) -> None:
        """A line of a heading: its first (`section` is the heading's text) or a later one (the
        further text lines of a setext heading; its underline has no `text`)."""
        if section is not None:
            self.end_list()
            self.section = section
        if text:
            self.prose.append(text)
            self.fields += line_fields(without_code_spans(text), number)
        self.previous = "heading"

    def line(self, number: int, text: str, prose: str | None = None) -> None:
        """A line that is no heading. `prose` is `text` with the parts of code spans crossing a line
        break blanked, what fields and tags are read from outside a list (a list item reads its
        joined lines itself)."""
        stripped = text.lstrip()
        if not stripped:
            self.previous = "blank"
            return
        unquoted = _QUOTE_PREFIX.sub("", text, count=1) if stripped.startswith(">") else text
        indent = indent_width(unquoted[: len(unquoted) - len(unquoted.lstrip())])
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
        prose = text if prose is None else prose
        self.fields += line_fields(without_code_spans(prose), number)
        self.prose.append(prose)
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


def _heading_lines(structure: BodyStructure) -> dict[int, tuple[str | None, str | None]]:
    """For each line of a heading (numbered as in `structure`): (text to read fields from, the
    section it starts or None)."""
    found: dict[int, tuple[str | None, str | None]] = {}
    lines = {line.number: line for line in structure.lines}
    for heading in structure.headings:
        if not heading.setext:
            found[heading.line] = (heading.text, heading.text)
            continue
        number = heading.line
        while lines[number].end < heading.end:
            found[number] = (lines[number].without_comments().strip(), None)
            number += 1
        found[number] = (None, None)  # the underline
        found[heading.line] = (found[heading.line][0], heading.text)
    return found


def scan_body(body: str) -> BodyMetadata:
    """Page-level fields and all list items of a note body (without its frontmatter)."""
    return scan_structure(read_body(body))


def scan_structure(structure: BodyStructure, first_line: int = 1) -> BodyMetadata:
    """`scan_body` of a body already read, whose first line is line `first_line` of what
    `structure` numbers (a note read whole with `read_body(text, body_offset)`): the metadata's
    lines are counted from the body's first line all the same."""
    scanner = _Scanner()
    shift = first_line - 1
    headings = _heading_lines(structure) if structure.headings else {}
    for line in structure.lines:
        number = line.number - shift
        if line.kind == "code":
            scanner.previous = "code"
        elif line.kind == "comment":
            scanner.line(number, "")
        elif line.number in headings:
            scanner.heading(number, *headings[line.number])
        else:
            scanner.line(number, line.without_comments(), line.prose_text() if line.code_spans else None)
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
