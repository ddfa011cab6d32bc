"""Cutting a note into the pieces that get embedded: heading sections, split by paragraphs.

Pure functions on `str`, self-contained (no dependency on `vault` or `index`; what is code, comment
or heading is `obsidian_mcp.structure`'s reading, shared with the rest of the server): the caller
passes a note's text and, optionally, the title its index already knows.

* Frontmatter is read only for `title` and `aliases`; the rest of it (dates, statuses, ids) is
  noise for meaning and is skipped. Code blocks (fenced or indented) and comments (`%% %%`,
  `<!-- -->`) are skipped too.
* Each heading (ATX or setext) starts a section; a section's paragraphs (blank-line separated) are packed
  into chunks of at most `MAX_CHUNK_CHARS` characters; a longer paragraph is cut at sentence
  ends (at word boundaries if it must). A small section is packed together with the next one
  when both fit, so daily-note style notes with many tiny sections do not explode into crumbs.
* Markup is reduced to the words a reader sees: `[[Target|label]]` → `label`, `[text](url)` →
  `text`, `#tag/sub` → `tag sub`, task boxes, emphasis, table rules and block ids dropped.
* Each chunk's embedded text starts with the note's names (file name, title, aliases) and the
  heading path, so a chunk is found by what its note is about, not only by its own words.

`CHUNKER_VERSION` is part of the vector store's model marker: change it whenever what this module
produces changes, and stored vectors are rebuilt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from obsidian_mcp.structure import read_body

CHUNKER_VERSION = 2  # 2: CommonMark structure (indented code, setext headings, comments)
MAX_CHUNK_CHARS = 1000  # cleaned characters of note text per chunk (the names come on top)
MIN_CHUNK_CHARS = 200  # a smaller section is packed with the next one when they fit together
MAX_CHUNKS = 64  # per note: a huge note is embedded up to here (its first ~60,000 characters)
SNIPPET_CHARS = 160  # as the keyword search's snippets

_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_TAG = re.compile(r"(?<![\w#&/])#([^\W\d][\w/-]*|[\w/-]*[^\W\d_][\w/-]*)")
_TASK = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+\[[ xX/-]\]\s*")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE = re.compile(r"^\s*(?:>\s*)+(?:\[![^\]]*\][-+]?\s*)?")
_BLOCK_ID = re.compile(r"(?:^|\s)\^[A-Za-z0-9-]+\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~|==)(?=\S)(.+?)(?<=\S)\1")
_SPACES = re.compile(r"\s+")
_MARKUP = re.compile(r"[\[\]#*_`|^>~=<%]|://|^\s*(?:[-*+]|\d+[.)])\s|^\s*-")
_LIST_MARKS = frozenset("-*+0123456789")
_DOUBLE_STOP = re.compile(r"([.!?:;]); ")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_YAML_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*?))?\s*$")
_YAML_ITEM = re.compile(r"^\s+-\s+(.*?)\s*$|^-\s+(.*?)\s*$")


@dataclass(frozen=True)
class Chunk:
    """One embedded piece of a note. `line` is the 1-based line (in the whole note) where its
    text starts; `heading` the innermost heading above it, if any; `text` the cleaned note text
    (what a snippet shows); `embed_text` what is given to the model (names + headings + text)."""

    chunk_no: int
    heading: str | None
    line: int
    text: str
    embed_text: str

    @property
    def snippet(self) -> str:
        return snippet_of(self.text)


@dataclass(frozen=True)
class NoteChunks:
    path: str
    title: str
    aliases: tuple[str, ...]
    chunks: tuple[Chunk, ...]


def snippet_of(text: str, width: int = SNIPPET_CHARS) -> str:
    """`text` on one line, cut at a word boundary near `width` characters, with … when cut."""
    flat = " ".join(text[: width * 2].split())
    if len(flat) <= width:
        return flat
    cut = flat.rfind(" ", width - 40, width)
    return flat[: cut if cut > 0 else width].rstrip(" ,;:") + "…"


def stem_of(path: str) -> str:
    """The file name of a vault path without `.md`."""
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


# -- frontmatter ------------------------------------------------------------------------------


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].strip()
    return value


def _yaml_values(inline: str | None, items: list[str]) -> list[str]:
    """A YAML scalar, flow list (`[a, b]`) or block list, as strings (a small, forgiving subset)."""
    if inline:
        inline = inline.split(" #", 1)[0].strip()
        if inline.startswith("[") and inline.endswith("]"):
            return [v for v in (_unquote(p) for p in inline[1:-1].split(",")) if v]
        value = _unquote(inline)
        return [value] if value and value not in ("|", ">", "null", "~") else []
    return [v for v in (_unquote(item) for item in items) if v]


def split_frontmatter(text: str) -> tuple[dict[str, list[str]], int]:
    """(`title`/`aliases`/`alias` values, index of the first body line) of a note's lines."""
    lines = text.split("\n")
    if not lines or lines[0].lstrip("\ufeff").rstrip() != "---":
        return {}, 0
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return {}, 0
    wanted: dict[str, list[str]] = {}
    key: str | None = None
    inline: str | None = None
    items: list[str] = []

    def flush() -> None:
        if key in ("title", "aliases", "alias"):
            wanted[key] = _yaml_values(inline, items)

    for raw in lines[1:end]:
        line = raw.rstrip()
        match = _YAML_KEY.match(line)
        if match is not None:
            flush()
            key, inline, items = match.group(1).lower(), match.group(2), []
            continue
        item = _YAML_ITEM.match(line)
        if item is not None and key is not None and not inline:
            items.append(item.group(1) if item.group(1) is not None else item.group(2))
    flush()
    return wanted, end + 1


# -- cleaning ---------------------------------------------------------------------------------


def _wikilink_words(match: re.Match[str]) -> str:
    inner = match.group(1)
    target, _, label = inner.partition("|")
    if label.strip():
        return label
    target = target.split("#^", 1)[0]
    page, _, heading = target.partition("#")
    return f"{stem_of(page)} {heading}".strip()


def _tag_words(match: re.Match[str]) -> str:
    return match.group(1).replace("/", " ").replace("_", " ")


def clean_line(line: str) -> str:
    """The words a reader sees on one line of Markdown (see the module docstring). Each rule runs
    only when its marker character is on the line: most lines of prose have none."""
    if _MARKUP.search(line) is None:
        return " ".join(line.split())
    if "-" in line and _TABLE_RULE.match(line):
        return ""
    if "^" in line:
        line = _BLOCK_ID.sub("", line)
    if line.lstrip()[:1] in _LIST_MARKS:
        line = _BULLET.sub("", _TASK.sub(r"\1", line))
    if ">" in line:
        line = _QUOTE.sub("", line)
    if "[" in line:
        line = _MD_LINK.sub(r"\1", _WIKILINK.sub(_wikilink_words, line))
    if "://" in line:
        line = _URL.sub("", line)
    if "#" in line:
        line = _TAG.sub(_tag_words, line)
    if any(mark in line for mark in "*_~="):
        line = _EMPHASIS.sub(r"\2", line)
    return " ".join(line.replace("`", "").replace("|", " ").split())


# -- chunking ---------------------------------------------------------------------------------


@dataclass
class _Section:
    headings: tuple[str, ...]  # heading path, outermost first
    paragraphs: list[tuple[int, str]]  # (first line, cleaned text)


def _body_offset(text: str, first: int) -> int:
    """Where line `first` (0-based) starts; for the first line, after a BOM."""
    if first == 0:
        return 1 if text.startswith("\ufeff") else 0
    pos = 0
    for _ in range(first):
        pos = text.index("\n", pos) + 1
    return pos


def _sections(text: str) -> list[_Section]:
    """Heading sections of the note body, code, comments and frontmatter skipped, paragraphs cleaned."""
    _, first = split_frontmatter(text)
    body = read_body(text, _body_offset(text, first))
    headings = {heading.line: heading for heading in body.headings}
    path: list[tuple[int, str]] = []
    sections = [_Section((), [])]
    paragraph: list[str] = []
    start = 0
    heading_end = -1  # the end of the heading being read (a setext heading has several lines)

    def end_paragraph() -> None:
        nonlocal paragraph
        words = "".join(paragraph)
        if "; " in words:
            words = _DOUBLE_STOP.sub(r"\1 ", words).strip("; ")
        words = words.strip()
        if words:
            sections[-1].paragraphs.append((start, words))
        paragraph = []

    for source in body.lines:
        heading = headings.get(source.number)
        if heading is not None:
            end_paragraph()
            title = clean_line(heading.text)
            path = [(lvl, txt) for lvl, txt in path if lvl < heading.level]
            if title:
                path.append((heading.level, title))
            sections.append(_Section(tuple(txt for _, txt in path), []))
            heading_end = heading.end
            continue
        if source.end <= heading_end:
            continue
        if source.in_code:
            end_paragraph()
            continue
        line = source.without_comments()
        cleaned = clean_line(line)
        if not cleaned:
            if not line.strip():
                end_paragraph()
            continue
        if not paragraph:
            start = source.number
        lead = line.lstrip()[:1]
        item = lead in _LIST_MARKS and _BULLET.match(line) is not None
        paragraph.append(("; " if item and paragraph else " ") + cleaned)
    end_paragraph()
    return sections


def _split_long(text: str, limit: int) -> list[str]:
    """Cut `text` into pieces of at most `limit` characters at sentence ends (words if needed)."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > limit:
            cut = sentence.rfind(" ", 0, limit)
            cut = cut if cut > 0 else limit
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > limit:
            pieces.append(current)
            current = ""
        current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def _names(path: str, title: str | None, frontmatter: dict[str, list[str]]) -> tuple[str, tuple[str, ...]]:
    fm_title = next(iter(frontmatter.get("title", [])), "")
    title = (title or "").strip() or fm_title or stem_of(path)
    aliases = frontmatter.get("aliases") or frontmatter.get("alias") or []
    return title, tuple(dict.fromkeys(a for a in aliases if a and a != title))


def chunk_note(path: str, text: str, title: str | None = None) -> NoteChunks:
    """The chunks of the note `path` whose text is `text`. `title`: the note's title as the caller
    knows it (else frontmatter `title`, else the file name). Never raises on content; a note with
    no body text still gets one chunk made of its names, so it can be found and compared."""
    frontmatter, _ = split_frontmatter(text)
    title, aliases = _names(path, title, frontmatter)
    stem = stem_of(path)
    names = [title, *([stem] if stem.casefold() != title.casefold() else []), *aliases]
    header = " · ".join(dict.fromkeys(clean_line(name) for name in names if name))

    pieces: list[tuple[tuple[str, ...], int, str]] = []  # (heading path, line, text)
    pending: tuple[tuple[str, ...], int, str] | None = None  # a small section waiting for company
    for section in _sections(text):
        packed: list[tuple[int, str]] = []
        for line, paragraph in section.paragraphs:
            parts = _split_long(paragraph, MAX_CHUNK_CHARS) if len(paragraph) > MAX_CHUNK_CHARS else [paragraph]
            for part in parts:
                if packed and len(packed[-1][1]) + 1 + len(part) <= MAX_CHUNK_CHARS:
                    packed[-1] = (packed[-1][0], f"{packed[-1][1]}\n{part}")
                else:
                    packed.append((line, part))
        for line, body in packed:
            headed = f"{section.headings[-1]}: {body}" if section.headings else body
            if pending is not None:
                if len(pending[2]) + 1 + len(headed) <= MAX_CHUNK_CHARS:
                    merged = (pending[0], pending[1], f"{pending[2]}\n{headed}")
                    pending = merged if len(merged[2]) < MIN_CHUNK_CHARS else None
                    if pending is None:
                        pieces.append(merged)
                    continue
                pieces.append(pending)
                pending = None
            if len(body) < MIN_CHUNK_CHARS:
                pending = (section.headings, line, body)
            else:
                pieces.append((section.headings, line, body))
    if pending is not None:
        pieces.append(pending)

    chunks: list[Chunk] = []
    for number, (headings, line, body) in enumerate(pieces[:MAX_CHUNKS]):
        context = " > ".join(h for h in headings if h.casefold() != title.casefold())
        embed_text = "\n".join(part for part in (header, context, body) if part)
        chunks.append(Chunk(number, headings[-1] if headings else None, line, body, embed_text))
    if not chunks:
        chunks.append(Chunk(0, None, 1, "", header or stem))
    return NoteChunks(path, title, aliases, tuple(chunks))
