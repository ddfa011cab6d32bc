"""The index built in the background: answers during the build, freshness, waiting tools, stopping.

A generated vault of 1,200 small notes (more than `build.PARTIAL_MIN`) is built by `VaultIndex.start`
on one thread (`workers=0`), and `Gate` holds the build once it has *read* its third batch of 200
notes, before writing it: the index then holds exactly the first 400 notes (folders F00 to F03,
in path order), batch 3 (F04, F05) is read but not written, and F06 on are not read yet. Every wait
is on an event or a condition polled with a deadline. The worker processes' path is checked in a
fresh interpreter (forking is only done on a process's only thread).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import anyio
import anyio.to_thread
import pytest
from mcp import Client
from mcp_types import TextContent
from obsidian_mcp import search
from obsidian_mcp.dataview.pages.dql import query_notes
from obsidian_mcp.dataview.pages.vault_pages import VaultPages
from obsidian_mcp.index import build, early, pending, sync, vault_index
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.pool import open_pool
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.links import tags
from obsidian_mcp.links.results import TagsResult
from obsidian_mcp.search.results import SearchResult
from obsidian_mcp.semantic import HashingEmbedder
from obsidian_mcp.server import Assembled, Config, assemble
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.paths import NoteInfo, Vault

NOTES = 1200
FOLDERS = 12  # 100 notes a folder: batches of 200 are two folders each
PAST = time.time() - 3600  # old enough that no note counts as "racy"
DEADLINE = 30.0

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the change feed is Linux-only")


def rel(n: int) -> str:
    return f"F{n % FOLDERS:02d}/note {n:04d}.md"


def text(n: int, extra: str = "") -> str:
    return (
        f"# Note {n}\n\nThe lighthouse keeper wrote entry code{n}x.{extra}\n\n#shift{n % 5}\n"
        f"watch:: {n % 3}\n- [ ] log {n} [due:: 2026-01-0{n % 9 + 1}]\n"
    )


def put(path: Path, content: str) -> None:
    """Write as another program would: plain open/write, no help from the server."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    for n in range(NOTES):
        path = folder / rel(n)
        put(path, text(n))
        os.utime(path, (PAST, PAST))
    return folder


class Gate:
    """Holds the build after it has read its `at`-th batch, until `release` (or the test's end)."""

    opened: ClassVar[list[Gate]] = []

    def __init__(self, monkeypatch: pytest.MonkeyPatch, at: int = 3, fail: BaseException | None = None) -> None:
        self.reached = threading.Event()
        self.released = threading.Event()
        self.batches = 0
        Gate.opened.append(self)
        real = sync.read_notes

        def gated(vault: Vault, batch: list[tuple[NoteInfo, str | None]]) -> list[sync.NoteRead]:
            reads = real(vault, batch)
            if threading.current_thread().name == "index-build":
                self.batches += 1
                if self.batches == at:
                    self.reached.set()
                    assert self.released.wait(DEADLINE)
                    if fail is not None:
                        raise fail
            return reads

        monkeypatch.setattr(sync, "read_notes", gated)

    def wait(self) -> None:
        assert self.reached.wait(DEADLINE), "the build never reached the gate"

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[list[VaultIndex]]:
    made: list[VaultIndex] = []
    yield made
    for gate in Gate.opened:  # a failed test must not leave a build held
        gate.release()
    Gate.opened.clear()
    for index in made:
        index.close()


@pytest.fixture
def make_index(root: Path, tmp_path: Path, opened: list[VaultIndex]) -> Callable[..., VaultIndex]:
    def make(**options: Any) -> VaultIndex:
        options.setdefault("workers", 0)
        options.setdefault("semantic", False)
        options.setdefault("rescan_seconds", 3600)
        index = VaultIndex(Vault(root), tmp_path / "index" / "index.sqlite3", **options)
        opened.append(index)
        return index

    return make


def found(index: VaultIndex, query: str) -> SearchResult:
    return search.search_notes(index, query, limit=100)


def found_paths(index: VaultIndex, query: str) -> set[str]:
    return {hit.path for hit in found(index, query).results}


def building(result: SearchResult) -> tuple[int, int] | None:
    codes = [warning.code for warning in result.warnings]
    if not codes:
        return None
    assert codes == ["INDEX_BUILDING"], codes  # one warning, whatever else is building
    extra = result.warnings[0].model_extra or {}
    return extra["done"], extra["total"]


def until_built(index: VaultIndex) -> SearchResult:
    """Wait for the build (a call that waits for it, as `list_tags` does), then search."""
    index.run(lambda snapshot: None)
    result = found(index, "lighthouse")
    assert building(result) is None
    return result


def build_threads() -> list[threading.Thread]:
    """The build threads still running, once those ending have ended (polled, with a deadline)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        running = [thread for thread in threading.enumerate() if thread.name == "index-build"]
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.01)


# -- answering during the build ---------------------------------------------------------------------


PLANTED = {2: "F02", 14: "F02", 7: "F07", 500: "F08", NOTES - 1: "F11"}  # indexed (F00-F03) and not


def plant(root: Path) -> None:
    """A cormorant in notes of the part the gate lets the build index, and of the rest."""
    for n in PLANTED:
        path = root / rel(n)
        put(path, text(n, " A cormorant sings at dawn."))
        os.utime(path, (PAST, PAST))


def shown(result: SearchResult) -> dict[str, dict[str, Any]]:
    """Each hit's fields by path, all but the score (BM25 weighs a term by the notes indexed)."""
    return {hit.path: hit.model_dump(exclude={"score"}) for hit in result.results}


def test_a_search_during_the_build_finds_every_note_indexed_or_not(
    root: Path, make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert NOTES >= build.PARTIAL_MIN  # large enough to answer during the build
    plant(root)
    gate = Gate(monkeypatch)
    index = make_index()
    index.start()
    gate.wait()
    seen: list[tuple[int, int]] = []
    during = search.search_notes(index, "cormorant", limit=100, progress=lambda d, t: seen.append((d, t)))
    assert during.warnings == [] and seen == []  # complete: no INDEX_BUILDING, nothing to wait for
    assert {hit.path for hit in during.results} == {rel(n) for n in PLANTED} and during.total == len(PLANTED)
    assert all(hit.score > 0 and hit.match == "words" and hit.line == 3 for hit in during.results)
    assert found(index, "lighthouse").total == NOTES  # a common word: every note counted, indexed or not
    for n in (3, 7, NOTES - 2):  # a word of one note, in the indexed part and in the rest
        assert [hit.path for hit in search.search_notes(index, f"code{n}x", mode="keyword").results] == [rel(n)]
    tagged = search.search_notes(index, "cormorant", tags=["shift2"], limit=100)
    assert {hit.path for hit in tagged.results} == {rel(2), rel(7)} and tagged.total == 2
    in_folder = search.search_notes(index, "cormorant", folder="F08", limit=100)
    assert [hit.path for hit in in_folder.results] == [rel(500)] and in_folder.total == 1
    hybrid = search.search_notes(index, "cormorant", limit=100, mode="hybrid")
    assert [w.code for w in hybrid.warnings] == ["SEMANTIC_NOT_READY"]  # the vectors come after the build
    assert shown(hybrid) == shown(during)

    gate.release()
    complete = until_built(index)
    assert complete.total == NOTES and complete.warnings == []
    after = search.search_notes(index, "cormorant", limit=100)
    assert shown(after) == shown(during) and after.total == len(PLANTED)  # the same fields as once built
    assert build_threads() == []


def test_a_search_answers_flagged_only_when_the_pending_notes_cannot_be_read_in_time(
    make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vault_index, "SEARCH_WAIT", 0.0)  # a vault too large to read in time, in effect
    added = threading.Event()  # the first chunk of pending notes is searchable
    release = threading.Event()
    real_read, real_add = pending.PendingNotes.read, pending.PendingNotes.add

    def held(vault: Vault, infos: Sequence[NoteInfo]) -> list[tuple[NoteInfo, str]]:
        if infos[0].rel > rel(0):  # every chunk but the first waits
            assert release.wait(DEADLINE)
        return real_read(vault, infos)

    def add(self: pending.PendingNotes, read: Sequence[tuple[NoteInfo, str]], written: Any) -> None:
        real_add(self, read, written)
        added.set()

    monkeypatch.setattr(pending.PendingNotes, "read", staticmethod(held))
    monkeypatch.setattr(pending.PendingNotes, "add", add)
    index = make_index()
    try:
        index.start()
        assert added.wait(DEADLINE)
        seen: list[tuple[int, int]] = []
        flagged = search.search_notes(index, "lighthouse", limit=100, progress=lambda d, t: seen.append((d, t)))
        assert building(flagged) == (pending.FILL_CHUNK, NOTES)  # searchable so far: the first chunk
        assert flagged.total == pending.FILL_CHUNK and seen == [(pending.FILL_CHUNK, NOTES)]
    finally:
        release.set()
    assert until_built(index).total == NOTES


def test_a_small_build_is_waited_for_even_in_the_background(tmp_path: Path, opened: list[VaultIndex]) -> None:
    small = tmp_path / "small"
    for n in range(50):
        put(small / rel(n), text(n))
    index = VaultIndex(Vault(small), tmp_path / "small-index" / "index.sqlite3", workers=0, semantic=False)
    opened.append(index)
    index.start()
    result = found(index, "lighthouse")
    assert result.total == 50 and result.warnings == []


def test_query_notes_waits_for_a_build_that_ends_in_time_with_progress(
    make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    index = make_index()
    pages = VaultPages(index)
    index.start()
    gate.wait()
    waiting = threading.Event()
    real = VaultIndex._goes_ahead

    def spied(self: VaultIndex, *args: Any) -> float | None:
        later = real(self, *args)
        if later != 0.0:
            waiting.set()
        return later

    monkeypatch.setattr(VaultIndex, "_goes_ahead", spied)
    seen: list[tuple[int, int]] = []
    answers: list[Any] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            query_notes(pages, "LIST FROM #shift0", limit=1000, progress=lambda d, t: seen.append((d, t)))
        )
    )
    thread.start()
    assert waiting.wait(DEADLINE)  # the build will end in time: the query waits for it
    gate.release()
    thread.join(DEADLINE)
    [complete] = answers
    assert complete.total == NOTES // 5 and complete.warnings == []
    assert (NOTES, NOTES) in seen  # and told how far the build got meanwhile


def test_query_notes_answers_flagged_when_the_build_cannot_end_in_time(
    make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vault_index, "QUERY_WAIT", 0.0)
    gate = Gate(monkeypatch)
    index = make_index()
    pages = VaultPages(index)
    index.start()
    gate.wait()
    partial = query_notes(pages, "LIST FROM #shift0", limit=1000)
    assert partial.total == sum(1 for n in range(NOTES) if n % FOLDERS < 4 and n % 5 == 0)  # of the 400 indexed
    [warning] = partial.warnings
    assert warning.code == "INDEX_BUILDING" and (warning.model_extra or {})["done"] == 400
    gate.release()
    until_built(index)
    complete = query_notes(pages, "LIST FROM #shift0", limit=1000)
    assert complete.total == NOTES // 5 and complete.warnings == []


# -- freshness during the build -------------------------------------------------------------------------


@linux_only
def test_notes_changed_by_another_program_during_the_build_are_never_stale(
    root: Path, make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    index = make_index()
    index.start()
    gate.wait()
    for n in (0, 4, 10):  # indexed; read by the build but not written yet; not read yet
        put(root / rel(n), text(n, " An osprey dives."))
    put(root / "New" / "fresh.md", "An osprey nests here.\n")
    during = found(index, "osprey")
    assert building(during) is None  # complete during the build
    assert {hit.path for hit in during.results} == {rel(0), rel(4), rel(10), "New/fresh.md"}
    assert found(index, "code0x").total == 1  # the indexed note, with its new text

    gate.release()  # the build now writes batch 3, read before note 4 changed
    until_built(index)
    assert found_paths(index, "osprey") == {rel(0), rel(4), rel(10), "New/fresh.md"}
    stored = index.run(
        lambda s: s.conn.execute("SELECT path, size FROM notes WHERE path IN (?, ?)", (rel(4), rel(10))).fetchall()
    )
    assert dict(stored) == {rel(4): len(text(4, " An osprey dives.")), rel(10): len(text(10, " An osprey dives."))}


@linux_only
def test_notes_deleted_during_the_build_are_gone(
    root: Path, make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    index = make_index()
    index.start()
    gate.wait()
    for n in (1, 5, 11):  # indexed; read but not written; not read yet
        (root / rel(n)).unlink()
    assert found(index, "code1x").total == 0
    gate.release()
    until_built(index)
    for n in (1, 5, 11):
        assert found(index, f"code{n}x").total == 0
    assert found(index, "lighthouse").total == NOTES - 3


def test_writes_through_the_server_are_in_answers_during_the_build_without_the_feed(
    root: Path, make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    locks = TrackedLocks()
    gate = Gate(monkeypatch)
    index = make_index(watch=False, changes=locks)
    index.start()
    gate.wait()
    notes.write_note(index.vault, locks, "Made by a tool", "a heron appears\n")
    notes.write_note(index.vault, locks, rel(4), text(4, " A heron too."), mode="overwrite")  # in the batch read
    assert found_paths(index, "heron") == {"Made by a tool.md", rel(4)}
    gate.release()
    until_built(index)
    assert found_paths(index, "heron") == {"Made by a tool.md", rel(4)}


# -- tools that need the whole index ------------------------------------------------------------------


def test_a_tool_that_needs_the_whole_index_waits_for_it_with_progress(
    make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    index = make_index()
    index.start()
    gate.wait()
    seen: list[tuple[int, int]] = []
    joined = threading.Event()

    def report(done: int, total: int) -> None:
        seen.append((done, total))
        joined.set()

    answers: list[TagsResult] = []
    waiting = threading.Thread(target=lambda: answers.append(tags.list_tags(index, "", report)))
    waiting.start()
    assert joined.wait(DEADLINE)  # it told where the build is, and waits
    assert seen == [(400, NOTES)] and answers == []
    gate.release()
    waiting.join(DEADLINE)
    [counted] = answers  # complete: from 400 notes, each count would be 80
    assert {tag.tag: tag.count for tag in counted.tags} == {f"shift{k}": NOTES // 5 for k in range(5)}
    assert seen[-1] == (NOTES, NOTES) and [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert len(seen) == 1 + -(-(NOTES - 400) // sync.BATCH)  # and then every batch written while it waited


# -- stopping, failing, starting over ------------------------------------------------------------------


def test_closing_during_the_build_leaves_no_thread_and_the_next_start_resumes(
    root: Path, tmp_path: Path, make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    index = make_index()
    index.start()
    gate.wait()
    closing = threading.Thread(target=index.close)
    closing.start()
    gate.release()
    closing.join(DEADLINE)
    assert not closing.is_alive() and build_threads() == []
    location = tmp_path / "index" / "index.sqlite3"
    check = sqlite3.connect(location)
    try:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert check.execute("SELECT count(*) FROM notes").fetchone() == (400,)  # batch 3 was not written
    finally:
        check.close()

    again = make_index()
    assert again.refresh() == NOTES - 400  # only what the first build had not written
    assert found(again, "lighthouse").total == NOTES


def test_a_failed_build_fails_the_calls_waiting_and_the_next_call_builds_again(
    make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch, fail=OSError("the disk went away"))
    index = make_index()
    index.start()
    gate.wait()
    failures: list[BaseException] = []
    joined = threading.Event()

    def wait_for_tags() -> None:
        try:
            tags.list_tags(index, "", lambda done, total: joined.set())
        except OSError as exc:
            failures.append(exc)

    waiting = threading.Thread(target=wait_for_tags)
    waiting.start()
    assert joined.wait(DEADLINE)  # waiting for this build
    gate.release()
    waiting.join(DEADLINE)
    assert [str(exc) for exc in failures] == ["the disk went away"]
    assert until_built(index).total == NOTES  # a new build; the gate fails only once


def test_a_database_replaced_during_the_build_is_built_again(
    tmp_path: Path, make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    index = make_index()
    index.start()
    gate.wait()
    location = tmp_path / "index" / "index.sqlite3"
    for suffix in ("", "-wal", "-shm"):  # another program deletes the database under us
        Path(f"{location}{suffix}").unlink(missing_ok=True)
    found(index, "lighthouse")  # notices the new file: the build lists again into it
    gate.release()
    assert until_built(index).total == NOTES
    assert index.run(lambda s: s.conn.execute("SELECT count(*) FROM notes").fetchone()) == (NOTES,)
    assert location.exists()


# -- through the server ---------------------------------------------------------------------------------


@asynccontextmanager
async def serving(vault: Path, index_dir: Path) -> AsyncIterator[tuple[Client, Assembled]]:
    assembled = assemble(Config.one_vault(vault, index_dir=index_dir), embedder=HashingEmbedder())
    try:
        async with Client(assembled.server, mode="legacy") as client:
            yield client, assembled
    finally:
        assembled.stop()


@pytest.mark.anyio
async def test_the_server_started_answers_a_search_during_the_build_completely(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened: list[VaultIndex]
) -> None:
    monkeypatch.setattr(vault_index, "open_pool", lambda vault, workers: None)  # read where the gate is
    gate = Gate(monkeypatch)
    async with serving(root, tmp_path / "index") as (client, assembled):
        assembled.start()
        await anyio.to_thread.run_sync(gate.wait)
        seen: list[tuple[float, float | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total))

        result = await client.call_tool("search_notes", {"query": "lighthouse code3x"}, progress_callback=on_progress)
        [content] = result.content
        assert isinstance(content, TextContent) and not result.is_error
        payload = json.loads(content.text)
        assert [hit["path"] for hit in payload["results"]][:1] == [rel(3)]
        assert payload["results"][0]["match"] == "words"
        assert [warning["code"] for warning in payload["warnings"]] == ["SEMANTIC_NOT_READY"]
        assert seen == []  # nothing waited for
        rest = await client.call_tool("search_notes", {"query": f"lighthouse code{NOTES - 1}x", "mode": "keyword"})
        assert rest.structured_content is not None and rest.structured_content["warnings"] == []
        assert [hit["path"] for hit in rest.structured_content["results"]] == [rel(NOTES - 1)]  # not indexed yet
        gate.release()


# -- worker processes -----------------------------------------------------------------------------------

POOLED = """
import multiprocessing, sys
from pathlib import Path
from obsidian_mcp.index import vault_index
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.vault.paths import Vault

pools = []
real_open_pool = vault_index.open_pool
vault_index.open_pool = lambda vault, workers: pools.append(real_open_pool(vault, workers)) or pools[-1]

vault = Vault(Path(sys.argv[1]))
rows = (
    "SELECT n.path, n.hash, n.title, n.headings, n.body_line, c.body, c.frontmatter, c.code, c.tags"
    " FROM notes n JOIN content c USING (id) ORDER BY n.path"
)
fields = "SELECT n.path, f.* FROM fields f JOIN notes n ON n.id = f.note_id ORDER BY n.path, f.rowid"
items = "SELECT n.path, i.* FROM list_items i JOIN notes n ON n.id = i.note_id ORDER BY n.path, i.rowid"


def read(conn):  # every row, the note ids left out (the two builds may number notes otherwise)
    found = [conn.execute(rows).fetchall()]
    return found + [[row[:1] + row[2:] for row in conn.execute(query)] for query in (fields, items)]


built = {}
for workers in (2, 0):
    location = Path(sys.argv[2]) / str(workers) / "index.sqlite3"
    index = VaultIndex(vault, location, watch=False, semantic=False, workers=workers)
    assert index.refresh() == int(sys.argv[3])
    built[workers] = index.run(lambda snapshot: read(snapshot.conn))
    assert multiprocessing.active_children() == []  # the workers ended with the build
    index.close()
assert built[2] == built[0]
assert len(pools) == 1 and pools[0] is not None and pools[0].workers == 2  # workers=0 opens none
notes = int(sys.argv[3])
assert [len(table) for table in built[2]] == [notes, 2 * notes, notes]  # a field and a task's field; a task
print("same", len(built[2][0]))
"""


def test_worker_processes_build_the_same_index_and_end_with_the_build(root: Path, tmp_path: Path) -> None:
    """In a fresh interpreter, the only thread: the one place a pool is forked."""
    done = subprocess.run(
        [sys.executable, "-c", POOLED, str(root), str(tmp_path / "indexes"), str(NOTES)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["same", str(NOTES)]


def test_no_pool_is_forked_while_another_thread_runs_or_off_the_main_thread(root: Path) -> None:
    vault = Vault(root)
    running = threading.Event()
    other = threading.Thread(target=running.wait, args=(DEADLINE,))
    other.start()
    try:
        assert open_pool(vault, 2) is None
    finally:
        running.set()
        other.join()
    off_main: list[object] = []
    worker = threading.Thread(target=lambda: off_main.append(open_pool(vault, 2)))
    worker.start()
    worker.join()
    assert off_main == [None]
    assert open_pool(vault, 0) is None


# -- a fresh index filled before the server started (`index.early`) ----------------------------------------


def test_notes_filled_before_the_server_started_are_searched_as_they_are_when_it_builds(
    root: Path, tmp_path: Path, make_index: Callable[..., VaultIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`obsidian-mcp` fills a fresh index's pending notes while it imports the MCP SDK; notes changed,
    created or deleted between that fill and the build's own listing must be searched as they are then."""
    plant(root)
    location = tmp_path / "index" / "index.sqlite3"
    early.begin(Vault(root), location, 0)
    ahead = early.prepared(location)
    assert ahead is not None and ahead.pool is None  # workers=0: no pool
    filled = ahead.pending()
    assert filled is not None and len(filled) == NOTES
    put(root / rel(500), text(500, " A heron now."))  # planted, changed: no longer a cormorant
    (root / rel(NOTES - 1)).unlink()  # planted, deleted
    put(root / "New" / "late.md", "A cormorant came late.\n")  # created after the fill
    gate = Gate(monkeypatch)
    index = make_index()
    index.start()
    gate.wait()
    assert early.prepared(location) is None  # the build took it
    during = search.search_notes(index, "cormorant", limit=100)
    assert during.warnings == []
    expected = {rel(2), rel(14), rel(7), "New/late.md"}
    assert {hit.path for hit in during.results} == expected and during.total == len(expected)
    assert [hit.path for hit in search.search_notes(index, "heron", mode="keyword").results] == [rel(500)]
    gate.release()
    until_built(index)
    assert found_paths(index, "cormorant") == expected
    assert found(index, "lighthouse").total == NOTES - 1


def test_an_index_that_exists_is_not_filled_ahead(root: Path, tmp_path: Path) -> None:
    location = tmp_path / "index.sqlite3"
    location.write_bytes(b"")
    early.begin(Vault(root), location, 0)
    assert early.prepared(location) is None
