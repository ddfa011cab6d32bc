"""Which notes link to a note, resolved like Obsidian against the vault as it is now.

Links are stored as written with the folded basename they could match (`key`); a lookup takes
the links with the target's key and resolves each against the current set of paths (see
`vault.links.Resolver`). Definite links are backlinks; links that could mean this note or
another of the same name are listed apart as `ambiguous`, with their candidates.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from obsidian_mcp.index.search import snippet_around
from obsidian_mcp.index.sync import ProgressFn
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.vault.links import Resolver, link_key
from obsidian_mcp.vault.markdown import Link

CONTEXT_CHARS = 200


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
            (path, Link(target, None, None, None, bool(embed), kind, line)) for path, line, kind, target, embed in rows
        ]
    return out


def get_backlinks(index: VaultIndex, path: str, progress: ProgressFn | None = None) -> dict[str, Any]:
    """{path, backlinks: [{path, line, context, embed}], ambiguous: [{..., candidates}]} for a note."""
    note = index.vault.resolve(path)
    return index.run(lambda snapshot: _backlinks(snapshot, note.rel), progress)


def _backlinks(snapshot: Snapshot, target: str) -> dict[str, Any]:
    resolver = Resolver({*snapshot.paths, target})
    definite: dict[tuple[str, int], Link] = {}  # one entry per line, an embed if any link there is one
    ambiguous: list[tuple[str, Link, tuple[str, ...]]] = []
    for source, link in links_to(snapshot, [link_key(target)]):
        if source == target:
            continue
        found = resolver.resolve(link, source)
        if found.status == "resolved" and found.path == target:
            seen = definite.get((source, link.line))
            if seen is None or (link.embed and not seen.embed):
                definite[(source, link.line)] = link
        elif found.status == "ambiguous" and target in found.candidates:
            ambiguous.append((source, link, found.candidates))
    lines = _lines(snapshot, {source for source, _ in definite} | {source for source, _, _ in ambiguous})

    def entry(source: str, link: Link) -> dict[str, Any]:
        text = lines.get(source, [])
        line_text = text[link.line - 1] if 0 < link.line <= len(text) else ""
        at = max(0, line_text.find(link.target))
        return {
            "path": source,
            "line": link.line,
            "context": snippet_around(line_text, at, CONTEXT_CHARS),
            "embed": link.embed,
        }

    return {
        "path": target,
        "backlinks": [entry(source, link) for (source, _), link in sorted(definite.items(), key=lambda i: i[0])],
        "ambiguous": [entry(source, link) | {"candidates": list(candidates)} for source, link, candidates in ambiguous],
    }


def _lines(snapshot: Snapshot, paths: set[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in paths:
        row = snapshot.conn.execute(
            "SELECT c.body FROM content AS c JOIN notes AS n ON n.id = c.id WHERE n.path = ?", (path,)
        ).fetchone()
        out[path] = (row[0] or "").split("\n") if row else []
    return out
