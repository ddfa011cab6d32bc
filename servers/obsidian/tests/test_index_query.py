"""The query parser: user text becomes a safe FTS5 expression, or InvalidArgument, nothing else."""

from __future__ import annotations

import sqlite3

import pytest
from obsidian_mcp.index.text import Term
from obsidian_mcp.search.query import parse_query
from obsidian_mcp.vault.errors import InvalidArgument


def expr(text: str) -> str:
    return parse_query(text).match_expression()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("roofing felt", '"roofing" AND "felt"'),
        ('"sad sandwich"', '"sad sandwich"'),
        ("alph*", '"alph" *'),
        ('"two thr"*', '"two thr" *'),
        ("shed -roof", '("shed") NOT "roof"'),
        ('shed -"roofing felt" -x', '(("shed") NOT "roofing felt") NOT "x"'),
        ("budget OR sourdough", '("budget" OR "sourdough")'),
        ("a OR b c", '("a" OR "b") AND "c"'),
        ("a AND b", '"a" AND "b"'),
        ("a OR", '"a"'),
        ("OR a", '"a"'),
        ("Café", '"cafe"'),
        ("project/alpha", '"project alpha"'),
        ("NEAR(a b)", '"near a" AND "b"'),
        ("title:x", '"title x"'),
        ("one-on-ones", '"one on ones"'),
        ("AND AND", '"and" AND "and"'),
        ("OR", '"or"'),
        ('"unbalanced phrase', '"unbalanced" AND "phrase"'),
        ("wor*d", '"wor d"'),
        ("x\x00y", '"x" AND "y"'),
    ],
)
def test_queries_become_quoted_token_strings(text: str, expected: str) -> None:
    assert expr(text) == expected


@pytest.mark.parametrize("text", ["", "   ", '"', '""', "*", "-", "(((", "^", "!!! ---", "\x00"])
def test_nothing_searchable_is_an_empty_query(text: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_query(text)
    assert caught.value.field == "query" and caught.value.reason == "empty"


def test_only_exclusions_are_refused_rather_than_inverted() -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_query("-draft -old")
    assert caught.value.reason == "no_positive_terms"


def test_long_and_wide_queries_are_refused() -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_query("word " * 2000)
    assert caught.value.reason == "too_long"
    with pytest.raises(InvalidArgument) as caught:
        parse_query(" ".join(f"w{i}" for i in range(70)))
    assert caught.value.reason == "too_many_terms"


HOSTILE = [
    '"',
    '""',
    "*",
    "NEAR(a b)",
    "a OR",
    "-",
    "(((",
    "AND AND",
    "title:x",
    "^",
    "日本語 ñandú Ελληνικά 🦜",
    "x" * 10_000,
    "a\x00b",
    "a NOT b",
    "a:b:c {col} - + ^*",
    '"a" "b" "',
    "'; DROP TABLE notes; --",
    "\u202e\u200b\ufeff",
    "𐴀𐴁",
    "-a -b OR c",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_queries_are_valid_fts5_or_invalid_argument(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO t VALUES ('a b c x', 'ñandu 日本語')")
    try:
        query = parse_query(text)
    except InvalidArgument as exc:
        assert exc.field == "query"
        return
    conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (query.match_expression(),)).fetchall()


def test_terms_match_token_sequences_with_prefixes() -> None:
    assert Term(("roofing", "felt")).find(["the", "roofing", "felt", "roll"]) == 1
    assert Term(("roof",), prefix=True).find(["the", "roofing"]) == 1
    assert Term(("roof",)).find(["the", "roofing"]) is None
    assert Term(("two", "thr"), prefix=True).find(["one", "two", "three"]) == 1
