"""How raw metadata becomes typed values, as Dataview types it.

Inline field text (`key:: value`) is tried as a date, a duration, a "quoted string", a #tag, a
[[link]], true/false, a number, null, or a comma-separated list of those; anything else stays
text, and an empty value is null. Frontmatter keeps YAML's numbers, booleans, lists and objects;
its strings are tried as a date, a duration or a link. Keys get Dataview's canonical alias.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import date, datetime

from obsidian_mcp.dataview.dates import from_date, naive, parse_date
from obsidian_mcp.dataview.durations import parse_duration
from obsidian_mcp.dataview.values import Link, Value

_LINK = re.compile(r"(!?)\[\[([^\[\]]*?)\]\]")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_TAG = re.compile(r"#[^\u2000-\u206F\u2E00-\u2E7F'!\"#$%&()*+,.:;<=>?@^`{|}~\[\]\\\s]+")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_CANON_DROP = re.compile(r"[^\w\s\u2600-\u27bf\U0001f300-\U0001faff-]+")
_SPACES = re.compile(r"\s+")


def canonical_key(key: str) -> str:
    """Dataview's simplified field name: lower case, whitespace runs become `-`, punctuation is
    dropped (`Due Date` -> `due-date`, `**Rating**` -> `rating`, `Hello!` -> `hello`)."""
    return _SPACES.sub("-", _CANON_DROP.sub("", key)).lower()


def unescape(text: str) -> str:
    """The text of a quoted string: `\\"` and `\\\\` lose their backslash, other escapes keep it."""
    return _ESCAPE.sub(lambda m: m.group(1) if m.group(1) in '"\\' else m.group(0), text)


def link_value(text: str, origin: str | None) -> Link | None:
    match = _LINK.fullmatch(text)
    if match is None:
        return None
    return Link.parse(match.group(2), origin=origin, embed=bool(match.group(1)))


def _atom(text: str, origin: str | None) -> tuple[bool, Value]:
    """(parsed?, value) for one inline atom."""
    if (moment := parse_date(text)) is not None:
        return True, moment
    if (span := parse_duration(text)) is not None:
        return True, span
    if quoted := _QUOTED.fullmatch(text):
        return True, unescape(quoted.group(1))
    if _TAG.fullmatch(text):
        return True, text
    if (link := link_value(text, origin)) is not None:
        return True, link
    if text in ("true", "True", "false", "False"):
        return True, text.lower() == "true"
    if _NUMBER.fullmatch(text):
        return True, float(text) if "." in text else int(text)
    if text == "null":
        return True, None
    return False, None


def _split_commas(text: str) -> list[str]:
    parts: list[str] = []
    depth, quoted, start, index = 0, False, 0, 0
    while index < len(text):
        char = text[index]
        if quoted and char == "\\":
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif not quoted and text.startswith("[[", index):
            depth += 1
            index += 1
        elif not quoted and text.startswith("]]", index) and depth:
            depth -= 1
            index += 1
        elif char == "," and not quoted and not depth:
            parts.append(text[start:index].strip())
            start = index + 1
        index += 1
    parts.append(text[start:].strip())
    return parts


def inline_value(text: str, origin: str | None = None) -> Value:
    """The typed value of an inline field's text; `origin` is the note, for resolving links."""
    text = text.strip()
    if not text:
        return None
    parsed, value = _atom(text, origin)
    if parsed:
        return value
    if "," in text:
        items = [_atom(part, origin) for part in _split_commas(text)]
        if all(ok for ok, _ in items):
            return [item for _, item in items]
    return text


def frontmatter_value(raw: object, origin: str | None = None) -> Value:
    """The typed value of one frontmatter value (already parsed YAML)."""
    if raw is None or isinstance(raw, bool | int | float):
        return raw
    if isinstance(raw, str):
        text = str(raw)
        if (moment := parse_date(text)) is not None:
            return moment
        if (span := parse_duration(text)) is not None:
            return span
        if (link := link_value(text, origin)) is not None:
            return link
        return text
    if isinstance(raw, datetime):
        return naive(raw)
    if isinstance(raw, date):
        return from_date(raw)
    if isinstance(raw, list | tuple):
        return [frontmatter_value(item, origin) for item in raw]
    if isinstance(raw, Mapping):
        return {str(key): frontmatter_value(item, origin) for key, item in raw.items()}
    return str(raw)


def raw_frontmatter_value(raw: object) -> Value:
    """`file.frontmatter`: YAML values without Dataview's string typing (dates from YAML stay dates)."""
    if raw is None or isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, datetime):
        return naive(raw)
    if isinstance(raw, date):
        return from_date(raw)
    if isinstance(raw, list | tuple):
        return [raw_frontmatter_value(item) for item in raw]
    if isinstance(raw, Mapping):
        return {str(key): raw_frontmatter_value(item) for key, item in raw.items()}
    return str(raw)


def frontmatter_strings(raw: object) -> Iterator[str]:
    """Every string in a frontmatter value (already parsed YAML), in lists and objects too: where
    frontmatter `[[links]]` are written."""
    if isinstance(raw, str):
        yield raw
    elif isinstance(raw, list | tuple):
        for item in raw:
            yield from frontmatter_strings(item)
    elif isinstance(raw, Mapping):
        for item in raw.values():
            yield from frontmatter_strings(item)
