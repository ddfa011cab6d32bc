"""Batch evaluation (`dataview.batch`) gives exactly the values of row-by-row evaluation, and fails
where row-by-row evaluation would fail, over every page and every task of the fixture vault."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from obsidian_mcp.dataview import syntax
from obsidian_mcp.dataview.batch import compile_batch
from obsidian_mcp.dataview.compiler import compile_expr
from obsidian_mcp.dataview.context import EvalContext
from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.loader import load_vault
from obsidian_mcp.dataview.parser import parse_query
from obsidian_mcp.dataview.records import record_of
from obsidian_mcp.dataview.values import Row, Value

VAULT = load_vault(Path(__file__).parent / "fixtures" / "dataview_vault")
PAGE_ROWS: list[Row] = [record_of(page).row for page in VAULT]
TASK_ROWS: list[Row] = [row for page in VAULT for row in record_of(page).task_rows()]

EXPRESSIONS = [
    "status",
    "STATUS",
    "Status",
    "this",
    "file.name",
    "file.tags",
    "file.link",
    "owner.role",
    "owner.file.name",
    "rows",
    'status = "active"',
    'status != "done"',
    "priority >= 2",
    "priority > 1.5",
    "due < date(2024-05-01)",
    "due >= date(today) - dur(1 week)",
    "due = null",
    "owner = [[Bob]]",
    "owner != [[People/Bob.md]]",
    "project = [[Alpha]]",
    "file.link = [[Beta]]",
    "[[Alpha]] = file.link",
    "spent > dur(2 hours)",
    "budget * 2 > 1000",
    "status AND due",
    "status OR due OR priority",
    "!status",
    "!(priority > 1) AND !due",
    'contains(file.tags, "#proj")',
    'contains(status, "act")',
    "contains(attendees, [[Carol]])",
    'contains(file.name, "a") OR contains(file.folder, "Notes")',
    "length(file.inlinks) >= 3",
    'lower(status) = "blocked"',
    "default(priority, 0) + 1",
    "typeof(due)",
    "due - 1",  # fails on pages with a due date
    "status - 1 AND false",  # fails where status is text
    "false AND status - 1",  # never evaluates the failing side
    "true OR due - 1",
    "file.tasks[0].text",
    "row.status",
    "[1, 2][0] = 1",
    "completed",
    "!completed AND due <= date(2024-05-05)",
    'priority = "high"',
    "recurrence",
    "text",
]


def condition(expression: str) -> syntax.Expr:
    where = parse_query(f"LIST WHERE {expression}").clauses[0]
    assert isinstance(where, syntax.Where)
    return where.expr


def row_by_row(expression: str, rows: list[Row], context: EvalContext) -> list[Value] | str:
    compiled = compile_expr(condition(expression))
    try:
        return [compiled(row, context) for row in rows]
    except EvalError:
        return "fails"


def batched(expression: str, rows: list[Row], context: EvalContext) -> list[Value] | str:
    compiled = compile_batch(condition(expression))
    try:
        return compiled(rows, context)
    except EvalError:
        return "fails"


@pytest.mark.parametrize("expression", EXPRESSIONS)
@pytest.mark.parametrize("rows", [PAGE_ROWS, TASK_ROWS], ids=["pages", "tasks"])
def test_batches_agree_with_rows(expression: str, rows: list[Row]) -> None:
    def context() -> EvalContext:
        return EvalContext(pages=VAULT, resolver=VAULT.resolver(), origin="Home.md", today=date(2024, 5, 1))

    expected = row_by_row(expression, rows, context())
    got = batched(expression, rows, context())
    assert got == expected
    assert [type(value) for value in got] == [type(value) for value in expected]


def test_a_batch_evaluates_nothing_for_no_rows() -> None:
    context = EvalContext(pages=VAULT, resolver=VAULT.resolver())
    assert compile_batch(condition("date(today) > due"))([], context) == []
