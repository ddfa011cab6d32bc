"""Reading the structure of a note: frontmatter, tags, links and headings. Pure functions on `str`.

Offsets are indices into the full text (a leading BOM counts as one character); line numbers are
1-based over the full note. What is code, what is comment and what is a heading is read as
CommonMark reads it, with Obsidian's `%% comments %%` on top (`obsidian_mcp.structure`): fenced
code (also inside quotes, callouts and list items), indented code, `%%` and `<!-- -->` comments,
ATX and setext headings. Tags and links are read from the prose outside inline code spans and
comments.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

from obsidian_mcp.structure import Heading as Heading  # re-exported: callers know these shapes from here
from obsidian_mcp.structure import SourceLine as SourceLine
from obsidian_mcp.structure import line_end, read_body
from obsidian_mcp.structure import mask_inline_code as mask_inline_code
from obsidian_mcp.vault.errors import DocumentParseError

BOM = "\ufeff"

WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MD_LINK = re.compile(
    r"(!?)\[([^\]\n]*)\]\(\s*(<[^>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TAG_PUNCT_OK = frozenset("_-/")


@dataclass(frozen=True)
class FrontmatterSpan:
    """Where the frontmatter block sits. `yaml_start:yaml_end` is the YAML text between the fences;
    `start` is the opening `---` (after a BOM), `end` is just after the closing fence's line break."""

    start: int
    yaml_start: int
    yaml_end: int
    end: int

    def yaml_text(self, text: str) -> str:
        return text[self.yaml_start : self.yaml_end]


LinkKind = Literal["wikilink", "markdown"]


# A link as written: `target` is not normalised (no `.md` added or removed). read_note returns these
# as they are, so this is also their JSON shape (the `Link` of read_note's outputSchema). No
# docstring on purpose: pydantic would copy it into that schema.
@dataclass(frozen=True, kw_only=True)
class Link:
    target: str
    alias: str | None = None
    heading: str | None = None
    block: str | None = None
    embed: bool = False
    kind: LinkKind
    line: int


@dataclass(frozen=True)
class ParsedNote:
    """What a note contains. `frontmatter_error` is only set by a non-strict parse of bad YAML."""

    frontmatter: dict[str, Any]
    body_offset: int
    tags: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    frontmatter_error: DocumentParseError | None = None


# -- frontmatter --------------------------------------------------------------------------------


def split_frontmatter(text: str) -> FrontmatterSpan | None:
    """Find a leading `---` ... `---` block (after an optional BOM, LF or CRLF lines), or None."""
    start = 1 if text.startswith(BOM) else 0
    end, pos = line_end(text, start)
    if text[start:end].rstrip(" \t") != "---" or pos == end:
        return None
    yaml_start = pos
    while pos < len(text):
        stop, next_pos = line_end(text, pos)
        if text[pos:stop].rstrip(" \t") == "---":
            return FrontmatterSpan(start=start, yaml_start=yaml_start, yaml_end=pos, end=next_pos)
        pos = next_pos
    return None


def body_start(text: str) -> int:
    """Offset where the body begins: after the frontmatter block, else after a BOM."""
    span = split_frontmatter(text)
    if span is not None:
        return span.end
    return 1 if text.startswith(BOM) else 0


def yaml_error_line(exc: Exception, span: FrontmatterSpan, text: str) -> int | None:
    """Map a PyYAML / ruamel error mark (0-based within the YAML text) to a 1-based note line."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = getattr(mark, "line", None)
    if not isinstance(line, int):
        return None
    return text.count("\n", 0, span.yaml_start) + line + 1


def yaml_problem(exc: Exception) -> str:
    """A short description of a YAML error without file names or marks."""
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    parts = [str(p) for p in (context, problem, getattr(exc, "reason", None)) if p]  # reason: a ReaderError's
    return "invalid YAML frontmatter: " + ("; ".join(parts) if parts else "the YAML cannot be read")


class FrontmatterTooComplex(ValueError):
    """YAML aliases can make a tiny block expand enormously or refer to itself."""


MAX_FRONTMATTER_NODES = 100_000
MAX_FRONTMATTER_DEPTH = 64


def json_safe(value: Any, _budget: list[int] | None = None, _depth: int = 0) -> Any:
    """Turn YAML-loaded values into JSON-representable ones (dates → ISO strings, sets → lists).

    Raises `FrontmatterTooComplex` past `MAX_FRONTMATTER_NODES` values or `MAX_FRONTMATTER_DEPTH`
    levels, which alias bombs and self-referencing anchors reach quickly.
    """
    budget = _budget if _budget is not None else [MAX_FRONTMATTER_NODES]
    budget[0] -= 1
    if budget[0] < 0 or _depth > MAX_FRONTMATTER_DEPTH:
        raise FrontmatterTooComplex("frontmatter is too large or too deeply nested")
    if isinstance(value, dict):
        return {
            (k if isinstance(k, str) else str(json_safe(k, budget, _depth + 1))): json_safe(v, budget, _depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [json_safe(v, budget, _depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((json_safe(v, budget, _depth + 1) for v in value), key=str)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def load_frontmatter(text: str, path: str) -> tuple[dict[str, Any], int]:
    """Parse the frontmatter block; returns (mapping, body offset). No block → ({}, offset after BOM)."""
    span = split_frontmatter(text)
    if span is None:
        return {}, (1 if text.startswith(BOM) else 0)
    source = span.yaml_text(text)
    import yaml  # type: ignore[import-untyped]  # imported on first use: ~80 ms off every start-up

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(source, Loader=loader)
    except yaml.YAMLError as exc:
        raise DocumentParseError(path, yaml_error_line(exc, span, text), yaml_problem(exc)) from None
    if data is None:
        data = {}
    first = text.count("\n", 0, span.yaml_start) + 1
    if not isinstance(data, dict):
        raise DocumentParseError(path, first, "frontmatter must be a mapping of keys to values")
    try:
        return json_safe(data), span.end
    except FrontmatterTooComplex as exc:
        raise DocumentParseError(path, first, str(exc)) from None


# -- lines and headings -------------------------------------------------------------------------


def iter_lines(text: str, offset: int) -> Iterator[SourceLine]:
    """The lines of `text[offset:]` (read as a note body of its own), each saying whether it is
    prose, code or comment (`SourceLine.kind`, `in_code`) and holding its `masked` prose."""
    return iter(read_body(text, offset).lines)


def find_headings(text: str, body_offset: int) -> list[Heading]:
    """The headings of the body, in order: ATX and setext, outside code, comments and containers."""
    return list(read_body(text, body_offset).headings)


# -- tags ---------------------------------------------------------------------------------------


def _is_tag_char(ch: str) -> bool:
    if ch.isalnum() or ch in _TAG_PUNCT_OK:
        return True
    category = unicodedata.category(ch)
    return category[0] == "M" or category == "So"  # combining marks (NFD text) and emoji


def valid_tag(tag: str) -> str | None:
    tag = tag.strip().lstrip("#").rstrip("/")
    if not tag or not all(_is_tag_char(ch) for ch in tag):
        return None
    if all(ch.isdigit() or ch in _TAG_PUNCT_OK for ch in tag):
        return None  # Obsidian requires at least one non-numeric character
    return tag


def _frontmatter_tags(frontmatter: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in ("tags", "tag"):
        value = frontmatter.get(key)
        items: list[Any]
        if isinstance(value, str):
            items = re.split(r"[,\s]+", value)
        elif isinstance(value, list):
            items = value
        else:
            continue
        for item in items:
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                tag = valid_tag(str(item))
                if tag:
                    out.append(tag)
    return out


def inline_tag_spans(line: str, masked: str) -> Iterator[tuple[int, int]]:
    """Where the inline tags of a line are: `(start, end)` of the text after each `#` (the `#`
    at `start - 1`), for `#tag` at the start of the line or after whitespace, outside inline code
    and comments (`masked`: `SourceLine.masked`). The text may end in `/`s, not part of the tag."""
    index = masked.find("#")
    while index >= 0:
        if index == 0 or line[index - 1].isspace():
            end = index + 1
            while end < len(masked) and _is_tag_char(masked[end]):
                end += 1
            if valid_tag(masked[index + 1 : end]):
                yield index + 1, end
        index = masked.find("#", index + 1)


def _inline_tags(line: str, masked: str) -> Iterator[str]:
    """The inline tags of a line (`inline_tag_spans`), as tags."""
    for start, end in inline_tag_spans(line, masked):
        tag = valid_tag(masked[start:end])
        if tag:
            yield tag


def _dedupe(tags: list[str]) -> list[str]:
    """Keep the first spelling of each tag; Obsidian compares tags case-insensitively."""
    seen: set[str] = set()
    out: list[str] = []
    for tag in tags:
        key = unicodedata.normalize("NFC", tag).casefold()
        if key not in seen:
            seen.add(key)
            out.append(tag)
    return out


# -- links --------------------------------------------------------------------------------------


def _link(match: re.Match[str], target: str, alias: str | None, fragment: str, kind: LinkKind, line: int) -> Link:
    """A link from its parts; `fragment` (after `#`) names a block as `^id`, else a heading."""
    block = fragment[1:] if fragment.startswith("^") else None
    heading = (fragment or None) if block is None else None
    return Link(
        target=target, alias=alias, heading=heading, block=block, embed=match.group(1) == "!", kind=kind, line=line
    )


def wikilink_at(match: re.Match[str], line: int) -> Link:
    inner = match.group(2)
    alias: str | None = None
    for separator in ("\\|", "|"):  # `\|` is the table-safe spelling of the alias separator
        if separator in inner:
            inner, alias = inner.split(separator, 1)
            break
    target, _, fragment = inner.partition("#")
    return _link(match, target.strip(), alias, fragment, "wikilink", line)


def markdown_link_at(match: re.Match[str], line: int) -> Link | None:
    url = match.group(3)
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    if not url or url.startswith("#") or URL_SCHEME.match(url):
        return None
    path, _, fragment = url.partition("#")
    path = unquote(path)
    if not path.lower().endswith(".md"):
        return None
    return _link(match, path, match.group(2) or None, unquote(fragment), "markdown", line)


def _line_links(masked: str, line: int) -> list[tuple[int, Link]]:
    if "[" not in masked:  # most lines: no regular expression to run
        return []
    found: list[tuple[int, Link]] = [(m.start(), wikilink_at(m, line)) for m in WIKILINK.finditer(masked)]
    for m in MD_LINK.finditer(masked):
        link = markdown_link_at(m, line)
        if link is not None:
            found.append((m.start(), link))
    found.sort(key=lambda item: item[0])
    return found


# -- the whole note -----------------------------------------------------------------------------


def parse_note(text: str, path: str, *, strict: bool = True) -> ParsedNote:
    """Parse frontmatter, tags, links and headings of a note.

    Invalid YAML raises `DocumentParseError`; with `strict=False` it is recorded in
    `frontmatter_error` instead (frontmatter empty, the body still parsed), so a broken note can
    still be read and repaired.
    """
    error: DocumentParseError | None = None
    try:
        frontmatter, body_offset = load_frontmatter(text, path)
    except DocumentParseError as exc:
        if strict:
            raise
        frontmatter, body_offset, error = {}, body_start(text), exc
    tags = _frontmatter_tags(frontmatter)
    links: list[Link] = []
    body = read_body(text, body_offset)
    for line in body.lines:
        if line.in_code:
            continue
        masked = line.masked
        if "#" in masked:
            tags.extend(_inline_tags(line.text, masked))
        links.extend(link for _, link in _line_links(masked, line.number))
    return ParsedNote(frontmatter, body_offset, _dedupe(tags), links, list(body.headings), error)
