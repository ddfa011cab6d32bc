"""Moving (renaming) a note and keeping the vault's links pointing where they pointed.

The move itself is one atomic step under the locks of both paths: a hard link claims the new
name (so an existing note is never replaced, even by a race) and the old name is removed; on
filesystems without hard links a checked `os.rename` is used. Then, with `update_links`, every
note whose links could be affected is re-read under its own lock and only the link text is
changed, written atomically (line endings, BOM, everything else byte for byte):

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

import errno
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from obsidian_mcp.index.backlinks import links_to
from obsidian_mcp.index.sync import ProgressFn
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.vault.errors import InvalidArgument, NoteExists, NoteNotFound, VaultError
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
from obsidian_mcp.vault.storage import PathLocks, atomic_write, decode_note, map_os_error, read_bytes

_NO_HARDLINKS = frozenset({errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP})


@dataclass
class _Move:
    """The link context of one move: both paths and the vault before and after."""

    old: str
    new: str
    before: Resolver
    after: Resolver
    vault: Vault
    ambiguous: list[dict[str, Any]] = field(default_factory=list)


def move_note(
    index: VaultIndex,
    locks: PathLocks,
    path: str,
    new_path: str,
    update_links: bool = True,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """Move the note at `path` to `new_path` (folders are created); returns {path, new_path,
    updated_notes, warnings}. An existing note at `new_path` → `NoteExists`."""
    vault = index.vault
    source = vault.resolve(path, for_write=True)
    target = vault.resolve(new_path, must_exist=False, for_write=True)
    if source.rel == target.rel or source.abs == target.abs:
        raise InvalidArgument("new_path", "same_path", "the note is already at new_path")
    if target.exists:
        raise NoteExists(target.rel)

    paths: set[str] = set()
    sources: set[str] = set()
    if update_links:

        def affected(snapshot: Snapshot) -> None:
            paths.update(snapshot.paths)
            sources.update(src for src, _ in links_to(snapshot, {link_key(source.rel), link_key(target.rel)}))

        index.run(affected, progress, full=True)

    _rename(vault, locks, source.abs, target.abs, target.rel)
    result: dict[str, Any] = {"path": source.rel, "new_path": target.rel, "updated_notes": [], "warnings": []}
    if not update_links:
        return result

    paths.add(source.rel)
    move = _Move(source.rel, target.rel, Resolver(paths), Resolver((paths - {source.rel}) | {target.rel}), vault)
    failed: list[dict[str, str]] = []
    for note in sorted(sources | {source.rel}):
        now_at = target.rel if note == source.rel else note
        try:
            if _rewrite(move, locks, note, now_at):
                result["updated_notes"].append(now_at)
        except NoteNotFound:
            continue  # gone since the index saw it: nothing to fix
        except VaultError as exc:
            failed.append({"path": now_at, "reason": str(exc)})
    result["updated_notes"].sort()
    if move.ambiguous:
        result["warnings"].append(
            {
                "code": "AMBIGUOUS_LINKS",
                "message": "these links could mean the moved note or another note of the same name; "
                "they were left unchanged",
                "links": move.ambiguous,
            }
        )
    if failed:
        result["warnings"].append(
            {
                "code": "PARTIAL_RESULTS",
                "message": "the note was moved, but links in these notes could not be updated",
                "failed": failed,
            }
        )
    return result


def _rename(vault: Vault, locks: PathLocks, old: Path, new: Path, new_rel: str) -> None:
    first, second = sorted((old, new), key=os.fspath)
    with locks.hold(first), locks.hold(second):
        try:
            new.parent.mkdir(parents=True, exist_ok=True)
            vault.ensure_inside(new.parent, new_rel)
            try:
                os.link(old, new, follow_symlinks=False)
            except FileExistsError:
                raise NoteExists(new_rel) from None
            except OSError as exc:
                if exc.errno not in _NO_HARDLINKS:
                    raise
                if os.path.lexists(new):
                    raise NoteExists(new_rel) from None
                os.rename(old, new)
            else:
                os.unlink(old)
        except OSError as exc:
            raise map_os_error(exc, vault.root, new_rel) from None


def _rewrite(move: _Move, locks: PathLocks, note: str, now_at: str) -> bool:
    """Fix the links of one note (at `now_at` after the move); True when it was written."""
    resolved = move.vault.resolve(now_at, for_write=True)
    with locks.hold(resolved.abs):
        try:
            text = decode_note(read_bytes(resolved.abs), resolved.rel)
            edits = _edits(move, text, note, now_at)
            if not edits:
                return False
            new_text = apply_edits(text, edits)
            move.vault.ensure_inside(resolved.abs.parent, resolved.rel)
            atomic_write(resolved.abs, new_text.encode("utf-8"))
        except OSError as exc:
            raise map_os_error(exc, move.vault.root, resolved.rel) from None
    return new_text != text


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
            move.ambiguous.append({"path": now_at, "line": link.line, "target": link.target})
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
