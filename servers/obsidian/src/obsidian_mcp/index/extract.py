"""What the index stores about one note, computed from its text with `parse_note`.

Text columns keep the note's line structure: line *n* of the note is line *n* of `body`,
`frontmatter` and `code` (each holding only its own kind of text, other lines left empty), so a
match found in a column is also a line number. `body` is prose including heading lines, `code` is
fenced code (fences included), `frontmatter` is the YAML block with the keys stripped (values as
text). Title: frontmatter `title`, else the first H1, else the file name.

For Dataview queries it also keeps the parsed frontmatter and what `dataview.extract` reads of the
body (inline fields, list items and tasks), which `index.metadata` stores in their own tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from obsidian_mcp.structure import read_body
from obsidian_mcp.vault.links import is_note_target, link_key, stem
from obsidian_mcp.vault.markdown import FrontmatterSpan, iter_lines, parse_note, split_frontmatter

if TYPE_CHECKING:
    from obsidian_mcp.dataview.extract import NoteMetadata

MAX_INDEXED_CHARS = 4_000_000  # a bigger note is indexed up to here
# `key:` / `- key:` / `- ` at the start of a YAML line: dropped, the value stays.
_YAML_KEY = re.compile(r"""^\s*(?:-\s+)*(?:(?:"[^"]*"|'[^']*'|[^\s"'#:-][^:#]*?)\s*:(?=\s|$))?""")


@dataclass(frozen=True)
class LinkRow:
    line: int
    kind: str
    target: str
    embed: bool
    key: str


@dataclass(frozen=True)
class NoteRecord:
    title: str
    aliases: list[str]
    headings: list[tuple[int, int, str]]  # (line, level, text)
    tags: list[str]
    links: list[LinkRow]
    body: str
    frontmatter: str
    code: str
    frontmatter_values: dict[str, Any]  # the parsed YAML, JSON-safe ({} when invalid)
    body_line: int  # the file line the body starts on
    metadata: NoteMetadata  # fields and list items of the body, lines counted from `body_line`


def _scalars(value: Any) -> list[str]:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [str(item).strip() for item in value if isinstance(item, str | int | float) and str(item).strip()]
    return []


def _trimmed(lines: list[str]) -> str:
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def frontmatter_column(text: str, span: FrontmatterSpan | None = None) -> str:
    """The frontmatter's lines with their YAML keys dropped (`span`: where it is, if known)."""
    span = span if span is not None else split_frontmatter(text)
    if span is None:
        return ""
    first = text.count("\n", 0, span.yaml_start)
    yaml_lines = span.yaml_text(text).split("\n")[:-1]
    return _trimmed([""] * first + [_YAML_KEY.sub("", line.rstrip("\r"), count=1) for line in yaml_lines])


def extract(text: str, rel: str) -> NoteRecord:
    """Everything the index keeps about the note `rel` whose text is `text`. Never raises on
    content: invalid frontmatter counts as none."""
    from obsidian_mcp.dataview.extract import NoteMetadata, scan_structure  # not at start-up

    text = text[:MAX_INDEXED_CHARS]
    parsed = parse_note(text, rel, strict=False)
    before = text.count("\n", 0, parsed.body_offset)
    body, code = [""] * before, [""] * before
    for line in iter_lines(text, parsed.body_offset):
        body.append("" if line.in_code else line.without_comments())  # `a %%aside%% b` is searched as `a b`
        code.append(line.text if line.in_code else "")

    fm = parsed.frontmatter
    title_value = fm.get("title")
    title = str(title_value).strip() if isinstance(title_value, str | int | float) else ""
    if not title:
        title = next((h.text for h in parsed.headings if h.level == 1 and h.text), "") or stem(rel)
    aliases = _scalars(fm.get("aliases", fm.get("alias")))
    links = [
        LinkRow(link.line, link.kind, link.target, link.embed, link_key(link.target))
        for link in parsed.links
        if link.target.strip() and is_note_target(link.target)
    ]
    scanned = scan_structure(read_body(text, parsed.body_offset), before + 1)  # parse_note's, cached
    return NoteRecord(
        title=title,
        aliases=aliases,
        headings=[(h.line, h.level, h.text) for h in parsed.headings],
        tags=parsed.tags,
        links=links,
        body=_trimmed(body),
        frontmatter=frontmatter_column(text),
        code=_trimmed(code),
        frontmatter_values=fm,
        body_line=before + 1,
        metadata=NoteMetadata(scanned.fields, scanned.items),
    )
