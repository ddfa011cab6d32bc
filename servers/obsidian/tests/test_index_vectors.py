"""The vectors' listener keeps nothing before its tables are open (the keyword build runs first:
opening them reconciles every note anyway), and queues changes once they are."""

from __future__ import annotations

from pathlib import Path

from obsidian_mcp.index.extract import extract
from obsidian_mcp.index.store import IndexStore
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.vault.paths import NoteInfo, Vault


def test_nothing_is_kept_for_notes_indexed_before_the_tables_open(tmp_path: Path) -> None:
    vault = Vault(tmp_path)
    vectors = VaultVectors(vault, IndexStore(None, vault.root))
    for n in range(100):  # what a background build of the keyword index reports, note by note
        text = f"# Note {n}\nbody\n"
        vectors.note_indexed(NoteInfo(f"n{n}.md", len(text), 0.0), text.encode(), "d", extract(text, f"n{n}.md"))
    vectors.note_dropped("n1.md")
    assert vectors._titles == {} and vectors._changed == {} and vectors._removed == set()
