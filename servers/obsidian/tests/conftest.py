"""Shared fixtures for the obsidian-mcp tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from obsidian_mcp.server import Config, build_server
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks

# -- vault fixtures -----------------------------------------------------------------------------


@pytest.fixture
def vault_root(tmp_path: Path) -> Path:
    """A small vault with hostile neighbours.

    tmp/
      vault/            Note.md, folder/Sub.md, dot-folders, symlinks in and out
      vault-evil/       a sibling whose name starts with the vault's name
      outside/          secrets that must never be read or changed
    """
    root = tmp_path / "vault"
    (root / "folder").mkdir(parents=True)
    (root / "Note.md").write_text("# Note\n\nHello\n", encoding="utf-8")
    (root / "folder" / "Sub.md").write_text("sub\n", encoding="utf-8")
    for hidden in (".obsidian", ".git", ".trash", ".x"):
        (root / hidden).mkdir()
        (root / hidden / "secret.md").write_text("hidden\n", encoding="utf-8")
    (root / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    (root / ".git" / "config").write_text("[core]\n", encoding="utf-8")

    evil = tmp_path / "vault-evil"
    evil.mkdir()
    (evil / "x.md").write_text("evil\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("outside secret\n", encoding="utf-8")

    os.symlink(outside / "secret.md", root / "link-out.md")
    os.symlink(outside, root / "linkdir-out")
    os.symlink("../vault-evil", root / "evil-rel")
    os.symlink("folder/Sub.md", root / "alias.md")
    os.symlink("folder", root / "aliasdir")
    os.symlink(".obsidian", root / "to-hidden")
    return root


@pytest.fixture
def vault(vault_root: Path) -> Vault:
    return Vault(vault_root)


@pytest.fixture
def vault_locks() -> PathLocks:
    return PathLocks()


Snapshot = dict[str, tuple[bytes, int, int]]


def _snapshot(tmp_path: Path, vault_dir: Path | None) -> Snapshot:
    """Bytes, mtime and mode of everything under tmp_path (except `vault_dir` when given)."""
    state: dict[str, tuple[bytes, int, int]] = {}
    for folder, dirs, files in os.walk(tmp_path):
        current = Path(folder)
        if current == vault_dir:
            dirs[:] = []
            continue
        for name in sorted(dirs + files):
            path = current / name
            if path == vault_dir:
                continue
            info = os.lstat(path)
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            state[str(path.relative_to(tmp_path))] = (data, info.st_mtime_ns, info.st_mode)
    return state


@pytest.fixture
def vault_outside_state(tmp_path: Path, vault_root: Path) -> Callable[[], Snapshot]:
    """Call it before and after an operation: equal results mean nothing outside the vault changed."""
    return lambda: _snapshot(tmp_path, vault_root)


@pytest.fixture
def vault_tree_state(tmp_path: Path, vault_root: Path) -> Callable[[], Snapshot]:
    """Like `vault_outside_state` but including the vault (and its hidden folders)."""
    return lambda: _snapshot(tmp_path, None)


@pytest.fixture
def vault_access_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Records every path opened or listed through `os` while the test runs."""
    seen: list[str] = []
    real_open, real_listdir, real_scandir = os.open, os.listdir, os.scandir

    def spy_open(path: Any, *args: Any, **kwargs: Any) -> int:
        seen.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    def spy_listdir(path: Any = ".") -> list[str]:
        seen.append(os.fspath(path))
        return real_listdir(path)

    def spy_scandir(path: Any = ".") -> Any:
        seen.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "open", spy_open)
    monkeypatch.setattr(os, "listdir", spy_listdir)
    monkeypatch.setattr(os, "scandir", spy_scandir)
    yield seen


# -- wire snapshots (test_wire_snapshots.py, test_wire_errors.py) -------------------------------

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "vault"
# The parts of the sample vault the wire snapshots were taken on. Search scores depend on every note
# (BM25), so notes added to the sample vault later stay out: they would change scores, not shapes.
SNAPSHOT_PARTS = (".obsidian", "Areas", "Daily", "People", "Projects", "Resources", "Templates", "Home.md", "Inbox.md")


def _sample_copy(folder: Path) -> Path:
    root = folder / "vault"
    root.mkdir()
    for name in SNAPSHOT_PARTS:
        if (SAMPLE / name).is_dir():
            shutil.copytree(SAMPLE / name, root / name, symlinks=True)
        else:
            shutil.copy2(SAMPLE / name, root / name)
    return root


@asynccontextmanager
async def _connected(vault: Path, index_dir: Path, *, read_only: bool = False) -> AsyncIterator[Client]:
    server = build_server(Config.one_vault(vault, index_dir=index_dir, read_only=read_only))
    async with Client(server, mode="legacy") as client:  # initialize handshake + JSON-RPC, like stdio
        yield client


@pytest.fixture(scope="session")
def sample_copy() -> Callable[[Path], Path]:
    """`sample_copy(folder)` → `folder/vault`, a copy of the sample vault's parts the snapshots were taken on."""
    return _sample_copy


@pytest.fixture(scope="session")
def connected() -> Callable[..., AbstractAsyncContextManager[Client]]:
    """`connected(vault, index_dir, read_only=False)` → a client of a server built on `vault`, in process."""
    return _connected
