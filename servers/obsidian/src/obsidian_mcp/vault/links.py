"""Links between notes: where they sit in a note's text, what they point to, how to re-point them.

Resolution follows Obsidian, except that it never guesses:

* A target `x` (wikilink or Markdown link; `.md` optional; `#heading` / `#^block` already split
  off by the parser) first resolves relative to the linking note's folder when it is a Markdown
  link or starts with `./` / `../`; then as a vault path (case-insensitive, a leading `/` allowed);
  then by suffix: a bare name matches every note with that basename, `Work/Plan` every note whose
  path ends in `/Work/Plan.md`. One candidate resolves; several are *ambiguous* and reported as
  such, never settled by preference.
* An empty target (`[[#Heading]]`) is a link to the note itself.
* Targets with an attachment extension (`.png`, `.pdf`, ...) are not notes.

Everything here is pure: functions of text and of the set of note paths.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, unquote

from obsidian_mcp.vault import markdown
from obsidian_mcp.vault.markdown import Link, body_start, iter_lines
from obsidian_mcp.vault.paths import NON_NOTE_EXTENSIONS, NOTE_SUFFIX

# The link grammar is markdown.py's (WIKILINK, MD_LINK, URL_SCHEME); only match positions are added here.
WIKILINK, MD_LINK, URL_SCHEME = markdown.WIKILINK, markdown.MD_LINK, markdown.URL_SCHEME
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")

Status = Literal["resolved", "ambiguous", "unresolved"]
How = Literal["self", "relative", "exact", "suffix"]


def nfc_casefold(text: str) -> str:
    """NFC-normalised and case-folded: the key Obsidian compares note names, paths and tags by."""
    return unicodedata.normalize("NFC", text).casefold()


def stem(path: str) -> str:
    """The note name of a path: last component without `.md`."""
    name = path.rsplit("/", 1)[-1]
    return name[: -len(NOTE_SUFFIX)] if name.lower().endswith(NOTE_SUFFIX) else name


def link_key(target: str) -> str:
    """The folded basename a link target could match; links are looked up by it."""
    return nfc_casefold(stem(target.rstrip("/")))


def is_note_target(target: str) -> bool:
    """False for attachment links (`image.png`, `paper.pdf`), which never resolve to a note."""
    name = target.rsplit("/", 1)[-1]
    base, dot, ext = name.rpartition(".")
    return not (dot and base and ext.lower() in NON_NOTE_EXTENSIONS)


# -- where links are ----------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkSpan:
    """A link and the position of its target text (`start:end` in the full note text).

    `target_text` is exactly what `start:end` holds: for wikilinks the target with the spaces
    around it, for Markdown links the raw (still URL-encoded) path before any `#fragment`.
    `link` is None for a Markdown link to a non-note file (an attachment).
    """

    link: Link | None
    start: int
    end: int
    target_text: str
    angle: bool = False  # a Markdown URL written as <...>


def _wikilink_span(match: re.Match[str], base: int, line: int) -> LinkSpan:
    inner = match.group(2)
    before_alias = inner
    for separator in ("\\|", "|"):  # the same split as markdown.wikilink_at
        if separator in inner:
            before_alias = inner.split(separator, 1)[0]
            break
    target_text = before_alias.split("#", 1)[0]
    start = base + match.start(2)
    return LinkSpan(markdown.wikilink_at(match, line), start, start + len(target_text), target_text)


def _markdown_span(match: re.Match[str], base: int, line: int) -> LinkSpan | None:
    url = match.group(3)
    angle = url.startswith("<") and url.endswith(">")
    raw = url[1:-1] if angle else url
    if not raw or raw.startswith("#") or URL_SCHEME.match(raw):
        return None
    path_text = raw.split("#", 1)[0]
    start = base + match.start(3) + (1 if angle else 0)
    span_end = start + len(path_text)
    link = markdown.markdown_link_at(match, line)
    return LinkSpan(link, start, span_end, path_text, angle)


def link_spans(text: str) -> Iterator[LinkSpan]:
    """Every link outside code (blocks and inline spans), comments and frontmatter, in text order."""
    for line in iter_lines(text, body_start(text)):
        if line.in_code:
            continue
        masked = line.masked
        if "[" not in masked:
            continue
        found: list[tuple[int, LinkSpan]] = [
            (m.start(), _wikilink_span(m, line.start, line.number)) for m in WIKILINK.finditer(masked)
        ]
        for m in MD_LINK.finditer(masked):
            span = _markdown_span(m, line.start, line.number)
            if span is not None:
                found.append((m.start(), span))
        found.sort(key=lambda item: item[0])
        yield from (span for _, span in found)


def attachment_path(span: LinkSpan) -> str | None:
    """The decoded relative path of a Markdown link to a non-note file, or None."""
    if span.link is not None or span.target_text.startswith("/"):
        return None
    return unquote(span.target_text) or None


# -- what links point to ------------------------------------------------------------------------


@dataclass(frozen=True)
class Resolution:
    status: Status
    path: str | None = None
    candidates: tuple[str, ...] = ()
    how: How | None = None


UNRESOLVED = Resolution("unresolved")


def _with_suffix(target: str) -> str:
    return target if target.lower().endswith(NOTE_SUFFIX) else target + NOTE_SUFFIX


def _inside(path: str) -> str | None:
    """A normalised vault-relative path, or None when it climbs out of the vault."""
    normal = posixpath.normpath(path)
    if normal.startswith("../") or normal in ("..", ".") or normal.startswith("/"):
        return None
    return normal


class Resolver:
    """Resolves link targets against one set of note paths (vault-relative, with `.md`)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for path in paths:
            self.by_path[nfc_casefold(path)] = path
            self.by_name[nfc_casefold(stem(path))].append(path)
        for same in self.by_name.values():
            same.sort()

    def resolve(self, link: Link, source: str) -> Resolution:
        """Where `link`, written in the note at `source`, points."""
        target = link.target.strip()
        if not target:
            return Resolution("resolved", source, (source,), "self")
        if not is_note_target(target):
            return UNRESOLVED
        wanted = _with_suffix(target)
        if link.kind == "markdown" or target.startswith(("./", "../")):
            relative = _inside(posixpath.join(posixpath.dirname(source), wanted))
            if relative is not None and nfc_casefold(relative) in self.by_path:
                return Resolution("resolved", self.by_path[nfc_casefold(relative)], (), "relative")
        absolute = _inside(wanted.lstrip("/"))
        if absolute is None:
            return UNRESOLVED
        exact = self.by_path.get(nfc_casefold(absolute))
        if exact is not None:
            return Resolution("resolved", exact, (exact,), "exact")
        named = self.by_name.get(nfc_casefold(stem(absolute)), [])
        if "/" in absolute:
            suffix = "/" + nfc_casefold(absolute)
            named = [p for p in named if nfc_casefold(p).endswith(suffix)]
        if len(named) == 1:
            return Resolution("resolved", named[0], tuple(named), "suffix")
        if named:
            return Resolution("ambiguous", None, tuple(named), "suffix")
        return UNRESOLVED

    def points_to(self, name: str, path: str) -> bool:
        """Whether the bare name `name` resolves to exactly `path`."""
        return self.by_name.get(nfc_casefold(name), []) == [path]


# -- re-pointing a link -------------------------------------------------------------------------


def _keep_spacing(old: str, new: str) -> str:
    core = old.strip()
    lead = old[: len(old) - len(old.lstrip())]
    trail = old[len(old.rstrip()) :] if core else ""
    return lead + new + trail


def _shortest(path: str, resolver: Resolver) -> str:
    """Obsidian's "shortest path when possible": the bare name if unique, else the full path."""
    name = stem(path)
    return name if resolver.points_to(name, path) else path[: -len(NOTE_SUFFIX)]


def encode_url_path(path: str, original: str, angle: bool) -> str:
    """A Markdown link path written in the style of `original`.

    Inside `<...>` the path stays raw. Otherwise spaces must be `%20`; when the original also
    escaped other characters (`Caf%C3%A9`) the whole path is percent-encoded like it.
    """
    if angle:
        return path
    if any(m.group().upper() != "%20" for m in _ESCAPE.finditer(original)):
        return quote(path, safe="/")
    return path.replace("%", "%25").replace(" ", "%20")


def rewritten_target(span: LinkSpan, new_target: str, how: How | None, source: str, resolver: Resolver) -> str:
    """The new target text for `span` so it points to `new_target` (a note path) from `source`.

    Styles are kept: a bare wikilink name stays a bare name while it is unique (else the full
    path), a path wikilink gets the new full path, `.md` is written only if it was; a relative
    Markdown link stays relative to `source`'s folder, a vault-absolute one stays absolute.
    """
    assert span.link is not None
    old = span.link.target.strip()
    if span.link.kind == "wikilink":
        text = _shortest(new_target, resolver) if "/" not in old else new_target[: -len(NOTE_SUFFIX)]
        if old.lower().endswith(NOTE_SUFFIX):
            text += NOTE_SUFFIX
        return _keep_spacing(span.target_text, text)
    if how == "relative":
        text = posixpath.relpath(new_target, posixpath.dirname(source) or ".")
    elif how == "exact":
        text = ("/" if old.startswith("/") else "") + new_target
    else:
        text = _shortest(new_target, resolver) + NOTE_SUFFIX if "/" not in old else new_target
    return encode_url_path(text, span.target_text, span.angle)


def relative_url(target: str, source: str, span: LinkSpan) -> str:
    """A relative Markdown link path from `source`'s folder to the vault path `target`."""
    return encode_url_path(posixpath.relpath(target, posixpath.dirname(source) or "."), span.target_text, span.angle)


def apply_edits(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """Replace each `start:end` range by its text (ranges must not overlap)."""
    out = text
    for start, end, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        out = out[:start] + replacement + out[end:]
    return out
