"""Checks made before a query runs: every function exists and is supported, no DataviewJS."""

from __future__ import annotations

from collections.abc import Iterator

from obsidian_mcp.dataview import syntax as s
from obsidian_mcp.dataview.errors import QueryError
from obsidian_mcp.dataview.functions import FUNCTIONS, UNSUPPORTED


def _children(expr: s.Expr) -> Iterator[s.Expr]:
    match expr:
        case s.Index(obj=obj, index=index):
            yield from (obj, index)
        case s.Call(func=func, args=args):
            yield func
            yield from args
        case s.Lambda(body=body):
            yield body
        case s.Binary(left=left, right=right):
            yield from (left, right)
        case s.Unary(operand=operand):
            yield operand
        case s.ListExpr(items=items):
            yield from items
        case s.ObjectExpr(items=items):
            yield from (value for _, value in items)


def check_expr(expr: s.Expr) -> None:
    match expr:
        case s.Call(func=s.Variable(name=name, pos=pos), args=args):
            key = name.lower()
            if key in UNSUPPORTED:
                raise QueryError(UNSUPPORTED[key], pos)
            if key not in FUNCTIONS:
                raise QueryError(f"unknown function '{name}'", pos)
            if key == "date" and len(args) == 2:
                raise QueryError("date(text, format) is not supported; use date(text) with an ISO date", pos)
        case s.Index(obj=s.Variable(name="dv", pos=pos)):
            raise QueryError("DataviewJS (dv.*) is not supported; write a DQL query", pos)
    for child in _children(expr):
        check_expr(child)


def check_query(query: s.Query) -> None:
    for column in query.columns:
        check_expr(column.expr)
    for clause in query.clauses:
        match clause:
            case s.Where(expr=expr) | s.Limit(expr=expr):
                check_expr(expr)
            case s.Sort(keys=keys):
                for key in keys:
                    check_expr(key.expr)
            case s.GroupBy(field=field) | s.Flatten(field=field):
                check_expr(field.expr)
