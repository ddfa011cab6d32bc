"""index.vector_store.SemanticIndex: incremental updates, persistence, model-version rebuild, readers."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from obsidian_mcp.index import vector_store as store_module
from obsidian_mcp.index.vector_store import SemanticIndex
from obsidian_mcp.semantic.chunking import chunk_note
from obsidian_mcp.semantic.model import HashingEmbedder
from obsidian_mcp.semantic.notes import NoteText, content_hash

NOTES = {
    "Help/Refunds.md": "# Refunds\n\nRefunds for any purchase within fourteen days. Refunds go back to the card.\n",
    "Help/Recorder.md": "# Recorder\n\nThe recorder saves voice memos from the microphone.\n",
    "Garden/Shed.md": "# Shed\n\nTimber shed at the bottom of the garden, roof felt and screws.\n",
    "Garden/Roof.md": "# Roof\n\nThe shed roof needs felt; timber boards and screws.\n",
}


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(tmp_path / "index.sqlite3", isolation_level=None, check_same_thread=False)
    yield connection
    connection.close()


def make(conn: sqlite3.Connection, model_id: str = "hashing-v1") -> SemanticIndex:
    return SemanticIndex(conn, HashingEmbedder(dim=64, model_id=model_id))


def filled(conn: sqlite3.Connection) -> SemanticIndex:
    index = make(conn)
    index.upsert_notes([NoteText(path, text) for path, text in NOTES.items()])
    return index


def paths(hits: object) -> list[str]:
    return [hit.path for hit in hits]  # type: ignore[attr-defined]


def test_search_ranks_the_matching_note_first_with_its_chunk(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    hits = index.search("refunds purchase card", 3)
    assert hits[0].path == "Help/Refunds.md"
    assert hits[0].title == "Refunds" and hits[0].heading == "Refunds" and hits[0].line == 3
    assert hits[0].snippet.startswith("Refunds for any purchase")
    assert len(set(paths(hits))) == len(hits)
    assert -1.0 <= hits[-1].score <= hits[0].score <= 1.0
    chunks = index.query("microphone voice memos", 2)
    assert chunks[0].path == "Help/Recorder.md" and chunks[0].chunk_no == 0


def test_upsert_replaces_and_skips_unchanged_content(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    assert index.upsert_note("Help/Refunds.md", NOTES["Help/Refunds.md"]) is False
    assert index.upsert_note("Help/Refunds.md", "# Refunds\n\nNothing about money any more, only kittens.\n")
    assert index.search("kittens", 1)[0].path == "Help/Refunds.md"
    assert all(hit.snippet != "Refunds for any purchase" for hit in index.query("refunds purchase card", 10))
    assert index.note_count() == 4 and index.chunk_count() == 4


def test_remove_is_reflected_in_search_similar_and_hashes(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    assert index.remove_note("Garden/Roof.md") is True
    assert index.remove_note("Garden/Roof.md") is False
    assert "Garden/Roof.md" not in paths(index.search("shed roof felt timber", 10))
    assert "Garden/Roof.md" not in paths(index.similar("Garden/Shed.md", 10))
    assert index.similar("Garden/Roof.md", 5) == []
    assert "Garden/Roof.md" not in index.indexed_hashes()


def test_rename_moves_vectors_without_embedding_again(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    before = index.search("shed roof felt timber", 1)[0]
    calls: list[int] = []
    embed = index.embedder.embed
    index.embedder.embed = lambda texts: calls.append(len(texts)) or embed(texts)  # type: ignore[method-assign]
    assert index.rename_note("Garden/Roof.md", "Archive/Old roof.md") is True
    assert calls == []  # no embedding for the move
    index.embedder.embed = embed  # type: ignore[method-assign]
    found = paths(index.search("roof felt timber boards", 4))
    assert "Archive/Old roof.md" in found and "Garden/Roof.md" not in found
    assert paths(index.similar("Archive/Old roof.md", 1)) == ["Garden/Shed.md"]
    assert "Archive/Old roof.md" in paths(index.similar("Garden/Shed.md", 3))
    assert index.rename_note("Missing.md", "Other.md") is False
    reopened = make(conn)  # the move is stored, not only in memory
    assert reopened.indexed_hashes() == index.indexed_hashes()
    assert before.path in ("Garden/Shed.md", "Garden/Roof.md")


def test_rename_onto_an_existing_note_replaces_it(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    index.rename_note("Garden/Roof.md", "Garden/Shed.md")
    assert index.note_count() == 3
    assert index.search("roof felt timber boards", 1)[0].path == "Garden/Shed.md"
    assert make(conn).note_count() == 3


def test_similar_excludes_the_note_itself_and_ranks_related_notes_first(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    similar = index.similar("Garden/Shed.md", 10)
    assert paths(similar)[0] == "Garden/Roof.md"
    assert "Garden/Shed.md" not in paths(similar) and len(similar) == 3
    assert paths(index.similar("Garden/Shed.md", 10, allow=lambda p: p.startswith("Help/")))[0].startswith("Help/")


def test_stored_vectors_are_loaded_by_a_new_instance(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    reopened = make(conn)
    assert reopened.model_changed is False
    assert reopened.indexed_hashes() == index.indexed_hashes()
    for query in ("refunds purchase card", "shed roof", "voice memos"):
        fresh, loaded = index.search(query, 4), reopened.search(query, 4)  # every note: ties may swap
        assert {h.path: (h.line, h.snippet) for h in loaded} == {h.path: (h.line, h.snippet) for h in fresh}
        assert {h.path: h.score for h in loaded} == pytest.approx({h.path: h.score for h in fresh})
        assert loaded[0].path == fresh[0].path


def test_another_model_empties_the_index_for_a_rebuild(conn: sqlite3.Connection) -> None:
    filled(conn)
    other = make(conn, model_id="hashing-v2")
    assert other.model_changed is True
    assert other.indexed_hashes() == {}
    todo, gone = other.stale({path: content_hash(text) for path, text in NOTES.items()})
    assert todo == sorted(NOTES) and gone == []
    assert conn.execute("SELECT count(*) FROM semantic_chunks").fetchone()[0] == 0
    again = make(conn, model_id="hashing-v2")  # same model again: nothing to rebuild
    assert again.model_changed is False


def test_stale_compares_the_callers_hashes(conn: sqlite3.Connection) -> None:
    index = make(conn)
    index.upsert_note("A.md", "alpha text", source_hash="h1")
    index.upsert_note("B.md", "beta text", source_hash="h2")
    assert index.indexed_hashes() == {"A.md": "h1", "B.md": "h2"}
    assert index.stale({"A.md": "h1", "B.md": "changed", "C.md": "h3"}) == (["B.md", "C.md"], [])
    assert index.stale({"A.md": "h1"}) == ([], ["B.md"])
    assert index.upsert_note("A.md", "different text, same hash", source_hash="h1") is False


def test_search_filters_with_allow_and_widens_until_enough(conn: sqlite3.Connection) -> None:
    index = make(conn)
    index.upsert_notes([NoteText(f"Common/{n}.md", f"shed roof felt timber {n}") for n in range(50)])
    index.upsert_note("Rare/Only.md", "nothing in common with the query at all")
    hits = index.search("shed roof felt timber", 1, allow=lambda path: path.startswith("Rare/"))
    assert paths(hits) == ["Rare/Only.md"]
    assert index.search("shed roof", 5, allow=lambda path: False) == []


def test_many_updates_compact_the_matrix_and_keep_answers(
    conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "COMPACT_MIN_ROWS", 8)
    index = filled(conn)
    for round_ in range(12):
        index.upsert_note("Garden/Roof.md", f"# Roof\n\nVersion {round_}: the shed roof needs felt and timber.\n")
        index.remove_note("Help/Recorder.md")
        index.upsert_note("Help/Recorder.md", f"# Recorder\n\nVoice memos, take {round_}.\n")
    snapshot = index._current()
    assert snapshot.size < 4 * 12  # dead rows were dropped
    assert index.chunk_count() == snapshot.size == 4
    assert index.search("voice memos take", 1)[0].snippet == "Voice memos, take 11."
    assert paths(index.similar("Garden/Shed.md", 1)) == ["Garden/Roof.md"]
    assert make(conn).indexed_hashes() == index.indexed_hashes()


def test_readers_run_while_a_writer_updates(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    stop = threading.Event()
    errors: list[BaseException] = []
    answers: list[int] = []

    def read() -> None:
        try:
            while not stop.is_set():
                hits = index.search("shed roof felt timber", 3)
                assert hits and hits[0].path.startswith(("Garden/", "Extra/"))
                index.similar("Garden/Shed.md", 3)
                answers.append(len(hits))
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    for n in range(60):
        index.upsert_note(f"Extra/{n}.md", f"shed roof felt timber number {n}")
        if n % 3 == 0:
            index.remove_note(f"Extra/{n}.md")
    stop.set()
    for reader in readers:
        reader.join()
    assert errors == []
    assert answers
    assert index.note_count() == 4 + 40


def test_a_connection_in_the_default_transaction_mode_works(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / "x.sqlite3", check_same_thread=False)
    try:
        index = SemanticIndex(connection, HashingEmbedder())
        index.upsert_note("A.md", "alpha words here")
        index.remove_note("A.md")
        index.upsert_note("B.md", "beta words here")
        assert not connection.in_transaction
        assert SemanticIndex(connection, HashingEmbedder()).indexed_paths() == {"B.md"}
    finally:
        connection.close()


def test_clear_forgets_everything(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    index.clear()
    assert index.note_count() == 0 and index.search("shed", 3) == [] and index.query("shed", 3) == []
    assert make(conn).note_count() == 0


def test_an_empty_index_answers_nothing(conn: sqlite3.Connection) -> None:
    index = make(conn)
    assert index.search("anything", 5) == [] and index.similar("A.md", 5) == [] and index.stale({}) == ([], [])


def float_reference(texts: list[str]) -> npt.NDArray[np.float32]:
    """Unit vectors of `texts` as stored (float16), in float32: what int8 rows stand for."""
    vectors: npt.NDArray[np.float32] = HashingEmbedder(dim=64).embed(texts).astype("<f2").astype(np.float32)
    return vectors


def test_scores_from_the_int8_matrix_match_float_cosines(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    query = "shed roof felt timber"
    [vector] = HashingEmbedder(dim=64).embed([query])
    chunks = {path: chunk_note(path, text).chunks[0].embed_text for path, text in NOTES.items()}
    expected = dict(zip(chunks, float_reference(list(chunks.values())) @ vector, strict=True))
    hits = index.search(query, 4)
    assert {hit.path for hit in hits} == set(NOTES)
    for hit in hits:
        assert hit.score == pytest.approx(float(expected[hit.path]), abs=0.01)


def test_similar_scores_the_mean_of_several_chunks(conn: sqlite3.Connection) -> None:
    index = make(conn)
    body = "timber shed roof felt screws boards number {n} " * 12
    sections = "\n\n".join(f"## Part {n}\n\n" + body.format(n=n) for n in range(4))
    notes = {"Long.md": f"# Long\n\n{sections}\n", **NOTES}
    index.upsert_notes([NoteText(path, text) for path, text in notes.items()])
    long_chunks = [chunk.embed_text for chunk in chunk_note("Long.md", notes["Long.md"]).chunks]
    assert len(long_chunks) > 1
    mean = float_reference(long_chunks).sum(axis=0)
    mean /= np.linalg.norm(mean)
    [roof] = float_reference([chunk_note("Garden/Roof.md", NOTES["Garden/Roof.md"]).chunks[0].embed_text])
    scores = {hit.path: hit.score for hit in index.similar("Long.md", 10)}
    assert scores["Garden/Roof.md"] == pytest.approx(float(mean @ roof), abs=0.01)
    assert next(iter(scores)) in ("Garden/Roof.md", "Garden/Shed.md")


def test_readers_do_not_wait_for_the_writers_lock(tmp_path: Path) -> None:
    """A file database is read through a connection of the index's own: a search answers while
    the lock that guards the writer's connection is held (e.g. by a long write)."""
    writer = sqlite3.connect(tmp_path / "wal.sqlite3", isolation_level=None, check_same_thread=False)
    writer.execute("PRAGMA journal_mode=WAL")
    lock = threading.Lock()
    index = SemanticIndex(writer, HashingEmbedder(dim=64), db_lock=lock)
    index.upsert_notes([NoteText(path, text) for path, text in NOTES.items()])
    answers: list[str] = []
    with lock:
        reader = threading.Thread(target=lambda: answers.extend(h.path for h in index.search("voice memos", 1)))
        reader.start()
        reader.join(10)
        assert not reader.is_alive()
    assert answers == ["Help/Recorder.md"]
    index.close()
    assert index.search("voice memos", 1)[0].path == "Help/Recorder.md"  # closed: the writer's connection
    writer.close()


def test_a_hit_whose_note_goes_during_the_search_is_left_out(conn: sqlite3.Connection) -> None:
    index = filled(conn)
    removed: list[str] = []

    def allow(path: str) -> bool:  # the filter runs after scoring: a writer acts in between
        if not removed:
            removed.append("Garden/Roof.md")
            index.remove_note("Garden/Roof.md")
        return True

    hits = index.search("shed roof felt timber", 4, allow=allow)
    assert removed and "Garden/Roof.md" not in paths(hits)
    assert set(paths(hits)) == {"Garden/Shed.md", "Help/Refunds.md", "Help/Recorder.md"}


class ClearingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=64)
        self.cleared = 0
        self.held_something_large = False

    def clear_cache(self) -> bool:
        self.cleared += 1
        return self.held_something_large


def test_release_memory_clears_caches_and_trims_only_after_large_work(
    conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    trims: list[int] = []
    monkeypatch.setattr(store_module, "trim_heap", lambda: trims.append(1))
    embedder = ClearingEmbedder()
    index = SemanticIndex(conn, embedder)
    index.upsert_notes([NoteText(path, text) for path, text in NOTES.items()])  # the first load, then 4 notes
    index.release_memory()
    assert (embedder.cleared, len(trims)) == (1, 1)
    index.upsert_note("Help/Refunds.md", "# Refunds\n\nMoney back within fourteen days.\n")  # one note: reused
    index.release_memory()
    assert (embedder.cleared, len(trims)) == (2, 1)
    embedder.held_something_large = True  # e.g. the model's whole table, read for a big batch
    index.release_memory()
    assert (embedder.cleared, len(trims)) == (3, 2)
    monkeypatch.setattr(store_module, "TRIM_AFTER_ROWS", 3)
    embedder.held_something_large = False
    index.upsert_notes([NoteText(f"More/{n}.md", f"more text {n}") for n in range(3)])
    index.release_memory()
    assert (embedder.cleared, len(trims)) == (4, 3)
    assert index.search("money back within fourteen days", 1)[0].path == "Help/Refunds.md"
