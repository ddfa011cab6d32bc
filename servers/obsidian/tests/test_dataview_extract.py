"""Reading metadata out of note bodies: inline fields, their types, keys, and what is skipped."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from obsidian_mcp.dataview import extract_fields, extract_list_items, extract_tasks
from obsidian_mcp.dataview.coerce import canonical_key, frontmatter_value, inline_value
from obsidian_mcp.dataview.durations import Duration
from obsidian_mcp.dataview.inline_fields import bracketed_fields, full_line_field
from obsidian_mcp.dataview.values import Link


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("Rating:: 8", [("Rating", "8")]),
        ("**Mood**:: happy", [("Mood", "happy")]),
        ("> Quoted:: yes", [("Quoted", "yes")]),
        ("Key With Spaces::  spaced value  ", [("Key With Spaces", "spaced value")]),
        ("A [one:: 1] and (two:: 2) inline", [("one", "1"), ("two", "2")]),
        ("[[Alpha]] then [k:: v]", [("k", "v")]),
        ("[nested:: a [b] c]", [("nested", "a [b] c")]),
        ("[escaped:: a \\] b]", [("escaped", "a \\] b")]),
        ("(paren:: with (inner) text)", [("paren", "with (inner) text")]),
        ("Inline [a:: 1] wins over a whole-line:: field", [("a", "1")]),
        ("[unclosed:: value", [("unclosed", "value")]),  # no closing bracket: a whole-line field, as in Dataview
        ("No field here: just a colon", []),
        ("Web link https://example.com::8080", []),
        ("[bad[key:: v]", [("key", "v")]),
    ],
)
def test_line_fields(line: str, fields: list[tuple[str, str]]) -> None:
    assert [(f.key, f.value) for f in extract_fields(line)] == fields


def test_field_pieces() -> None:
    assert full_line_field("__Key__:: v", 3) is not None
    assert [(f.start, f.wrapping) for f in bracketed_fields("x [a:: 1] (b:: 2)", 1)] == [(2, "["), (10, "(")]


def test_fields_skip_code_and_comments() -> None:
    body = "\n".join(
        [
            "real:: 1",
            "```",
            "fenced:: no",
            "```",
            "~~~~",
            "tilde:: no",
            "```",
            "still:: no",
            "~~~~",
            "",
            "    indented:: no",
            "",
            "%% obsidian:: no %% after:: yes",
            "%%",
            "multi:: no",
            "%%",
            "<!-- html:: no -->",
            "<!--",
            "multi-html:: no",
            "-->",
            "span `code:: no` here",
            "last:: 2",
        ]
    )
    assert [(f.key, f.value, f.line) for f in extract_fields(body)] == [
        ("real", "1", 1),
        ("after", "yes", 13),
        ("last", "2", 22),
    ]


def test_page_fields_come_from_prose_headings_and_plain_bullets_not_tasks() -> None:
    body = "# Title [h:: 1]\nintro:: 2\n- bullet:: 3\n- [ ] task [t:: 4]\n  - nested:: 5\n"
    assert [(f.key, f.value) for f in extract_fields(body)] == [
        ("h", "1"),
        ("intro", "2"),
        ("bullet", "3"),
        ("nested", "5"),
    ]
    [task] = extract_tasks(body)
    assert [(f.key, f.value) for f in task.fields] == [("t", "4")]


def test_list_items_include_plain_bullets() -> None:
    items = extract_list_items("- a\n  - [ ] b\n1. c\n\n---\n* d")
    assert [(i.line, i.symbol, i.status, i.parent) for i in items] == [
        (1, "-", None, None),
        (2, "-", " ", 1),
        (3, "1.", None, None),
        (6, "*", None, None),
    ]


def test_tasks_skip_code_and_comments() -> None:
    body = "```\n- [ ] fenced\n```\n%%\n- [ ] hidden\n%%\n<!-- - [ ] html -->\n\n    - [ ] indented code\n\n- [ ] real"
    assert [(t.line, t.text) for t in extract_tasks(body)] == [(11, "real")]


def test_sections_follow_headings() -> None:
    tasks = extract_tasks("- [ ] before\n# One\n- [ ] a\n## Two ##\n- [ ] b\n```\n# not a heading\n```\n- [ ] c")
    assert [(t.text, t.section) for t in tasks] == [("before", None), ("a", "One"), ("b", "Two"), ("c", "Two")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", None),
        ("   ", None),
        ("null", None),
        ("8", 8),
        ("-80", -80),
        ("2.4", 2.4),
        ("true", True),
        ("False", False),
        ("TRUE", "TRUE"),
        ("2021-04", datetime(2021, 4, 1)),
        ("2021-04-18", datetime(2021, 4, 18)),
        ("2021-04-18T04:19", datetime(2021, 4, 18, 4, 19)),
        ("2021-04-18T04:19:35.250", datetime(2021, 4, 18, 4, 19, 35, 250_000)),
        ("2021-04-18 18:00", "2021-04-18 18:00"),
        ("2021-02-30", "2021-02-30"),
        ("1 day", Duration(seconds=86_400)),
        ("4hr2min", Duration(seconds=4 * 3600 + 120)),
        ("1 day, 2 hours", Duration(seconds=26 * 3600)),
        ("2 years 3 months", Duration(months=27)),
        ("5 Days", "5 Days"),
        ('"quoted, text"', "quoted, text"),
        ('"with \\"escapes\\""', 'with "escapes"'),
        ("#tag/sub", "#tag/sub"),
        ("[[Note]]", Link("Note", written=True)),
        ("![[Image.png]]", Link("Image.png", embed=True, written=True)),
        ("[[Note|Shown]]", Link("Note", display="Shown", written=True)),
        ("[[Note#Some Heading!]]", Link("Note", subpath="Some Heading", kind="header", written=True)),
        ("[[Note#^block1]]", Link("Note", subpath="block1", kind="block", written=True)),
        ("1, 2, 3", [1, 2, 3]),
        ("[[A]], [[B]]", [Link("A", written=True), Link("B", written=True)]),
        ("2024-01-01, 2024-02-01", [datetime(2024, 1, 1), datetime(2024, 2, 1)]),
        ("apples, pears", "apples, pears"),
        ("1, two", "1, two"),
        ("some text", "some text"),
        ("10 minutes ago", "10 minutes ago"),
    ],
)
def test_inline_values_are_typed(text: str, value: object) -> None:
    assert inline_value(text) == value


def test_frontmatter_values_are_typed() -> None:
    assert frontmatter_value("2024-05-01", "a.md") == datetime(2024, 5, 1)
    assert frontmatter_value(date(2024, 5, 1)) == datetime(2024, 5, 1)
    assert frontmatter_value(datetime(2024, 5, 1, 9, 30)) == datetime(2024, 5, 1, 9, 30)
    assert frontmatter_value("1 week") == Duration(seconds=7 * 86_400)
    assert frontmatter_value("[[Bob]]", "a.md") == Link("Bob", origin="a.md", written=True)
    assert frontmatter_value("plain [[Bob]] text") == "plain [[Bob]] text"
    assert frontmatter_value(["x", 1, None, {"k": "2024-01"}]) == ["x", 1, None, {"k": datetime(2024, 1, 1)}]
    assert frontmatter_value(3.5) == 3.5
    assert frontmatter_value(True) is True


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("status", "status"),
        ("Status", "status"),
        ("Due Date", "due-date"),
        ("Due   Date", "due-date"),
        ("**Rating**", "rating"),
        ("Hello!", "hello"),
        ("snake_case", "snake_case"),
        ("Café Menu", "café-menu"),
        ("🎯 Goal", "🎯-goal"),
    ],
)
def test_canonical_keys(key: str, canonical: str) -> None:
    assert canonical_key(key) == canonical
