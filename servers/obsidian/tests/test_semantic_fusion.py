"""semantic.fusion: reciprocal rank fusion, pinned exact hits, and the any-word fallback query."""

from __future__ import annotations

import sqlite3

import pytest
from obsidian_mcp.semantic.fusion import (
    FALLBACK_BELOW,
    FusionParams,
    any_word_query,
    content_words,
    fuse,
    needs_fallback,
    pinned_paths,
    stem,
)

NOTES = [f"Notes/{n:02d}.md" for n in range(30)]


def ranked(paths: list[str], top: float = 1.0) -> list[tuple[str, float]]:
    return [(path, top - 0.01 * rank) for rank, path in enumerate(paths)]


def order(hits: list[object]) -> list[str]:
    return [hit.path for hit in hits]  # type: ignore[attr-defined]


def test_a_needle_found_by_few_notes_stays_first_whatever_the_vectors_say() -> None:
    needle = "Notes/17.md"
    semantic = ranked([p for p in NOTES if p != needle] + [needle])  # the vectors put it last
    fused = fuse([(needle, 7.5)], semantic, keyword_total=1)
    assert fused[0].path == needle and fused[0].pinned and fused[0].keyword_rank == 1
    assert fused[0].semantic_rank == len(NOTES)
    assert not any(hit.pinned for hit in fused[1:])


def test_up_to_three_all_words_hits_are_pinned_in_keyword_order() -> None:
    keyword = [("Notes/05.md", 9.0), ("Notes/06.md", 8.9), ("Notes/07.md", 8.8)]
    fused = fuse(keyword, ranked(NOTES), keyword_total=3)
    assert order(fused)[:3] == ["Notes/05.md", "Notes/06.md", "Notes/07.md"]


def test_a_keyword_top_hit_far_above_the_rest_is_pinned() -> None:
    keyword = [("Notes/20.md", 12.0), ("Notes/01.md", 5.0), ("Notes/02.md", 4.9), ("Notes/03.md", 4.8)]
    semantic = ranked(NOTES)  # 20 is far down
    fused = fuse(keyword, semantic, keyword_total=40)
    assert fused[0].path == "Notes/20.md" and fused[0].pinned
    assert pinned_paths(keyword, 40) == ["Notes/20.md"]


def test_an_exact_title_match_is_pinned() -> None:
    keyword = [("Areas/Home Maintenance.md", 4.3), ("Projects/Garden Shed.md", 4.8), ("Daily/x.md", 3.6)]
    keyword.sort(key=lambda item: -item[1])
    semantic = [("Areas/Home Maintenance.md", 0.5), ("Projects/Garden Shed.md", 0.4), ("Daily/x.md", 0.3)]
    fused = fuse(keyword, semantic, keyword_total=9, query="garden shed")
    assert fused[0].path == "Projects/Garden Shed.md" and fused[0].pinned
    titled = fuse(
        [("Projects/Alpha.md", 4.0), ("Home.md", 3.9), ("Other.md", 3.8)],
        [("Home.md", 0.9), ("Other.md", 0.8), ("Projects/Alpha.md", 0.1)],
        keyword_total=9,
        query='"Project Alpha"',
        titles={"Projects/Alpha.md": "Project Alpha"},
    )
    assert titled[0].path == "Projects/Alpha.md"


def test_close_keyword_scores_are_fused_not_pinned() -> None:
    keyword = ranked(["Notes/01.md", "Notes/02.md", "Notes/03.md", "Notes/04.md"], top=5.0)
    semantic = ranked(["Notes/03.md", "Notes/09.md", "Notes/01.md"])
    fused = fuse(keyword, semantic, keyword_total=25)
    assert not any(hit.pinned for hit in fused)
    assert order(fused)[:2] == ["Notes/01.md", "Notes/03.md"]  # found by both rankings
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 63)


def test_semantic_recovers_a_paraphrase_the_keywords_miss() -> None:
    """No all-words hit; the any-word fallback finds noise: the vectors' best note wins."""
    refunds = "Help/Refunds and Returns.md"
    fallback = ranked(["Daily/2026-11-21.md", "Help/Subscription.md", "Projects/Website.md"], top=4.0)
    semantic = ranked([refunds, "Help/Subscription.md", "Help/Backups.md", *NOTES])
    fused = fuse([], semantic, fallback=fallback, keyword_total=0)
    assert fused[0].path in (refunds, "Help/Subscription.md")
    assert refunds in order(fused)[:3]
    heavy = fuse([], semantic, fallback=fallback, keyword_total=0, params=FusionParams(fallback_weight=0.0))
    assert heavy[0].path == refunds


def test_fusion_is_deterministic_and_symmetric() -> None:
    a = ranked(["Notes/01.md", "Notes/02.md"])
    b = ranked(["Notes/02.md", "Notes/01.md"])
    fused = fuse(a, b, keyword_total=10, params=FusionParams(pin_max_hits=0, strong_ratio=1e9))
    assert fused[0].score == fused[1].score
    assert order(fused) == ["Notes/01.md", "Notes/02.md"]  # ties by path
    assert order(fuse(b, a, keyword_total=10, params=FusionParams(pin_max_hits=0, strong_ratio=1e9))) == order(fused)


def test_one_ranking_alone_keeps_its_order_and_limit_cuts() -> None:
    semantic = ranked(NOTES[::-1])
    assert order(fuse([], semantic)) == NOTES[::-1]
    assert order(fuse([], semantic, limit=5)) == NOTES[::-1][:5]
    assert fuse([], []) == []


def test_a_path_listed_twice_counts_once_at_its_best_rank() -> None:
    fused = fuse([], [("A.md", 0.9), ("B.md", 0.8), ("A.md", 0.1)])
    assert order(fused) == ["A.md", "B.md"] and fused[0].semantic_rank == 1


# -- the any-word fallback ----------------------------------------------------------------------


def test_content_words_drop_stop_words_and_fold() -> None:
    assert content_words("How do I get my money back after buying?") == ["money", "buying"]
    assert content_words("Café ÜBER   café") == ["cafe", "uber"]
    assert content_words("what is it") == []


def test_stems_are_prefixes_of_the_word_family() -> None:
    assert stem("refunds") == "refund"
    assert stem("batteries") == "batter"
    assert stem("deleted") == "delet"
    assert stem("boxes") == "box"
    assert stem("notes") == "note"
    assert stem("glass") == "glass"
    assert stem("4012") == "4012"
    assert stem("buy") == "buy"


def test_any_word_query_is_a_quoted_or_of_content_words() -> None:
    assert any_word_query("How do I get my money back after buying?") == '"money"* OR "buy"*'
    assert any_word_query("my refunds", prefixes=False) == '"refunds"'
    assert any_word_query("what is it to you") is None
    many = " ".join(f"word{n}x" for n in range(40))
    assert any_word_query(many) is not None
    assert any_word_query(many, max_terms=3) == '"word0x"* OR "word1x"* OR "word2x"*'


def test_any_word_query_is_valid_fts5_and_ranks_more_matches_first() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61 remove_diacritics 2')")
    rows = [
        ("refund policy: money back within 14 days of buying",),
        ("we refunded the money",),
        ("bike maintenance before winter",),
        ('quotes " and ( and OR and * everywhere',),
    ]
    conn.executemany("INSERT INTO t(body) VALUES (?)", rows)
    query = any_word_query('How do I get my "money" back after buying -- NEAR(refunds) OR *?')
    assert query is not None
    hits = [row[0] for row in conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)", (query,))]
    assert hits == [1, 2]  # NEAR, OR, quotes and * are words or nothing, never operators


def test_the_fallback_runs_when_the_all_words_search_finds_too_little() -> None:
    assert needs_fallback(0) and needs_fallback(FALLBACK_BELOW - 1)
    assert not needs_fallback(FALLBACK_BELOW)
