"""Disk side: atomic writes, temp files, moves that never replace, trash, reading bytes back exactly."""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path

import pytest
from obsidian_mcp.vault import storage
from obsidian_mcp.vault.errors import DocumentParseError, PathRefused


def _temp_files(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(storage.TEMP_SUFFIX)]


def test_atomic_write_keeps_the_mode(tmp_path: Path) -> None:
    note = tmp_path / "private.md"
    note.write_bytes(b"old")
    os.chmod(note, 0o600)
    storage.atomic_write(note, b"new")
    assert note.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(note).st_mode) == 0o600
    assert _temp_files(tmp_path) == []


def test_new_files_get_0o644_minus_umask(tmp_path: Path) -> None:
    old_umask = os.umask(0o027)
    try:
        storage.atomic_write(tmp_path / "new.md", b"x")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.md").st_mode) == 0o640


def test_failed_replace_leaves_the_original_and_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note = tmp_path / "n.md"
    note.write_bytes(b"original")

    def boom(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        storage.atomic_write(note, b"replacement")
    assert note.read_bytes() == b"original"
    assert sorted(os.listdir(tmp_path)) == ["n.md"]


def test_failed_write_removes_the_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        storage.atomic_write(tmp_path / "n.md", b"data")
    assert os.listdir(tmp_path) == []


def test_temp_file_names_are_hidden_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    long_name = "é" * 120 + ".md"  # 243 bytes
    storage.atomic_write(tmp_path / long_name, b"x")
    assert len(seen) == 1
    assert seen[0].startswith(".")
    assert storage.TEMP_PATTERN.match(seen[0])
    assert len(seen[0].encode("utf-8")) <= 255


def test_cleanup_stale_temp_files(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / ".obsidian").mkdir()
    stale = [tmp_path / ".a.md.0123abcd.obsidian-mcp.tmp", tmp_path / "folder" / ".b.md.deadbeef.obsidian-mcp.tmp"]
    kept = [
        tmp_path / ".obsidian" / ".c.md.0123abcd.obsidian-mcp.tmp",  # not entered
        tmp_path / "folder" / "user file.obsidian-mcp.tmp",  # not ours: not dot-prefixed
        tmp_path / "folder" / ".x.md.NOTHEX00.obsidian-mcp.tmp",
        tmp_path / "note.md",
    ]
    for path in stale + kept:
        path.write_text("x")
    assert storage.cleanup_stale_temp_files(tmp_path) == 2
    assert not any(path.exists() for path in stale)
    assert all(path.exists() for path in kept)
    fresh = tmp_path / ".d.md.0123abcd.obsidian-mcp.tmp"
    fresh.write_text("x")
    assert storage.cleanup_stale_temp_files(tmp_path, older_than=3600) == 0
    assert fresh.exists()


def test_read_text_keeps_bom_and_crlf(tmp_path: Path) -> None:
    raw = "\ufeff# Tïtle\r\nbody".encode()
    note = tmp_path / "n.md"
    note.write_bytes(raw)
    text, etag = storage.read_text(note)
    assert text == "\ufeff# Tïtle\r\nbody"
    assert etag == storage.etag_of(raw)
    storage.atomic_write(note, text.encode("utf-8"))
    assert note.read_bytes() == raw


def test_read_text_refuses_non_utf8(tmp_path: Path) -> None:
    note = tmp_path / "latin1.md"
    note.write_bytes("line one\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(DocumentParseError) as caught:
        storage.read_text(note, rel="folder/latin1.md")
    assert caught.value.line == 2
    assert caught.value.path == "folder/latin1.md"
    assert "UTF-8" in caught.value.problem


def test_etag_changes_with_content() -> None:
    assert storage.etag_of(b"a") != storage.etag_of(b"b")
    assert storage.etag_of(b"a") == storage.etag_of(b"a")


def test_move_to_trash_with_suffixes(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b", ""):
        (tmp_path / folder / "Note.md").write_text(folder or "root")
    assert storage.move_to_trash(tmp_path, tmp_path / "a" / "Note.md") == ".trash/Note.md"
    assert storage.move_to_trash(tmp_path, tmp_path / "b" / "Note.md") == ".trash/Note 1.md"
    assert storage.move_to_trash(tmp_path, tmp_path / "Note.md") == ".trash/Note 2.md"
    assert (tmp_path / ".trash" / "Note.md").read_text() == "a"
    assert (tmp_path / ".trash" / "Note 1.md").read_text() == "b"
    assert (tmp_path / ".trash" / "Note 2.md").read_text() == "root"
    assert not (tmp_path / "a" / "Note.md").exists()


def test_move_to_trash_without_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(*args: object, **kwargs: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    (tmp_path / ".trash").mkdir()
    (tmp_path / ".trash" / "N.md").write_text("older")
    (tmp_path / "N.md").write_text("newer")
    assert storage.move_to_trash(tmp_path, tmp_path / "N.md") == ".trash/N 1.md"
    assert (tmp_path / ".trash" / "N.md").read_text() == "older"


@pytest.mark.parametrize("hard_links", [True, False])
def test_moves_never_replace_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hard_links: bool) -> None:
    def no_links(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    if not hard_links:
        monkeypatch.setattr(os, "link", no_links)
    (tmp_path / "sub").mkdir()
    source, taken, free = tmp_path / "a.md", tmp_path / "b.md", tmp_path / "sub" / "c.md"
    source.write_text("a")
    taken.write_text("b")
    assert storage.move_without_replacing(source, taken) is False
    assert (source.read_text(), taken.read_text()) == ("a", "b")
    assert storage.move_without_replacing(source, free) is True
    assert not source.exists() and free.read_text() == "a"


def test_trash_symlinked_outside_is_refused(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    os.symlink(outside, vault / ".trash")
    (vault / "n.md").write_text("x")
    with pytest.raises(PathRefused):
        storage.move_to_trash(vault, vault / "n.md")
    assert (vault / "n.md").exists()
    assert os.listdir(outside) == []


def test_path_locks_serialise_and_clean_up(tmp_path: Path) -> None:
    locks = storage.PathLocks()
    inside = 0
    overlaps: list[int] = []

    def work() -> None:
        nonlocal inside
        for _ in range(50):
            with locks.hold(tmp_path / "n.md"):
                inside += 1
                overlaps.append(inside)
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(overlaps) == {1}
    assert locks._locks == {}
