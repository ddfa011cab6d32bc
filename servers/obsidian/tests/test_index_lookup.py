"""Recent notes and path completion (`index.lookup`): the ranking, and both read the vault as it is now."""

from __future__ import annotations

import os
import time
from pathlib import Path

from obsidian_mcp.index import lookup
from obsidian_mcp.index.lookup import rank_paths
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.vault.paths import Vault

AGES = {
    "Projects/Alpha.md": 5.0,
    "Projects/Half Marathon.md": 4.0,
    "Archive/Old Alpha Plan.md": 3.0,
    "Resources/Café Recipes.md": 2.0,
    "Fernhill Help/Sync and Offline Mode.md": 6.0,
    "Alphabet.md": 1.0,
}


def test_prefix_then_word_start_then_anywhere_then_fuzzy() -> None:
    assert rank_paths(AGES, "projects/al", 10).paths == ["Projects/Alpha.md", "Projects/Half Marathon.md"]
    # a word starts with it (the newer first), then inside a word
    assert rank_paths(AGES, "alpha", 10).paths == ["Alphabet.md", "Projects/Alpha.md", "Archive/Old Alpha Plan.md"]
    assert rank_paths(AGES, "lpha", 10).paths == ["Projects/Alpha.md", "Archive/Old Alpha Plan.md", "Alphabet.md"]
    assert rank_paths(AGES, "prjalp", 10).paths == ["Projects/Alpha.md"]


def test_case_accents_spaces_and_backslashes_do_not_matter() -> None:
    assert rank_paths(AGES, "CAFE", 10).paths == ["Resources/Café Recipes.md"]
    assert rank_paths(AGES, "cafe rec", 10).paths == ["Resources/Café Recipes.md"]  # a space is any gap
    assert rank_paths(AGES, "\\projects\\alpha", 10).paths[0] == "Projects/Alpha.md"


def test_scattered_letters_are_no_match() -> None:
    # c…a…f…e spread over "Sync and Offline Mode" is more than three times the text's length
    assert rank_paths(AGES, "cafe", 10).paths == ["Resources/Café Recipes.md"]
    assert rank_paths(AGES, "zzz", 10) == lookup.PathMatches([], 0)


def test_empty_text_lists_the_newest_and_the_limit_keeps_the_total() -> None:
    newest = rank_paths(AGES, "  ", 3)
    assert newest.paths == ["Fernhill Help/Sync and Offline Mode.md", "Projects/Alpha.md", "Projects/Half Marathon.md"]
    assert newest.total == len(AGES)


def test_recent_notes_and_matching_paths_see_the_vault_as_it_is_now(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "Projects").mkdir(parents=True)
    (root / ".hidden").mkdir()
    old = time.time() - 3600
    for rel, text, age in (("Projects/Alpha.md", "---\ntitle: Project Alpha\n---\nx\n", 2), ("Home.md", "# Home\n", 1)):
        (root / rel).write_text(text, encoding="utf-8")
        os.utime(root / rel, (old + age, old + age))
    (root / ".hidden" / "Secret.md").write_text("# Secret\n", encoding="utf-8")
    index = VaultIndex(Vault(root), None, rescan_seconds=0, watch=False)
    recent = lookup.recent_notes(index, 10)
    assert [(n.path, n.title) for n in recent] == [("Projects/Alpha.md", "Project Alpha"), ("Home.md", "Home")]
    assert recent[0].size == len("---\ntitle: Project Alpha\n---\nx\n")
    (root / "Newer.md").write_text("# Newer\n", encoding="utf-8")
    assert [n.path for n in lookup.recent_notes(index, 1)] == ["Newer.md"]
    assert lookup.matching_paths(index, "secret", 10).paths == []
    assert lookup.matching_paths(index, "new", 10).paths == ["Newer.md"]
