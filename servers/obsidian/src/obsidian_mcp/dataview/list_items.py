"""List items and tasks as written in markdown, with the metadata of their text: inline fields,
the Tasks plugin's emoji (📅 due, ⏳ scheduled, 🛫 start, ✅ done, ➕ created, ❌ cancelled,
🔁 recurrence, 🔺⏫🔼🔽⏬ priority), tags, wiki links and a trailing `^block-id`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from obsidian_mcp.dataview.inline_fields import InlineField, bracketed_fields, full_line_field
from obsidian_mcp.structure import mask_inline_code

# An optional blockquote prefix, the indent, the bullet, then for a task `[c]`.
LIST_LINE = re.compile(
    r"(?P<quote>(?:[ \t]*>)*)(?P<indent>[ \t]*)(?P<symbol>[-*+]|\d{1,9}[.)])(?:[ \t]+(?P<rest>.*)|$)"
)
_CHECKBOX = re.compile(r"\[(?P<status>[^\]\[\n])\](?:[ \t]+(?P<text>.*)|$)")
_THEMATIC_BREAK = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*")

_DATE = r"(\d{4}-\d{2}-\d{2})"
_EMOJI_DATES = (
    ("created", re.compile("\u2795\ufe0f?\\s*" + _DATE)),
    ("start", re.compile("\U0001f6eb\ufe0f?\\s*" + _DATE)),
    ("scheduled", re.compile("[\u23f3\u231b]\ufe0f?\\s*" + _DATE)),
    ("due", re.compile("(?:\U0001f4c5|\U0001f4c6|\U0001f5d3)\ufe0f?\\s*" + _DATE)),
    ("completion", re.compile("\u2705\ufe0f?\\s*" + _DATE)),
    ("cancelled", re.compile("\u274c\ufe0f?\\s*" + _DATE)),
)
PRIORITIES = {
    "\U0001f53a": "highest",
    "\u23eb": "high",
    "\U0001f53c": "medium",
    "\U0001f53d": "low",
    "\u23ec": "lowest",
}
_PRIORITY = re.compile("[" + "".join(PRIORITIES) + "]")
_RECURRENCE = re.compile("\U0001f501\ufe0f?\\s*([a-zA-Z0-9, !]+)")
_TAG = re.compile(r"(?<![^\s(\[,])#([^\s!\"#$%&'()*+,.:;<=>?@\[\]\\^`{|}~]+)")
_WIKI_LINK = re.compile(r"!?\[\[([^\[\]]+?)\]\]")
_BLOCK_ID = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")


@dataclass(frozen=True)
class ListItem:
    """One list item. `line` is 1-based in the body; `status` is the character between the
    brackets for a task (`" "`, `x`, `/`, `-`, ...) and None for a plain bullet; `text` is what
    follows the bullet (and checkbox), continuation lines joined with a newline."""

    line: int
    symbol: str
    status: str | None
    text: str
    indent: int = 0
    line_count: int = 1
    parent: int | None = None
    children: tuple[int, ...] = ()
    section: str | None = None
    fields: tuple[InlineField, ...] = ()
    tags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    block_id: str | None = None

    @property
    def task(self) -> bool:
        return self.status is not None


def without_code_spans(text: str) -> str:
    """`text` with its inline code spans blanked, as everywhere in the server (`structure`)."""
    return mask_inline_code(text)


def tags_in(text: str) -> list[str]:
    """`#tags` in prose (preceded by space or line start, not only digits), code spans excluded."""
    if "#" not in text:
        return []
    return ["#" + tag for tag in _TAG.findall(without_code_spans(text)) if not tag.replace("/", "").isdigit()]


def links_in(text: str) -> list[str]:
    """The inner text of each `[[wiki link]]` (and `![[embed]]`)."""
    if "[[" not in text:
        return []
    return _WIKI_LINK.findall(without_code_spans(text))


def emoji_fields(text: str, line: int) -> list[InlineField]:
    """The Tasks plugin's emoji metadata as fields: dates, `priority` and `recurrence`."""
    found: list[InlineField] = []
    for key, pattern in _EMOJI_DATES:
        if match := pattern.search(text):
            found.append(InlineField(key, match.group(1), line, "emoji", match.start()))
    if match := _PRIORITY.search(text):
        found.append(InlineField("priority", PRIORITIES[match.group(0)], line, "emoji", match.start()))
    if match := _RECURRENCE.search(text):
        found.append(InlineField("recurrence", match.group(1).strip(), line, "emoji", match.start()))
    return found


def item_fields(text: str, line: int, task: bool) -> tuple[InlineField, ...]:
    """A task's bracketed and emoji fields; a plain item's bracketed fields, else a whole-line field."""
    flat = without_code_spans(text.replace("\n", " "))
    fields = bracketed_fields(flat, line) if "::" in flat else []
    if task:
        fields = sorted([*fields, *emoji_fields(flat, line)], key=lambda f: f.start)
    elif not fields and (whole := full_line_field(flat.strip(), line)):
        fields = [whole]
    return tuple(fields)


def is_thematic_break(text: str) -> bool:
    return _THEMATIC_BREAK.fullmatch(text) is not None


def indent_width(text: str) -> int:
    return len(text.expandtabs(4))


class ListDraft:
    """A list item while the scanner is still reading it (continuation lines, children)."""

    __slots__ = ("children", "indent", "line", "lines", "parent", "section", "status", "symbol")

    def __init__(self, line: int, symbol: str, status: str | None, text: str, indent: int, section: str | None) -> None:
        self.line, self.symbol, self.status, self.indent, self.section = line, symbol, status, indent, section
        self.lines = [text]
        self.parent: int | None = None
        self.children: list[int] = []

    def finish(self) -> ListItem:
        """The item, with the metadata of its (possibly multi-line) text."""
        text = "\n".join(self.lines)
        block = _BLOCK_ID.search(" " + self.lines[-1])
        return ListItem(
            line=self.line,
            symbol=self.symbol,
            status=self.status,
            text=text,
            indent=self.indent,
            line_count=len(self.lines),
            parent=self.parent,
            children=tuple(self.children),
            section=self.section,
            fields=item_fields(text, self.line, self.status is not None),
            tags=tuple(dict.fromkeys(tags_in(text))),
            links=tuple(links_in(text)),
            block_id=block.group(1) if block else None,
        )


def read_list_line(text: str, line: int = 1, section: str | None = None) -> ListDraft | None:
    """The list item (or task) starting on `text`, or None when the line is not a list item."""
    match = LIST_LINE.fullmatch(text)
    if match is None or is_thematic_break(text):
        return None
    rest = match.group("rest") or ""
    status: str | None = None
    if checkbox := _CHECKBOX.fullmatch(rest):
        status, rest = checkbox.group("status"), checkbox.group("text") or ""
    return ListDraft(line, match.group("symbol"), status, rest, indent_width(match.group("indent")), section)


def parse_list_line(text: str, line: int = 1, section: str | None = None) -> ListItem | None:
    """The list item (or task) written on one line, with its metadata, or None."""
    draft = read_list_line(text, line, section)
    return draft.finish() if draft is not None else None


def parse_task_line(text: str) -> ListItem | None:
    """The task written on one line (`- [ ] Call Bob 📅 2024-05-01`), or None if it is not a task."""
    item = parse_list_line(text)
    return item if item is not None and item.task else None
