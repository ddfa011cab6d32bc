"""semantic.chunking: heading sections, paragraphs, names in every chunk, code and frontmatter skipped."""

from __future__ import annotations

from obsidian_mcp.semantic.chunking import (
    MAX_CHUNK_CHARS,
    MAX_CHUNKS,
    chunk_note,
    clean_line,
    snippet_of,
    split_frontmatter,
)

NOTE = """---
title: Refunds and Returns
aliases:
  - Refund policy
  - "Money back"
status: published
updated: 2026-10-30
---

# Refunds and Returns

Support article for the app, linked from the billing page. Any purchase can be refunded
in full within fourteen days of buying it, no questions asked, and after that the unused
part of an annual plan is refunded month by month.

## Store purchases

We cannot reverse charges made through the App Store: Apple holds the payment, so ask Apple
for the refund from your purchase history, and tell us if they refuse: we usually add the
same amount to your account as store credit instead.

```python
## not a heading
def refund(order): return order.total  # code is not embedded
```

## How long it takes

Card refunds show up in five to ten business days, depending on the bank; you get an email
with a credit note when it is issued. PayPal refunds are usually faster than card refunds.
"""


def test_frontmatter_gives_title_and_aliases_and_nothing_else() -> None:
    chunked = chunk_note("Help/Refunds and Returns.md", NOTE)
    assert chunked.title == "Refunds and Returns"
    assert chunked.aliases == ("Refund policy", "Money back")
    everything = " ".join(chunk.embed_text for chunk in chunked.chunks)
    assert "published" not in everything and "2026-10-30" not in everything


def test_every_chunk_carries_the_note_names_and_its_heading_path() -> None:
    chunked = chunk_note("Help/Refunds and Returns.md", NOTE)
    assert len(chunked.chunks) == 3
    for chunk in chunked.chunks:
        assert chunk.embed_text.startswith("Refunds and Returns · Refund policy · Money back\n")
    headings = [chunk.heading for chunk in chunked.chunks]
    assert headings == ["Refunds and Returns", "Store purchases", "How long it takes"]
    assert "Store purchases\nWe cannot reverse" in chunked.chunks[1].embed_text


def test_chunks_point_at_the_line_where_their_text_starts() -> None:
    chunked = chunk_note("Help/Refunds and Returns.md", NOTE)
    lines = NOTE.split("\n")
    for chunk in chunked.chunks:
        assert lines[chunk.line - 1].startswith(chunk.text[:20])


def test_code_blocks_are_skipped_including_heading_lookalikes() -> None:
    chunked = chunk_note("Help/Refunds and Returns.md", NOTE)
    everything = " ".join(chunk.embed_text for chunk in chunked.chunks)
    assert "def refund" not in everything and "not a heading" not in everything
    tilde = "# T\n\n~~~\n# inside\ncode words\n~~~\n\nAfter the fence.\n"
    assert [c.text for c in chunk_note("T.md", tilde).chunks] == ["After the fence."]


def test_an_unclosed_fence_hides_the_rest_of_the_note() -> None:
    text = "Before.\n\n```\ncode\n## Heading in code\nmore code\n"
    assert [c.text for c in chunk_note("N.md", text).chunks] == ["Before."]


def test_the_file_name_is_a_name_when_it_differs_from_the_title() -> None:
    text = "---\ntitle: Sync engine\n---\nSome text about merging edits made offline on two devices.\n"
    chunked = chunk_note("Projects/Alpha.md", text)
    assert chunked.chunks[0].embed_text.startswith("Sync engine · Alpha\n")
    assert chunk_note("Projects/Alpha.md", text, title="Project Alpha").title == "Project Alpha"


def test_a_note_without_text_still_gets_one_chunk_of_its_names() -> None:
    chunked = chunk_note("People/Jonas Weber.md", "---\ntags: [person]\n---\n")
    assert len(chunked.chunks) == 1
    assert chunked.chunks[0].embed_text == "Jonas Weber"
    assert chunk_note("Empty.md", "").chunks[0].embed_text == "Empty"


def test_long_paragraphs_are_cut_at_sentences_and_capped() -> None:
    sentence = "This sentence talks about keeping backups of every note in a safe place. "
    text = "# Long\n\n" + sentence * 60 + "\n"
    chunked = chunk_note("Long.md", text)
    assert len(chunked.chunks) > 1
    for chunk in chunked.chunks:
        assert len(chunk.text) <= MAX_CHUNK_CHARS
        assert chunk.text.endswith(".")
    one_word = "x" * (3 * MAX_CHUNK_CHARS)
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunk_note("W.md", one_word).chunks)


def test_paragraphs_of_a_section_are_packed_up_to_the_cap() -> None:
    paragraph = "A paragraph of about one hundred characters, written to fill chunks up to their cap nicely."
    text = "# Packed\n\n" + "\n\n".join([paragraph] * 30) + "\n"
    chunked = chunk_note("Packed.md", text)
    assert 2 <= len(chunked.chunks) <= 4
    assert sum(c.text.count("A paragraph") for c in chunked.chunks) == 30


def test_small_sections_are_packed_with_the_next_one() -> None:
    text = "# Day\n\n## Plan\n\n- Call Jonas\n\n## Log\n\n- Ran 6 km\n\n## Gratitude\n\n- Quiet office\n"
    chunked = chunk_note("Daily/2026-11-20.md", text)
    assert len(chunked.chunks) == 1
    assert "Log: Ran 6 km" in chunked.chunks[0].text and "Gratitude: Quiet office" in chunked.chunks[0].text


def test_a_huge_note_is_capped_in_chunks() -> None:
    text = "\n\n".join(f"## Section {n}\n\n" + f"Words about section number {n}. " * 40 for n in range(200))
    assert len(chunk_note("Huge.md", text).chunks) == MAX_CHUNKS


def test_markup_is_reduced_to_what_a_reader_sees() -> None:
    line = (
        "- [x] Ask [[People/Jonas Weber|Jonas]] about [[Garden Shed#Roof]], see [the guide](https://x.org/a)"
        " #project/shed **now**"
    )
    assert clean_line(line) == "Ask Jonas about Garden Shed Roof, see the guide project shed now"
    assert clean_line("| Rent | 1,150 |") == "Rent 1,150"
    assert clean_line("| --- | :---: |") == ""
    assert clean_line("The launch criteria hold. ^launch-criteria") == "The launch criteria hold."
    assert clean_line("> [!tip] Remember this") == "Remember this"
    assert clean_line("Issue #42 stays") == "Issue #42 stays"


def test_frontmatter_forms() -> None:
    text = "---\ntitle: 'Quoted'\naliases: [One, \"Two\"]\n---\nBody\n"
    values, first_body_line = split_frontmatter(text)
    assert values == {"title": ["Quoted"], "aliases": ["One", "Two"]}
    assert first_body_line == 4
    assert split_frontmatter("---\ntitle: no end\n") == ({}, 0)
    assert split_frontmatter("No frontmatter\n") == ({}, 0)
    assert chunk_note("A.md", "---\nalias: Single\n---\nText here.\n").aliases == ("Single",)


def test_snippets_are_one_line_and_cut_at_a_word() -> None:
    assert snippet_of("short\ntext") == "short text"
    long = "word " * 100
    snippet = snippet_of(long)
    assert snippet.endswith("…") and len(snippet) <= 201 and "\n" not in snippet
