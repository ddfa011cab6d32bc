"""Renaming a tag in one note's text. Pure: text in, new text out, every byte outside the tag
text it changes left as it was.

A tag `old` matches a written tag whose leading components equal old's, compared as Obsidian
compares tags (NFC, case-insensitive): with `old = project`, `#project` and `#Project/alpha`
match; `#projects`, `#project-x` and `#area/project` do not. The matched components are replaced
by `new` as given; nested components keep their spelling (`#Project/alpha` → `#work/alpha`).

Where tags are, as `markdown.parse_note` finds them: inline `#tags` in the body outside code
(code blocks and inline spans) and comments, and the frontmatter keys `tags` and `tag`, as a list (block or
flow style) or as a string of tags separated by commas or spaces; a leading `#` there is kept.
Frontmatter is edited as text where the YAML scalar is written as its value (the usual case), so
quoting and layout stay; a scalar written with escapes or over several lines is rewritten as one
double-quoted string. A plain scalar the rename would make read as something else (`yes`, `null`)
is single-quoted. When a renamed frontmatter tag equals one the list (or string) already has, it is
removed instead of repeated: renaming into an existing tag merges. Invalid YAML: the frontmatter is
left alone (its tags are not tags to Obsidian either), the body is still renamed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml  # type: ignore[import-untyped]

from obsidian_mcp.vault.errors import InvalidArgument
from obsidian_mcp.vault.links import apply_edits, nfc_casefold
from obsidian_mcp.vault.markdown import (
    body_start,
    inline_tag_spans,
    iter_lines,
    split_frontmatter,
    valid_tag,
)

FRONTMATTER_KEYS = ("tags", "tag")
MAX_TAG_CHARS = 500
_STR = "tag:yaml.org,2002:str"
_TOKEN = re.compile(r"[^,\s]+")
_RESOLVER = yaml.resolver.Resolver()

Edit = tuple[int, int, str]


@dataclass(frozen=True)
class TagRename:
    """A note's text after a rename, and how many tags in it were renamed."""

    text: str
    occurrences: int


def check_tag(value: Any, field: str) -> str:
    """A tag argument without its `#`: `#project/alpha` → `project/alpha`. Refuses what Obsidian
    would not read as one tag (`InvalidArgument`, reason `invalid_tag`): empty, spaces or
    punctuation other than `_ - /`, empty components (`a//b`, `a/`), digits only."""
    bad = InvalidArgument(
        field,
        "invalid_tag",
        f"'{field}' is not a tag: use letters, digits, '_', '-' and '/' between parts, e.g. 'project/alpha'",
    )
    if not isinstance(value, str):
        raise bad
    tag = value.strip()
    tag = tag[1:] if tag.startswith("#") else tag
    if not tag or len(tag) > MAX_TAG_CHARS or valid_tag(tag) != tag or "" in tag.split("/"):
        raise bad
    return tag


def _parts(tag: str) -> list[str]:
    return [nfc_casefold(part) for part in tag.split("/")]


def _matched_length(written: str, old: list[str]) -> int | None:
    """How many characters of `written` (a tag without `#`) are the tag `old` (its folded
    components), or None when `written` is not `old` or nested under it."""
    components = written.split("/")
    if len(components) < len(old) or [nfc_casefold(c) for c in components[: len(old)]] != old:
        return None
    return len("/".join(components[: len(old)]))


def rename_tag(text: str, old: str, new: str) -> TagRename:
    """`text` with the tag `old` (and tags nested under it) renamed to `new`; both as
    `check_tag` returns them."""
    old_parts = _parts(old)
    edits: list[Edit] = []
    count = 0
    span = split_frontmatter(text)
    if span is not None:
        found = _frontmatter_edits(span.yaml_text(text), old_parts, new)
        edits += [(start + span.yaml_start, end + span.yaml_start, replacement) for start, end, replacement in found[0]]
        count += found[1]
    for line in iter_lines(text, body_start(text)):
        if line.in_code:
            continue
        for start, end in inline_tag_spans(line.text, line.masked):
            length = _matched_length(line.text[start:end], old_parts)
            if length is not None and line.text[start : start + length] != new:
                edits.append((line.start + start, line.start + start + length, new))
                count += 1
    return TagRename(apply_edits(text, edits), count)


# -- frontmatter ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Item:
    """One tag written in the frontmatter: `start:end` in the YAML text, its value and new value."""

    start: int
    end: int
    value: str
    renamed: str | None  # None: not the tag being renamed


def _renamed(value: str, old: list[str], new: str) -> str | None:
    """`value` (one tag as written, maybe with leading `#`s) renamed, or None if it is not `old`."""
    hashes = len(value) - len(value.lstrip("#"))
    length = _matched_length(value[hashes:], old)
    if length is None or not valid_tag(value[hashes:]) or value[hashes : hashes + length] == new:
        return None  # not the tag, or already spelled as `new` (a rename that only changes case)
    return value[:hashes] + new + value[hashes + length :]


def _key(tag: str) -> str:
    return nfc_casefold(tag.lstrip("#").rstrip("/"))


def _merged(items: list[_Item]) -> set[int]:
    """Indexes of renamed items that repeat a tag already there (kept items first, in order)."""
    seen = {_key(item.value) for item in items if item.renamed is None}
    dropped: set[int] = set()
    for index, item in enumerate(items):
        if item.renamed is not None:
            key = _key(item.renamed)
            if key in seen:
                dropped.add(index)
            seen.add(key)
    return dropped


def _inline_drops(items: list[_Item], dropped: set[int]) -> list[tuple[int, int]]:
    """Ranges that remove the `dropped` items of a list written on one line (`a, b, c` in a flow
    list or a string), separators included."""
    kept = [index for index in range(len(items)) if index not in dropped]
    last_kept = kept[-1] if kept else -1
    ranges = [(items[i].start, items[i + 1].start) for i in sorted(dropped) if i < last_kept]
    if last_kept >= 0 and max(dropped) > last_kept:
        ranges.append((items[last_kept].end, items[-1].end))
    return ranges


def _scalar_text(node: yaml.ScalarNode, source: str) -> tuple[int, int] | None:
    """Where the scalar's value is written verbatim in `source` (`start:end`), or None when it is
    not (escapes, line folding, block scalars)."""
    start, end = node.start_mark.index, node.end_mark.index
    raw = source[start:end]
    if node.style in ("'", '"'):
        start, end, raw = start + 1, end - 1, raw[1:-1]
    elif node.style is not None:
        return None
    return (start, end) if raw == node.value else None


def _plain(value: str) -> str:
    """A plain scalar's new text, single-quoted when YAML would read it as something else."""
    if _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != _STR:
        return "'" + value.replace("'", "''") + "'"
    return value


def _sequence_edits(node: yaml.SequenceNode, source: str, old: list[str], new: str) -> tuple[list[Edit], int]:
    items: list[_Item] = []
    nodes: list[yaml.ScalarNode] = []
    for item in node.value:
        if isinstance(item, yaml.ScalarNode) and item.tag == _STR:
            nodes.append(item)
            items.append(_Item(item.start_mark.index, item.end_mark.index, item.value, _renamed(item.value, old, new)))
    dropped = _merged(items)
    edits: list[Edit] = []
    if dropped and node.flow_style:
        edits += [(start, end, "") for start, end in _inline_drops(items, dropped)]
    for index, (item, scalar) in enumerate(zip(items, nodes, strict=True)):
        if item.renamed is None:
            continue
        if index in dropped:
            if not node.flow_style:
                edits.append(_block_item_removal(scalar, source) or _replacement(scalar, source, item.renamed))
            continue
        edits.append(_replacement(scalar, source, item.renamed))
    return edits, sum(item.renamed is not None for item in items)


def _block_item_removal(node: yaml.ScalarNode, source: str) -> Edit | None:
    """The whole `- item` line of a block list, when the item is alone on its line."""
    line_start = source.rfind("\n", 0, node.start_mark.index) + 1
    if source[line_start : node.start_mark.index].strip() != "-":
        return None
    line_end = source.find("\n", node.end_mark.index)
    return line_start, (len(source) if line_end == -1 else line_end + 1), ""


def _replacement(node: yaml.ScalarNode, source: str, value: str) -> Edit:
    """Rewrite one scalar to `value`: only its text when written verbatim, else the whole scalar."""
    verbatim = _scalar_text(node, source)
    if verbatim is None:
        return node.start_mark.index, node.end_mark.index, json.dumps(value, ensure_ascii=False)
    if node.style is None:
        return verbatim[0], verbatim[1], _plain(value)
    return verbatim[0], verbatim[1], value


def _string_edits(node: yaml.ScalarNode, source: str, old: list[str], new: str) -> tuple[list[Edit], int]:
    """Tags in one string (`tags: a, b` or `tags: "#a #b"`)."""
    value = node.value
    items = [_Item(m.start(), m.end(), m.group(), _renamed(m.group(), old, new)) for m in _TOKEN.finditer(value)]
    count = sum(item.renamed is not None for item in items)
    if not count:
        return [], 0
    dropped = _merged(items)
    inner: list[Edit] = [(start, end, "") for start, end in _inline_drops(items, dropped)] if dropped else []
    inner += [
        (item.start, item.end, item.renamed)
        for index, item in enumerate(items)
        if item.renamed is not None and index not in dropped
    ]
    new_value = apply_edits(value, inner)
    verbatim = _scalar_text(node, source)
    if verbatim is None:
        return [(node.start_mark.index, node.end_mark.index, json.dumps(new_value, ensure_ascii=False))], count
    if node.style is None and _plain(new_value) != new_value:
        return [(verbatim[0], verbatim[1], _plain(new_value))], count
    return [(verbatim[0] + start, verbatim[0] + end, text) for start, end, text in inner], count


def _frontmatter_edits(source: str, old: list[str], new: str) -> tuple[list[Edit], int]:
    """Edits (offsets in the YAML text `source`) renaming the tag in `tags` / `tag`, and how many."""
    try:
        root = yaml.compose(source, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return [], 0
    if not isinstance(root, yaml.MappingNode):
        return [], 0
    edits: list[Edit] = []
    count = 0
    for key, value in root.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value in FRONTMATTER_KEYS):
            continue
        if isinstance(value, yaml.SequenceNode):
            found, n = _sequence_edits(value, source, old, new)
        elif isinstance(value, yaml.ScalarNode) and value.tag == _STR:
            found, n = _string_edits(value, source, old, new)
        else:
            continue
        edits += found
        count += n
    return edits, count
