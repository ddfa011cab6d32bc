"""Private folders at the vault level: which paths the gitignore-style patterns hide, and what
`Vault` answers for them (missing to readers, refused to writers, absent from listings)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from obsidian_mcp.index import sync
from obsidian_mcp.index.store import IndexStore
from obsidian_mcp.index.watch import ChangeFeed
from obsidian_mcp.vault.errors import NoteNotFound, PathRefused
from obsidian_mcp.vault.exclusions import Exclusions, InvalidExclusion
from obsidian_mcp.vault.paths import Vault


@pytest.mark.parametrize(
    ("patterns", "path", "folder", "hidden"),
    [
        (["Journal/"], "Journal/a.md", False, True),
        (["Journal/"], "Journal", True, True),
        (["Journal/"], "Journal.md", False, False),  # a folder pattern never matches a note
        (["Journal/"], "Work/Journal/a.md", False, True),  # no leading slash: at any depth
        (["/Journal/"], "Work/Journal/a.md", False, False),
        (["Journal/"], "Journalx/a.md", False, False),
        (["*.private.md"], "a/b/x.private.md", False, True),
        (["*.private.md"], "x.md", False, False),
        (["Journal/", "!Journal/ok.md"], "Journal/ok.md", False, True),  # git: a parent excluded stays excluded
        (["*.md", "!Keep.md"], "Keep.md", False, False),
        (["Archive/**/old/"], "Archive/2020/q1/old/n.md", False, True),
        (["Café/"], "Cafe\u0301/n.md", False, True),  # NFD on disk, NFC in the pattern
        (["Journal/"], "", True, False),  # the root never is
        ([], "Journal/a.md", False, False),
    ],
)
def test_patterns_follow_gitignore(patterns: list[str], path: str, folder: bool, hidden: bool) -> None:
    assert Exclusions(patterns).excludes(path, folder=folder) is hidden


def test_fingerprint_names_the_set_not_its_order() -> None:
    assert Exclusions(["a/", "b/"]).fingerprint == Exclusions([" b/", "a/", ""]).fingerprint != ""
    assert Exclusions(["a/"]).fingerprint != Exclusions(["b/"]).fingerprint
    assert Exclusions([]).fingerprint == Exclusions(["", " "]).fingerprint == ""
    assert not Exclusions([" "]) and Exclusions(["a/"])


def test_an_invalid_pattern_is_refused_with_its_name() -> None:
    with pytest.raises(InvalidExclusion, match="not a valid gitignore-style pattern"):
        Exclusions(["!"])


@pytest.fixture
def private(vault_root: Path) -> Vault:
    (vault_root / "Journal" / "2026").mkdir(parents=True)
    (vault_root / "Journal" / "2026" / "Day.md").write_text("secret\n", encoding="utf-8")
    (vault_root / "Public.md").write_text("public\n", encoding="utf-8")
    os.symlink("Journal/2026/Day.md", vault_root / "Door.md")
    os.symlink("Journal", vault_root / "DoorDir")
    return Vault(vault_root, Exclusions(["Journal/"]))


@pytest.mark.parametrize("path", ["Journal/2026/Day", "Door", "DoorDir/2026/Day", "Journal/Missing"])
def test_reading_an_excluded_path_is_not_found(private: Vault, path: str) -> None:
    with pytest.raises(NoteNotFound):
        private.resolve(path)
    with pytest.raises(NoteNotFound):
        private.resolve(path, must_exist=False)


@pytest.mark.parametrize("path", ["Journal/2026/Day", "Journal/New", "Door", "DoorDir/New"])
def test_writing_into_an_excluded_path_is_refused(private: Vault, path: str) -> None:
    with pytest.raises(PathRefused) as refused:
        private.resolve(path, must_exist=False, for_write=True)
    assert refused.value.reason == "excluded"


def test_the_source_of_a_move_is_missing_not_refused(private: Vault) -> None:
    with pytest.raises(NoteNotFound):
        private.resolve("Journal/2026/Day", for_write=True, source=True)


def test_folders_and_listings_leave_excluded_parts_out(private: Vault) -> None:
    for folder in ("Journal", "Journal/2026", "DoorDir"):
        with pytest.raises(NoteNotFound) as missing:
            private.resolve_folder(folder)
        assert missing.value.resource == "folder"
    listed = [info.rel for info in private.iter_notes()]
    assert "Public.md" in listed
    assert not [rel for rel in listed if rel.startswith(("Journal", "DoorDir")) or rel == "Door.md"]
    unfiltered = [info.rel for info in Vault(private.root).iter_notes()]
    assert {"Journal/2026/Day.md", "Door.md", "DoorDir/2026/Day.md"} <= set(unfiltered)


def test_a_changed_path_named_by_the_feed_is_ignored_when_excluded(private: Vault) -> None:
    store = IndexStore(None, private.root, private.exclusions.fingerprint)
    conn = store.connect()
    todo, gone = sync.plan_paths(conn, private, [private.root / "Journal/2026/Day.md", private.root / "Public.md"])
    assert [info.rel for info in todo] == ["Public.md"] and gone == []
    with pytest.raises(NoteNotFound):
        private.listed_location("Door.md")  # a symlink listed before it was swapped to point inside
    assert private.listed_location("Public.md") == private.root / "Public.md"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux-only")
def test_the_change_feed_does_not_watch_excluded_folders(private: Vault) -> None:
    everything, hiding = ChangeFeed(), ChangeFeed()
    try:
        assert everything.start(private.root) and hiding.start(private.root, private.exclusions)
        # Journal, Journal/2026, and the same two again under the symlinked name DoorDir
        assert everything.folders - hiding.folders == 4
    finally:
        everything.close()
        hiding.close()


def test_an_index_built_under_other_patterns_is_rebuilt(tmp_path: Path, private: Vault) -> None:
    location = tmp_path / "index" / "index.sqlite3"
    first = IndexStore(location, private.root, "")
    first.connect().execute("INSERT INTO notes VALUES (1, 'Journal/2026/Day.md', 0, 0, '', 0, 't', '', 1)")
    first.close()
    again = IndexStore(location, private.root, "")
    assert again.connect().execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    again.close()
    changed = IndexStore(location, private.root, private.exclusions.fingerprint)
    assert changed.connect().execute("SELECT count(*) FROM notes").fetchone()[0] == 0
    changed.close()


def test_the_cli_refuses_an_invalid_pattern(vault_root: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "obsidian-mcp"), "--vault", str(vault_root), "--exclude", "!"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "OBSIDIAN_MCP_INDEX_DIR": str(tmp_path / "index")},
    )
    assert done.returncode == 2
    assert "not a valid gitignore-style pattern" in done.stderr and done.stdout == ""


def test_a_bad_character_range_is_refused_not_a_crash() -> None:
    """Regression: `[z-a]` raised `re.error` (not a ValueError) from pathspec, so `--exclude 'a/[z-a]'`
    ended start-up with a traceback instead of the message and exit code 2."""
    with pytest.raises(InvalidExclusion, match="not a valid gitignore-style pattern"):
        Exclusions(["a/[z-a]"])
