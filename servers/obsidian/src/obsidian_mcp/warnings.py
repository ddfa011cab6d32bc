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
TEMPLATE_UNSUPPORTED_SYNTAX = "TEMPLATE_UNSUPPORTED_SYNTAX"
TEMPLATE_SETTINGS_IGNORED = "TEMPLATE_SETTINGS_IGNORED"
QUERY_ROWS_DROPPED = "QUERY_ROWS_DROPPED"
QUERY_CELL_FAILED = "QUERY_CELL_FAILED"
QUERY_LINK_UNRESOLVED = "QUERY_LINK_UNRESOLVED"
RECURRENCE_NOT_CREATED = "RECURRENCE_NOT_CREATED"
INDEX_BUILDING = "INDEX_BUILDING"
SEMANTIC_NOT_READY = "SEMANTIC_NOT_READY"


@dataclass(frozen=True)
class LinkLeftAlone:
    """An ambiguous link a move did not rewrite: where it is and what it says."""

    path: str
    line: int
    target: str


@dataclass(frozen=True)
class NoteNotUpdated:
    """A note a move (or a tag rename) could not rewrite, and why."""

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


def semantic_unavailable() -> ToolWarning:
    """The search by meaning failed, or embedding some notes did (logged): the results come from
    the keyword search alone, or may miss those notes."""
    return ToolWarning(
        code=SEARCH_DEGRADED,
        message="search by meaning is unavailable or incomplete right now; results rely on the keyword search",
    )


def index_building(done: int, total: int, *, meanings: bool = False) -> ToolWarning:
    """An index is still being built, so notes not yet in it can be missing from the results: the
    keyword index, whose notes not yet in it could not all be searched in time (a vault far beyond
    10,000 notes, in its first seconds: `done` of the `total` new or changed notes are searchable;
    both 0 while it lists the vault); or, for `similar_notes` (`meanings`), the index of meanings
    (`done` of `total` notes embedded; both 0 while the stored vectors load)."""
    if meanings:
        progress = f"{done} of {total} notes" if total else "loading"
        what = "the index of meanings"
    else:
        progress = f"{done} of {total} notes" if total else "listing the vault"
        what = "the search index"
    return ToolWarning(
        code=INDEX_BUILDING,
        message=f"{what} is still being built ({progress}); notes not yet in it can be missing "
        "from these results: ask again shortly for complete results",
        done=done,
        total=total,
    )


def semantic_not_ready(done: int, total: int) -> ToolWarning:
    """Search by meaning is not ready yet (its vectors are being built or loaded: `done` of `total`
    notes embedded, both 0 before it starts): the answer holds every note with the query's words,
    ranked by them, and what is embedded so far, so notes saying it in other words may be missing."""
    progress = f"{done} of {total} notes embedded" if total else "starting"
    return ToolWarning(
        code=SEMANTIC_NOT_READY,
        message=f"search by meaning is not ready yet ({progress}): every note with the query's words is here, "
        "but notes saying it in other words can be missing; search again shortly for those",
        done=done,
        total=total,
    )


def vaults_unavailable(names: Sequence[str]) -> ToolWarning:
    """list_vaults could not list these vaults' folders (unmounted, unreadable): their `notes` is null."""
    return ToolWarning(
        code=PARTIAL_RESULTS,
        message="these vaults' folders are not available; their notes could not be counted",
        vaults=list(names),
    )


def in_vault(warning: ToolWarning, vault: str) -> ToolWarning:
    """`warning` of one vault's part of a search of every vault, naming that vault."""
    return ToolWarning(**{**warning.model_dump(), "message": f"vault {vault!r}: {warning.message}", "vault": vault})


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


def tags_not_renamed(failed: Sequence[NoteNotUpdated]) -> ToolWarning:
    """A tag rename changed the other notes, but these could not be rewritten (nothing is rolled back)."""
    return ToolWarning(
        code=PARTIAL_RESULTS,
        message="the tag was renamed in the other notes, but these notes could not be rewritten",
        failed=[asdict(note) for note in failed],
    )


def daily_settings_ignored(problem: str) -> ToolWarning:
    """Something in the daily or periodic notes settings (`.obsidian/daily-notes.json`, the Periodic
    Notes plugin's `data.json`) was unusable; the default was used instead."""
    return ToolWarning(code=DAILY_SETTINGS_IGNORED, message=problem)


def template_missing(template: str, note_kind: str = "daily") -> ToolWarning:
    """The template of a daily (weekly, ...) note could not be read; the new note was created empty."""
    return ToolWarning(
        code=TEMPLATE_MISSING,
        message=f"the {note_kind} note template '{template[:200]}' was not found; the note was created empty",
    )


def template_unsupported_syntax(template: str, lines: Sequence[int]) -> ToolWarning:
    """A template holds Templater syntax (`<% ... %>`), which is not run: it was copied as written.
    `lines` are where its blocks start in the template (1-based, the first 20)."""
    return ToolWarning(
        code=TEMPLATE_UNSUPPORTED_SYNTAX,
        message=f"the template '{template[:200]}' uses Templater syntax (<% ... %>), which this server does not "
        "run; it was copied into the note as written",
        template=template,
        lines=list(lines),
    )


def template_settings_ignored(problem: str) -> ToolWarning:
    """Something in `.obsidian/templates.json` was unusable; the Templates plugin's default was used."""
    return ToolWarning(code=TEMPLATE_SETTINGS_IGNORED, message=problem)


def query_rows_dropped(message: str, command: str, count: int, example: str) -> ToolWarning:
    """A query left out `count` rows whose `command` (WHERE, SORT, GROUP BY, FLATTEN) expression
    failed on them, as Dataview does; `example` is one of the errors."""
    return ToolWarning(code=QUERY_ROWS_DROPPED, message=message, command=command, count=count, example=example)


def query_cell_failed(message: str, column: str, count: int, example: str) -> ToolWarning:
    """A query's column expression failed in `count` rows; those cells are null (Dataview drops
    the rows instead)."""
    return ToolWarning(code=QUERY_CELL_FAILED, message=message, column=column, count=count, example=example)


def query_link_unresolved(message: str, link: str) -> ToolWarning:
    """A `FROM [[link]]` of a query leads to no note (or could mean several), so it matched nothing."""
    return ToolWarning(code=QUERY_LINK_UNRESOLVED, message=message, link=link)


def recurrence_not_created(rule: str) -> ToolWarning:
    """A recurring task was completed, but its rule is not one this server can compute, so no next
    occurrence was written; the task keeps its rule."""
    return ToolWarning(
        code=RECURRENCE_NOT_CREATED,
        message=f"the recurrence rule '{rule[:200]}' is not supported here (supported: every [N] day/week/month/year, "
        "every weekday, every week on <days>, optionally 'when done'); no next occurrence was created",
        rule=rule[:200],
    )
