"""Fields from (key, value) pairs: repeated keys become lists, keys get canonical aliases."""

from __future__ import annotations

from collections.abc import Sequence

from obsidian_mcp.dataview.coerce import canonical_key, inline_value
from obsidian_mcp.dataview.inline_fields import InlineField
from obsidian_mcp.dataview.values import Value


def merge_fields(groups: Sequence[tuple[str, Value]]) -> dict[str, Value]:
    """(key, value) pairs -> fields. A key written more than once holds a list of its values; each
    key is also available under its canonical alias (`Due Date` -> `due-date`) unless that alias is
    itself a key."""
    raw: dict[str, list[Value]] = {}
    for key, value in groups:
        raw.setdefault(key, []).append(value)
    aliases: dict[str, list[Value]] = {}
    for key, values in raw.items():
        alias = canonical_key(key)
        if alias and alias not in raw:
            aliases.setdefault(alias, []).extend(values)
    return {key: values[0] if len(values) == 1 else values for key, values in (raw | aliases).items()}


def typed_fields(fields: Sequence[InlineField], origin: str) -> list[tuple[str, Value]]:
    return [(field.key, inline_value(field.value, origin)) for field in fields if field.key]
