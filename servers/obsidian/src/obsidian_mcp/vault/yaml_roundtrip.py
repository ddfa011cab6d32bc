"""Round-trip editing of frontmatter YAML with ruamel.yaml, keeping key order, comments and quoting.

Reading (`markdown.load_frontmatter`) uses PyYAML's safe loader, which follows YAML 1.1 like many
tools do, while ruamel.yaml writes YAML 1.2. A string we write that a YAML 1.1 reader would take
for something else (`yes`, `on`, `12:30`, `1_000`, `~`) is therefore quoted, so that what we write
reads back as the same value everywhere.
"""

from __future__ import annotations

import io
import math
import re
from typing import Any

import yaml  # type: ignore[import-untyped]
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError as RuamelYAMLError
from ruamel.yaml.scalarstring import SingleQuotedScalarString

from obsidian_mcp.vault.errors import DocumentParseError, InvalidArgument
from obsidian_mcp.vault.markdown import FrontmatterSpan, yaml_error_line, yaml_problem

_SEQUENCE_UNDER_KEY = re.compile(r"^[^\s#-][^\n]*:[ \t]*\n( *)- ", re.MULTILINE)
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()


def make_yaml(source: str) -> YAML:
    """A round-trip YAML instance whose list indentation follows `source` (Obsidian's style if none)."""
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.allow_duplicate_keys = True  # PyYAML (used for reading) accepts them too: last one wins
    rt.width = 4096  # never re-wrap long values
    rt.allow_unicode = True
    match = _SEQUENCE_UNDER_KEY.search(source)
    offset = len(match.group(1)) if match else 2
    rt.indent(mapping=2, sequence=offset + 2, offset=offset)
    return rt


def load_mapping(rt: YAML, source: str, span: FrontmatterSpan, text: str, path: str) -> CommentedMap:
    """Load the (LF-normalised) YAML of a frontmatter block into a round-trip mapping."""
    try:
        data = rt.load(source)
    except RuamelYAMLError as exc:
        raise DocumentParseError(path, yaml_error_line(exc, span, text), yaml_problem(exc)) from None
    if data is None:
        return CommentedMap()
    if not isinstance(data, CommentedMap):
        first = text.count("\n", 0, span.yaml_start) + 1
        raise DocumentParseError(path, first, "frontmatter must be a mapping of keys to values")
    return data


def _quoted_if_ambiguous(value: str) -> str:
    """Quote strings a YAML 1.1 reader would not read back as strings."""
    if _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != _STR_TAG:
        quoted: str = SingleQuotedScalarString(value)
        return quoted
    return value


def to_yaml_value(value: Any, key: str) -> Any:
    """Convert a JSON value given by a caller into something ruamel dumps in block style."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgument("set", "invalid_value", f"the value of '{key}' must be a finite number")
        return value
    if isinstance(value, str):
        return _quoted_if_ambiguous(value)
    if isinstance(value, list):
        return CommentedSeq([to_yaml_value(item, key) for item in value])
    if isinstance(value, dict):
        mapping = CommentedMap()
        for sub_key, sub_value in value.items():
            if not isinstance(sub_key, str):
                raise InvalidArgument("set", "invalid_key", f"keys inside '{key}' must be strings")
            mapping[to_yaml_key(sub_key)] = to_yaml_value(sub_value, key)
        return mapping
    raise InvalidArgument(
        "set", "invalid_value", f"the value of '{key}' must be a string, number, boolean, null, list or mapping"
    )


def to_yaml_key(key: str) -> str:
    return _quoted_if_ambiguous(key)


def dump_mapping(rt: YAML, data: CommentedMap) -> str:
    """The YAML text of `data` with a final line break, or "" for an empty mapping."""
    if len(data) == 0:
        return ""
    buffer = io.StringIO()
    rt.dump(data, buffer)
    out = buffer.getvalue()
    return out if out.endswith("\n") else out + "\n"
