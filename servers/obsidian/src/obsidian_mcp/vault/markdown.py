"""Reading the structure of a note: frontmatter, tags, links and headings. Pure functions on `str`.

Offsets are indices into the full text (a leading BOM counts as one character); line numbers are
1-based over the full note. What is "code" follows CommonMark closely enough for notes: fenced
blocks opened by three or more backticks or tildes (up to three spaces of indentation, closed by
a fence of the same character at least as long, or by the end of the note) and inline code spans
on a single line. Indented code blocks are not recognised: in notes, indentation is mostly lists.
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

from obsidian_mcp.vault.errors import DocumentParseError

BOM = "\ufeff"

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_BACKTICKS = re.compile(r"`+")
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


@dataclass(frozen=True)
class Heading:
    """An ATX heading. `start` is the offset of its line, `end` the end of that line (before the line
    break) and `content_start` the offset just after the line break (where its section's body begins)."""

    level: int
    text: str
    line: int
    start: int
    end: int
    content_start: int


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


@dataclass(frozen=True)
class SourceLine:
    """One line: `text` excludes the line break; `end` is where it ends, `next` where the next starts."""

    number: int
    start: int
    end: int
    next: int
    text: str
    in_code: bool


# -- frontmatter --------------------------------------------------------------------------------


def _line_end(text: str, pos: int) -> tuple[int, int]:
    """(end of the line's content, start of the next line) for the line starting at `pos`."""
    nl = text.find("\n", pos)
    if nl == -1:
        return len(text), len(text)
    end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
    return end, nl + 1


def split_frontmatter(text: str) -> FrontmatterSpan | None:
    """Find a leading `---` ... `---` block (after an optional BOM, LF or CRLF lines), or None."""
    start = 1 if text.startswith(BOM) else 0
    end, pos = _line_end(text, start)
    if text[start:end].rstrip(" \t") != "---" or pos == end:
        return None
    yaml_start = pos
    while pos < len(text):
        line_end, next_pos = _line_end(text, pos)
        if text[pos:line_end].rstrip(" \t") == "---":
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


# -- lines and code -----------------------------------------------------------------------------


def iter_lines(text: str, offset: int) -> Iterator[SourceLine]:
    """Lines from `offset` to the end, flagging those inside fenced code (fence lines included)."""
    number = text.count("\n", 0, offset) + 1
    pos = offset
    fence: tuple[str, int] | None = None
    while pos < len(text):
        end, nxt = _line_end(text, pos)
        line = text[pos:end]
        in_code = fence is not None
        if fence is None:
            match = _FENCE_OPEN.match(line)
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                fence = (match.group(1)[0], len(match.group(1)))
                in_code = True
        else:
            stripped = line.strip(" \t")
            if (
                len(line) - len(line.lstrip(" ")) <= 3
                and stripped
                and set(stripped) == {fence[0]}
                and len(stripped) >= fence[1]
            ):
                fence = None
        yield SourceLine(number=number, start=pos, end=end, next=nxt, text=line, in_code=in_code)
        number += 1
        pos = nxt


def mask_inline_code(line: str) -> str:
    """Replace inline code spans (matching backtick runs) by spaces, keeping every offset."""
    out = list(line)
    pos = 0
    while True:
        opening = _BACKTICKS.search(line, pos)
        if opening is None:
            break
        width = len(opening.group())
        closing = None
        for candidate in _BACKTICKS.finditer(line, opening.end()):
            if len(candidate.group()) == width:
                closing = candidate
                break
        if closing is None:
            pos = opening.end()
            continue
        for i in range(opening.start(), closing.end()):
            out[i] = " "
        pos = closing.end()
    return "".join(out)


# -- headings -----------------------------------------------------------------------------------


def parse_heading_line(line: str) -> tuple[int, str] | None:
    """(level, text) for an ATX heading line (`# x`, with a space after the hashes), else None."""
    match = _ATX.match(line)
    if match is None:
        return None
    content = match.group(2) or ""
    content = _CLOSING_HASHES.sub("", content).strip(" \t")
    return len(match.group(1)), content


def heading_of(line: SourceLine) -> Heading | None:
    """The heading `line` is, if it is one (the caller skips lines in code)."""
    parsed = parse_heading_line(line.text)
    if parsed is None:
        return None
    level, title = parsed
    return Heading(level, title, line.number, line.start, line.end, line.next)


def find_headings(text: str, body_offset: int) -> list[Heading]:
    """All ATX headings outside fenced code, in order."""
    found: list[Heading] = []
    for line in iter_lines(text, body_offset):
        heading = None if line.in_code else heading_of(line)
        if heading is not None:
            found.append(heading)
    return found


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
    (`masked`, see `mask_inline_code`). The text may end in `/`s, which are not part of the tag."""
    for index, ch in enumerate(masked):
        if ch != "#" or (index > 0 and not line[index - 1].isspace()):
            continue
        end = index + 1
        while end < len(masked) and _is_tag_char(masked[end]):
            end += 1
        if valid_tag(masked[index + 1 : end]):
            yield index + 1, end


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
    headings: list[Heading] = []
    for line in iter_lines(text, body_offset):
        if line.in_code:
            continue
        heading = heading_of(line)
        if heading is not None:
            headings.append(heading)
        masked = mask_inline_code(line.text)
        tags.extend(_inline_tags(line.text, masked))
        links.extend(link for _, link in _line_links(masked, line.number))
    return ParsedNote(frontmatter, body_offset, _dedupe(tags), links, headings, error)
