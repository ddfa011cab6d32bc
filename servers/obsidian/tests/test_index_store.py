"""The index database: outside the vault, and rebuilt or replaced whenever it cannot be trusted."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from obsidian_mcp import search
from obsidian_mcp.index import store
from obsidian_mcp.index.store import SCHEMA_VERSION, default_index_dir, index_location
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.vault.errors import VaultUnavailable
from obsidian_mcp.vault.paths import Vault


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder under root (hidden ones too) with bytes and mtime."""
    out: dict[str, tuple[bytes, int]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            data = path.read_bytes() if path.is_file() else b""
            out[str(path.relative_to(root))] = (data, os.stat(path).st_mtime_ns)
    return out


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    root = tmp_path / "vault"
    (root / "Projects").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text("{}")
    (root / "Projects" / "Heron.md").write_text("# Heron\n\nThe grey heron waits.\n")
    (root / "Other.md").write_text("nothing to see\n")
    return Vault(root)


def heron(index: VaultIndex) -> list[str]:
    return [hit.path for hit in search.search_notes(index, "heron").results]


def test_the_index_lives_in_its_own_folder_and_nothing_is_written_in_the_vault(vault: Vault, tmp_path: Path) -> None:
    before = tree(vault.root)
    location = index_location(tmp_path / "cache", vault.root)
    index = VaultIndex(vault, location, rescan_seconds=0)
    assert heron(index) == ["Projects/Heron.md"]
    assert location.is_file() and not location.is_relative_to(vault.root)
    assert location.parent.parent == tmp_path / "cache" and location.parent.name.startswith("vault-")
    assert tree(vault.root) == before
    conn = sqlite3.connect(location)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT value FROM meta WHERE key = 'vault'").fetchone()[0] == str(vault.root)


def test_each_vault_gets_its_own_database(tmp_path: Path) -> None:
    a, b = index_location(tmp_path, Path("/data/a/Notes")), index_location(tmp_path, Path("/data/b/Notes"))
    assert a != b and a.parent.name.startswith("Notes-") and a.name == "index.sqlite3"
    assert "obsidian-mcp" in str(default_index_dir())


def test_an_index_folder_inside_the_vault_is_never_used(vault: Vault) -> None:
    before = tree(vault.root)
    index = VaultIndex(vault, vault.root / ".obsidian" / "index" / "index.sqlite3", rescan_seconds=0)
    assert heron(index) == ["Projects/Heron.md"]
    assert index.store.in_memory and tree(vault.root) == before


def test_garbage_in_the_database_file_is_replaced(vault: Vault, tmp_path: Path) -> None:
    location = tmp_path / "index" / "index.sqlite3"
    index = VaultIndex(vault, location, rescan_seconds=0)
    assert heron(index) == ["Projects/Heron.md"]
    location.write_bytes(b"\x00garbage" * 4096)
    assert heron(index) == ["Projects/Heron.md"]
    assert location.read_bytes().startswith(b"SQLite format 3")
    location.write_bytes(os.urandom(10_000))  # and when starting with garbage
    assert heron(VaultIndex(vault, location, rescan_seconds=0)) == ["Projects/Heron.md"]


def test_a_foreign_schema_version_or_vault_is_rebuilt(vault: Vault, tmp_path: Path) -> None:
    location = tmp_path / "index" / "index.sqlite3"
    index = VaultIndex(vault, location, rescan_seconds=0)
    assert heron(index) == ["Projects/Heron.md"]
    other = sqlite3.connect(location)
    other.execute("PRAGMA user_version = 999")
    other.close()
    assert heron(index) == ["Projects/Heron.md"]
    other = sqlite3.connect(location)
    assert other.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    other.execute("UPDATE meta SET value = '/somewhere/else' WHERE key = 'vault'")
    other.commit()
    other.close()
    assert heron(VaultIndex(vault, location, rescan_seconds=0)) == ["Projects/Heron.md"]


def test_an_unrelated_sqlite_file_is_rebuilt(vault: Vault, tmp_path: Path) -> None:
    location = tmp_path / "index" / "index.sqlite3"
    location.parent.mkdir()
    other = sqlite3.connect(location)
    other.execute("CREATE TABLE notes(x)")
    other.commit()
    other.close()
    assert heron(VaultIndex(vault, location, rescan_seconds=0)) == ["Projects/Heron.md"]


def test_a_deleted_database_is_recreated(vault: Vault, tmp_path: Path) -> None:
    location = tmp_path / "index" / "index.sqlite3"
    index = VaultIndex(vault, location, rescan_seconds=0)
    assert heron(index) == ["Projects/Heron.md"]
    for suffix in ("", "-wal", "-shm"):
        Path(f"{location}{suffix}").unlink(missing_ok=True)
    assert heron(index) == ["Projects/Heron.md"]
    assert location.exists()


def test_a_database_locked_by_another_process_falls_back_to_memory(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "BUSY_TIMEOUT_SECONDS", 0.05)
    location = tmp_path / "index" / "index.sqlite3"
    assert heron(VaultIndex(vault, location, rescan_seconds=0)) == ["Projects/Heron.md"]
    holder = sqlite3.connect(location, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        (vault.root / "New.md").write_text("a heron again\n")
        index = VaultIndex(vault, location, rescan_seconds=0)
        assert sorted(heron(index)) == ["New.md", "Projects/Heron.md"]
        assert index.store.in_memory
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_an_unusable_index_folder_falls_back_to_memory(vault: Vault, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    index = VaultIndex(vault, blocker / "index" / "index.sqlite3", rescan_seconds=0)
    assert heron(index) == ["Projects/Heron.md"]
    assert index.store.in_memory


def test_a_vanished_vault_is_unavailable_not_an_index_problem(vault: Vault, tmp_path: Path) -> None:
    index = VaultIndex(vault, tmp_path / "index" / "index.sqlite3", rescan_seconds=3600)
    assert heron(index) == ["Projects/Heron.md"]
    vault.root.rename(tmp_path / "moved")
    with pytest.raises(VaultUnavailable):
        search.search_notes(index, "heron")
