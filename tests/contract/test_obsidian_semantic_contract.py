"""obsidian-mcp's search by meaning through real stdio: `search_notes` modes, `similar_notes`, each
error code they can return, no results for words found nowhere, and the `SEMANTIC_NOT_READY`
warning while a large vault is embedded."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.contract.checks import assert_error
from tests.contract.harness import SharedObsidian, obsidian, running

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"
REFUNDS = "Fernhill Help/Refunds and Returns.md"
QUESTION = "how do I get my money back after buying"


async def test_modes_and_similar_notes_answer_on_the_sample_vault(vault: Path, index_env: dict[str, str]) -> None:
    async with running(obsidian(vault), index_env) as session:
        keyword = await session.call("search_notes", {"query": QUESTION, "mode": "keyword"})
        assert keyword.error is None and keyword.payload["total"] == 0, keyword.payload

        hybrid = await session.call("search_notes", {"query": QUESTION, "limit": 5})
        assert hybrid.error is None, hybrid.payload
        assert REFUNDS in [hit["path"] for hit in hybrid.payload["results"]]
        assert hybrid.payload["warnings"] == []  # a small vault is embedded before the answer
        for hit in hybrid.payload["results"]:
            assert set(hit) == {"path", "title", "score", "line", "heading", "snippet", "match"} and hit["snippet"]
        assert {hit["match"] for hit in hybrid.payload["results"]} == {"words", "meaning"}

        semantic = await session.call("search_notes", {"query": QUESTION, "mode": "semantic", "limit": 3})
        assert semantic.error is None and semantic.payload["results"][0]["path"] == REFUNDS, semantic.payload
        assert 0 < semantic.payload["results"][0]["score"] <= 1

        for mode in ("hybrid", "keyword", "semantic"):  # a made-up word: no note has it, none is close in meaning
            nothing = await session.call("search_notes", {"query": "xylophonecanary", "mode": mode})
            assert nothing.payload == {"results": [], "total": 0, "warnings": []}, (mode, nothing.payload)

        needle = await session.call("search_notes", {"query": '"fractional-index approach"'})
        assert needle.payload["results"][0]["path"] == "Projects/Meeting Notes.md"

        similar = await session.call("similar_notes", {"path": "Fernhill Help/Refunds and Returns", "limit": 3})
        assert similar.error is None, similar.payload
        assert similar.payload["path"] == REFUNDS
        paths = [hit["path"] for hit in similar.payload["results"]]
        assert len(paths) == 3 and REFUNDS not in paths
        assert set(similar.payload["results"][0]) == {"path", "title", "score", "snippet"}


async def test_errors_of_search_by_meaning_and_similar_notes(shared_obsidian: SharedObsidian) -> None:
    session = shared_obsidian.session
    answer = await session.call("similar_notes", {"path": "Projects/No Such Note"})
    assert_error(session, answer, "not_found", server=SERVER, tool="similar_notes", resource="note")
    answer = await session.call("similar_notes", {"path": "../outside"})
    assert_error(session, answer, "permission_denied", server=SERVER, tool="similar_notes", reason="outside_vault")
    answer = await session.call("similar_notes", {"path": ".obsidian/app"})
    assert_error(session, answer, "permission_denied", server=SERVER, tool="similar_notes", reason="hidden_path")
    answer = await session.call("similar_notes", {"path": "Home", "limit": 0})
    assert_error(
        session,
        answer,
        "parse_error",
        server=SERVER,
        tool="similar_notes",
        field="limit",
        reason="greater_than_equal",
    )
    answer = await session.call("similar_notes", {})
    assert_error(session, answer, "parse_error", server=SERVER, tool="similar_notes", field="path", reason="missing")
    answer = await session.call("search_notes", {"query": "refund", "mode": "fuzzy"})
    assert_error(
        session, answer, "parse_error", server=SERVER, tool="search_notes", field="mode", reason="literal_error"
    )
    answer = await session.call("search_notes", {"query": "-refund", "mode": "semantic"})
    assert_error(
        session,
        answer,
        "parse_error",
        server=SERVER,
        tool="search_notes",
        field="query",
        reason="no_positive_terms",
    )
    answer = await session.call("search_notes", {"query": "refund", "mode": "hybrid", "folder": "Nowhere"})
    assert_error(session, answer, "not_found", server=SERVER, tool="search_notes", resource="folder")


async def test_search_by_meaning_says_while_a_large_vault_is_embedded(
    tmp_path: Path, index_env: dict[str, str]
) -> None:
    root = tmp_path / "big"
    for n in range(600):  # above the backlog a search waits for
        folder = root / f"area {n % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        body = f"# Note {n}\n\nNotes about the harbour crane number {n} and its maintenance.\n"
        (folder / f"note {n}.md").write_text(body, encoding="utf-8")
    async with running(obsidian(root), index_env) as session:
        first = await session.call("search_notes", {"query": "crane maintenance", "limit": 5})
        assert first.error is None, first.payload
        [building] = first.payload["warnings"]  # never INDEX_BUILDING: every note with the words is there
        assert building["code"] == "SEMANTIC_NOT_READY" and 0 <= building["done"] <= building["total"]
        assert first.payload["total"] == 600 and {hit["match"] for hit in first.payload["results"]} == {"words"}
        keyword = await session.call("search_notes", {"query": "crane 417", "mode": "keyword"})
        assert keyword.payload["warnings"] == [] and keyword.payload["results"][0]["path"] == "area 7/note 417.md"
        with anyio.fail_after(120):
            while True:  # the build's own progress, as a client sees it
                answer = await session.call("search_notes", {"query": "lifting equipment at the port", "limit": 5})
                if not answer.payload["warnings"]:
                    break
                assert [w["code"] for w in answer.payload["warnings"]] == ["SEMANTIC_NOT_READY"]
                await anyio.sleep(0.2)
        assert len(answer.payload["results"]) == 5
