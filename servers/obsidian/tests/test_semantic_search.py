"""Search by meaning wired into the server, in process through the SDK's in-memory client: the
`search_notes` modes over the evaluation set, no results for words found nowhere, `match` on every
hit, `SEMANTIC_NOT_READY` while the vectors are built (none after a restart), freshness after edits
by another program, and the vectors' life beside the keyword index (moves, warm starts, a database
that starts over, notes the index leaves out).

The evaluation set (tests/fixtures/search_eval.json) runs on a copy of examples/vault with the real
model; the mechanics use `HashingEmbedder` (instant, no model) and wait on the builder itself.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import TextContent
from obsidian_mcp import search
from obsidian_mcp.index import vectors
from obsidian_mcp.index.store import index_location
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.semantic import HashingEmbedder
from obsidian_mcp.server import Assembled, Config, assemble
from obsidian_mcp.vault.paths import Vault

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[3]
EVAL = json.loads((Path(__file__).parent / "fixtures" / "search_eval.json").read_text(encoding="utf-8"))
SAMPLE = REPO / EVAL["vault"]
REFUNDS = "Fernhill Help/Refunds and Returns.md"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def sample_copy(folder: Path) -> Path:
    root = folder / "vault"
    shutil.copytree(SAMPLE, root, symlinks=True)
    return root


@asynccontextmanager
async def serving(
    vault: Path, index_dir: Path, rescan_seconds: float | None = None, **options: Any
) -> AsyncIterator[tuple[Client, Assembled]]:
    assembled = assemble(Config.one_vault(vault, index_dir=index_dir, rescan_seconds=rescan_seconds), **options)
    try:
        async with Client(assembled.server, mode="legacy") as client:
            yield client, assembled
    finally:
        assembled.index.close()


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    [content] = result.content
    assert isinstance(content, TextContent)
    payload: dict[str, Any] = json.loads(content.text)
    assert not result.is_error, payload
    return payload


def paths(payload: dict[str, Any]) -> list[str]:
    return [hit["path"] for hit in payload["results"]]


def codes(payload: dict[str, Any]) -> list[str]:
    return [warning["code"] for warning in payload["warnings"]]


@pytest.fixture(scope="module")
async def reader(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    """One server on a copy of the sample vault, with the real model, for the tests that only read."""
    folder = tmp_path_factory.mktemp("meaning")
    async with serving(sample_copy(folder), folder / "index") as (client, _):
        yield client


# -- the evaluation set, through the tool --------------------------------------------------------


def recall_at_5(rankings: Sequence[list[str]]) -> float:
    found = [
        any(path in question["expected"] for path in ranking[:5])
        for ranking, question in zip(rankings, EVAL["questions"], strict=True)
    ]
    return sum(found) / len(found)


async def test_hybrid_finds_what_questions_in_other_words_ask_for(reader: Client) -> None:
    keyword, hybrid = [], []
    for question in EVAL["questions"]:
        keyword.append(paths(await call(reader, "search_notes", {"query": question["query"], "mode": "keyword"})))
        answer = await call(reader, "search_notes", {"query": question["query"], "limit": 5})
        assert answer["warnings"] == [], answer  # a small vault is embedded before the first answer
        hybrid.append(paths(answer))
    assert recall_at_5(hybrid) >= 0.8
    assert recall_at_5(hybrid) >= recall_at_5(keyword) + 0.5
    money = await call(reader, "search_notes", {"query": "how do I get my money back after buying", "limit": 5})
    assert REFUNDS in paths(money)
    assert (await call(reader, "search_notes", {"query": "get my money back after buying", "mode": "keyword"}))[
        "total"
    ] == 0


MADE_UP = ["xylophonecanary", "blorptangle", "quenzivort", "where is my snargleflap", "vextromium zorbulous"]


async def test_words_found_nowhere_and_close_in_meaning_to_nothing_answer_nothing(reader: Client) -> None:
    for query in MADE_UP:
        for mode in ("hybrid", "keyword", "semantic"):
            answer = await call(reader, "search_notes", {"query": query, "mode": mode})
            assert answer == {"results": [], "total": 0, "warnings": []}, (query, mode, answer["results"][:3])


async def test_every_hit_says_whether_its_words_or_its_meaning_matched(reader: Client) -> None:
    question = "how do I get my money back after buying"
    for mode in ("hybrid", "keyword", "semantic"):
        for query in (question, "roofing felt", "refund"):
            answer = await call(reader, "search_notes", {"query": query, "mode": mode})
            assert all(hit["match"] in ("words", "meaning") for hit in answer["results"]), (mode, query)
    keyword = set(paths(await call(reader, "search_notes", {"query": "refund", "mode": "keyword", "limit": 100})))
    for mode in ("hybrid", "semantic"):
        answer = await call(reader, "search_notes", {"query": "refund", "mode": mode, "limit": 50})
        for hit in answer["results"]:  # "words": the note holds the word (or, by prefix, refunds, refunded)
            assert (hit["match"] == "words") == (hit["path"] in keyword or "refund" in hit["snippet"].lower()), hit
    hybrid = await call(reader, "search_notes", {"query": question, "limit": 20})
    assert "meaning" in {hit["match"] for hit in hybrid["results"]}  # a question finds notes in other words


async def test_a_private_word_only_an_excluded_note_holds_answers_nothing(tmp_path: Path) -> None:
    vault = sample_copy(tmp_path)
    (vault / "Private").mkdir()
    (vault / "Private" / "Diary.md").write_text("# Diary\n\nThe code word is quenzivortal.\n", encoding="utf-8")
    config = Config.one_vault(vault, index_dir=tmp_path / "index", exclude=("Private/",))
    assembled = assemble(config)
    try:
        async with Client(assembled.server, mode="legacy") as client:
            for mode in ("hybrid", "keyword", "semantic"):
                answer = await call(client, "search_notes", {"query": "quenzivortal", "mode": mode})
                assert answer["results"] == [] and answer["total"] == 0, (mode, answer)
    finally:
        assembled.index.close()


async def test_needles_and_exact_phrases_stay_first(reader: Client) -> None:
    for needle in EVAL["needles"]:
        answer = await call(reader, "search_notes", {"query": needle["query"]})
        assert paths(answer)[0] == needle["expected"], (needle, answer["results"][:3])
        if len(needle["query"].split()) == 1 or needle["query"].startswith('"'):
            assert answer["results"][0]["score"] > 1  # pinned above everything found by meaning alone


async def test_a_hit_found_by_words_keeps_its_matching_line(reader: Client) -> None:
    hybrid = await call(reader, "search_notes", {"query": "roofing felt", "limit": 3})
    keyword = await call(reader, "search_notes", {"query": "roofing felt", "limit": 3, "mode": "keyword"})
    assert sorted(paths(hybrid)) == sorted(paths(keyword))
    located = {hit["path"]: (hit["line"], hit["heading"], hit["snippet"]) for hit in keyword["results"]}
    for hit in hybrid["results"]:
        assert (hit["line"], hit["heading"], hit["snippet"]) == located[hit["path"]]


async def test_keyword_mode_is_the_keyword_search_unchanged(reader: Client, tmp_path: Path) -> None:
    vault = Vault(sample_copy(tmp_path))
    plain = VaultIndex(vault, index_location(tmp_path / "index", vault.root), watch=False)
    try:
        cases: list[tuple[str, dict[str, Any]]] = [
            ("roofing felt", {}),
            ('"fractional-index approach"', {}),
            ("meet*", {"limit": 5}),
            ("garden OR kitchen", {"folder": "Projects"}),
            ("review -garden", {"tags": ["work"]}),
            ("refund", {"folder": "Fernhill Help", "limit": 3}),
        ]
        for query, filters in cases:
            expected = search.search_notes(plain, query, **filters).model_dump(mode="json")
            answer = await call(reader, "search_notes", {"query": query, "mode": "keyword", **filters})
            assert answer == expected, query
    finally:
        plain.close()


async def test_semantic_mode_ranks_by_meaning_alone(reader: Client) -> None:
    answer = await call(reader, "search_notes", {"query": "Apple charged me, can you reimburse me", "mode": "semantic"})
    assert paths(answer)[0] == REFUNDS
    top = answer["results"][0]
    assert 0 < top["score"] <= 1 and top["line"] >= 1 and top["snippet"]
    assert [hit["score"] for hit in answer["results"]] == sorted(
        (hit["score"] for hit in answer["results"]), reverse=True
    )
    assert answer["total"] >= len(answer["results"]) == 20
    inside = await call(
        reader, "search_notes", {"query": "money back", "mode": "semantic", "folder": "Projects", "limit": 5}
    )
    assert inside["results"] and all(path.startswith("Projects/") for path in paths(inside))
    excluded = await call(reader, "search_notes", {"query": "refund -apple", "mode": "hybrid"})
    assert REFUNDS not in paths(excluded)  # "Apple" is in the note: excluded, whatever its meaning


async def test_similar_notes_excludes_the_note_itself(reader: Client) -> None:
    answer = await call(reader, "similar_notes", {"path": "Fernhill Help/Refunds and Returns", "limit": 4})
    assert answer["path"] == REFUNDS and answer["warnings"] == []
    assert REFUNDS not in paths(answer) and len(paths(answer)) == 4
    assert "Fernhill Help/Subscription and Billing.md" in paths(answer)
    assert set(answer["results"][0]) == {"path", "title", "score", "snippet"}
    missing = await reader.call_tool("similar_notes", {"path": "Fernhill Help/No Such Article"})
    assert missing.is_error
    [content] = missing.content
    assert isinstance(content, TextContent)
    error = json.loads(content.text)
    assert error["error"] == "not_found" and error["details"]["resource"] == "note"


# -- while the vectors are built -----------------------------------------------------------------


class GatedEmbedder(HashingEmbedder):
    """Embeds nothing on the builder's thread until `gate` is set; queries go through at once."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> Any:
        if threading.current_thread().name == "semantic-builder":
            assert self.gate.wait(60)
            self.texts += len(texts)
        return super().embed(texts)


async def test_semantic_not_ready_while_the_vectors_are_built_and_nothing_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "CATCH_UP_NOTES", 0)  # never wait: the backlog stays in the background
    embedder = GatedEmbedder()
    async with serving(sample_copy(tmp_path), tmp_path / "index", embedder=embedder) as (client, assembled):
        building = await call(client, "search_notes", {"query": "refund money"})
        assert codes(building) == ["SEMANTIC_NOT_READY"]  # never INDEX_BUILDING: no note with the words is missing
        [warning] = building["warnings"]
        assert 0 <= warning["done"] <= warning["total"] and warning["done"] < 45
        assert REFUNDS in paths(building) and {hit["match"] for hit in building["results"]} == {"words"}
        hybrid = await call(client, "search_notes", {"query": "phone"})
        keyword_only = await call(client, "search_notes", {"query": "phone", "mode": "keyword"})
        assert paths(hybrid) == paths(keyword_only) and keyword_only["total"] >= 3  # the complete keyword ranking
        semantic = await call(client, "search_notes", {"query": "phone", "mode": "semantic"})
        assert codes(semantic) == ["SEMANTIC_NOT_READY"] and paths(semantic) == paths(keyword_only)
        similar = await call(client, "similar_notes", {"path": "Home"})
        assert codes(similar) == ["INDEX_BUILDING"]
        keyword = await call(client, "search_notes", {"query": "refund money", "mode": "keyword"})
        assert keyword["warnings"] == []  # keyword search never waits for, nor mentions, the vectors

        embedder.gate.set()
        assert assembled.index.vectors.wait(60)
        done = await call(client, "search_notes", {"query": "refund money"})
        assert done["warnings"] == [] and REFUNDS in paths(done)
        assert (await call(client, "similar_notes", {"path": "Home"}))["warnings"] == []


# -- freshness, moves, restarts ------------------------------------------------------------------


async def test_a_note_edited_by_another_program_is_found_by_its_new_meaning(tmp_path: Path) -> None:
    vault = sample_copy(tmp_path)
    question = "looking after a miniature tree growing in a shallow pot"
    # listing before every call: the edit is seen with or without the inotify feed
    async with serving(vault, tmp_path / "index", rescan_seconds=0) as (client, _):
        before = await call(client, "search_notes", {"query": question, "mode": "semantic", "limit": 3})
        assert "Inbox.md" not in paths(before)
        (vault / "Inbox.md").write_text(
            "# Inbox\n\nRepot the bonsai in early spring: trim a third of the roots, use a gritty soil "
            "mix and keep the little tree out of full sun for two weeks. Water the shallow tray daily.\n",
            encoding="utf-8",
        )
        after = await call(client, "search_notes", {"query": question, "mode": "semantic", "limit": 3})
        assert paths(after)[0] == "Inbox.md" and after["warnings"] == []
        assert "bonsai" in after["results"][0]["snippet"]
        hybrid = await call(client, "search_notes", {"query": question, "limit": 3})
        assert paths(hybrid)[0] == "Inbox.md"

        (vault / "Inbox.md").unlink()
        gone = await call(client, "search_notes", {"query": question, "mode": "semantic"})
        assert "Inbox.md" not in paths(gone)


async def test_a_moved_note_is_found_at_its_new_path(tmp_path: Path) -> None:
    vault = sample_copy(tmp_path)
    async with serving(vault, tmp_path / "index", embedder=HashingEmbedder()) as (client, assembled):
        await call(client, "search_notes", {"query": "warm up"})
        moved = await call(client, "move_note", {"path": REFUNDS, "new_path": "Archive/Money Back"})
        assert moved["new_path"] == "Archive/Money Back.md"
        answer = await call(client, "search_notes", {"query": "refund window store purchase", "mode": "semantic"})
        assert "Archive/Money Back.md" in paths(answer) and REFUNDS not in paths(answer)
        similar = await call(client, "similar_notes", {"path": "Archive/Money Back"})
        assert similar["results"] and "Archive/Money Back.md" not in paths(similar)
        stored = assembled.index.vectors.index
        assert stored is not None and "Archive/Money Back.md" in stored.indexed_paths()
        assert REFUNDS not in stored.indexed_paths()


async def test_a_restart_on_an_up_to_date_index_answers_its_first_search_unflagged(tmp_path: Path) -> None:
    vault = sample_copy(tmp_path)
    async with serving(vault, tmp_path / "index", embedder=HashingEmbedder()) as (client, assembled):
        await call(client, "search_notes", {"query": "refund"})
        assert assembled.index.vectors.wait(60)
    async with serving(vault, tmp_path / "index", embedder=HashingEmbedder()) as (client, assembled):
        first = await call(client, "search_notes", {"query": "refund window store purchase"})
        assert first["warnings"] == [] and REFUNDS in paths(first)  # the stored vectors loaded, not flagged


async def test_a_restart_preloaded_by_the_cli_serves_the_preloaded_vectors_unflagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "_preloaded", None)
    vault = sample_copy(tmp_path)
    async with serving(vault, tmp_path / "index") as (client, assembled):  # the default model
        await call(client, "search_notes", {"query": "refund"})
        assert assembled.index.vectors.wait(60)
    location = index_location(tmp_path / "index", vault.resolve())
    vectors.preload(location)  # what `obsidian-mcp` does before importing the MCP SDK
    early = vectors._preloaded
    assert early is not None
    early.thread.join()
    assert early.loaded is not None
    preloaded = early.loaded[0]
    async with serving(vault, tmp_path / "index") as (client, assembled):
        assembled.index.start()
        first = await call(client, "search_notes", {"query": "refund window store purchase"})
        assert first["warnings"] == [] and REFUNDS in paths(first)
        assert assembled.index.vectors.index is preloaded and vectors._preloaded is None


def test_a_preload_of_a_file_replaced_since_is_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "_preloaded", None)
    vault = sample_copy(tmp_path)
    index = VaultIndex(Vault(vault), index_location(tmp_path / "index", vault.resolve()), watch=False)
    index.refresh()
    assert index.vectors.wait(60)
    location = index.store.location
    index.close()
    assert location is not None
    vectors.preload(location)
    early = vectors._preloaded
    assert early is not None
    early.thread.join()
    loaded = early.loaded
    assert loaded is not None
    shutil.copy(location, location.with_suffix(".copy"))
    os.replace(location.with_suffix(".copy"), location)  # another file at the same path
    assert early.take(location) is None
    with pytest.raises(sqlite3.ProgrammingError):
        loaded[1].execute("SELECT 1")  # closed


def test_no_preload_without_an_index_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "_preloaded", None)
    vectors.preload(tmp_path / "missing" / "index.sqlite3")
    assert vectors._preloaded is None


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> Any:
        if threading.current_thread().name == "semantic-builder":
            self.texts += len(texts)
        return super().embed(texts)


def open_index(vault: Path, index_dir: Path, embedder: HashingEmbedder) -> VaultIndex:
    root = Vault(vault)
    return VaultIndex(root, index_location(index_dir, root.root), watch=False, embedder=embedder)


def test_a_warm_start_embeds_only_what_changed_while_the_server_was_down(tmp_path: Path) -> None:
    vault = sample_copy(tmp_path)
    first = CountingEmbedder()
    index = open_index(vault, tmp_path / "index", first)
    index.refresh()
    assert index.vectors.wait(60) and first.texts > 0
    index.close()

    (vault / "Inbox.md").write_text("# Inbox\n\nA new line.\n", encoding="utf-8")
    second = CountingEmbedder()
    index = open_index(vault, tmp_path / "index", second)
    try:
        index.refresh()
        assert index.vectors.wait(60)
        assert second.texts == 1  # Inbox's one chunk: the other notes' vectors were stored
        stored = index.vectors.index
        assert stored is not None and stored.note_count() == len(list(Vault(vault).iter_notes()))
    finally:
        index.close()


def test_the_vectors_follow_the_keyword_index_when_it_starts_over(tmp_path: Path) -> None:
    vault = sample_copy(tmp_path)
    index = open_index(vault, tmp_path / "index", HashingEmbedder())
    try:
        index.refresh()
        assert index.vectors.wait(60)
        location = index.store.location
        assert location is not None
        before = index.vectors.index
        for suffix in ("", "-wal", "-shm"):  # another program deletes the database under us
            Path(f"{location}{suffix}").unlink(missing_ok=True)
        index.refresh()  # a new, empty database: every note indexed again, and embedded again
        assert index.vectors.index is not before
        assert index.vectors.wait(60)
        found = search.search_notes(index, "refund store purchase", mode="semantic")
        assert REFUNDS in [hit.path for hit in found.results] and found.warnings == []
        stored = index.vectors.index
        assert stored is not None and stored.note_count() == len(list(Vault(vault).iter_notes()))
        assert os.path.exists(location)
    finally:
        index.close()


def test_notes_the_keyword_index_leaves_out_are_never_embedded(tmp_path: Path) -> None:
    vault = sample_copy(tmp_path)
    (vault / ".trash").mkdir()
    (vault / ".trash" / "Refund secrets.md").write_text("# Refund secrets\n\nrefund refund refund\n", encoding="utf-8")
    index = open_index(vault, tmp_path / "index", HashingEmbedder())
    try:
        index.refresh()
        assert index.vectors.wait(60)
        stored = index.vectors.index
        assert stored is not None
        listed = {info.rel for info in Vault(vault).iter_notes()}
        assert stored.indexed_paths() == listed
        found = search.search_notes(index, "refund secrets", mode="semantic", limit=100)
        assert all(not hit.path.startswith(".") for hit in found.results)
    finally:
        index.close()


def test_the_domain_default_mode_is_keyword_and_an_unknown_mode_is_refused(tmp_path: Path) -> None:
    from obsidian_mcp.vault.errors import InvalidArgument

    index = open_index(sample_copy(tmp_path), tmp_path / "index", HashingEmbedder())
    try:
        assert search.search_notes(index, "how do I get my money back after buying").total == 0
        with pytest.raises(InvalidArgument) as refused:
            search.search_notes(index, "refund", mode="fuzzy")  # type: ignore[arg-type]
        assert refused.value.field == "mode"
    finally:
        index.close()


class BrokenEmbedder(HashingEmbedder):
    def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("the model is broken")


def test_a_broken_model_leaves_the_keyword_search_answering(tmp_path: Path) -> None:
    index = open_index(sample_copy(tmp_path), tmp_path / "index", BrokenEmbedder())
    try:
        index.refresh()
        index.vectors.wait(60)
        found = search.search_notes(index, "roofing felt", mode="hybrid")
        assert [hit.path for hit in found.results][:3] and [w.code for w in found.warnings] == ["SEARCH_DEGRADED"]
        assert sorted(hit.path for hit in found.results) == sorted(
            hit.path for hit in search.search_notes(index, "roofing felt").results
        )
        assert search.search_notes(index, "roofing felt", mode="keyword").warnings == []
    finally:
        index.close()


def test_vector_tables_that_cannot_open_never_reset_the_keyword_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: vectors.VaultVectors) -> Any:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(vectors.VaultVectors, "_semantic_index", refuse)
    index = open_index(sample_copy(tmp_path), tmp_path / "index", HashingEmbedder())
    try:
        index.refresh()
        conn = index.store.connect()
        found = search.search_notes(index, "roofing felt", mode="hybrid")
        assert found.total == 3 and [w.code for w in found.warnings] == ["SEARCH_DEGRADED"]
        similar = search.similar_notes(index, "Home")
        assert similar.results == [] and [w.code for w in similar.warnings] == ["SEARCH_DEGRADED"]
        assert index.store.connect() is conn and not index.store.in_memory  # no start-over
    finally:
        index.close()


def test_without_an_index_of_meanings_hybrid_answers_with_keywords(tmp_path: Path) -> None:
    root = Vault(sample_copy(tmp_path))
    index = VaultIndex(root, index_location(tmp_path / "index", root.root), watch=False, semantic=False)
    try:
        found = search.search_notes(index, "roofing felt", mode="hybrid")
        assert found.total == 3 and [w.code for w in found.warnings] == ["SEARCH_DEGRADED"]
        assert index.vectors.builder is None and index.vectors.index is None
    finally:
        index.close()
