"""The inotify change feed: other programs' edits are in the very next search, without listing.

Every index here lists the vault at most once an hour (`rescan_seconds=3600`), so only the feed
can explain that a change made a moment before a search is reflected in it.
"""

from __future__ import annotations

import errno
import logging
import os
import random
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from obsidian_mcp import search
from obsidian_mcp.index import sync, watch
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.index.watch import IN_MOVED_TO, IN_Q_OVERFLOW, ChangeFeed
from obsidian_mcp.vault.paths import NoteInfo, Vault

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux-only")

Make = Callable[..., VaultIndex]


def put(path: Path, text: str) -> None:
    """Write the way another program would: plain open/write, no help from the server."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def found(index: VaultIndex, query: str) -> list[str]:
    return sorted(hit.path for hit in search.search_notes(index, query, limit=100).results)


def indexed(index: VaultIndex) -> dict[str, tuple[float, int]]:
    rows = index.run(lambda snapshot: snapshot.conn.execute("SELECT path, mtime, size FROM notes").fetchall())
    return {path: (mtime, size) for path, mtime, size in rows}


def listed(index: VaultIndex) -> dict[str, tuple[float, int]]:
    return {info.rel: (info.mtime, info.size) for info in index.vault.iter_notes()}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    (folder / "Projects").mkdir(parents=True)
    put(folder / "Projects" / "Heron.md", "# Heron\n\nA grey heron by the pond.\n")
    put(folder / "Inbox.md", "plain words\n")
    return folder


@pytest.fixture
def make_index(root: Path, tmp_path: Path) -> Iterator[Make]:
    made: list[VaultIndex] = []

    def make(**options: object) -> VaultIndex:
        options.setdefault("rescan_seconds", 3600)
        index = VaultIndex(Vault(root), tmp_path / f"index{len(made)}" / "index.sqlite3", **options)  # type: ignore[arg-type]
        made.append(index)
        return index

    yield make
    for index in made:
        index.close()


@pytest.fixture
def index(make_index: Make) -> VaultIndex:
    index = make_index()
    assert found(index, "heron") == ["Projects/Heron.md"]
    assert index.feed is not None and index.feed.active
    return index


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts full listings (calls of `sync.plan_full`)."""
    calls: list[int] = []
    real = sync.plan_full

    def counted(*args: Any) -> tuple[list[NoteInfo], list[str]]:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(sync, "plan_full", counted)
    return calls


def test_created_changed_and_deleted_notes_are_in_the_next_search(root: Path, index: VaultIndex) -> None:
    put(root / "Bay.md", "an osprey over the bay\n")
    assert found(index, "osprey") == ["Bay.md"]
    put(root / "Bay.md", "a kestrel now\n")
    assert found(index, "osprey") == []
    assert found(index, "kestrel") == ["Bay.md"]
    os.remove(root / "Bay.md")
    assert found(index, "kestrel") == []
    assert indexed(index) == listed(index)


def test_a_rename_moves_the_note_in_the_index(root: Path, index: VaultIndex) -> None:
    os.rename(root / "Projects" / "Heron.md", root / "Projects" / "Egret.md")
    assert found(index, "heron") == ["Projects/Egret.md"]
    os.rename(root / "Projects" / "Egret.md", root / "Egret.md")  # to another watched folder
    assert found(index, "heron") == ["Egret.md"]


def test_an_atomic_replace_through_a_temp_file_is_seen(root: Path, index: VaultIndex) -> None:
    put(root / ".Inbox.md.tmp", "swapped in atomically\n")
    os.replace(root / ".Inbox.md.tmp", root / "Inbox.md")
    assert found(index, "atomically") == ["Inbox.md"]


def test_a_new_folder_and_its_notes_are_watched(root: Path, index: VaultIndex) -> None:
    os.makedirs(root / "Areas" / "Garden")
    put(root / "Areas" / "Garden" / "Compost.md", "compost heap\n")
    assert found(index, "compost") == ["Areas/Garden/Compost.md"]
    put(root / "Areas" / "Garden" / "Beans.md", "runner beans\n")  # the new folder is watched now
    assert found(index, "beans") == ["Areas/Garden/Beans.md"]


def test_a_note_moved_into_a_new_subfolder_is_found_there(root: Path, index: VaultIndex) -> None:
    os.makedirs(root / "Archive" / "2026")
    os.rename(root / "Inbox.md", root / "Archive" / "2026" / "Inbox.md")
    assert found(index, "plain") == ["Archive/2026/Inbox.md"]
    put(root / "Archive" / "2026" / "Inbox.md", "edited in its new place\n")
    assert found(index, "edited") == ["Archive/2026/Inbox.md"]


def test_renamed_and_deleted_folders_are_reflected(root: Path, index: VaultIndex) -> None:
    os.rename(root / "Projects", root / "Work")
    assert found(index, "heron") == ["Work/Heron.md"]
    put(root / "Work" / "Heron.md", "a heron, edited after the folder moved\n")
    assert found(index, "edited") == ["Work/Heron.md"]
    shutil.rmtree(root / "Work")
    assert found(index, "heron") == []
    assert indexed(index) == listed(index)


def test_a_touch_alone_updates_the_stored_mtime(root: Path, index: VaultIndex) -> None:
    os.utime(root / "Inbox.md", (1_700_000_000, 1_700_000_000))
    found(index, "plain")
    assert indexed(index)["Inbox.md"][0] == 1_700_000_000


def test_dot_folders_temp_files_and_other_files_never_show_up(
    root: Path, index: VaultIndex, listings: list[int]
) -> None:
    os.makedirs(root / ".obsidian")
    put(root / ".obsidian" / "x.md", "zanzibar hidden\n")
    put(root / ".Inbox.md.1a2b3c4d.obsidian-mcp.tmp", "zanzibar temp\n")
    put(root / "Projects" / "notes.txt", "zanzibar text\n")
    put(root / "Projects" / "Heron.md~", "zanzibar backup\n")
    assert found(index, "zanzibar") == []
    assert listings == []  # none of it needed a listing either


def test_a_symlinked_folder_is_fresh_under_both_names(root: Path, make_index: Make) -> None:
    os.symlink("Projects", root / "Alias")
    index = make_index()
    assert found(index, "heron") == ["Alias/Heron.md", "Projects/Heron.md"]
    put(root / "Projects" / "Stork.md", "a white stork\n")
    assert found(index, "stork") == ["Alias/Stork.md", "Projects/Stork.md"]
    os.remove(root / "Alias")
    assert found(index, "stork") == ["Projects/Stork.md"]


def test_an_unchanged_vault_is_never_listed_again(index: VaultIndex, listings: list[int], root: Path) -> None:
    for _ in range(20):
        assert found(index, "heron") == ["Projects/Heron.md"]
    assert listings == []  # the first (and only) listing ran in the fixture
    put(root / "Inbox.md", "one edit\n")
    assert found(index, "edit") == ["Inbox.md"]
    assert listings == []


def test_exactly_one_listing_across_twenty_searches(make_index: Make, listings: list[int]) -> None:
    index = make_index()
    for _ in range(20):
        found(index, "heron")
    assert listings == [1]


def test_when_the_feed_cannot_tell_the_vault_is_listed(
    root: Path, index: VaultIndex, listings: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert index.feed is not None
    monkeypatch.setattr(index.feed, "drain", lambda: None)  # as after IN_Q_OVERFLOW
    os.remove(root / "Inbox.md")
    put(root / "Projects" / "Crane.md", "a crane\n")
    assert found(index, "crane") == ["Projects/Crane.md"]
    assert listings == [1]
    assert indexed(index) == listed(index)


def test_a_queue_overflow_rewatches_and_asks_for_a_listing(root: Path) -> None:
    feed = ChangeFeed()
    assert feed.start(root)
    try:
        assert feed._inotify is not None
        real_read = feed._inotify.read
        overflow = [(-1, IN_Q_OVERFLOW, 0, "")]
        feed._inotify.read = lambda timeout=None: overflow + list(real_read(timeout))  # type: ignore[method-assign]
        assert feed.drain() is None
        feed._inotify.read = real_read  # type: ignore[method-assign]
        assert feed.drain() == set() and feed.active
        put(root / "Inbox.md", "still watched\n")
        assert feed.drain() == {"Inbox.md"}
    finally:
        feed.close()
    assert feed.drain() is None and not feed.active


def test_an_unknown_watch_or_a_new_folder_asks_for_a_listing(root: Path) -> None:
    feed = ChangeFeed()
    assert feed.start(root)
    try:
        assert feed._inotify is not None
        os.makedirs(root / "New")
        assert feed.drain() is None
        put(root / "New" / "Inside.md", "watched now\n")
        assert feed.drain() == {"New/Inside.md"}
        os.makedirs(root / ".trash")
        assert feed.drain() == set()  # a dot-folder is never indexed: nothing to list
        real_read = feed._inotify.read
        feed._inotify.read = lambda timeout=None: [(987_654, IN_MOVED_TO, 0, "x.md")]  # type: ignore[method-assign]
        assert feed.drain() is None
        feed._inotify.read = real_read  # type: ignore[method-assign]
        assert feed.drain() == set()
    finally:
        feed.close()


def test_listing_before_every_call_still_works_with_the_feed(make_index: Make, listings: list[int]) -> None:
    index = make_index(rescan_seconds=0)
    for _ in range(3):
        found(index, "heron")
    assert index.feed is not None and index.feed.active
    assert listings == [1, 1, 1]


def test_without_inotify_the_index_lists_periodically(
    root: Path, make_index: Make, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import inotify_simple

    def no_room(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(inotify_simple, "INotify", no_room)
    caplog.set_level(logging.WARNING, logger="obsidian_mcp.index")
    index = make_index(rescan_seconds=0)
    assert found(index, "heron") == ["Projects/Heron.md"]
    assert index.feed is None
    put(root / "Osprey.md", "an osprey\n")
    os.rename(root / "Projects", root / "Work")
    assert found(index, "osprey") == ["Osprey.md"]
    assert found(index, "heron") == ["Work/Heron.md"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "max_user_watches" in warnings[0].reason  # type: ignore[attr-defined]


def test_the_default_interval_without_the_feed_is_two_seconds(
    make_index: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ChangeFeed, "start", lambda self, root, exclusions=None: False)
    index = make_index(rescan_seconds=None)
    found(index, "heron")
    assert index.feed is None and index._interval() == 2.0
    assert make_index(rescan_seconds=None, watch=True)._interval() == 300.0  # before its first call


def test_the_watch_limit_hit_later_falls_back_to_listing(
    root: Path, index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    feed = index.feed
    assert feed is not None and feed._inotify is not None
    real_add = feed._inotify.add_watch

    def limited(path: Path, mask: int) -> int:
        if Path(path).name == "Full":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_add(path, mask)

    monkeypatch.setattr(feed._inotify, "add_watch", limited)
    os.makedirs(root / "Full")
    put(root / "Full" / "Wren.md", "a wren\n")
    assert found(index, "wren") == ["Full/Wren.md"]  # the failed re-watch asked for a listing
    assert index.feed is None and not feed.active


def test_a_remote_file_system_gets_no_feed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "remote_fs_type", lambda path: "nfs4")
    assert not ChangeFeed().start(root)


def test_the_mount_holding_a_path_is_the_innermost_one() -> None:
    mountinfo = [
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
        "40 22 0:40 / /mnt/my\\040notes rw shared:20 - nfs4 server:/notes rw",
        "41 22 0:41 / /mnt/my rw shared:21 - fuse.sshfs host: rw",
    ]
    assert watch.mount_type("/mnt/my notes/Vault", mountinfo) == "nfs4"
    assert watch.mount_type("/mnt/my/Vault", mountinfo) == "fuse.sshfs"
    assert watch.mount_type("/mnt/mynotes", mountinfo) == "ext4"
    assert watch.mount_type("/odd\\040name/v", ["1 0 8:1 / /odd\\134040name rw - btrfs x rw"]) == "btrfs"


def test_random_edits_by_other_programs_keep_the_index_exact(root: Path, index: VaultIndex) -> None:
    rng = random.Random(6)
    folders = ["", "Projects", "A", "A/B", ".hidden"]
    for step in range(200):
        folder = root / rng.choice(folders)
        notes = [p for p in root.rglob("*.md") if ".hidden" not in p.parts]
        action = rng.random()
        if action < 0.35 or not notes:
            folder.mkdir(parents=True, exist_ok=True)
            put(folder / f"N{step}.md", f"word{step}\n")
        elif action < 0.55:
            put(rng.choice(notes), f"rewritten{step}\n")
        elif action < 0.7:
            os.remove(rng.choice(notes))
        elif action < 0.85:
            folder.mkdir(parents=True, exist_ok=True)
            os.rename(rng.choice(notes), folder / f"R{step}.md")
        elif action < 0.93 and (root / "A").exists():
            os.rename(root / "A", root / f"A{step}")
            folders.append(f"A{step}")
        elif folder != root:
            shutil.rmtree(folder, ignore_errors=True)
        if step % 3 == 0:
            assert indexed(index) == listed(index), step
    assert indexed(index) == listed(index)


def test_plan_paths_judges_each_path_as_the_listing_would(root: Path, index: VaultIndex) -> None:
    os.makedirs(root / ".obsidian")
    put(root / ".obsidian" / "x.md", "hidden\n")
    put(root / ".Inbox.md.1a2b3c4d.obsidian-mcp.tmp", "temp\n")
    put(root / "Projects" / "notes.txt", "text\n")
    put(Path(os.fsdecode(bytes(root / "Projects") + b"/bad\xff.md")), "not utf-8\n")
    os.makedirs(root / "Folder.md")
    put(root / "New.md", "new\n")
    os.remove(root / "Inbox.md")
    candidates = [p for p in root.rglob("*") if p.name != "Projects"] + [root / "Inbox.md", root / "Gone" / "X.md"]
    todo, gone = index.run(lambda snapshot: sync.plan_paths(snapshot.conn, index.vault, candidates))
    assert sorted(info.rel for info in todo) == ["New.md", "Projects/Heron.md"]
    assert sorted(gone) == ["Folder.md", "Gone/X.md", "Inbox.md"]
    assert {info.rel for info in index.vault.iter_notes()} == {"New.md", "Projects/Heron.md"}
