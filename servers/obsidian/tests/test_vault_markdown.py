"""Parsing notes: frontmatter, tags, links, headings."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest
from obsidian_mcp.vault.errors import DocumentParseError
from obsidian_mcp.vault.markdown import parse_note, split_frontmatter

NOTE = """---
title: Plan
date: 2024-01-05
when: 2024-01-05T10:30:00Z
tags: [project, "#Work"]
tag: alpha, beta gamma
---
# Plan #inheading

Text with #tag, #nested/deep, #日本語, #café and #123 (not a tag) and #2024-01.
Repeat #TAG and #project. A url http://example.com/page#frag and `#code` and \\#escaped.
Links: [[Other]] [[Other|shown]] [[Other#Section]] [[Other#^block1]] ![[image.png]] [[#Local]]
Markdown: [a](notes/My%20Note.md#Part%20Two) ![e](<With Space.md>) [web](https://x.com/a.md) [x](#anchor)
Table | [[Target\\|Alias]] |

```python
# not a heading #nottag [[NotALink]]
```

~~~
## not a heading either
~~~

    ## indented by four spaces: not a heading
## Second ##
###### Six
####### seven is not a heading
#NoSpace is a tag, not a heading
"""


def test_frontmatter_values_are_json_safe() -> None:
    parsed = parse_note(NOTE, "plan.md")
    assert parsed.frontmatter == {
        "title": "Plan",
        "date": "2024-01-05",
        "when": "2024-01-05T10:30:00+00:00",
        "tags": ["project", "#Work"],
        "tag": "alpha, beta gamma",
    }
    assert NOTE[parsed.body_offset :].startswith("# Plan")


def test_tags() -> None:
    assert parse_note(NOTE, "plan.md").tags == [
        "project",
        "Work",
        "alpha",
        "beta",
        "gamma",
        "inheading",
        "tag",
        "nested/deep",
        "日本語",
        "café",
        "NoSpace",
    ]


def wiki(
    target: str,
    alias: str | None = None,
    heading: str | None = None,
    block: str | None = None,
    embed: bool = False,
    line: int = 12,
) -> dict[str, Any]:
    return {
        "target": target,
        "alias": alias,
        "heading": heading,
        "block": block,
        "embed": embed,
        "kind": "wikilink",
        "line": line,
    }


def test_links() -> None:
    links = [asdict(link) for link in parse_note(NOTE, "plan.md").links]
    assert links == [
        wiki("Other"),
        wiki("Other", alias="shown"),
        wiki("Other", heading="Section"),
        wiki("Other", block="block1"),
        wiki("image.png", embed=True),
        wiki("", heading="Local"),
        {
            "target": "notes/My Note.md",
            "alias": "a",
            "heading": "Part Two",
            "block": None,
            "embed": False,
            "kind": "markdown",
            "line": 13,
        },
        {
            "target": "With Space.md",
            "alias": "e",
            "heading": None,
            "block": None,
            "embed": True,
            "kind": "markdown",
            "line": 13,
        },
        wiki("Target", alias="Alias", line=14),
    ]


def test_headings_ignore_code() -> None:
    headings = parse_note(NOTE, "plan.md").headings
    assert [(h.level, h.text, h.line) for h in headings] == [
        (1, "Plan #inheading", 8),
        (2, "Second", 25),
        (6, "Six", 26),
    ]
    first = headings[0]
    assert NOTE[first.start : first.end] == "# Plan #inheading"
    assert NOTE[first.content_start :].startswith("\nText")


def test_unclosed_fence_runs_to_the_end() -> None:
    parsed = parse_note("# A\n```\n# B #t\n", "n.md")
    assert [h.text for h in parsed.headings] == ["A"]
    assert parsed.tags == []


def test_bom_and_crlf_frontmatter() -> None:
    text = "\ufeff---\r\na: 1\r\n---\r\n# H\r\nbody #x\r\n"
    parsed = parse_note(text, "n.md")
    assert parsed.frontmatter == {"a": 1}
    assert text[parsed.body_offset :] == "# H\r\nbody #x\r\n"
    assert [(h.text, h.line) for h in parsed.headings] == [("H", 4)]
    assert parsed.tags == ["x"]


def test_bom_without_frontmatter() -> None:
    parsed = parse_note("\ufeff# Title\n", "n.md")
    assert parsed.body_offset == 1
    assert [h.text for h in parsed.headings] == ["Title"]


@pytest.mark.parametrize(
    "text",
    ["---\nno closing fence\n", "--- \n", "text\n---\na: 1\n---\n", "----\na: 1\n----\n", "---"],
)
def test_not_frontmatter(text: str) -> None:
    assert split_frontmatter(text) is None
    assert parse_note(text, "n.md").frontmatter == {}


def test_empty_frontmatter() -> None:
    assert parse_note("---\n---\nbody", "n.md").frontmatter == {}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("---\ntitle: ok\nbad: [1, 2\nnext: 3\n---\nbody\n", 4),
        ("---\na: 1\n  b: 2\n---\n", 3),
        ("\ufeff---\r\na: 1\r\nb: : :\r\n---\r\n", 3),
    ],
)
def test_invalid_yaml_reports_the_note_line(text: str, line: int) -> None:
    with pytest.raises(DocumentParseError) as caught:
        parse_note(text, "bad.md")
    assert caught.value.line == line
    assert caught.value.path == "bad.md"
    assert "<unicode string>" not in str(caught.value)


def test_non_mapping_frontmatter_is_a_parse_error() -> None:
    with pytest.raises(DocumentParseError) as caught:
        parse_note("---\n- a\n- b\n---\n", "n.md")
    assert caught.value.line == 2


def test_lenient_parse_keeps_the_body() -> None:
    parsed = parse_note("---\na: [\n---\n# H #t\n", "n.md", strict=False)
    assert parsed.frontmatter == {}
    assert parsed.frontmatter_error is not None and parsed.frontmatter_error.line is not None
    assert parsed.tags == ["t"]


@pytest.mark.parametrize(
    "yaml_text",
    [
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            for p, n in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        "a: &a [*a]\n",
    ],
)
def test_alias_bombs_are_refused(yaml_text: str) -> None:
    with pytest.raises(DocumentParseError) as caught:
        parse_note(f"---\n{yaml_text}---\nbody\n", "bomb.md")
    assert caught.value.line == 2
