"""One reading of a note's structure for everyone: CommonMark blocks plus Obsidian's comments.

Each case of the table is a note; its lines are expected to read as prose (P), code (C) or
comment (M). Whatever sits on a code or comment line, or inside an inline comment, is written
with the word "hidden" in it; what must be found is written with "seen". Every reader is then
checked against the same note: tags and links (`parse_note`), headings, Dataview fields and tasks,
the search index's body and code columns, and the chunks embedded for search by meaning.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from obsidian_mcp.dataview import extract_fields, extract_tasks
from obsidian_mcp.index.extract import extract
from obsidian_mcp.semantic.chunking import chunk_note
from obsidian_mcp.structure import body as structure_body
from obsidian_mcp.structure import read_body
from obsidian_mcp.vault.edits import append, replace_section
from obsidian_mcp.vault.links import link_spans
from obsidian_mcp.vault.markdown import body_start, find_headings, parse_note
from obsidian_mcp.vault.tag_rename import rename_tag

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "vault"
KIND_LETTERS = {"prose": "P", "code": "C", "comment": "M"}


@dataclass(frozen=True)
class Case:
    text: str
    kinds: str  # one letter per body line
    tags: tuple[str, ...] = ()
    headings: tuple[tuple[int, str], ...] = ()


CASES: dict[str, Case] = {
    "indented code after a blank line": Case(
        "Para seenword #seen\n\n    hiddenword #hidden [[Hidden]] hidden:: 1\n    - [ ] hidden task\n",
        "PPCC",
        ("seen",),
    ),
    "an indented line after a paragraph continues it": Case("Para seenword\n    #seen [[Seen]]\n", "PP", ("seen",)),
    "a list item's indented continuation is not code": Case(
        "- [ ] seen task\n    seen continuation #seen\n", "PP", ("seen",)
    ),
    "code in a list item is indented 4 beyond the item's content": Case(
        "- item #seen\n\n      hiddenword #hidden\n\n  seenword back in the item\n", "PPCPP", ("seen",)
    ),
    "a tab-indented line after a blank line is code": Case("Para #seen\n\n\thiddenword #hidden\n", "PPC", ("seen",)),
    "a tab-indented list item is a nested item": Case("- [ ] seen parent\n\t- [ ] seen child #seen\n", "PP", ("seen",)),
    "fenced code in a quote": Case(
        "> ```\n> hiddenword #hidden [[Hidden]]\n> ```\n> seenword #seen\n", "CCCP", ("seen",)
    ),
    "fenced code in a callout": Case(
        "> [!note] Seen\n> ```css\n> .x { color: #hidden00; }\n> - [ ] hidden task\n> ```\n> seenword #seen\n",
        "PCCCCP",
        ("seen",),
    ),
    "fenced code in a list item": Case("- [ ] seen task\n  ```\n  - [ ] hidden task #hidden\n  ```\n", "PCCC"),
    "a longer fence holds a shorter one": Case(
        "````md\n```\n#hidden\n```\nhiddenword\n````\n#seen seenword\n", "CCCCCCP", ("seen",)
    ),
    "an unclosed fence runs to the end": Case(
        "#seen seenword\n```js\nhiddenword #hidden\n- [ ] hidden task\n", "PCCC", ("seen",)
    ),
    "backticks in a backtick fence's info string: no fence": Case("``` not`a`fence\n#seen seenword\n", "PP", ("seen",)),
    "backticks in a tilde fence's info string: a fence": Case(
        "~~~ a`b\n#hidden hiddenword\n~~~\n#seen\n", "CCCP", ("seen",)
    ),
    "setext headings": Case(
        "Title #seen\n===\n\nSub seenword\n---\nseen:: 1\n",
        "PPPPPP",
        ("seen",),
        ((1, "Title #seen"), (2, "Sub seenword")),
    ),
    "a setext heading over two lines": Case("First\nsecond\n---\nseenword\n", "PPPP", (), ((2, "First second"),)),
    "a thematic break after a blank line is no heading": Case("Para seenword\n\n---\n#seen\n", "PPPP", ("seen",)),
    "frontmatter, then a setext heading": Case(
        "---\ntags: [seen]\n---\nIntro seenword\n---\nbody\n", "PPP", ("seen",), ((2, "Intro seenword"),)
    ),
    "no frontmatter without its closing fence": Case("---\n\nText seenword\n", "PPP"),
    "an ATX heading": Case("# Seen ##\nseenword\n", "PP", (), ((1, "Seen"),)),
    "a heading in a list item is no section": Case("- item\n  # Nested seenword\n", "PP"),
    "a block comment holds no code": Case(
        "%%\nhiddenword #hidden [[Hidden]]\n```\nhidden:: 1\n- [ ] hidden task\n%%\n#seen seenword [[Seen]]\n",
        "MMMMMMP",
        ("seen",),
    ),
    "a block comment interrupts a paragraph": Case("Para seenword\n%%\nhiddenword #hidden\n%%\n", "PMMM"),
    "an inline comment": Case("Text %%#hidden [[Hidden]] hidden:: 1%% #seen [[Seen]] seenword\n", "P", ("seen",)),
    "an inline comment over several lines": Case(
        "Text seenword %%start #hidden\nhiddenword [[Hidden]]\n- [ ] hidden task\nend%% #seen\n", "PMMP", ("seen",)
    ),
    "a comment opened in a paragraph runs across blank lines": Case(
        "Text seenword %%\n\nhiddenword #hidden\n\n```\n%% #seen\n", "PMMMMP", ("seen",)
    ),
    "an unclosed comment hides the rest": Case("#seen seenword\n%%\n#hidden hiddenword\n", "PMM", ("seen",)),
    "%% in a code block opens no comment": Case(
        "```sql\nSELECT '%%hidden';\n```\n#seen seenword [[Seen]]\n", "CCCP", ("seen",)
    ),
    "%% in inline code opens no comment": Case("`%%` #seen [[Seen]] seenword `%%`\n", "P", ("seen",)),
    "an HTML comment block": Case(
        "<!--\n#hidden hiddenword\n- [ ] hidden task\n-->\n#seen seenword\n", "MMMMP", ("seen",)
    ),
    "a comment line inside indented code": Case(
        "    hiddenword #hidden\n<!-- [[Hidden]] -->\n    hiddenword\n#seen\n", "CMCP", ("seen",)
    ),
    "a line of comment reads as a blank line": Case("%%note%%\n    hiddenword #hidden\n", "MC"),
    "an inline HTML comment": Case("a <!-- #hidden [[Hidden]] --> #seen seenword\n", "P", ("seen",)),
    "a fence inside an HTML comment opens no code": Case(
        "<!-- ```\nhiddenword\n--> #seen seenword\n", "MMP", ("seen",)
    ),
    "display math": Case(
        "Para seenword\n$$\nx #hidden [[Hidden]] hidden:: 1\n- [ ] hidden task\n# hidden\n$$\n#seen\n",
        "PMMMMMP",
        ("seen",),
    ),
    "math on one line": Case("Text $$x #hidden [[Hidden]]$$ #seen seenword [[Seen]]\n", "P", ("seen",)),
    "math in a callout": Case("> [!note]\n> $$\n> a #hidden\n> $$\n> seenword #seen\n", "PPMMP", ("seen",)),
    "an unclosed $$ is text": Case("Costs $$ #seen seenword\n- [ ] seen task\n", "PP", ("seen",)),
    "$$ in inline code is no math": Case("`$$` #seen seenword `$$`\n", "P", ("seen",)),
    "an inline code span crossing a line break": Case("Text `a #codetag\nb` #seen seenword\n", "PP", ("seen",)),
    "a code span crossing lines in a quote": Case("> a `x #codetag\n> y` #seen\n", "PP", ("seen",)),
    "a code span crossing lines in a list item": Case("- [ ] seen task `x #codetag\n  y` #seen\n", "PP", ("seen",)),
    "a code span never crosses a blank line": Case("a `x\n\n#seen y`\n", "PPP", ("seen",)),
    "a code span never crosses into a list item": Case("a `x\n- #seen y`\n", "PP", ("seen",)),
    "a code span closes with a run of its own length": Case("a ``x ` #codetag\ny`` #seen\n", "PP", ("seen",)),
    "a code span in a setext heading's text": Case(
        "A `x #codetag\ny` z\n===\n#seen\n", "PPPP", ("seen",), ((1, "A `x #codetag y` z"),)
    ),
    "$$ in a code block opens no math": Case(
        "```\n$$\nhiddenword\n```\n#seen seenword\n$$ unclosed\n", "CCCCPP", ("seen",)
    ),
}


def _kinds(text: str) -> str:
    return "".join(KIND_LETTERS[line.kind] for line in read_body(text, body_start(text)).lines)


@pytest.mark.parametrize("name", list(CASES))
def test_lines_read_as_commonmark_with_obsidian_comments(name: str) -> None:
    case = CASES[name]
    assert _kinds(case.text) == case.kinds


@pytest.mark.parametrize("name", list(CASES))
def test_tags_links_and_headings(name: str) -> None:
    case = CASES[name]
    parsed = parse_note(case.text, "n.md")
    assert tuple(parsed.tags) == case.tags
    targets = [link.target for link in parsed.links]
    assert "Hidden" not in targets
    assert ("Seen" in targets) == ("[[Seen]]" in case.text)
    assert tuple((h.level, h.text) for h in parsed.headings) == case.headings


@pytest.mark.parametrize("name", list(CASES))
def test_dataview_fields_and_tasks(name: str) -> None:
    case = CASES[name]
    body = case.text[body_start(case.text) :]
    fields = [field.key for field in extract_fields(body)]
    tasks = [task.text for task in extract_tasks(body)]
    assert "hidden" not in fields
    assert ("seen" in fields) == ("seen:: 1" in case.text)
    assert not [task for task in tasks if "hidden" in task]
    assert len(tasks) == case.text.count("- [ ] seen")


@pytest.mark.parametrize("name", list(CASES))
def test_search_columns_keep_code_and_comments_out_of_the_body(name: str) -> None:
    case = CASES[name]
    record = extract(case.text, "n.md")
    assert "hiddenword" not in record.body
    assert ("hiddenword" in record.code) == ("hiddenword" in case.text)
    assert ("seenword" in record.body) == ("seenword" in case.text)
    assert "seenword" not in record.code


@pytest.mark.parametrize("name", list(CASES))
def test_chunks_hold_prose_only(name: str) -> None:
    case = CASES[name]
    text = " ".join(chunk.embed_text for chunk in chunk_note("n.md", case.text).chunks)
    assert "hidden" not in text.lower()
    assert ("seenword" in text) == ("seenword" in case.text)


def test_list_tags_does_not_report_a_css_colour_in_a_callout_code_block() -> None:
    """The `#ff0000` bug: on the Obsidian Help vault, `list_tags` reported `#ff0000`, a colour in a
    ```css block inside a `> [!example]` callout ("CSS snippets.md")."""
    note = (
        "Snippets change how Obsidian looks. #css\n\n"
        "> [!example]- Example: a red heading\n"
        "> ```css\n"
        "> h1 {\n"
        ">   color: #ff0000;\n"
        "> }\n"
        "> ```\n"
    )
    assert parse_note(note, "CSS snippets.md").tags == ["css"]
    assert extract(note, "CSS snippets.md").tags == ["css"]


# -- offsets and the headings of edits --------------------------------------------------------------


def test_offsets_are_exact_with_a_bom_and_crlf_lines() -> None:
    text = "\ufeffTitle\r\n=====\r\nbody\r\n\r\n    code #no\r\n## Next\r\n"
    lines = read_body(text, body_start(text)).lines
    assert [text[line.start : line.end] for line in lines] == [line.text for line in lines]
    assert [line.text for line in lines] == ["Title", "=====", "body", "", "    code #no", "## Next"]
    assert [line.kind for line in lines] == ["prose", "prose", "prose", "prose", "code", "prose"]
    title, following = find_headings(text, body_start(text))
    assert (title.line, title.start, text[title.start : title.end]) == (1, 1, "Title\r\n=====")
    assert text[title.content_start :].startswith("body")
    assert (following.line, text[following.start : following.end]) == (6, "## Next")
    assert parse_note(text, "n.md").tags == []


def test_line_numbers_count_from_the_start_of_the_note() -> None:
    text = "---\na: 1\n---\nText\n\n    code\n"
    lines = read_body(text, body_start(text)).lines
    assert [(line.number, line.kind) for line in lines] == [(4, "prose"), (5, "prose"), (6, "code")]


def test_replace_section_under_a_setext_heading() -> None:
    text = "Intro\r\n\r\nPlan\r\n====\r\nold line\r\n\r\nNotes\r\n=====\r\nkept\r\n"
    result = replace_section(text, "Plan", "new line")
    assert result == "Intro\r\n\r\nPlan\r\n====\r\nnew line\r\n\r\nNotes\r\n=====\r\nkept\r\n"


def test_append_under_a_setext_heading_keeps_the_next_heading_a_heading() -> None:
    text = "## Top\nSub\n---\ntail\n"
    result = append(text, "added", heading="Top")
    assert result == "## Top\nadded\n\nSub\n---\ntail\n"
    assert [(h.level, h.text) for h in find_headings(result, 0)] == [(2, "Top"), (2, "Sub")]
    replaced = replace_section(text.replace("\n", "\r\n"), "Top", "new\n")
    assert replaced == "## Top\r\nnew\r\n\r\nSub\r\n---\r\ntail\r\n"


def test_a_setext_section_ends_at_the_next_heading_of_its_level() -> None:
    text = "Part\n====\n\nSub\n---\nsub text\n\nOther\n=====\nother text\n"
    result = replace_section(text, "# Part", "fresh")
    assert result == "Part\n====\nfresh\n\nOther\n=====\nother text\n"
    assert append(text, "more", heading="Sub") == text.replace("sub text\n", "sub text\nmore\n")


def test_rename_tag_leaves_code_and_comments_alone() -> None:
    text = "#old here\n\n    #old in code\n\n%%\n#old in a comment\n%%\ntext %%#old%% and #old/sub\n"
    renamed = rename_tag(text, "old", "new")
    assert renamed.occurrences == 2
    assert renamed.text == text.replace("#old here", "#new here").replace("#old/sub", "#new/sub")


def test_links_in_code_and_comments_are_not_rewritten() -> None:
    text = "[[A]]\n\n    [[A]]\n\n<!-- [[A]] -->\n%%[[A]]%% [[A|x]]\n"
    spans = list(link_spans(text))
    assert [(span.start, span.target_text) for span in spans] == [(2, "A"), (text.rindex("[[A|x]]") + 2, "A")]


# -- the plain reading is the parser's --------------------------------------------------------------

PLAIN_NOTES = [
    "# Title\n\nText with #tag and [[Link]].\n- a\n  - b\n- [ ] task 📅 2024-01-01\n# Next\nmore\n",
    "> quote #q\n> more\n# After the quote\n\n> [!note] Callout\n> text\n",
    "1. one\n2. two\n   text\n## Two\n| a | b |\n| - | - |\n| 1 | 2 |\n# Three\n",
    "Para\n   text with three spaces\n#tag line\n* star\n+ plus\n\n***\n___\n",
    "#nospace is a tag\n####### seven\n#\n# \n##    spaced ##   \n",
    "| Item     | Cost    |\n| -------- | ------- |\n| timber   | 196     |\n\n---\n\nAfter    the rule\n",
]


def _readings(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], list[object]]:
    read_body.cache_clear()
    plain = [read_body(text, body_start(text)) for text in texts]
    monkeypatch.setattr(structure_body, "_plain", lambda body: False)
    read_body.cache_clear()
    parsed = [read_body(text, body_start(text)) for text in texts]
    read_body.cache_clear()
    return list(plain), list(parsed)


def test_the_plain_reading_is_what_commonmark_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    examples = [path.read_text(encoding="utf-8") for path in sorted(EXAMPLES.rglob("*.md"))]
    notes = [text for text in PLAIN_NOTES + examples if structure_body._plain(text[body_start(text) :])]
    assert len(notes) >= len(PLAIN_NOTES) + 10  # most example notes take the plain reading
    plain, parsed = _readings(notes, monkeypatch)
    assert plain == parsed


# Lines that are plain, or nearly so: random notes made of them probe `_plain`'s boundary.
PIECES = [
    *["", "text", "more text #tag", "# H", "## H ##", "#tag", " # x", "   # y", "- item", "  - sub", "    - deep"],
    *["1. one", "2) two", "> quote", "> > deep", "> [!note] c", "---", "***", "- - -", "===", "--", "a  ", "\t- t"],
    *["| a | b |", "| - | - |", "|   x    |", "<div>", "[x]: /url", "[^1]: foot", "    code", "      c", "`code`"],
    *["a`b", "+ plus", "* star", "*", "-", "=", "  ", "x\r", "2024-01-01    x", "\\# no", "#", "- [ ] task", "   ---"],
    *["> ---", "- # h", "1.     code", "Title", "  text"],
]


def test_random_plain_notes_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(14)
    notes = ["\n".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    plain_notes = [text for text in notes if structure_body._plain(text)]
    assert len(plain_notes) > 300
    plain, parsed = _readings(plain_notes, monkeypatch)
    assert plain == parsed


def test_notes_the_plain_reading_could_misread_go_to_the_parser() -> None:
    for text in [
        "a\n===\n",
        "a  \r\n---\r\n",
        "- a\n  # b\n",
        "a\n\n    b\n",
        "- a\n\n      b\n",
        ">     b\n",
        "x\n\t- y\n",
        "<div>\n# x\n</div>\n",
        "[a]: /u\n",
        "~~~\n# x\n",
        "%% # x %%\n",
        "$$\n# x\n$$\n",
        "a `b\nc` #d\n",
    ]:
        assert not structure_body._plain(text), text


def test_a_code_span_crossing_a_line_break_holds_no_field_tag_or_link() -> None:
    """Regression: a field, tag or link on the line a code span ended on was read from the code."""
    text = "Para `code\nhidden:: 1 #hidden [[Hidden]]` [seen:: 3] #seen [[Seen]]\n"
    parsed = parse_note(text, "n.md")
    assert parsed.tags == ["seen"]
    assert [link.target for link in parsed.links] == ["Seen"]
    assert [field.key for field in extract_fields(text)] == ["seen"]
    assert [field.key for field in extract(text, "n.md").metadata.fields] == ["seen"]
    assert "hidden:: 1" in extract(text, "n.md").body  # still searchable, as a code span within a line is
    renamed = rename_tag(text + "#hidden outside\n", "hidden", "other")
    assert renamed.occurrences == 1 and renamed.text == text + "#other outside\n"
