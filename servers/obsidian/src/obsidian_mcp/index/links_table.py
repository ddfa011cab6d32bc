"""Queries of the `links` table: the link graph as the index stores it.

Links are stored as written, with the folded basename they could match (`vault.links.link_key`),
so finding the links that might lead to a note is one indexed lookup per name; resolving them
(`vault.links.Resolver`) is up to the caller (`links.backlinks`, `links.move`, `links.check`).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from obsidian_mcp.vault.markdown import Link

RawLink = tuple[str, str]  # (kind, target as written): what resolution needs of a link


class LinkFrom(NamedTuple):
    """A stored link and the note it is written in."""

    source: str
    link: Link


_SELECT = "SELECT n.path, l.line, l.kind, l.target, l.embed FROM links AS l JOIN notes AS n ON n.id = l.note_id"


def _link_from(row: Any) -> LinkFrom:
    path, line, kind, target, embed = row
    return LinkFrom(path, Link(target=target, embed=bool(embed), kind=kind, line=line))


def links_to(conn: sqlite3.Connection, keys: Iterable[str]) -> list[LinkFrom]:
    """Every stored link whose target could match one of `keys`, by source path and line per key."""
    out: list[LinkFrom] = []
    for key in set(keys):
        rows = conn.execute(f"{_SELECT} WHERE l.key = ? ORDER BY n.path, l.line", (key,))
        out += [_link_from(row) for row in rows]
    return out


def every_link(conn: sqlite3.Connection) -> Iterator[LinkFrom]:
    """Every stored link."""
    return (_link_from(row) for row in conn.execute(_SELECT))


def by_note(conn: sqlite3.Connection) -> dict[int, list[RawLink]]:
    """Each note id's links as (kind, target), in stored order."""
    links: dict[int, list[RawLink]] = defaultdict(list)
    for note_id, kind, target in conn.execute("SELECT note_id, kind, target FROM links ORDER BY rowid"):
        links[note_id].append((kind, target))
    return links
