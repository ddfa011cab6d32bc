"""Which notes link to a note, resolved like Obsidian against the vault as it is now.

A lookup takes the stored links that could match the target's name (`index.links_table.links_to`) and
resolves each against the current set of paths (see `vault.links.Resolver`). Definite links are
backlinks; links that could mean this note or another of the same name are listed apart as
`ambiguous`, with their candidates.
"""

from __future__ import annotations

from obsidian_mcp.index import fts
from obsidian_mcp.index.links_table import links_to
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.text import snippet_around
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.links.results import AmbiguousLink, Backlink, BacklinksResult
from obsidian_mcp.vault.links import Resolver, link_key
from obsidian_mcp.vault.markdown import Link

CONTEXT_CHARS = 200


def get_backlinks(index: VaultIndex, path: str, progress: ProgressFn | None = None) -> BacklinksResult:
    """The links to a note: definite ones, and apart from them the ambiguous ones with their candidates."""
    note = index.vault.resolve(path)
    return index.run(lambda snapshot: _backlinks(snapshot, note.rel), progress)


def _backlinks(snapshot: Snapshot, target: str) -> BacklinksResult:
    resolver = Resolver({*snapshot.paths, target})
    definite: dict[tuple[str, int], Link] = {}  # one entry per line, an embed if any link there is one
    ambiguous: list[tuple[str, Link, tuple[str, ...]]] = []
    for source, link in links_to(snapshot.conn, [link_key(target)]):
        if source == target:
            continue
        found = resolver.resolve(link, source)
        if found.status == "resolved" and found.path == target:
            seen = definite.get((source, link.line))
            if seen is None or (link.embed and not seen.embed):
                definite[(source, link.line)] = link
        elif found.status == "ambiguous" and target in found.candidates:
            ambiguous.append((source, link, found.candidates))
    sources = {source for source, _ in definite} | {source for source, _, _ in ambiguous}
    lines = {source: fts.body_lines(snapshot.conn, source) for source in sources}

    def context(source: str, link: Link) -> str:
        text = lines.get(source, [])
        line_text = text[link.line - 1] if 0 < link.line <= len(text) else ""
        return snippet_around(line_text, max(0, line_text.find(link.target)), CONTEXT_CHARS)

    return BacklinksResult(
        path=target,
        backlinks=[
            Backlink(path=source, line=link.line, context=context(source, link), embed=link.embed)
            for (source, _), link in sorted(definite.items(), key=lambda item: item[0])
        ],
        ambiguous=[
            AmbiguousLink(
                path=source,
                line=link.line,
                context=context(source, link),
                embed=link.embed,
                candidates=list(candidates),
            )
            for source, link, candidates in ambiguous
        ],
    )
