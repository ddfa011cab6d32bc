"""A write interrupted by SIGKILL at a random moment never leaves a torn note."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

from tests.contract.raw import RawServer, tool_call

ITERATIONS = int(os.environ.get("CRASH_ITERATIONS", "10"))


def keep_writing(server: RawServer, versions: list[str], stop: threading.Event) -> None:
    """Overwrite the note again and again, one call at a time, until the server dies."""
    i = 0
    try:
        while not stop.is_set():
            i += 1
            server.request(tool_call(i, "write_note", {"path": "Big", "content": versions[i % 2], "mode": "overwrite"}))
    except (EOFError, OSError, TimeoutError, ValueError):
        return  # the server was killed under us: that is the point


def test_sigkill_during_overwrites_leaves_old_or_new_bytes(vault: Path) -> None:
    rng = random.Random(1234)
    versions = [("A" * 1_500_000) + "\n", ("B" * 1_200_000) + "\nend\n"]
    note = vault / "Big.md"
    note.write_text(versions[0])
    allowed = {v.encode() for v in versions}
    interrupted = 0
    for _ in range(ITERATIONS):
        server = RawServer("obsidian_mcp", ["--vault", str(vault)])
        server.initialize()
        stop = threading.Event()
        writer = threading.Thread(target=keep_writing, args=(server, versions, stop), daemon=True)
        writer.start()
        time.sleep(rng.uniform(0.2, 0.8))
        server.kill()
        stop.set()
        writer.join(timeout=20)
        assert note.read_bytes() in allowed, "a killed write left a torn note"
        interrupted += any(p.name.endswith(".tmp") for p in vault.iterdir())
    # The kills must really land inside writes (a temp file left behind), or this test proves nothing.
    assert interrupted >= 1, "no kill interrupted a write; raise CRASH_ITERATIONS or the note size"
    server = RawServer("obsidian_mcp", ["--vault", str(vault)])
    server.initialize()
    assert server.close() == 0
    assert not [p for p in vault.iterdir() if p.name.endswith(".tmp")], "stale temp files are removed at start"
