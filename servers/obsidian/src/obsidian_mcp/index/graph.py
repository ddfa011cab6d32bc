"""The link graph as the index stores it: which stored links could point at a note.

Links are stored as written, with the folded basename they could match (`vault.links.link_key`),
so finding the links that might lead to a note is one indexed lookup per name; resolving them
(`vault.links.Resolver`) is up to the caller (`backlinks`, `move`).
"""

from __future__ import annotations

from collections.abc import Iterable

from obsidian_mcp.index.vault_index import Snapshot
from obsidian_mcp.vault.markdown import Link


def links_to(snapshot: Snapshot, keys: Iterable[str]) -> list[tuple[str, Link]]:
    """(source path, link) for every stored link whose target could match one of `keys`."""
    out: list[tuple[str, Link]] = []
    for key in set(keys):
        rows = snapshot.conn.execute(
            "SELECT n.path, l.line, l.kind, l.target, l.embed FROM links AS l JOIN notes AS n ON n.id = l.note_id "
            "WHERE l.key = ? ORDER BY n.path, l.line",
            (key,),
        )
        out += [
            (path, Link(target=target, embed=bool(embed), kind=kind, line=line))
            for path, line, kind, target, embed in rows
        ]
    return out
