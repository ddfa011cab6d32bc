"""get_backlinks through the index: definite links, ambiguous ones apart, code ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.links.backlinks import get_backlinks
from obsidian_mcp.vault.errors import NoteNotFound, PathRefused
from obsidian_mcp.vault.paths import Vault

FILES = {
    "Projects/Meeting Notes.md": "# Sync\n\nSelf: [[Meeting Notes#Sync]] and [[#Sync]].\n",
    "Areas/Work/Meeting Notes.md": "# Team\n\nSee [[Projects/Meeting Notes]].\n",
    "Daily/2026-11-23.md": "- notes in [[Meeting Notes]]\n- and [[projects/meeting notes|the sync]]\n",
    "Home.md": "[sync](Projects/Meeting%20Notes.md) · ![[Projects/Meeting Notes#^abc]] · [[Projects/Meeting Notes]]\n",
    "Nested/Deep.md": "[up](../Projects/Meeting%20Notes.md)\n",
    "Code.md": "```\n[[Projects/Meeting Notes]]\n```\nand `[[Projects/Meeting Notes]]`\n",
    "Long.md": "x " * 300 + "[[Projects/Meeting Notes]]" + " y" * 300 + "\n",
}


@pytest.fixture
def index(tmp_path: Path) -> VaultIndex:
    root = tmp_path / "vault"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return VaultIndex(Vault(root), tmp_path / "index.sqlite3", rescan_seconds=0)


def test_backlinks_are_definite_and_ambiguous_links_are_listed_apart(index: VaultIndex) -> None:
    result = get_backlinks(index, "Projects/Meeting Notes")
    assert result.path == "Projects/Meeting Notes.md"
    found = [(b.path, b.line, b.embed) for b in result.backlinks]
    assert found == [
        ("Areas/Work/Meeting Notes.md", 3, False),
        ("Daily/2026-11-23.md", 2, False),
        ("Home.md", 1, True),
        ("Long.md", 1, False),
        ("Nested/Deep.md", 1, False),
    ]
    assert result.backlinks[1].context == "- and [[projects/meeting notes|the sync]]"
    long_context = result.backlinks[3].context
    assert "[[Projects/Meeting Notes]]" in long_context and len(long_context) <= 202
    assert [(a.path, a.line) for a in result.ambiguous] == [("Daily/2026-11-23.md", 1)]
    assert result.ambiguous[0].candidates == ["Areas/Work/Meeting Notes.md", "Projects/Meeting Notes.md"]


def test_the_other_note_of_the_same_name_gets_its_own_links(index: VaultIndex) -> None:
    result = get_backlinks(index, "Areas/Work/Meeting Notes")
    assert result.backlinks == []
    assert {a.path for a in result.ambiguous} == {"Daily/2026-11-23.md", "Projects/Meeting Notes.md"}


def test_missing_and_refused_targets(index: VaultIndex) -> None:
    with pytest.raises(NoteNotFound):
        get_backlinks(index, "Kitchen Renovation")
    with pytest.raises(PathRefused):
        get_backlinks(index, "../outside")
