"""Expressions -> Python closures `(row, context) -> value`.

Field lookup: the exact key, then its canonical alias (so `Status`, `status` and `STATUS` all find
a `Status` field, a superset of Dataview, which matches only the exact key or the alias), then the
globals (`this`). Missing fields are null. `row` is the whole row; `row["where"]` reaches a field
named like a keyword.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from obsidian_mcp.dataview import syntax as s
from obsidian_mcp.dataview.coerce import canonical_key
from obsidian_mcp.dataview.context import EvalContext
from obsidian_mcp.dataview.dates import date_part
from obsidian_mcp.dataview.durations import Duration
from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.functions import FUNCTIONS
from obsidian_mcp.dataview.operators import COMPARISONS, arithmetic, compare_op
from obsidian_mcp.dataview.records import FileObject
from obsidian_mcp.dataview.rows import MISSING, Overlay, PageRow, TaskRow
from obsidian_mcp.dataview.values import Function, Link, Row, Value, is_number, truthy, type_name

Eval = Callable[[Row, EvalContext], Value]
PLAIN_OBJECTS = frozenset({dict, PageRow, TaskRow, FileObject})


class LambdaValue(Function):
    """A lambda closed over the row and the context (the query's one `EvalContext`) it was created in."""

    __slots__ = ("body", "context", "params", "row")

    def __init__(self, params: tuple[str, ...], body: Eval, row: Row, context: EvalContext) -> None:
        self.params, self.body, self.row, self.context = params, body, row, context

    def invoke(self, args: Sequence[Value]) -> Value:
        bound = dict(zip(self.params, args, strict=False))
        return self.body(Overlay(bound, self.row), self.context)


def lookup(mapping: Mapping[str, Value], key: str) -> Value:
    """`mapping[key]`, else the canonical alias's value, else null."""
    if key in mapping:
        return mapping[key]
    alias = canonical_key(key)
    return mapping.get(alias) if alias != key else None


def index_value(target: Value, index: Value, context: EvalContext) -> Value:
    """`target[index]` / `target.index` with Dataview's rules."""
    if index is None:
        return None
    if isinstance(index, bool) or not isinstance(index, str | int | float):
        raise EvalError(f"cannot index with a {type_name(index)}; use a string or a number")
    if isinstance(target, Mapping):
        if not isinstance(index, str):
            raise EvalError('objects are indexed with strings (a.b or a["b"])')
        return lookup(target, index)
    if isinstance(target, Link):
        if not isinstance(index, str):
            raise EvalError('links are indexed with strings (a.b or a["b"])')
        row = context.row_of(target)
        return lookup(row, index) if row is not None else None
    if isinstance(target, list):
        if isinstance(index, str):  # `rows.priority`: the field of every element
            out: list[Value] = []
            for item in target:
                if type(item) in PLAIN_OBJECTS:
                    found: Value = item.get(index, MISSING)  # type: ignore[union-attr]
                    if found is not MISSING:
                        out.append(found)
                        continue
                try:
                    out.append(index_value(item, index, context))
                except EvalError:
                    continue
            return out
        position = float(index)
        if position != int(position) or not 0 <= position < len(target):
            return None
        return target[int(position)]
    if isinstance(target, str):
        if isinstance(index, str):
            raise EvalError("strings are indexed with numbers (text[0])")
        position = float(index)
        if position != int(position) or not 0 <= position < len(target):
            return None
        return target[int(position)]
    if isinstance(target, datetime):
        if not isinstance(index, str):
            raise EvalError("date parts are named (d.year, d.month, ...)")
        return date_part(target, index)
    if isinstance(target, Duration):
        if not isinstance(index, str):
            raise EvalError("duration parts are named (dur.days, dur.hours, ...)")
        return target.in_unit(index)
    return None


def _variable(name: str) -> Eval:
    alias = canonical_key(name)
    if name == "row":
        return lambda row, context: Overlay(row, context.globals)

    def variable(row: Row, context: EvalContext) -> Value:
        value: Value = row.get(name, MISSING)
        if value is not MISSING:
            return value
        if alias != name and alias in row:
            return row[alias]
        return context.globals.get(name)

    return variable


# Comparisons of two values of one of these types (per operator) agree with `compare`'s order,
# so they skip building sort keys: the common `due <= date(today)`, `priority >= 4`, `x = "a"`.
NATIVE_ORDER = frozenset({int, float, datetime, bool})
NATIVE_EQUALITY = NATIVE_ORDER | {str}
COMPARISON_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _comparison(op: str, left: Eval, right: Eval, constant: s.Expr | None) -> Eval:
    """`left op right`; with `constant`, the right side is computed once, on the first row."""
    test = COMPARISON_TESTS[op]
    native = NATIVE_EQUALITY if op in ("=", "!=") else NATIVE_ORDER
    if constant is not None:
        plain = _compile(constant)
        memo: list[Value] = []

        def against_constant(row: Row, context: EvalContext) -> Value:
            a = left(row, context)
            if not memo:
                memo.append(plain(row, context))
            b = memo[0]
            kind = type(a)
            if kind is type(b) and kind in native:
                return test(a, b)
            return compare_op(op, a, b, context)

        return against_constant

    def comparison(row: Row, context: EvalContext) -> Value:
        a, b = left(row, context), right(row, context)
        kind = type(a)
        if kind is type(b) and kind in native:
            return test(a, b)
        return compare_op(op, a, b, context)

    return comparison


def _operands(expr: s.Expr, op: str) -> list[s.Expr]:
    """`a and b and c` as [a, b, c] (the parser nests them to the left)."""
    if isinstance(expr, s.Binary) and expr.op == op:
        return [*_operands(expr.left, op), *_operands(expr.right, op)]
    return [expr]


def _all(parts: list[Eval]) -> Eval:
    def conjunction(row: Row, context: EvalContext) -> Value:
        for part in parts:
            value = part(row, context)
            if value is not True and (value is False or value is None or not truthy(value)):
                return False
        return True

    return conjunction


def _any(parts: list[Eval]) -> Eval:
    def disjunction(row: Row, context: EvalContext) -> Value:
        for part in parts:
            value = part(row, context)
            if value is True or (value is not False and value is not None and truthy(value)):
                return True
        return False

    return disjunction


def _binary(expr: s.Binary) -> Eval:
    op = expr.op
    if op in ("&", "|"):  # short-circuit, operand by operand, without nesting one closure per `and`
        parts = [compile_expr(operand) for operand in _operands(expr, op)]
        return _all(parts) if op == "&" else _any(parts)
    left, right = compile_expr(expr.left), compile_expr(expr.right)
    if op in COMPARISONS:
        return _comparison(op, left, right, expr.right if is_constant(expr.right) else None)
    return lambda row, context: arithmetic(op, left(row, context), right(row, context), context)


def _member(target: Eval, name: str) -> Eval:
    """`target.name` with a literal name: objects (pages, `file`, tasks) are looked up directly."""

    def member(row: Row, context: EvalContext) -> Value:
        value = target(row, context)
        if type(value) in PLAIN_OBJECTS:
            found: Value = value.get(name, MISSING)  # type: ignore[union-attr]
            if found is not MISSING:
                return found
        return index_value(value, name, context)

    return member


def _unary(expr: s.Unary) -> Eval:
    operand = compile_expr(expr.operand)
    if expr.op == "!":

        def negation(row: Row, context: EvalContext) -> Value:
            value = operand(row, context)
            return value is False or value is None or (value is not True and not truthy(value))

        return negation

    def negate(row: Row, context: EvalContext) -> Value:
        value = operand(row, context)
        if value is None:
            return None
        if is_number(value):
            return -value
        if isinstance(value, Duration):
            return -value
        raise EvalError(f"cannot negate a {type_name(value)}")

    return negate


def _call(expr: s.Call) -> Eval:
    args = [compile_expr(arg) for arg in expr.args]
    if isinstance(expr.func, s.Variable):
        builtin = FUNCTIONS[expr.func.name.lower()]
        needle = expr.args[1] if len(expr.args) == 2 else None
        if expr.func.name.lower() == "contains" and isinstance(needle, s.Literal_) and isinstance(needle.value, str):
            return _contains_text(args[0], needle.value, builtin)
        if len(args) == 1:
            [only] = args
            return lambda row, context: builtin(context, [only(row, context)])
        if len(args) == 2:
            first, second = args
            return lambda row, context: builtin(context, [first(row, context), second(row, context)])
        return lambda row, context: builtin(context, [arg(row, context) for arg in args])
    func = compile_expr(expr.func)

    def call(row: Row, context: EvalContext) -> Value:
        target = func(row, context)
        if not isinstance(target, Function):
            raise EvalError(f"cannot call a {type_name(target)}")
        return target.invoke([arg(row, context) for arg in args])

    return call


def _contains_text(haystack: Eval, needle: str, builtin: Callable[[EvalContext, list[Value]], Value]) -> Eval:
    """`contains(x, "text")`, the commonest function in WHERE (`contains(file.tags, "#a")`): a list
    of strings or a string is searched here; anything else goes to the builtin."""

    def contains(row: Row, context: EvalContext) -> Value:
        value = haystack(row, context)
        if type(value) is list:
            for item in value:
                if type(item) is not str:
                    return builtin(context, [value, needle])
            return any(needle in item for item in value)  # type: ignore[operator]
        if type(value) is str:
            return needle in value
        return builtin(context, [value, needle])

    return contains


def is_constant(expr: s.Expr) -> bool:
    """True when `expr` reads nothing from the row (literals, date shorthands, pure calls on them)."""
    match expr:
        case s.Literal_() | s.LinkLiteral() | s.DateShorthand():
            return True
        case s.Binary(left=left, right=right):
            return is_constant(left) and is_constant(right)
        case s.Unary(operand=operand):
            return is_constant(operand)
        case s.Call(func=s.Variable(), args=args):
            return all(is_constant(arg) for arg in args)
        case s.ListExpr(items=items):
            return all(is_constant(item) for item in items)
        case s.ObjectExpr(items=items):
            return all(is_constant(value) for _, value in items)
    return False


def _once(compiled: Eval) -> Eval:
    """Evaluate a constant expression once per compilation (compiled again for every run)."""
    memo: list[Value] = []

    def constant(row: Row, context: EvalContext) -> Value:
        if not memo:
            memo.append(compiled(row, context))
        return memo[0]

    return constant


def compile_expr(expr: s.Expr) -> Eval:
    """A closure evaluating `expr` on a row. Raises `EvalError` at run time on type errors.
    Constant sub-expressions (`date(today) + dur(7 days)`) are computed once."""
    if not isinstance(expr, s.Literal_) and is_constant(expr):
        return _once(_compile(expr))
    return _compile(expr)


def _compile(expr: s.Expr) -> Eval:
    match expr:
        case s.Literal_(value=value):
            return lambda row, context: value
        case s.Variable(name=name):
            return _variable(name)
        case s.Binary():
            return _binary(expr)
        case s.Index(obj=obj, index=index):
            target, key = compile_expr(obj), compile_expr(index)
            if isinstance(index, s.Literal_) and isinstance(index.value, str):
                return _member(target, index.value)
            return lambda row, context: index_value(target(row, context), key(row, context), context)
        case s.Call():
            return _call(expr)
        case s.Unary():
            return _unary(expr)
        case s.LinkLiteral(inner=inner, embed=embed):
            return lambda row, context: Link.parse(inner, origin=context.origin, embed=embed)
        case s.DateShorthand(name=name):
            return lambda row, context: context.shorthand(name)
        case s.Lambda(params=params, body=body):
            compiled = compile_expr(body)
            return lambda row, context: LambdaValue(params, compiled, row, context)
        case s.ListExpr(items=items):
            parts = [compile_expr(item) for item in items]
            return lambda row, context: [part(row, context) for part in parts]
        case s.ObjectExpr(items=items):
            fields = [(key, compile_expr(value)) for key, value in items]
            return lambda row, context: {key: part(row, context) for key, part in fields}
    raise AssertionError(f"unknown expression {expr!r}")  # pragma: no cover
