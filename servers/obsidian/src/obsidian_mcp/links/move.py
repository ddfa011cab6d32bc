"""Moving (renaming) a note and keeping the vault's links pointing where they pointed.

This module decides what links become; the files are the vault's business. The move itself is
`vault.notes.move_file`: one step under the locks of both paths that never replaces an existing
note, even in a race. Then, with `update_links`, every note whose links could be affected is
re-read under its own lock and only the link text is changed (`vault.notes.rewrite_note`, an
atomic write keeping line endings, BOM, everything else byte for byte):

* links that pointed to the moved note point to its new path, in their own style (see
  `vault.links.rewritten_target`), keeping `|alias`, `#heading`, `#^block` and `!`;
* bare-name links to *another* note that the new name would make ambiguous get that note's
  full path;
* the moved note's own relative Markdown links (to notes and attachments) are recomputed from
  its new folder.

Ambiguous links that might have meant the moved note are left alone and reported
(`AMBIGUOUS_LINKS`). Links in code are never touched. The move is not rolled back when a
rewrite fails: those notes are reported (`PARTIAL_RESULTS`) and can be fixed by hand.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from functools import partial

from obsidian_mcp import warnings
from obsidian_mcp.index.links_table import links_to
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.links.results import MoveResult
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import NoteNotFound, VaultError
from obsidian_mcp.vault.links import (
    LinkSpan,
    Resolver,
    apply_edits,
    attachment_path,
    link_key,
    link_spans,
    relative_url,
    rewritten_target,
)
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks


@dataclass
class _Move:
    """The link context of one move: both paths and the vault before and after."""

    old: str
    new: str
    before: Resolver
    after: Resolver
    vault: Vault
    ambiguous: list[warnings.LinkLeftAlone] = field(default_factory=list)


def move_note(
    index: VaultIndex,
    locks: PathLocks,
    path: str,
    new_path: str,
    update_links: bool = True,
    progress: ProgressFn | None = None,
) -> MoveResult:
    """Move the note at `path` to `new_path` (folders are created) and, with `update_links`, the
    links to it. An existing note at `new_path` → `NoteExists`; links left alone or not rewritten
    are reported in the result's warnings."""
    vault = index.vault
    planned = notes.check_move(vault, path, new_path)
    source, target = planned.source.rel, planned.target.rel

    paths: set[str] = set()
    sources: set[str] = set()
    if update_links:

        def affected(snapshot: Snapshot) -> None:
            paths.update(snapshot.paths)
            sources.update(src for src, _ in links_to(snapshot.conn, {link_key(source), link_key(target)}))

        index.run(affected, progress, full=True)

    notes.move_file(vault, locks, planned)
    index.vectors.note_moved(source, target)
    if not update_links:
        return MoveResult(path=source, new_path=target, updated_notes=[])

    paths.add(source)
    move = _Move(source, target, Resolver(paths), Resolver((paths - {source}) | {target}), vault)
    updated: list[str] = []
    failed: list[warnings.NoteNotUpdated] = []
    for note in sorted(sources | {source}):
        now_at = target if note == source else note
        try:
            if notes.rewrite_note(vault, locks, now_at, partial(_rewritten, move, note, now_at)):
                updated.append(now_at)
        except NoteNotFound:
            continue  # gone since the index saw it: nothing to fix
        except VaultError as exc:
            failed.append(warnings.NoteNotUpdated(path=now_at, reason=str(exc)))
    found: list[ToolWarning] = []
    if move.ambiguous:
        found.append(warnings.ambiguous_links(move.ambiguous))
    if failed:
        found.append(warnings.partial_results(failed))
    return MoveResult(path=source, new_path=target, updated_notes=sorted(updated), warnings=found)


def _rewritten(move: _Move, note: str, now_at: str, text: str, _rel: str) -> str:
    """The text of `note` (at `now_at` after the move) with its links fixed."""
    return apply_edits(text, _edits(move, text, note, now_at))


def _edits(move: _Move, text: str, note: str, now_at: str) -> list[tuple[int, int, str]]:
    """(start, end, new target text) for each link of `note` that must change."""
    edits: list[tuple[int, int, str]] = []
    for span in link_spans(text):
        link = span.link
        if link is None:
            if note == move.old:
                edits += _attachment_edit(move, span)
            continue
        if not link.target.strip():
            continue  # [[#heading]]: the note itself, wherever it is
        was = move.before.resolve(link, note)
        if was.status == "ambiguous" and move.old in was.candidates:
            move.ambiguous.append(warnings.LinkLeftAlone(path=now_at, line=link.line, target=link.target))
        if was.status != "resolved" or was.path is None:
            continue
        wanted = move.new if was.path == move.old else was.path
        now = move.after.resolve(link, now_at)
        if now.path == wanted and (was.how != "relative" or now.how == "relative"):
            continue
        replacement = rewritten_target(span, wanted, was.how, now_at, move.after)
        if replacement != span.target_text:
            edits.append((span.start, span.end, replacement))
    return edits


def _attachment_edit(move: _Move, span: LinkSpan) -> list[tuple[int, int, str]]:
    """A relative link from the moved note to a file that exists, recomputed from its new folder."""
    relative = attachment_path(span)
    if relative is None:
        return []
    old_target = posixpath.normpath(posixpath.join(posixpath.dirname(move.old), relative))
    if old_target.startswith("../") or old_target == ".." or not os.path.exists(move.vault.root / old_target):
        return []
    replacement = relative_url(old_target, move.new, span)
    return [] if replacement == span.target_text else [(span.start, span.end, replacement)]
