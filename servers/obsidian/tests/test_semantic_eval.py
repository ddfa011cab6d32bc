"""The evaluation set over examples/vault: paraphrases are found, needles stay first (real model).

The keyword side is a small SQLite FTS5 emulation of today's search (every word must match;
names, then headings, weigh more than text), so that this test does not depend on the index package's internals;
bench/search_quality.py measures the same with the server's own search.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from obsidian_mcp.index.vector_store import SemanticIndex
from obsidian_mcp.semantic import NoteText, any_word_query, fuse, needs_fallback
from obsidian_mcp.semantic.chunking import chunk_note
from obsidian_mcp.semantic.fusion import fold

REPO = Path(__file__).resolve().parents[3]
SPEC = json.loads((Path(__file__).parent / "fixtures" / "search_eval.json").read_text(encoding="utf-8"))
VAULT = REPO / SPEC["vault"]
_PIECE = re.compile(r'"([^"]*)"|(\S+)')
_TOKEN = re.compile(r"[^\W_]+")

Ranking = list[tuple[str, float]]


@dataclass
class Engines:
    fts: sqlite3.Connection
    semantic: SemanticIndex

    def keyword(self, query: str) -> tuple[Ranking, int]:
        """All words (and quoted phrases) must match, as `search_notes` does today."""
        terms = []
        for phrase, word in _PIECE.findall(query):
            tokens = _TOKEN.findall(fold(phrase or word))
            if tokens:
                terms.append('"' + " ".join(tokens) + '"')
        return self.match(" AND ".join(terms)) if terms else ([], 0)

    def match(self, expression: str) -> tuple[Ranking, int]:
        rows = self.fts.execute(
            "SELECT path, -bm25(notes, 0, 10.0, 4.0, 1.0) FROM notes WHERE notes MATCH ? ORDER BY 2 DESC LIMIT 50",
            (expression,),
        ).fetchall()
        return [(path, score) for path, score in rows], len(rows)

    def hybrid(self, query: str) -> list[str]:
        keyword, total = self.keyword(query)
        fallback: Ranking = []
        if needs_fallback(total):
            any_words = any_word_query(query)
            fallback = self.match(any_words)[0] if any_words else []
        semantic = [(hit.path, hit.score) for hit in self.semantic.search(query, 50)]
        return [hit.path for hit in fuse(keyword, semantic, fallback=fallback, keyword_total=total, query=query)]


@pytest.fixture(scope="module")
def engines() -> Iterator[Engines]:
    notes = {
        path.relative_to(VAULT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(VAULT.rglob("*.md"))
        if not any(part.startswith(".") for part in path.relative_to(VAULT).parts)
    }
    fts = sqlite3.connect(":memory:")
    fts.execute(
        "CREATE VIRTUAL TABLE notes USING fts5(path UNINDEXED, title, headings, body,"
        " tokenize='unicode61 remove_diacritics 2')"
    )
    for path, text in notes.items():
        chunked = chunk_note(path, text)
        names = " ".join([chunked.title, path.rsplit("/", 1)[-1][:-3], *chunked.aliases])
        headings = "\n".join(line for line in text.split("\n") if line.startswith("#"))
        fts.execute("INSERT INTO notes(path, title, headings, body) VALUES (?, ?, ?, ?)", (path, names, headings, text))
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    semantic = SemanticIndex(conn)
    semantic.upsert_notes([NoteText(path, text) for path, text in notes.items()])
    yield Engines(fts, semantic)
    fts.close()
    conn.close()


def recall_at(rankings: list[list[str]], k: int) -> float:
    hits = [
        any(path in question["expected"] for path in ranking[:k])
        for ranking, question in zip(rankings, SPEC["questions"], strict=True)
    ]
    return sum(hits) / len(hits)


def test_the_evaluation_set_is_large_enough_and_points_at_real_notes() -> None:
    assert len(SPEC["questions"]) >= 40 and len(SPEC["needles"]) >= 10
    for item in SPEC["questions"]:
        assert all((VAULT / path).is_file() for path in item["expected"]), item
    for item in SPEC["needles"]:
        assert (VAULT / item["expected"]).is_file(), item


def test_semantic_search_recovers_paraphrases_that_keywords_miss(engines: Engines) -> None:
    keyword = [[p for p, _ in engines.keyword(q["query"])[0]] for q in SPEC["questions"]]
    semantic = [[hit.path for hit in engines.semantic.search(q["query"], 10)] for q in SPEC["questions"]]
    hybrid = [engines.hybrid(q["query"]) for q in SPEC["questions"]]
    assert recall_at(semantic, 5) >= 0.8
    assert recall_at(hybrid, 5) >= 0.8
    assert recall_at(hybrid, 5) >= recall_at(keyword, 5) + 0.3


def test_needles_keep_their_note_first_in_hybrid_search(engines: Engines) -> None:
    for needle in SPEC["needles"]:
        keyword = [path for path, _ in engines.keyword(needle["query"])[0]]
        assert keyword[:1] == [needle["expected"]], needle  # the emulation agrees with the set
        assert engines.hybrid(needle["query"])[0] == needle["expected"], needle


def test_similar_notes_of_a_help_article_are_help_articles(engines: Engines) -> None:
    similar = [hit.path for hit in engines.semantic.similar("Fernhill Help/Refunds and Returns.md", 3)]
    assert "Fernhill Help/Subscription and Billing.md" in similar
    assert "Fernhill Help/Refunds and Returns.md" not in similar
