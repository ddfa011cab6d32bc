"""Link spans in text and Obsidian-style resolution against a set of note paths."""

from __future__ import annotations

import pytest
from obsidian_mcp.vault.links import Resolver, link_spans
from obsidian_mcp.vault.markdown import Link

PATHS = [
    "Home.md",
    "Projects/Alpha.md",
    "Projects/Meeting Notes.md",
    "Areas/Work/Meeting Notes.md",
    "Resources/Reading List.md",
    "Resources/Café Recipes.md",
    "Daily/2026-11-23.md",
]
resolver = Resolver(PATHS)


def wiki(target: str) -> Link:
    return Link(target=target, kind="wikilink", line=1)


def md(target: str) -> Link:
    return Link(target=target, kind="markdown", line=1)


@pytest.mark.parametrize(
    ("link", "source", "path", "how"),
    [
        (wiki("Alpha"), "Home.md", "Projects/Alpha.md", "suffix"),
        (wiki("alpha"), "Home.md", "Projects/Alpha.md", "suffix"),
        (wiki("Alpha.md"), "Home.md", "Projects/Alpha.md", "suffix"),
        (wiki("Projects/Alpha"), "Home.md", "Projects/Alpha.md", "exact"),
        (wiki("projects/ALPHA.md"), "Home.md", "Projects/Alpha.md", "exact"),
        (wiki("Work/Meeting Notes"), "Home.md", "Areas/Work/Meeting Notes.md", "suffix"),
        (wiki("CAFÉ recipes"), "Home.md", "Resources/Café Recipes.md", "suffix"),
        (wiki("Cafe\u0301 Recipes"), "Home.md", "Resources/Café Recipes.md", "suffix"),  # NFD spelling
        (wiki("2026-11-23"), "Home.md", "Daily/2026-11-23.md", "suffix"),
        (wiki("../Projects/Alpha"), "Daily/2026-11-23.md", "Projects/Alpha.md", "relative"),
        (wiki(""), "Home.md", "Home.md", "self"),
        (md("Resources/Reading List.md"), "Home.md", "Resources/Reading List.md", "relative"),
        (md("../Resources/Reading List.md"), "Projects/Alpha.md", "Resources/Reading List.md", "relative"),
        (md("Alpha.md"), "Projects/Meeting Notes.md", "Projects/Alpha.md", "relative"),
        (md("/Projects/Alpha.md"), "Daily/2026-11-23.md", "Projects/Alpha.md", "exact"),
        (md("Projects/Alpha.md"), "Daily/2026-11-23.md", "Projects/Alpha.md", "exact"),
        (md("Alpha.md"), "Daily/2026-11-23.md", "Projects/Alpha.md", "suffix"),
    ],
)
def test_links_resolve_like_obsidian(link: Link, source: str, path: str, how: str) -> None:
    found = resolver.resolve(link, source)
    assert (found.status, found.path, found.how) == ("resolved", path, how)


def test_two_notes_of_one_name_are_ambiguous_never_guessed() -> None:
    found = resolver.resolve(wiki("Meeting Notes"), "Daily/2026-11-23.md")
    assert found.status == "ambiguous" and found.path is None
    assert found.candidates == ("Areas/Work/Meeting Notes.md", "Projects/Meeting Notes.md")
    assert resolver.resolve(wiki("Projects/Meeting Notes"), "Home.md").path == "Projects/Meeting Notes.md"


@pytest.mark.parametrize(
    ("link", "source"),
    [
        (wiki("Kitchen Renovation"), "Home.md"),
        (wiki("image.png"), "Home.md"),
        (wiki("../../outside"), "Projects/Alpha.md"),
        (md("../../etc/passwd.md"), "Projects/Alpha.md"),
        (wiki("Other/Alpha"), "Home.md"),
    ],
)
def test_unresolved_links(link: Link, source: str) -> None:
    assert resolver.resolve(link, source).status == "unresolved"


TEXT = """---
related: "[[Not A Link]]"
---
# Links

See [[Alpha|the project]], [[Alpha#Launch plan]], ![[Alpha#^launch-criteria]] and [[ Alpha ]].
| table | [[Projects/Alpha\\|alias]] |
A [reading list](Resources/Reading%20List.md#Books "title") and [spaced](<Resources/Reading List.md>).
![diagram](../assets/diagram.png) and [web](https://example.com/x.md) and [anchor](#local).
Inline `[[Code Link]]` is code.

```
[[Fenced Link]]
```
"""


def test_link_spans_cover_exactly_the_target_text_outside_code_and_frontmatter() -> None:
    spans = list(link_spans(TEXT))
    seen = [(TEXT[s.start : s.end], s.link.kind if s.link else None, s.link.line if s.link else None) for s in spans]
    assert seen == [
        ("Alpha", "wikilink", 6),
        ("Alpha", "wikilink", 6),
        ("Alpha", "wikilink", 6),
        (" Alpha ", "wikilink", 6),
        ("Projects/Alpha", "wikilink", 7),
        ("Resources/Reading%20List.md", "markdown", 8),
        ("Resources/Reading List.md", "markdown", 8),
        ("../assets/diagram.png", None, None),
    ]
    links = [s.link for s in spans if s.link]
    assert links[0].alias == "the project" and links[1].heading == "Launch plan"
    assert links[2].embed and links[2].block == "launch-criteria"
    assert links[4].alias == "alias" and links[5].target == "Resources/Reading List.md"
    assert spans[6].angle and not spans[5].angle
    for span in spans:
        assert TEXT[span.start : span.end] == span.target_text
