"""Precise edits of a note's text. Pure functions: text in, new full text out.

Everything outside the edited region stays byte-identical. Every function keeps the note's line
ending style (inserted content is converted to CRLF in a CRLF note; a note without any line break
keeps content as given), a leading BOM, non-ASCII text, and the presence or absence of a final
line break wherever the note's end is not the point of the edit.

Decisions:
* Sections: a heading's section runs to the next heading of the same or a higher level (fewer
  `#`), or to the end of the note. Headings are read as CommonMark reads them (`markdown.
  find_headings`): ATX (`## x`) and setext (a text line underlined by `===` or `---`, its section
  starting after the underline); not inside code, comments, quotes or list items.
* Headings are matched by text: exact (after trimming) first, then case-insensitively; both NFC.
  `"## Tasks"` fixes the level, as does `level=`. Several matches without a level →
  `InvalidArgument(field="heading", reason="ambiguous")`; with a level, the first match wins.
* Appending under a heading inserts after the section's last non-blank line, so the blank lines
  that separate it from the next heading stay after the new content. Replacing a section likewise
  keeps those trailing blank lines. At the very end of a note, an append keeps whatever line
  ending the content has; a section replacement keeps the note's original final-line-break state.
  Content that would end right before a setext heading's text gets a blank line after it, or
  that text would read as the last line of the content's paragraph and the heading would change.
* Frontmatter: removing the last key leaves an empty block (`---` / `---`) rather than deleting
  it — the note keeps its shape and a later `set` edits the same place. Removing keys that are
  absent is not an error. A note without a block gets one at the very top (after a BOM).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, NamedTuple

from obsidian_mcp.structure import line_end
from obsidian_mcp.vault.errors import HeadingNotFound, InvalidArgument
from obsidian_mcp.vault.markdown import (
    BOM,
    Heading,
    body_start,
    find_headings,
    load_frontmatter,
    split_frontmatter,
)

_HEADING_ARG = re.compile(r"^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")


# -- line endings -------------------------------------------------------------------------------


def newline_of(text: str) -> str | None:
    """The note's line ending, judged by its first line break; None when it has none."""
    index = text.find("\n")
    if index == -1:
        return None
    return "\r\n" if index > 0 and text[index - 1] == "\r" else "\n"


def convert_newlines(content: str, newline: str | None) -> str:
    """Content with its line breaks in the note's style (unchanged when the note has no style yet)."""
    if newline is None:
        return content
    unified = content.replace("\r\n", "\n")
    return unified.replace("\n", newline) if newline == "\r\n" else unified


# -- headings and sections ----------------------------------------------------------------------


def _parse_heading_arg(heading: str, level: int | None) -> tuple[str, int | None]:
    if not isinstance(heading, str) or not heading.strip():
        raise InvalidArgument("heading", "empty", "the heading must be a non-empty string")
    if level is not None and (isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 6):
        raise InvalidArgument("level", "out_of_range", "the heading level must be between 1 and 6")
    name = heading.strip()
    match = _HEADING_ARG.match(name)
    if match:
        hashes = len(match.group(1))
        if level is not None and level != hashes:
            raise InvalidArgument(
                "level", "conflict", f"the heading '{name}' has level {hashes} but level {level} was given"
            )
        level, name = hashes, (match.group(2) or "").strip()
        if not name:
            raise InvalidArgument("heading", "empty", "the heading text is empty")
    return name, level


def find_heading(text: str, heading: str, level: int | None = None, *, path: str = "note") -> Heading:
    """The heading a caller means (see the module docstring for the matching rules)."""
    name, want_level = _parse_heading_arg(heading, level)
    headings = find_headings(text, body_start(text))
    if want_level is not None:
        headings = [h for h in headings if h.level == want_level]
    wanted = unicodedata.normalize("NFC", name)
    matches = [h for h in headings if unicodedata.normalize("NFC", h.text) == wanted]
    if not matches:
        folded = wanted.casefold()
        matches = [h for h in headings if unicodedata.normalize("NFC", h.text).casefold() == folded]
    if not matches:
        raise HeadingNotFound(path, heading.strip())
    if len(matches) > 1 and want_level is None:
        lines = ", ".join(str(h.line) for h in matches)
        raise InvalidArgument(
            "heading",
            "ambiguous",
            f"'{name}' matches {len(matches)} headings in {path} (lines {lines}); "
            "give its level, e.g. '## Tasks', or a more precise heading",
        )
    return matches[0]


def _next_section(text: str, target: Heading) -> Heading | None:
    """The heading that ends the section of `target`: the next one of the same or a higher level."""
    for other in find_headings(text, body_start(text)):
        if other.start > target.start and other.level <= target.level:
            return other
    return None


def section_end(text: str, target: Heading) -> int:
    """Where the section of `target` ends: the next heading of the same or a higher level, or EOF."""
    following = _next_section(text, target)
    return following.start if following is not None else len(text)


def _last_content_end(text: str, start: int, end: int) -> int:
    """After the last non-blank line in `text[start:end]` (its line break included), else `start`."""
    point = pos = start
    while pos < end:
        stop, nxt = line_end(text, pos)
        if text[pos:stop].strip(" \t\r"):
            point = min(nxt, end)
        pos = nxt
    return point


def _before_setext(content: str, newline: str) -> str:
    """`content` ending in a blank line, to go right before a setext heading's text."""
    if not content:
        return content
    if not content.endswith("\n"):
        content += newline
    return content if content.endswith(("\n\n", "\n\r\n")) else content + newline


# -- insertion helpers --------------------------------------------------------------------------


def _has_content(before: str) -> bool:
    return before not in ("", BOM)


def _splice(text: str, start: int, end: int, content: str, newline: str, keep_final_state: bool) -> str:
    """Put `content` in place of `text[start:end]`, on lines of its own.

    A line break goes before the content when the text before does not end a line, and after it when
    text follows. At the end of the note, `keep_final_state` makes the note end with a line break
    exactly when it did before; otherwise the content's own ending is kept.
    """
    before, after = text[:start], text[end:]
    if not content:
        return before + after
    if _has_content(before) and not before.endswith("\n"):
        content = newline + content
    if after:
        if not content.endswith("\n"):
            content += newline
    elif keep_final_state:
        if text.endswith("\n") and not content.endswith("\n"):
            content += newline
        elif not text.endswith("\n"):
            content = content.removesuffix("\r\n") if content.endswith("\r\n") else content.removesuffix("\n")
    return before + content + after


# -- public edits -------------------------------------------------------------------------------


def append(text: str, content: str, heading: str | None = None, level: int | None = None, *, path: str = "note") -> str:
    """Append `content` at the end of the note, or at the end of the section under `heading`."""
    newline = newline_of(text)
    content = convert_newlines(content, newline)
    if heading is None:
        return _splice(text, len(text), len(text), content, newline or "\n", keep_final_state=False)
    target = find_heading(text, heading, level, path=path)
    following = _next_section(text, target)
    end = following.start if following is not None else len(text)
    point = _last_content_end(text, target.content_start, end)
    if following is not None and following.setext and point == following.start:
        content = _before_setext(content, newline or "\n")
    return _splice(text, point, point, content, newline or "\n", keep_final_state=False)


def replace_section(text: str, heading: str, content: str, level: int | None = None, *, path: str = "note") -> str:
    """Replace the body under `heading` (the heading line is kept) up to the next heading of the
    same or a higher level; blank lines just before that next heading are kept."""
    newline = newline_of(text)
    content = convert_newlines(content, newline)
    target = find_heading(text, heading, level, path=path)
    following = _next_section(text, target)
    end = following.start if following is not None else len(text)
    region_end = _last_content_end(text, target.content_start, end)
    if following is not None and following.setext and region_end == following.start:
        content = _before_setext(content, newline or "\n")
    return _splice(text, target.content_start, region_end, content, newline or "\n", keep_final_state=True)


class FrontmatterEdit(NamedTuple):
    """A note's text after a frontmatter edit, and the frontmatter it now has."""

    text: str
    frontmatter: dict[str, Any]


def update_frontmatter(text: str, set: dict[str, Any], remove: list[str], path: str) -> FrontmatterEdit:
    """Set and remove frontmatter keys with a round-trip YAML edit.

    Only the YAML between the fences changes. Invalid YAML → `DocumentParseError` (nothing changes).
    """
    _check_keys(set, remove)
    current, _ = load_frontmatter(text, path)  # same parse (and errors) as reading the note
    span = split_frontmatter(text)
    needs_change = bool(set) or any(key in current for key in remove)
    if not needs_change:
        return FrontmatterEdit(text, current)
    newline = newline_of(text) or "\n"
    source = span.yaml_text(text).replace("\r\n", "\n") if span else ""
    # Imported here: ruamel.yaml costs ~80 ms, and only frontmatter edits need it (start-up stays lean).
    from ruamel.yaml.comments import CommentedMap

    from obsidian_mcp.vault import yaml_roundtrip

    rt = yaml_roundtrip.make_yaml(source)
    data = yaml_roundtrip.load_mapping(rt, source, span, text, path) if span else CommentedMap()
    for key in remove:
        if key in data:
            del data[key]
    for key, value in set.items():
        converted = yaml_roundtrip.to_yaml_value(value, key)
        if key in data:
            data[key] = converted
        else:
            data[yaml_roundtrip.to_yaml_key(key)] = converted
    dumped = convert_newlines(yaml_roundtrip.dump_mapping(rt, data), newline)
    if span:
        new_text = text[: span.yaml_start] + dumped + text[span.yaml_end :]
    else:
        start = 1 if text.startswith(BOM) else 0
        new_text = text[:start] + "---" + newline + dumped + "---" + newline + text[start:]
    frontmatter, _ = load_frontmatter(new_text, path)
    return FrontmatterEdit(new_text, frontmatter)


def _check_keys(set: dict[str, Any], remove: list[str]) -> None:
    if not isinstance(set, dict) or not isinstance(remove, list):
        raise InvalidArgument("set", "invalid_type", "'set' must be a mapping and 'remove' a list of keys")
    for key in set:
        if not isinstance(key, str) or not key.strip():
            raise InvalidArgument("set", "invalid_key", "frontmatter keys must be non-empty strings")
    for key in remove:
        if not isinstance(key, str) or not key.strip():
            raise InvalidArgument("remove", "invalid_key", "keys to remove must be non-empty strings")
        if key in set:
            raise InvalidArgument("remove", "conflict", f"'{key}' is both set and removed")
