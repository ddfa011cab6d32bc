"""Dataview queries over the vault (`query_notes`): the engine of `obsidian_mcp.dataview` run on
the index's pages (`vault_pages`), with the freshness of search.

The query is parsed before anything else, so a syntax error answers at once. Then, inside
`VaultIndex.run` (after its sync, so a note changed by any program is seen), the pages are brought
up to date and the engine runs on them with the index's link resolution. While the index is first
built in the background the query waits for the build, reporting its progress, when it should end
within `vault_index.QUERY_WAIT` seconds at the rate it goes; otherwise (a vault far beyond 10,000
notes) it runs on the notes indexed so far, with `INDEX_BUILDING`. A
query whose every row fails at one step is a `QueryError` too; it is carried out of the index's
lock as a value, since it says nothing about the index. `_answer` is the one place the engine's
result becomes the tool's: group member lists are left out (Dataview shows one row per group;
`rows.file.link` lists them), tasks keep what an agent acts on, and the engine's warnings become
`ToolWarning`s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from obsidian_mcp import warnings
from obsidian_mcp.dataview import (
    QueryError,
    QueryResult,
    QueryWarning,
    ResultGroup,
    ResultRow,
    TaskGroup,
    TaskItem,
    execute_query,
    parse_query,
)
from obsidian_mcp.dataview.pages.query_limits import MAX_LIMIT, MAX_QUERY_CHARS
from obsidian_mcp.dataview.pages.results import QueryGroup, QueryNotesResult, QueryRow, QueryTask, QueryTaskGroup
from obsidian_mcp.dataview.pages.vault_pages import VaultPages
from obsidian_mcp.index.progress import IndexProgress, ProgressFn, partial_answer
from obsidian_mcp.index.vault_index import Snapshot
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault.errors import InvalidArgument


def query_notes(
    pages: VaultPages,
    query: str,
    limit: int = 100,
    *,
    today: date | None = None,
    now: datetime | None = None,
    progress: ProgressFn | None = None,
) -> QueryNotesResult:
    """Run a DQL query (LIST, TABLE or TASK) over the vault's notes; at most `limit` rows (or
    top-level tasks, or groups) are returned, `total` telling how many there were. `today` and
    `now` default to the server's local clock. Raises `QueryError` for a query that cannot run."""
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument(
            "query", "too_long", f"the query must be a string of at most {MAX_QUERY_CHARS} characters"
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument("limit", "out_of_range", f"limit must be between 1 and {MAX_LIMIT}")
    parsed = parse_query(query)
    now = now if now is not None else datetime.now()
    today = today if today is not None else now.date()

    def run(snapshot: Snapshot) -> _Ran:
        source = pages.current(snapshot, progress)
        try:
            outcome: QueryResult | QueryError = execute_query(
                parsed, source, resolver=source.resolve, today=today, now=now, limit=limit, members=False
            )
        except QueryError as exc:
            outcome = exc
        return _Ran(outcome, snapshot.building)

    ran = pages.index.run(run, progress, during="query")
    if isinstance(ran.outcome, QueryError):
        raise ran.outcome
    answer = _answer(ran.outcome)
    answer.warnings.extend(partial_answer(ran.building))  # answered from the notes indexed so far?
    return answer


@dataclass(frozen=True)
class _Ran:
    """What a query found inside the index's lock: its result (or the error it raised), and how far
    the index's build had got if it ran on part of the index."""

    outcome: QueryResult | QueryError
    building: IndexProgress | None


# -- the engine's result as the tool's ---------------------------------------------------------------


def _answer(result: QueryResult) -> QueryNotesResult:
    return QueryNotesResult(
        type=result.type,
        columns=result.columns,
        show_id=result.show_id,
        rows=[_row(row) for row in result.rows],
        tasks=[_task(task) for task in result.tasks],
        total=result.total,
        truncated=result.truncated,
        warnings=[_warning(warning) for warning in result.warnings],
    )


def _row(row: ResultRow | ResultGroup) -> QueryRow | QueryGroup:
    # The engine's values are JSON already (`to_json`): built without validating them again.
    if isinstance(row, ResultGroup):
        return QueryGroup.model_construct(key=row.key, values=row.values)
    return QueryRow.model_construct(path=row.path, values=row.values)


def _task(task: TaskItem | TaskGroup) -> QueryTask | QueryTaskGroup:
    if isinstance(task, TaskGroup):
        return QueryTaskGroup.model_construct(key=task.key, tasks=[_task(item) for item in task.tasks])
    return _task_item(task)


def _task_item(task: TaskItem) -> QueryTask:
    return QueryTask.model_construct(
        path=task.path,
        line=task.line,
        text=task.text,
        status=task.status,
        completed=task.completed,
        section=task.section,
        tags=task.tags,
        due=task.due,
        scheduled=task.scheduled,
        start=task.start,
        completion=task.completion,
        created=task.created,
        priority=task.priority,
        recurrence=task.recurrence,
        parent=task.parent,
        children=[_task_item(child) for child in task.children],
    )


def _warning(warning: QueryWarning) -> ToolWarning:
    if warning.kind == "rows_dropped":
        return warnings.query_rows_dropped(
            warning.message, warning.command or "", warning.count or 0, warning.example or ""
        )
    if warning.kind == "cell_failed":
        return warnings.query_cell_failed(
            warning.message, warning.column or "", warning.count or 0, warning.example or ""
        )
    return warnings.query_link_unresolved(warning.message, warning.link or "")
