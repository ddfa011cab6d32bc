"""Text edits: exact expected output, byte-exact everywhere else."""

from __future__ import annotations

import pytest
from obsidian_mcp.vault import edits
from obsidian_mcp.vault.errors import DocumentParseError, HeadingNotFound, InvalidArgument

# -- append -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "content", "expected"),
    [
        ("a\n", "b\n", "a\nb\n"),
        ("a", "b", "a\nb"),  # no trailing newline stays missing (the content decides)
        ("a", "b\n", "a\nb\n"),
        ("", "b", "b"),
        ("a\r\nb\r\n", "c\nd\n", "a\r\nb\r\nc\r\nd\r\n"),  # CRLF note: content converted
        ("a\r\nb", "c\r\nd", "a\r\nb\r\nc\r\nd"),
        ("\ufeffa\n", "b", "\ufeffa\nb"),  # BOM kept
        ("\ufeff", "b", "\ufeffb"),
        ("héllo wörld 日本\n", "ünï\n", "héllo wörld 日本\nünï\n"),
        ("---\na: 1\n---", "body", "---\na: 1\n---\nbody"),
        ("a\n", "", "a\n"),
    ],
)
def test_append_at_end(text: str, content: str, expected: str) -> None:
    assert edits.append(text, content) == expected


SECTIONS = "# Title\n\n## A\ntext\n### Sub\nsub\n\n## B\nb text\n"


@pytest.mark.parametrize(
    ("text", "heading", "expected"),
    [
        (SECTIONS, "A", "# Title\n\n## A\ntext\n### Sub\nsub\nNEW\n\n## B\nb text\n"),
        (SECTIONS, "## A", "# Title\n\n## A\ntext\n### Sub\nsub\nNEW\n\n## B\nb text\n"),
        (SECTIONS, "Sub", "# Title\n\n## A\ntext\n### Sub\nsub\nNEW\n\n## B\nb text\n"),
        (SECTIONS, "B", "# Title\n\n## A\ntext\n### Sub\nsub\n\n## B\nb text\nNEW\n"),
        (SECTIONS, "Title", SECTIONS + "NEW\n"),
        ("## A\n\n## B\n", "A", "## A\nNEW\n\n## B\n"),
        ("# T\r\n## A\r\nx", "A", "# T\r\n## A\r\nx\r\nNEW\r\n"),
        ("## A", "A", "## A\nNEW\n"),
        ("\ufeff---\nk: v\n---\n## Ä\nü\n## B\n", "ä", "\ufeff---\nk: v\n---\n## Ä\nü\nNEW\n## B\n"),
    ],
)
def test_append_under_heading(text: str, heading: str, expected: str) -> None:
    assert edits.append(text, "NEW\n", heading=heading) == expected


def test_append_under_heading_crlf_without_trailing_newline() -> None:
    assert edits.append("# T\r\n## A\r\nx", "y", heading="A") == "# T\r\n## A\r\nx\r\ny"
    assert edits.append("## A\r\nx\r\n## B\r\n", "y", heading="A") == "## A\r\nx\r\ny\r\n## B\r\n"


# -- heading matching ---------------------------------------------------------------------------

AMBIGUOUS = "## Tasks\none\n### Tasks\ntwo\n## Tasks\nthree\n"


def test_ambiguous_heading_needs_a_level() -> None:
    with pytest.raises(InvalidArgument) as caught:
        edits.append(AMBIGUOUS, "x", heading="Tasks")
    assert (caught.value.field, caught.value.reason) == ("heading", "ambiguous")
    assert "lines 1, 3, 5" in str(caught.value)
    # with a level the first match at that level wins
    assert edits.append(AMBIGUOUS, "x\n", heading="## Tasks") == "## Tasks\none\n### Tasks\ntwo\nx\n## Tasks\nthree\n"
    assert edits.append(AMBIGUOUS, "x\n", heading="Tasks", level=3) == (
        "## Tasks\none\n### Tasks\ntwo\nx\n## Tasks\nthree\n"
    )


def test_exact_match_beats_case_insensitive() -> None:
    text = "# tasks\na\n# Tasks\nb\n"
    assert edits.replace_section(text, "Tasks", "B\n") == "# tasks\na\n# Tasks\nB\n"
    assert edits.replace_section("# Tasks\nb\n", "TASKS", "B\n") == "# Tasks\nB\n"


def test_heading_argument_errors() -> None:
    with pytest.raises(InvalidArgument) as conflict:
        edits.append("## A\n", "x", heading="## A", level=3)
    assert conflict.value.field == "level"
    for bad in ("", "   ", "##   "):
        with pytest.raises(InvalidArgument):
            edits.append("## A\n", "x", heading=bad)
    with pytest.raises(InvalidArgument):
        edits.append("## A\n", "x", heading="A", level=7)


@pytest.mark.parametrize(
    "text",
    [
        "# Real\n```\n## Fenced\n```\n",
        "# Real\n~~~md\n## Fenced\n~~~\n",
        "---\n# Fenced\n---\n# Real\n",  # a YAML comment is not a heading
        "# Real\n#Fenced\n",  # no space: a tag
        "# Real\n    ## Fenced\n",
    ],
)
def test_headings_in_code_or_frontmatter_are_not_found(text: str) -> None:
    with pytest.raises(HeadingNotFound) as caught:
        edits.replace_section(text, "Fenced", "x", path="n.md")
    assert caught.value.path == "n.md"
    with pytest.raises(HeadingNotFound):
        edits.append(text, "x", heading="Fenced")


# -- replace_section ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "heading", "content", "expected"),
    [
        ("# T\n\n## A\nold\nold2\n\n## B\nb\n", "A", "new", "# T\n\n## A\nnew\n\n## B\nb\n"),
        ("## A\nx\n### S\ns\n## B\n", "A", "y\n", "## A\ny\n## B\n"),
        ("## A\nold\n\n## B\n", "A", "", "## A\n\n## B\n"),
        ("## B\nold\n", "B", "new", "## B\nnew\n"),  # trailing newline kept
        ("## B\nold", "B", "new\n", "## B\nnew"),  # missing trailing newline stays missing
        ("## B", "B", "x", "## B\nx"),
        ("## B\n", "B", "x", "## B\nx\n"),
        ("## A\r\na\r\n## B\r\nold", "B", "new\nline\n", "## A\r\na\r\n## B\r\nnew\r\nline"),
        ("## A\r\nold\r\n\r\n## B\r\n", "A", "n1\nn2", "## A\r\nn1\r\nn2\r\n\r\n## B\r\n"),
        ("\ufeff---\nt: é\n---\n## Ä\nalt\n", "Ä", "neu ü 日本", "\ufeff---\nt: é\n---\n## Ä\nneu ü 日本\n"),
        ("# T\n```\n## A\n```\n## A\nreal\n", "A", "x", "# T\n```\n## A\n```\n## A\nx\n"),
    ],
)
def test_replace_section(text: str, heading: str, content: str, expected: str) -> None:
    assert edits.replace_section(text, heading, content) == expected


# -- update_frontmatter -------------------------------------------------------------------------

COMMENTED = """---
# Metadata
title: "My Note"   # the title
aliases:
  - one
  - two
status: draft  # workflow
created: 2024-01-05
---
Body
"""


def test_frontmatter_keeps_comments_order_and_quotes() -> None:
    new_text, frontmatter = edits.update_frontmatter(
        COMMENTED,
        {"status": "done", "tags": ["a", "b"], "count": 3, "flag": "yes", "name": "Ünïcødé 日本"},
        ["aliases"],
        "n.md",
    )
    assert (
        new_text
        == """---
# Metadata
title: "My Note"   # the title
status: done   # workflow
created: 2024-01-05
tags:
  - a
  - b
count: 3
flag: 'yes'
name: Ünïcødé 日本
---
Body
"""
    )
    assert frontmatter == {
        "title": "My Note",
        "status": "done",
        "created": "2024-01-05",
        "tags": ["a", "b"],
        "count": 3,
        "flag": "yes",
        "name": "Ünïcødé 日本",
    }


def test_frontmatter_keeps_unindented_lists() -> None:
    text = "---\ntags:\n- x\na: 1\n---\n"
    new_text, _ = edits.update_frontmatter(text, {"tags": ["x", "y"]}, [], "n.md")
    assert new_text == "---\ntags:\n- x\n- y\na: 1\n---\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\ufeff---\r\na: 1\r\n---\r\nbody", "\ufeff---\r\na: 1\r\nb: x\r\n---\r\nbody"),
        ("---\na: 1\n---", "---\na: 1\nb: x\n---"),
        ("body\n", "---\nb: x\n---\nbody\n"),
        ("body", "---\nb: x\n---\nbody"),
        ("", "---\nb: x\n---\n"),
        ("\ufeffline\r\nmore", "\ufeff---\r\nb: x\r\n---\r\nline\r\nmore"),
        ("---\n---\nbody", "---\nb: x\n---\nbody"),
    ],
)
def test_frontmatter_set_is_byte_exact_outside_the_block(text: str, expected: str) -> None:
    new_text, frontmatter = edits.update_frontmatter(text, {"b": "x"}, [], "n.md")
    assert new_text == expected
    assert frontmatter["b"] == "x"


def test_removing_the_last_key_leaves_an_empty_block() -> None:
    assert edits.update_frontmatter("---\na: 1\n---\nbody", {}, ["a"], "n.md") == ("---\n---\nbody", {})
    assert edits.update_frontmatter("\ufeff---\r\na: 1\r\n---\r\n", {}, ["a"], "n.md") == ("\ufeff---\r\n---\r\n", {})


def test_removing_a_key_keeps_other_comments() -> None:
    text = "---\na: 1 # c1\n# between\nb: 2 # c2\nc: 3\n---\n"
    assert edits.update_frontmatter(text, {}, ["b"], "n.md")[0] == "---\na: 1 # c1\n# between\nc: 3\n---\n"


def test_nothing_to_change_returns_the_same_text() -> None:
    text = "---\na:   1    # odd spacing\n---\nbody"
    assert edits.update_frontmatter(text, {}, ["missing"], "n.md") == (text, {"a": 1})
    assert edits.update_frontmatter("body", {}, ["missing"], "n.md") == ("body", {})


@pytest.mark.parametrize("value", ["yes", "no", "on", "null", "~", "12:30", "1_000", "2024-01-05", "3.0", "true"])
def test_strings_that_look_like_other_types_read_back_as_strings(value: str) -> None:
    _, frontmatter = edits.update_frontmatter("", {"v": value}, [], "n.md")
    assert frontmatter == {"v": value}


def test_invalid_yaml_raises_with_the_line() -> None:
    text = "---\ntitle: ok\nbad: [1, 2\n---\nbody\n"
    with pytest.raises(DocumentParseError) as caught:
        edits.update_frontmatter(text, {"a": 1}, [], "bad.md")
    assert (caught.value.path, caught.value.line) == ("bad.md", 4)


def test_invalid_arguments() -> None:
    with pytest.raises(InvalidArgument):
        edits.update_frontmatter("", {"a": 1}, ["a"], "n.md")
    with pytest.raises(InvalidArgument):
        edits.update_frontmatter("", {"": 1}, [], "n.md")
    with pytest.raises(InvalidArgument):
        edits.update_frontmatter("", {"a": object()}, [], "n.md")
    with pytest.raises(InvalidArgument):
        edits.update_frontmatter("", {"a": float("nan")}, [], "n.md")
