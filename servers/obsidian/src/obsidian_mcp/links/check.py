"""Link hygiene: links to notes that do not exist, notes nothing links to, links that could mean
several notes. Resolved like `get_backlinks`, by `vault.links.Resolver` against the vault as the
index holds it now.

* **Unresolved**: a link (wikilink, Markdown link to a `.md` file, or embed) from a note under
  `folder` whose target is no note of the vault. Links to attachments (images, PDFs) are not
  checked; a `#heading` that does not exist in an existing note is not an unresolved link.
* **Orphans**: notes under `folder` that no *other* note of the whole vault links to or embeds
  (a link from a note to itself does not count). A note that an ambiguous link could mean counts
  as linked, and so does one a wikilink in another note's frontmatter values leads to
  (`related: "[[Note]]"`, tracked by Obsidian as a link): an orphan is a note nothing points to,
  never a guess.
* **Ambiguous**: a link from a note under `folder` that several notes could answer (a base name
  shared by notes in different folders), with its candidates; Obsidian would pick one silently.

Each link is reported once per (note, line, target). Links in code are not links (the parser
skips code).

Paging: each list holds at most `limit` entries, sorted (links by note path, line and target;
orphans by path); `totals` counts every entry of every list. `next_cursor`, present while any list
has entries beyond this page, continues each list right after the last entry it returned (keyset,
not offsets), so notes changed between pages make no entry repeat or vanish from the rest.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from obsidian_mcp.index import fts
from obsidian_mcp.index.links_table import every_link
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.links.results import AmbiguousTarget, CheckLinksResult, LinkTotals, UnresolvedLink
from obsidian_mcp.vault.cursors import decode_cursor, encode_cursor
from obsidian_mcp.vault.errors import InvalidArgument
from obsidian_mcp.vault.links import Resolution, Resolver, is_note_target
from obsidian_mcp.vault.markdown import WIKILINK, Link, wikilink_at

MAX_LIMIT = 1000
DEFAULT_LIMIT = 100

LinkKey = tuple[str, int, str]  # (path, line, target): the sort key, and what a cursor remembers
K = TypeVar("K", LinkKey, str)


@dataclass(frozen=True)
class _After:
    """Where each list continues: after this key (None: from the start)."""

    unresolved: LinkKey | None = None
    orphans: str | None = None
    ambiguous: LinkKey | None = None


def check_links(
    index: VaultIndex,
    folder: str = "",
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    progress: ProgressFn | None = None,
) -> CheckLinksResult:
    """One page of the unresolved links, orphans and ambiguous links of the notes under `folder`."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument("limit", "out_of_range", f"'limit' must be between 1 and {MAX_LIMIT}")
    folder_rel, _ = index.vault.resolve_folder(folder)
    after = _decode_cursor(cursor, folder_rel) if cursor is not None else _After()
    return index.run(lambda snapshot: _check(snapshot, folder_rel, limit, after), progress)


# -- the check ------------------------------------------------------------------------------------


def _resolving(resolver: Resolver) -> Callable[[Link, str], Resolution]:
    """`resolver.resolve` remembering its answers: a wikilink's target resolves the same from any
    note unless it is relative (`./`, `../`); a Markdown link's depends on the note's folder."""
    known: dict[tuple[str, str, str], Resolution] = {}

    def resolve(link: Link, source: str) -> Resolution:
        relative = link.kind == "markdown" or link.target.strip().startswith(("./", "../"))
        key = (link.kind, link.target, posixpath.dirname(source) if relative else "")
        found = known.get(key)
        if found is None:
            found = known[key] = resolver.resolve(link, source)
        return found

    return resolve


def _check(snapshot: Snapshot, folder: str, limit: int, after: _After) -> CheckLinksResult:
    paths = snapshot.paths
    resolve = _resolving(Resolver(paths))
    prefix = folder + "/" if folder else ""
    linked: set[str] = set()
    unresolved: set[LinkKey] = set()
    ambiguous: dict[LinkKey, tuple[str, ...]] = {}
    for source, link in every_link(snapshot.conn):
        found = resolve(link, source)
        line, target = link.line, link.target
        mine = source.startswith(prefix)
        if found.status == "resolved":
            if found.path != source and found.path is not None:
                linked.add(found.path)
        elif found.status == "ambiguous":
            linked.update(found.candidates)
            if mine:
                ambiguous[(source, line, target)] = found.candidates
        elif mine:
            unresolved.add((source, line, target))
    linked |= _frontmatter_targets(snapshot, resolve)
    checked = sorted(path for path in paths if path.startswith(prefix))
    orphans = [path for path in checked if path not in linked]
    unresolved_page, more_unresolved = _page(sorted(unresolved), after.unresolved, limit)
    orphan_page, more_orphans = _page(orphans, after.orphans, limit)
    ambiguous_page, more_ambiguous = _page(sorted(ambiguous), after.ambiguous, limit)
    following = _After(
        unresolved_page[-1] if unresolved_page else after.unresolved,
        orphan_page[-1] if orphan_page else after.orphans,
        ambiguous_page[-1] if ambiguous_page else after.ambiguous,
    )
    more = more_unresolved or more_orphans or more_ambiguous
    return CheckLinksResult(
        unresolved=[UnresolvedLink(path=p, line=n, target=t) for p, n, t in unresolved_page],
        orphans=orphan_page,
        ambiguous=[
            AmbiguousTarget(path=p, line=n, target=t, candidates=list(ambiguous[(p, n, t)]))
            for p, n, t in ambiguous_page
        ],
        totals=LinkTotals(
            notes=len(checked), unresolved=len(unresolved), orphans=len(orphans), ambiguous=len(ambiguous)
        ),
        next_cursor=_encode_cursor(folder, following) if more else None,
    )


def _frontmatter_targets(snapshot: Snapshot, resolve: Callable[[Link, str], Resolution]) -> set[str]:
    """Notes that wikilinks in frontmatter values (`related: "[[Note]]"`, which Obsidian tracks as
    links) may lead to, from other notes. They only keep notes from being called orphans."""
    targets: set[str] = set()
    for source, values in fts.frontmatter_with_wikilinks(snapshot.conn):
        for match in WIKILINK.finditer(values):
            link = wikilink_at(match, 0)
            if not link.target.strip() or not is_note_target(link.target):
                continue
            found = resolve(link, source)
            targets.update(path for path in (found.path, *found.candidates) if path and path != source)
    return targets


def _page(entries: Sequence[K], after: K | None, limit: int) -> tuple[list[K], bool]:
    """The entries after `after` (all when None), at most `limit`, and whether more follow."""
    rest = [entry for entry in entries if after is None or entry > after]
    return rest[:limit], len(rest) > limit


# -- the cursor -------------------------------------------------------------------------------------


def _encode_cursor(folder: str, after: _After) -> str:
    return encode_cursor(
        {"folder": folder, "unresolved": after.unresolved, "orphans": after.orphans, "ambiguous": after.ambiguous}
    )


def _link_key(value: Any) -> LinkKey | None:
    if value is None:
        return None
    if (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], str)
        and isinstance(value[1], int)
        and not isinstance(value[1], bool)
        and isinstance(value[2], str)
    ):
        return value[0], value[1], value[2]
    raise ValueError("not a link key")


def _decode_cursor(cursor: Any, folder: str) -> _After:
    bad = InvalidArgument("cursor", "invalid", "the cursor is not valid; check again without a cursor")
    payload = decode_cursor(cursor, again="check")
    if payload.get("folder") != folder:
        raise InvalidArgument("cursor", "mismatch", "the cursor belongs to a check of another folder")
    orphans = payload.get("orphans")
    if orphans is not None and not isinstance(orphans, str):
        raise bad
    try:
        return _After(_link_key(payload.get("unresolved")), orphans, _link_key(payload.get("ambiguous")))
    except ValueError:
        raise bad from None
