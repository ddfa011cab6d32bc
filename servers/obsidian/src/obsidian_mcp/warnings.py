"""Every warning obsidian-mcp puts on a success, one function per code (specs/data-model.md).

A warning reports a problem that did not stop the work. The domain builds it here, where it
notices the problem, and attaches it to the operation's result; the tools pass results on as
they are. Plain pydantic (`ToolWarning` from models.py), nothing of MCP, so `vault` and `index`
may import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from obsidian_mcp.models import ToolWarning

CONTENT_TRUNCATED = "CONTENT_TRUNCATED"
FRONTMATTER_INVALID = "FRONTMATTER_INVALID"
SEARCH_DEGRADED = "SEARCH_DEGRADED"
AMBIGUOUS_LINKS = "AMBIGUOUS_LINKS"
PARTIAL_RESULTS = "PARTIAL_RESULTS"
DAILY_SETTINGS_IGNORED = "DAILY_SETTINGS_IGNORED"
TEMPLATE_MISSING = "TEMPLATE_MISSING"


@dataclass(frozen=True)
class LinkLeftAlone:
    """An ambiguous link a move did not rewrite: where it is and what it says."""

    path: str
    line: int
    target: str


@dataclass(frozen=True)
class NoteNotUpdated:
    """A note whose links a move could not rewrite, and why."""

    path: str
    reason: str


def content_truncated(returned: int, total: int, next_offset: int, *, rest_via_read_note: bool = False) -> ToolWarning:
    """Only part of a text was returned; `next_offset` is where the rest starts. `rest_via_read_note`
    when the rest is read with another tool (read_note) rather than by calling again."""
    rest = (
        f"read the rest with read_note(path, offset={next_offset})"
        if rest_via_read_note
        else f"call again with offset={next_offset} for more"
    )
    return ToolWarning(
        code=CONTENT_TRUNCATED,
        message=f"returned {returned} of {total} characters; {rest}",
        next_offset=next_offset,
    )


def frontmatter_invalid(line: int | None, problem: str) -> ToolWarning:
    """A note was read although its frontmatter is not valid YAML (at `line`, 1-based, if known)."""
    return ToolWarning(
        code=FRONTMATTER_INVALID,
        message="the frontmatter is not valid YAML; it is returned as text in content and as {} in frontmatter",
        line=line,
        problem=problem,
    )


def search_degraded() -> ToolWarning:
    """The index could not run a query; the results come from a plain scan of the stored text."""
    return ToolWarning(
        code=SEARCH_DEGRADED,
        message="the search index could not run this query; results come from a slower plain scan",
    )


def ambiguous_links(links: Sequence[LinkLeftAlone]) -> ToolWarning:
    """A move left these links unchanged: they could mean the moved note or another of the same name."""
    return ToolWarning(
        code=AMBIGUOUS_LINKS,
        message="these links could mean the moved note or another note of the same name; they were left unchanged",
        links=[asdict(link) for link in links],
    )


def partial_results(failed: Sequence[NoteNotUpdated]) -> ToolWarning:
    """A move happened, but the links in some notes could not be rewritten (it is not rolled back)."""
    return ToolWarning(
        code=PARTIAL_RESULTS,
        message="the note was moved, but links in these notes could not be updated",
        failed=[asdict(note) for note in failed],
    )


def daily_settings_ignored(problem: str) -> ToolWarning:
    """Something in `.obsidian/daily-notes.json` was unusable; Obsidian's default was used instead."""
    return ToolWarning(code=DAILY_SETTINGS_IGNORED, message=problem)


def template_missing(template: str) -> ToolWarning:
    """The daily note template could not be read; the new note was created empty."""
    return ToolWarning(
        code=TEMPLATE_MISSING,
        message=f"the daily note template '{template[:200]}' was not found; the note was created empty",
    )
