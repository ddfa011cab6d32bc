"""The typed result of a query, ready for JSON."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResultRow(_Frozen):
    """One page (or one FLATTEN row of a page): `values` line up with the result's `columns`."""

    kind: Literal["page"] = "page"
    path: str
    values: list[JsonValue]


class ResultGroup(_Frozen):
    """One GROUP BY group: its `key`, the column `values` computed over the group, and the grouped
    rows (pages with empty `values`, or nested groups)."""

    kind: Literal["group"] = "group"
    key: JsonValue
    values: list[JsonValue]
    rows: list[ResultRow | ResultGroup]


class TaskItem(_Frozen):
    """A task. `line` and `parent` are 1-based line numbers in the note; dates are ISO strings;
    `children` are the task's subtasks (all of them, matching or not, as Dataview shows them)."""

    kind: Literal["task"] = "task"
    path: str
    line: int
    text: str
    status: str
    checked: bool
    completed: bool
    fully_completed: bool
    section: str | None
    tags: list[str]
    due: JsonValue
    scheduled: JsonValue
    start: JsonValue
    completion: JsonValue
    created: JsonValue
    priority: JsonValue
    recurrence: JsonValue
    parent: int | None
    children: list[TaskItem]


class TaskGroup(_Frozen):
    kind: Literal["group"] = "group"
    key: JsonValue
    tasks: list[TaskItem | TaskGroup]


class QueryWarning(_Frozen):
    """Something that did not stop the query. `kind`: `rows_dropped` (rows whose WHERE, SORT, GROUP
    BY or FLATTEN expression failed were left out; `command`, `count`), `cell_failed` (a column is
    null where its expression failed; `column`, `count`) or `unresolved_link` (a FROM link leads to
    no note, so it matched nothing; `link`). `example` is one of the errors, as text."""

    kind: Literal["rows_dropped", "cell_failed", "unresolved_link"]
    message: str
    command: str | None = None
    column: str | None = None
    link: str | None = None
    count: int | None = None
    example: str | None = None


class QueryResult(_Frozen):
    """`rows` for LIST and TABLE, `tasks` for TASK. `total` counts top-level rows (or tasks, or
    groups) before the engine's `limit`; `truncated` says the limit cut some. `warnings` report rows
    dropped by runtime errors, columns that failed and links that resolve to nothing."""

    type: Literal["list", "table", "task"]
    columns: list[str]
    show_id: bool
    rows: list[ResultRow | ResultGroup]
    tasks: list[TaskItem | TaskGroup]
    total: int
    truncated: bool
    warnings: list[QueryWarning]
