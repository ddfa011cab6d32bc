"""SQL conditions for the `folder` and `tags` arguments shared by search and tag listing, and the
notes they select.

Both are prefix ranges on indexed text: `path > 'F/' AND path < 'F0'` selects everything under
folder `F` (`0` is the character after `/`), and a tag `a` matches `a` itself and every nested
`a/...` the same way. Tags compare case-insensitively (NFC, casefold), a leading `#` is optional.
"""

from __future__ import annotations

import sqlite3
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


def paths_under(conn: sqlite3.Connection, folder_rel: str, keys: list[str]) -> set[str]:
    """The paths of the notes under `folder_rel` having every tag in `keys`."""
    where_folder, folder_params = folder_clause(folder_rel)
    where_tags, tag_params = tags_clause(keys)
    rows = conn.execute(
        f"SELECT n.path FROM notes AS n WHERE {where_folder} AND {where_tags}", [*folder_params, *tag_params]
    )
    return {row[0] for row in rows}
