"""Renaming a tag everywhere: the index says which notes carry it, the vault rewrites each one.

The notes are those whose indexed tags are the tag or nested under it, after a full listing of
the vault (as before a move), so edits made by other programs a moment ago are seen. Each is
re-read under its own lock and rewritten atomically with only the tag text changed
(`vault.tag_rename`, `vault.notes.rewrite_note`); the locks are the server's shared
`TrackedLocks`, so the index knows these notes changed and a search right after sees the new tag.

Nothing is rolled back: a note that cannot be rewritten (gone, unreadable, not UTF-8) is reported
in a `PARTIAL_RESULTS` warning while the others are renamed.
"""

from __future__ import annotations

from functools import partial

from obsidian_mcp import warnings
from obsidian_mcp.index import tags_table
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.links.results import RenameTagResult
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import InvalidArgument, NoteNotFound, VaultError
from obsidian_mcp.vault.links import nfc_casefold
from obsidian_mcp.vault.storage import PathLocks


def rename_tag(
    index: VaultIndex, locks: PathLocks, tag: str, new_tag: str, progress: ProgressFn | None = None
) -> RenameTagResult:
    """Rename `tag` and the tags nested under it to `new_tag` in every note (inline and frontmatter)."""
    from obsidian_mcp.vault import tag_rename  # with PyYAML's node API: imported on first use, not at start-up

    old = tag_rename.check_tag(tag, "tag")
    new = tag_rename.check_tag(new_tag, "new_tag")
    if old == new:
        raise InvalidArgument("new_tag", "same_tag", "'new_tag' is the tag itself; nothing to rename")
    key = nfc_casefold(old)
    carriers = index.run(lambda snapshot: tags_table.carrying(snapshot.conn, key), progress, full=True)

    updated: list[str] = []
    failed: list[warnings.NoteNotUpdated] = []
    occurrences = 0
    for path in carriers:
        counted: list[int] = []
        try:
            if notes.rewrite_note(index.vault, locks, path, partial(_renamed, old, new, counted)):
                updated.append(path)
                occurrences += counted[-1]
        except NoteNotFound:
            continue  # gone since the index saw it: nothing to rename
        except VaultError as exc:
            failed.append(warnings.NoteNotUpdated(path=path, reason=str(exc)))
    found: list[ToolWarning] = [warnings.tags_not_renamed(failed)] if failed else []
    return RenameTagResult(updated_notes=updated, occurrences=occurrences, warnings=found)


def _renamed(old: str, new: str, counted: list[int], text: str, _rel: str) -> str:
    """The note's text with the tag renamed; how many tags were renamed goes to `counted`."""
    from obsidian_mcp.vault import tag_rename

    result = tag_rename.rename_tag(text, old, new)
    counted.append(result.occurrences)
    return result.text
