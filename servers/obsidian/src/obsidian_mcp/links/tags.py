"""Tag counts from the index: how many notes carry each tag.

Each tag is counted as written (`#project/alpha` counts for `project/alpha`, not for `project`;
Obsidian's tag pane shows the same counts and draws the hierarchy from the names). Tags compare
case-insensitively; the spelling shown is the most common one. Sorted by count, then name.
Tags inside code are not tags (the parser skips code).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from obsidian_mcp.index import tags_table
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.links.results import TagCount, TagsResult


def list_tags(index: VaultIndex, folder: str = "", progress: ProgressFn | None = None) -> TagsResult:
    """The tags of the notes under `folder` ('' for the whole vault) with their counts."""
    folder_rel, _ = index.vault.resolve_folder(folder)
    return index.run(lambda snapshot: _count(snapshot, folder_rel), progress)


def _count(snapshot: Snapshot, folder_rel: str) -> TagsResult:
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    for key, tag, count in tags_table.spellings(snapshot.conn, folder_rel):
        spellings[key][tag] += count
    counted = [(sum(forms.values()), min(forms, key=lambda form: (-forms[form], form))) for forms in spellings.values()]
    counted.sort(key=lambda item: (-item[0], item[1].casefold(), item[1]))
    return TagsResult(tags=[TagCount(tag=tag, count=count) for count, tag in counted])
