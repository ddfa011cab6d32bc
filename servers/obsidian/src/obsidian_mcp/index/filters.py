"""SQL conditions for the `folder` and `tags` arguments shared by search and tag listing.

Both are prefix ranges on indexed text: `path > 'F/' AND path < 'F0'` selects everything under
folder `F` (`0` is the character after `/`), and a tag `a` matches `a` itself and every nested
`a/...` the same way. Tags compare case-insensitively (NFC, casefold), a leading `#` is optional.
"""

from __future__ import annotations

from collections.abc import Iterable

from obsidian_mcp.vault.errors import InvalidArgument
from obsidian_mcp.vault.links import nfc_casefold

MAX_TAGS = 20


def tag_key(tag: str) -> str:
    """The comparison key of a tag argument: `#Project/Alpha/` → `project/alpha`."""
    key = nfc_casefold(tag.strip().lstrip("#").strip("/"))
    if not key:
        raise InvalidArgument("tags", "empty_tag", "a tag in 'tags' is empty")
    return key


def tag_keys(tags: Iterable[str]) -> list[str]:
    keys = [tag_key(tag) for tag in tags]
    if len(keys) > MAX_TAGS:
        raise InvalidArgument("tags", "too_many", f"give at most {MAX_TAGS} tags")
    return keys


def folder_clause(folder_rel: str, column: str = "n.path") -> tuple[str, list[str]]:
    """A condition selecting notes under `folder_rel` ('' is the whole vault: always true)."""
    if not folder_rel:
        return "1", []
    return f"({column} > ? AND {column} < ?)", [folder_rel + "/", folder_rel + "0"]


def tags_clause(keys: list[str], column: str = "n.id") -> tuple[str, list[str]]:
    """A condition selecting notes that have every tag in `keys` (or a tag nested under it)."""
    clauses: list[str] = []
    params: list[str] = []
    for key in keys:
        clauses.append(f"{column} IN (SELECT note_id FROM tags WHERE fold = ? OR (fold > ? AND fold < ?))")
        params += [key, key + "/", key + "0"]
    return (" AND ".join(clauses) or "1"), params
