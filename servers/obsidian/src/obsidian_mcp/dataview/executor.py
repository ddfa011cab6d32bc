"""Running a query: FROM, then each data command in order, then the output rows or tasks.

Runtime errors follow Dataview: a row whose WHERE / SORT / GROUP BY / FLATTEN expression fails is
dropped (with a warning), and a command on which every row fails makes the whole query fail with
a `QueryError` at that command. Difference: a failing TABLE/LIST cell is null (with a warning)
where Dataview drops the row. Without SORT, rows come in path order and tasks in line order;
GROUP BY orders groups by key, as Dataview does.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from obsidian_mcp.dataview import syntax as s
from obsidian_mcp.dataview.batch import compile_batch
from obsidian_mcp.dataview.columns import SharedRows, subset
from obsidian_mcp.dataview.compiler import compile_expr
from obsidian_mcp.dataview.context import EvalContext
from obsidian_mcp.dataview.errors import EvalError, QueryError
from obsidian_mcp.dataview.from_source import Universe, select_pages
from obsidian_mcp.dataview.page import Page, PageList, PageSource, Resolver
from obsidian_mcp.dataview.parser import parse_query
from obsidian_mcp.dataview.records import record_of
from obsidian_mcp.dataview.result import QueryResult, QueryWarning, ResultGroup, ResultRow, TaskGroup, TaskItem
from obsidian_mcp.dataview.rows import Overlay
from obsidian_mcp.dataview.values import Link, Row, Value, is_number, sort_key, to_json, truthy, type_name


@dataclass(slots=True)
class Entry:
    """A row flowing through the commands: a page, a task, or a group of entries. Commands never
    change an entry they are given (the starting entries of a page are kept on its record)."""

    data: Row
    path: str | None = None
    task: dict[str, Value] | None = None
    members: list[Entry] | None = None
    key: Value = None


class _Run:
    def __init__(self, query: s.Query, context: EvalContext, members: bool) -> None:
        self.start: tuple[Sequence[Entry], list[Row]] | None = None  # the starting entries' rows, if known
        self.query = query
        self.context = context
        self.members = members
        self.group_name: str | None = None
        self.compiled_columns = [compile_expr(column.expr) for column in query.columns]
        self.failed_cells: dict[str, tuple[int, str]] = {}  # column -> (count, first error)

    def rows(self, entries: Sequence[Entry]) -> list[Row]:
        if self.start is not None and entries is self.start[0]:
            return self.start[1]
        return [entry.data for entry in entries]

    def failures(self, errors: list[str], total: int, command: str, position: int) -> None:
        if not errors:
            return
        if len(errors) == total:
            raise QueryError(f"every row failed in {command}: {errors[0]}", position)
        message = f"{command} dropped {len(errors)} row(s) whose expression failed, e.g.: {errors[0]}"
        warning = QueryWarning(kind="rows_dropped", message=message, command=command, count=len(errors))
        self.context.warn(warning.model_copy(update={"example": errors[0]}))

    def where(self, clause: s.Where, entries: Sequence[Entry]) -> list[Entry]:
        context = self.context
        try:  # all rows at once while none fails (almost always); else row by row, dropping failures
            tests = compile_batch(clause.expr)(self.rows(entries), context)
        except EvalError:
            pass
        else:
            return [
                entry
                for entry, value in zip(entries, tests, strict=True)
                if value is True or (value is not False and value is not None and truthy(value))
            ]
        test = compile_expr(clause.expr)
        kept: list[Entry] = []
        errors: list[str] = []
        for entry in entries:
            try:
                value = test(entry.data, context)
                if value is True or (value is not False and truthy(value)):
                    kept.append(entry)
            except EvalError as exc:
                errors.append(str(exc))
        self.failures(errors, len(entries), "WHERE", clause.pos)
        return kept

    def values(
        self, exprs: list[s.Expr], entries: Sequence[Entry], command: str, position: int
    ) -> tuple[list[Entry], list[list[Value]]]:
        """The entries whose expressions all evaluate, and each expression's values over them."""
        context = self.context
        try:  # all rows at once while none fails (almost always)
            rows = self.rows(entries)
            return list(entries), [compile_batch(expr)(rows, context) for expr in exprs]
        except EvalError:
            pass
        compiled = [compile_expr(expr) for expr in exprs]
        kept: list[Entry] = []
        columns: list[list[Value]] = [[] for _ in compiled]
        errors: list[str] = []
        for entry in entries:
            try:
                found = [expr(entry.data, context) for expr in compiled]
            except EvalError as exc:
                errors.append(str(exc))
                continue
            kept.append(entry)
            for column, value in zip(columns, found, strict=True):
                column.append(value)
        self.failures(errors, len(entries), command, position)
        return kept, columns

    def sort(self, clause: s.Sort, entries: Sequence[Entry]) -> list[Entry]:
        kept, columns = self.values([key.expr for key in clause.keys], entries, "SORT", clause.pos)
        order = list(range(len(kept)))
        for index in reversed(range(len(clause.keys))):  # stable sorts, the last key first
            keys = column_keys(columns[index], self.context.normalize)
            order.sort(key=keys.__getitem__, reverse=clause.keys[index].descending)
        return [kept[i] for i in order]

    def group(self, clause: s.GroupBy, entries: Sequence[Entry]) -> list[Entry]:
        kept, [values] = self.values([clause.field.expr], entries, "GROUP BY", clause.pos)
        keys = column_keys(values, self.context.normalize)
        buckets: dict[Any, list[int]] = {}  # equal keys (Dataview's order) share a group
        for i, key in enumerate(keys):
            bucket = buckets.get(key)
            if bucket is None:
                buckets[key] = [i]
            else:
                bucket.append(i)
        groups = [
            Entry(data={}, members=[kept[i] for i in buckets[key]], key=values[buckets[key][0]])
            for key in sorted(buckets)
        ]
        for group in groups:
            assert group.members is not None
            rows: list[Value] = [member.data for member in group.members]
            group.data = {"key": group.key, "rows": rows, clause.field.name: group.key}
        self.group_name = clause.field.name
        return groups

    def flatten(self, clause: s.Flatten, entries: Sequence[Entry]) -> list[Entry]:
        values_of, context, name, out, errors = compile_expr(clause.field.expr), self.context, clause.field.name, [], []
        for entry in entries:
            try:
                value = values_of(entry.data, context)
            except EvalError as exc:
                errors.append(str(exc))
                continue
            for item in value if isinstance(value, list) else [value]:
                out.append(Entry(Overlay({name: item}, entry.data), entry.path, entry.task, entry.members, entry.key))
        self.failures(errors, len(entries), "FLATTEN", clause.pos)
        return out

    def limit(self, clause: s.Limit, entries: Sequence[Entry]) -> Sequence[Entry]:
        try:
            amount = compile_expr(clause.expr)({}, self.context)
        except EvalError as exc:
            raise QueryError(f"LIMIT failed: {exc}", clause.pos) from None
        if not is_number(amount):
            raise QueryError(f"LIMIT needs a number, not a {type_name(amount)}", clause.pos)
        return entries[: int(amount)]

    def run(self, entries: Sequence[Entry]) -> Sequence[Entry]:
        for clause in self.query.clauses:
            match clause:
                case s.Where():
                    entries = self.where(clause, entries)
                case s.Sort():
                    entries = self.sort(clause, entries)
                case s.GroupBy():
                    entries = self.group(clause, entries)
                case s.Flatten():
                    entries = self.flatten(clause, entries)
                case s.Limit():
                    entries = self.limit(clause, entries)
        return entries

    # --- output ---
    def cells(self, entry: Entry) -> list[Value]:
        out: list[Value] = []
        for column, compiled in zip(self.query.columns, self.compiled_columns, strict=True):
            try:
                out.append(compiled(entry.data, self.context))
            except EvalError as exc:
                count, first = self.failed_cells.get(column.name, (0, str(exc)))
                self.failed_cells[column.name] = (count + 1, first)
                out.append(None)
        return out

    def cell_warnings(self) -> None:
        for name, (count, first) in self.failed_cells.items():
            message = f"column {name!r} is null where it failed ({count} row(s)), e.g.: {first}"
            self.context.warn(
                QueryWarning(kind="cell_failed", message=message, column=name, count=count, example=first)
            )

    # The values below come from `to_json`, so the models are built without validating them again.
    def row(self, entry: Entry) -> ResultRow | ResultGroup:
        normalize = self.context.normalize
        values = [to_json(value, normalize) for value in self.cells(entry)]
        ident = to_json(entry.key, normalize) if entry.members is not None else entry.path
        if self.query.type == "table" and self.query.show_id:
            values.insert(0, ident)
        if entry.members is None:
            return ResultRow.model_construct(kind="page", path=entry.path or "", values=values)
        members = [self.member(m) for m in entry.members] if self.members else []
        return ResultGroup.model_construct(kind="group", key=to_json(entry.key, normalize), values=values, rows=members)

    def member(self, entry: Entry) -> ResultRow | ResultGroup:
        if entry.members is None:
            return ResultRow.model_construct(kind="page", path=entry.path or "", values=[])
        normalize = self.context.normalize
        return ResultGroup.model_construct(
            kind="group", key=to_json(entry.key, normalize), values=[], rows=[self.member(m) for m in entry.members]
        )

    def task_item(self, task: dict[str, Value], path: str) -> TaskItem:
        normalize = self.context.normalize
        section = task.get("section")
        line, parent = task["line"], task.get("parent")
        return TaskItem.model_construct(
            kind="task",
            path=path,
            line=line if isinstance(line, int) else 0,
            text=str(task.get("text", "")),
            status=str(task.get("status", " ")),
            checked=bool(task.get("checked")),
            completed=bool(task.get("completed")),
            fully_completed=bool(task.get("fullyCompleted")),
            section=section.display if isinstance(section, Link) and section.kind == "header" else None,
            tags=[str(tag) for tag in _items(task.get("tags"))],
            due=to_json(task.get("due"), normalize),
            scheduled=to_json(task.get("scheduled"), normalize),
            start=to_json(task.get("start"), normalize),
            completion=to_json(task.get("completion"), normalize),
            created=to_json(task.get("created"), normalize),
            priority=to_json(task.get("priority"), normalize),
            recurrence=to_json(task.get("recurrence"), normalize),
            parent=parent if isinstance(parent, int) else None,
            children=[
                self.task_item(child, path)
                for child in _items(task.get("children"))
                if isinstance(child, dict) and child.get("task")
            ],
        )

    def task_roots(self, entries: Sequence[Entry]) -> Sequence[Entry]:
        """Entries to show at the top: groups, or tasks whose parent task is not shown already
        (Dataview shows a matching subtask under its matching parent, not again at the top)."""
        if any(entry.members is not None for entry in entries):
            return entries
        shown: set[tuple[str | None, Value]] = set()
        for entry in entries:
            if entry.task is not None:
                _collect(entry.path, entry.task, shown)
        return [
            entry
            for entry in entries
            if entry.task is not None
            and (entry.task.get("parent") is None or (entry.path, entry.task["parent"]) not in shown)
        ]

    def tasks(self, roots: Sequence[Entry]) -> list[TaskItem | TaskGroup]:
        out: list[TaskItem | TaskGroup] = []
        for entry in roots:
            if entry.members is not None:
                key = to_json(entry.key, self.context.normalize)
                out.append(
                    TaskGroup.model_construct(kind="group", key=key, tasks=self.tasks(self.task_roots(entry.members)))
                )
            elif entry.task is not None:
                out.append(self.task_item(entry.task, entry.path or ""))
        return out

    def result(self, entries: Sequence[Entry], limit: int | None) -> QueryResult:
        is_task = self.query.type == "task"
        top = self.task_roots(entries) if is_task else entries
        shown = top if limit is None else top[: max(0, limit)]
        columns = [column.name for column in self.query.columns]
        if self.query.type == "table" and self.query.show_id:
            columns.insert(0, self.group_name or "File")
        rows = [] if is_task else [self.row(entry) for entry in shown]
        self.cell_warnings()
        return QueryResult.model_construct(
            type=self.query.type,
            columns=[] if is_task else columns,
            show_id=self.query.show_id,
            rows=rows,
            tasks=self.tasks(shown) if is_task else [],
            total=len(top),
            truncated=len(shown) < len(top),
            warnings=list(self.context.warnings),
        )


_ORDERED_NATIVELY = ({int, float}, {datetime})  # these compare among themselves as Dataview orders them


def column_keys(values: list[Value], normalize: Callable[[Link], str]) -> list[Any]:
    """Sort keys for a column of values in Dataview's total order (`values.sort_key`), made in one
    pass without a call per value when the column holds one simple type (with or without nulls)."""
    kinds = set(map(type, values))
    present = kinds - {type(None)}
    if not present or any(present <= natural for natural in _ORDERED_NATIVELY):
        return values if present == kinds else [(value is not None, value) for value in values]
    if kinds == {str}:
        return [(value.casefold(), value.swapcase()) for value in values]  # type: ignore[union-attr]
    return [sort_key(value, normalize) for value in values]


def _items(value: Value) -> list[Value]:
    return value if isinstance(value, list) else []


def _collect(path: str | None, task: dict[str, Value], into: set[tuple[str | None, Value]]) -> None:
    into.add((path, task.get("line")))
    for child in _items(task.get("children")):
        if isinstance(child, dict):
            _collect(path, child, into)


class _Start:
    """The starting entries of a query type over every page of a source, their rows (with the
    columns kept over them), and where each page's entries are among them."""

    def __init__(self, pages: Sequence[Page], entries: list[Entry]) -> None:
        self.pages = pages
        self.entries = entries
        self.rows = SharedRows(entry.data for entry in entries)
        self._spans: dict[str, range] | None = None

    def of(self, pages: Sequence[Page]) -> tuple[list[Entry], list[Row]]:
        """The entries and rows of some of the pages (a FROM), picked from the shared ones."""
        if self._spans is None:
            self._spans = {}
            for index, entry in enumerate(self.entries):
                assert entry.path is not None
                span = self._spans.get(entry.path)
                self._spans[entry.path] = range(span.start if span else index, index + 1)
        spans = self._spans
        indices = [index for page in pages if page.path in spans for index in spans[page.path]]
        return [self.entries[index] for index in indices], subset(self.rows, indices)


# The starting entries of queries over every page of a source, by query type, while its page
# list stays the same.
_STARTS: weakref.WeakKeyDictionary[PageSource, dict[str, _Start]] = weakref.WeakKeyDictionary()


def _starting(query: s.Query, pages: Sequence[Page], universe: Universe) -> tuple[list[Entry], list[Row] | None]:
    """`_initial` (and the entries' rows), kept for the whole page list of a source (queries
    without FROM all start there); a FROM's entries are picked from those once they exist. The
    lists are never changed by the commands."""
    if universe.indexed is None:
        return _initial(query, pages), None
    kept = _STARTS.setdefault(universe.source, {})
    start = kept.get(query.type)
    if start is not None and start.pages is not universe.pages:  # a page changed since
        del kept[query.type]
        start = None
    if pages is not universe.pages:
        if start is None:  # not worth deriving every page for: a FROM may read only a few
            return _initial(query, pages), None
        return start.of(pages)
    if start is None:
        start = kept[query.type] = _Start(pages, _initial(query, pages))
    return start.entries, start.rows


def _initial(query: s.Query, pages: Sequence[Page]) -> list[Entry]:
    """The starting entries: one per page, or one per task. Built once per page object and kept
    on its record, so a query over an unchanged vault allocates none of them again."""
    entries: list[Entry] = []
    if query.type == "task":
        for page in pages:
            record = record_of(page)
            tasks = record.task_entries
            if tasks is None:
                tasks = record.task_entries = [Entry(row, row.path, row.task) for row in record.task_rows()]
            entries += tasks
        return entries
    for page in pages:
        record = record_of(page)
        entry = record.page_entry
        if entry is None:
            entry = record.page_entry = Entry(record.row, page.path)
        entries.append(entry)
    return entries


def execute_query(
    query: str | s.Query,
    pages: PageSource,
    *,
    resolver: Resolver | None = None,
    origin: str | None = None,
    today: date | None = None,
    now: datetime | None = None,
    limit: int | None = 100,
    members: bool = True,
) -> QueryResult:
    """Run a DQL query over `pages`.

    `resolver` resolves link text to vault paths (default: `pages.resolver()` for a `PageList`);
    `origin` is the note the query is written in (`this`, relative links); `today` / `now` fix the
    clock for `date(today)` and friends; `limit` caps the rows (or top-level tasks) returned after
    the query's own LIMIT, `total` telling how many there were; `members=False` leaves out the
    member rows of LIST/TABLE groups (Dataview shows one row per group). Raises `QueryError`.
    """
    parsed = parse_query(query) if isinstance(query, str) else query
    if resolver is None and isinstance(pages, PageList):
        resolver = pages.resolver()
    context = EvalContext(pages=pages, resolver=resolver, origin=origin, now=now, today=today)
    run = _Run(parsed, context, members)
    universe = Universe(pages)
    entries, rows = _starting(parsed, select_pages(parsed.source, universe, context), universe)
    if rows is not None:
        run.start = (entries, rows)
    return run.result(run.run(entries), limit)
