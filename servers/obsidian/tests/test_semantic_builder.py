"""semantic.builder.SemanticBuilder: background batches, progress, stopping, removals and renames."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator

import pytest
from obsidian_mcp.index.vector_store import SemanticIndex
from obsidian_mcp.semantic.builder import BuildProgress, SemanticBuilder
from obsidian_mcp.semantic.model import HashingEmbedder
from obsidian_mcp.semantic.notes import NoteText

WAIT = 60.0  # seconds: a safety net for a hung thread, never a pace


@pytest.fixture
def index() -> Iterator[SemanticIndex]:
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    yield SemanticIndex(conn, HashingEmbedder())
    conn.close()


def vault(count: int) -> dict[str, str]:
    return {f"Notes/{n:03d}.md": f"# Note {n}\n\nText of note number {n} about topic{n % 7}.\n" for n in range(count)}


def loader(notes: dict[str, str]) -> object:
    def load(path: str) -> NoteText | None:
        text = notes.get(path)
        return None if text is None else NoteText(path, text)

    return load


def test_a_build_embeds_every_note_in_batches_and_reports_progress(index: SemanticIndex) -> None:
    notes = vault(50)
    reports: list[BuildProgress] = []
    builder = SemanticBuilder(index, loader(notes), batch_size=8, on_progress=reports.append)  # type: ignore[arg-type]
    assert builder.progress().complete and not builder.progress().running
    builder.submit(sorted(notes))
    assert builder.wait(WAIT)
    progress = builder.progress()
    assert progress.complete and progress.done == progress.total == 50 and progress.error is None
    assert index.indexed_paths() == set(notes)
    done = [report.done for report in reports]
    assert done == sorted(done) and done[-1] == 50 and len(done) >= 50 // 8
    assert all(report.total == 50 for report in reports)
    assert not any(report.complete for report in reports[:-1]) and reports[-1].complete
    builder.stop(WAIT)
    assert not builder.progress().running


def test_stop_ends_the_thread_after_the_batch_in_flight(index: SemanticIndex) -> None:
    notes = vault(30)
    entered, release = threading.Event(), threading.Event()

    def slow(path: str) -> NoteText | None:
        entered.set()
        release.wait(WAIT)
        return NoteText(path, notes[path])

    builder = SemanticBuilder(index, slow, batch_size=5)
    builder.submit(sorted(notes))
    assert entered.wait(WAIT)
    stopper = threading.Thread(target=builder.stop, args=(WAIT,))
    stopper.start()
    release.set()
    stopper.join(WAIT)
    progress = builder.progress()
    assert not progress.running and not progress.complete
    assert index.note_count() == 5  # the batch in flight was stored, nothing after it
    assert not builder.wait(0)
    with pytest.raises(RuntimeError):
        builder.submit(["Notes/000.md"])


def test_searches_are_answered_while_a_batch_is_being_embedded(index: SemanticIndex) -> None:
    index.upsert_note("Old.md", "shed roof felt timber")
    entered, release = threading.Event(), threading.Event()

    def blocked(path: str) -> NoteText | None:
        entered.set()
        release.wait(WAIT)
        return NoteText(path, "new text")

    builder = SemanticBuilder(index, blocked)
    builder.submit(["New.md"])
    assert entered.wait(WAIT)
    assert index.search("shed roof", 1)[0].path == "Old.md"  # the builder holds no lock meanwhile
    assert not builder.progress().complete
    release.set()
    assert builder.wait(WAIT)
    assert index.indexed_paths() == {"Old.md", "New.md"}
    builder.stop(WAIT)


def test_removals_renames_and_vanished_notes(index: SemanticIndex) -> None:
    notes = vault(6)
    builder = SemanticBuilder(index, loader(notes))  # type: ignore[arg-type]
    builder.submit(sorted(notes))
    assert builder.wait(WAIT)
    del notes["Notes/001.md"]
    notes["Moved/002.md"] = notes.pop("Notes/002.md")
    builder.submit(
        paths=["Notes/001.md"],  # changed, but gone by the time it is read: removed
        removed=["Notes/003.md"],
        renamed=[("Notes/002.md", "Moved/002.md")],
    )
    assert builder.wait(WAIT)
    assert index.indexed_paths() == {"Notes/000.md", "Moved/002.md", "Notes/004.md", "Notes/005.md"}
    assert index.search("note number 2", 1)[0].path == "Moved/002.md"
    builder.stop(WAIT)


def test_a_path_queued_twice_is_embedded_once_in_its_latest_state(index: SemanticIndex) -> None:
    notes = {"A.md": "first version"}
    entered, gate = threading.Event(), threading.Event()
    reads: list[str] = []

    def load(path: str) -> NoteText | None:
        entered.set()
        gate.wait(WAIT)
        reads.append(path)
        return NoteText(path, notes[path])

    builder = SemanticBuilder(index, load)
    notes["Busy.md"] = "keeps the thread busy until the gate opens"
    builder.submit(["Busy.md"])
    assert entered.wait(WAIT)  # its batch is taken: A.md waits in the queue, not in that batch
    builder.submit(["A.md"])
    notes["A.md"] = "second version with kittens"
    builder.submit(["A.md"])
    gate.set()
    assert builder.wait(WAIT)
    assert reads.count("A.md") == 1
    assert index.search("kittens", 1)[0].path == "A.md"
    builder.stop(WAIT)


def test_reconcile_queues_what_differs(index: SemanticIndex) -> None:
    notes = vault(5)
    index.upsert_note("Gone.md", "a note deleted while the server was down", source_hash="g")
    index.upsert_note("Notes/000.md", notes["Notes/000.md"], source_hash="same")

    def load(path: str) -> NoteText | None:
        return NoteText(path, notes[path], source_hash=f"h-{path}") if path in notes else None

    builder = SemanticBuilder(index, load)
    builder.reconcile({path: ("same" if path == "Notes/000.md" else f"h-{path}") for path in notes})
    assert builder.wait(WAIT)
    assert index.indexed_paths() == set(notes)
    assert index.indexed_hashes()["Notes/000.md"] == "same"
    assert builder.progress().done == 5  # four new notes and one removal
    builder.stop(WAIT)


def test_a_failing_batch_is_reported_and_the_builder_goes_on(index: SemanticIndex) -> None:
    notes = vault(4)
    real = index.embedder.embed
    failures = iter([True])

    def flaky(texts: object) -> object:
        if next(failures, False):
            raise ValueError("embedding exploded")
        return real(texts)  # type: ignore[arg-type]

    index.embedder.embed = flaky  # type: ignore[method-assign,assignment]
    builder = SemanticBuilder(index, loader(notes), batch_size=2)  # type: ignore[arg-type]
    builder.submit(sorted(notes))
    assert builder.wait(WAIT)
    progress = builder.progress()
    assert progress.complete and progress.error is not None and "embedding exploded" in progress.error
    assert index.note_count() == 2  # the first batch failed, the second was stored
    builder.submit(sorted(notes)[:2])  # a later submission retries and clears the error
    assert builder.wait(WAIT)
    assert index.note_count() == 4 and builder.progress().error is None
    builder.stop(WAIT)


def test_an_unreadable_note_is_skipped_not_removed(index: SemanticIndex) -> None:
    index.upsert_note("Locked.md", "text embedded before")

    def load(path: str) -> NoteText | None:
        if path == "Locked.md":
            raise PermissionError("locked")
        return NoteText(path, "fine")

    builder = SemanticBuilder(index, load)
    builder.submit(["Locked.md", "Fine.md"])
    assert builder.wait(WAIT)
    assert index.indexed_paths() == {"Locked.md", "Fine.md"}
    builder.stop(WAIT)


class ClearingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.cleared = 0

    def clear_cache(self) -> None:
        self.cleared += 1


def test_memory_is_released_each_time_the_work_runs_out() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    embedder = ClearingEmbedder()
    index = SemanticIndex(conn, embedder)
    notes = vault(20)
    builder = SemanticBuilder(index, loader(notes), batch_size=4)  # type: ignore[arg-type]
    builder.submit(sorted(notes))
    assert builder.wait(WAIT)
    assert embedder.cleared == 1  # once at the end, not after every batch
    builder.submit(["Notes/003.md"])
    assert builder.wait(WAIT)
    assert embedder.cleared == 2
    builder.stop(WAIT)
    conn.close()
