"""A write interrupted by SIGKILL at a random moment never leaves a torn note."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest

from tests.contract.raw import RawServer, tool_call

pytestmark = pytest.mark.stdio_only(reason="a SIGKILL loop through RawServer over stdio")

MIN_KILLS = int(os.environ.get("CRASH_ITERATIONS", "6"))
MAX_KILLS = max(60, MIN_KILLS)
INTERRUPTED_WANTED = 3  # kills that demonstrably landed inside a write (a temp file was left behind)


def keep_writing(server: RawServer, versions: list[str], stop: threading.Event) -> None:
    """Overwrite the note again and again, one call at a time, until the server dies."""
    i = 0
    try:
        while not stop.is_set():
            i += 1
            server.request(tool_call(i, "write_note", {"path": "Big", "content": versions[i % 2], "mode": "overwrite"}))
    except (EOFError, OSError, TimeoutError, ValueError):
        return  # the server was killed under us: that is the point


def wait_for_temp_file(folder: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not any(p.name.endswith(".tmp") for p in folder.iterdir()):
        pass


def test_sigkill_during_overwrites_leaves_old_or_new_bytes(vault: Path) -> None:
    rng = random.Random(1234)
    versions = [("A" * 1_500_000) + "\n", ("B" * 1_200_000) + "\nend\n"]
    note = vault / "Big.md"
    note.write_text(versions[0])
    allowed = {v.encode() for v in versions}
    interrupted = kills = 0
    # Where a kill lands is a matter of timing: keep killing until some kills have demonstrably
    # interrupted a write (and at least MIN_KILLS in all), so the test cannot pass vacuously.
    while kills < MIN_KILLS or (interrupted < INTERRUPTED_WANTED and kills < MAX_KILLS):
        kills += 1
        server = RawServer("obsidian_mcp", ["--vault", str(vault)])
        server.initialize()
        stop = threading.Event()
        writer = threading.Thread(target=keep_writing, args=(server, versions, stop), daemon=True)
        writer.start()
        if kills % 2:  # half the kills aim at the dangerous window: a temp file exists, the rename is pending
            wait_for_temp_file(vault, timeout=5.0)
            time.sleep(rng.uniform(0, 0.0005))
        else:  # the other half land anywhere
            time.sleep(rng.uniform(0.2, 0.8))
        server.kill()
        stop.set()
        writer.join(timeout=20)
        assert note.read_bytes() in allowed, "a killed write left a torn note"
        interrupted += any(p.name.endswith(".tmp") for p in vault.iterdir())
    # The kills must really land inside writes (a temp file left behind), or this test proves nothing.
    assert interrupted >= INTERRUPTED_WANTED, f"only {interrupted} of {kills} kills interrupted a write"
    server = RawServer("obsidian_mcp", ["--vault", str(vault)])
    server.initialize()
    assert server.close() == 0
    assert not [p for p in vault.iterdir() if p.name.endswith(".tmp")], "stale temp files are removed at start"
