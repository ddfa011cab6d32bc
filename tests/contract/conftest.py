from __future__ import annotations

import json
import os
import shutil
import zlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest
from gmail_emulator import Emulator

from tests.contract.harness import SAMPLE_VAULT, TRANSPORT, SharedObsidian, SharedObsidianPool, tree_state


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--http-all", action="store_true", help="the HTTP pass runs every contract test, not the sample")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "stdio_only(reason): stdio-specific; skipped when CONTRACT_TRANSPORT=http")
    config.addinivalue_line(
        "markers", "transport_independent(reason): starts no server through `running`; runs in the stdio pass only"
    )


# The HTTP pass (tests/contract/README.md): every test of the files that are about the transport itself, and a
# fixed quarter of the rest, chosen by a stable hash of the test's id, so that it is the same sample every run.
TRANSPORT_FILES = frozenset(
    {
        "test_http_answers.py",
        "test_http_auth.py",
        "test_http_lifecycle.py",
        "test_http_tools.py",
        "test_wire.py",
        "test_logging.py",
        "test_lean_and_private.py",
        "test_ts_sdk_interop.py",
        "test_gmail_guard_contract.py",  # elicitation rides the HTTP response stream
        "test_obsidian_vaults_contract.py",  # issue 27: one server with two vaults on both transports
    }
)
HTTP_SAMPLE_EVERY = 4


def in_http_pass(item: pytest.Item) -> bool:
    return item.path.name in TRANSPORT_FILES or zlib.crc32(item.nodeid.encode()) % HTTP_SAMPLE_EVERY == 0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the HTTP pass, leave out what the sample does not hold, and skip what cannot or need not run again,
    with the test's own reason."""
    if TRANSPORT != "http":
        return
    if not config.getoption("--http-all"):
        kept = [item for item in items if in_http_pass(item)]
        config.hook.pytest_deselected(items=[item for item in items if not in_http_pass(item)])
        items[:] = kept
    for item in items:
        for name in ("stdio_only", "transport_independent"):
            marker = item.get_closest_marker(name)
            if marker is not None:
                reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else name)
                item.add_marker(pytest.mark.skip(reason=f"{name}: {reason}"))
                break


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Path]:
    """A private copy of the sample vault: tests may change it freely."""
    target = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, target, symlinks=True)
    yield target


@pytest.fixture(scope="session")
async def _shared_obsidian_pool(
    anyio_backend: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[SharedObsidianPool]:
    """The per-process home of `shared_obsidian`'s server: started on first use, stopped at the session's end."""
    async with anyio.create_task_group() as task_group:
        pool = SharedObsidianPool(task_group, lambda: tmp_path_factory.mktemp("shared-obsidian"))
        yield pool
        await pool.discard()
    failures = pool.take_errors()
    assert not failures, f"a shared obsidian-mcp failed: {failures!r}"


@pytest.fixture
async def shared_obsidian(_shared_obsidian_pool: SharedObsidianPool) -> AsyncIterator[SharedObsidian]:
    """An obsidian-mcp on the sample vault that this test SHARES with other read-only tests (README.md, "Sharing a
    server"): only for tests that change nothing, neither in the vault nor in the server (no writes, no other
    flags or environment, no reliance on a fresh index). The guard: after the test, the vault must be exactly as
    before (every path, byte, mode and mtime) and the server must still answer a ping; if not, the test fails
    and the server is replaced, so that no later test sees the change."""
    shared = await _shared_obsidian_pool.get()
    before = tree_state(shared.vault)
    yield shared
    changed = tree_state(shared.vault) != before
    try:
        with anyio.fail_after(30):
            await shared.session.client.send_ping()
        alive = True
    except Exception:
        alive = False
    if changed or not alive:
        await _shared_obsidian_pool.discard()
    failures = _shared_obsidian_pool.take_errors()
    assert not failures, f"the shared obsidian-mcp failed: {failures!r}"
    assert not changed, "this test changed the shared vault: give it `vault` and `running` of its own instead"
    assert alive, "the shared obsidian-mcp no longer answers after this test"


@pytest.fixture
def index_env(tmp_path: Path) -> dict[str, str]:
    """An obsidian-mcp environment whose index lives in the test's own folder."""
    return {"OBSIDIAN_MCP_INDEX_DIR": str(tmp_path / "index")}


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    """The in-repo Gmail API emulator with its seeded mailbox, on 127.0.0.1."""
    with Emulator() as emu:
        yield emu


@pytest.fixture
def gmail_env(emulator: Emulator, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Environment for a gmail-mcp talking to the emulator with a fresh gmail.modify token (mode 0600)."""
    emulator.clear_faults()
    token_file = tmp_path / "config" / "token.json"
    token_file.parent.mkdir(mode=0o700)
    token_file.write_text(json.dumps(emulator.issue_token()))
    os.chmod(token_file, 0o600)
    yield {
        "GMAIL_MCP_TOKEN_FILE": str(token_file),
        "GMAIL_MCP_TOKEN_DIR": str(tmp_path / "config" / "tokens"),  # more accounts: none unless a test adds one
        "GMAIL_MCP_API_ENDPOINT": emulator.base_url,
        "GMAIL_MCP_DOWNLOAD_DIR": str(tmp_path / "downloads"),
        "GMAIL_MCP_BACKOFF_SECONDS": "0.01",
        "GMAIL_MCP_TIMEOUT_SECONDS": "5",
        "GMAIL_MCP_AUDIT_LOG": str(tmp_path / "state" / "audit.jsonl"),
        # The send guard asks nothing here: these tests send to made-up addresses through clients that cannot
        # answer. test_gmail_guard_contract.py sets the default (new-recipients) and answers as the person.
        "GMAIL_MCP_CONFIRM": "never",
    }
    emulator.clear_faults()
