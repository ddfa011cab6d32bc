"""Expressions evaluated over many rows at once: `(rows, context) -> [value per row]`.

WHERE, SORT and GROUP BY evaluate one expression over every row. Evaluated row by row, each node
of the expression is a Python call per row; here the common nodes — fields, `a.b`, constants,
comparisons, `and`/`or`/`!`, function calls — each run one comprehension over the whole batch. On
its own that is 0.9 to 1.6 times the speed of row by row; what pays is the columns it keeps
(below): warm, whole-vault queries 2 to 12 times faster (bench/dataview_eval.py; why both
evaluators stay: specs/spec.md, "Deliberate duplicates"). The values are exactly those of
`compiler.compile_expr` (the same helpers decide them; tests/test_dataview_agreement.py checks
random expressions); any other node is evaluated row by row.
`and`/`or` evaluate an operand only on the rows still undecided, so an operand is never evaluated
where the row-by-row evaluator would not have. A failing row raises `EvalError` out of the batch;
the caller then evaluates row by row to drop just the failing rows. Fields and member chains over
the rows a whole-vault query starts from are kept between queries (`columns`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from obsidian_mcp.dataview import syntax as s
from obsidian_mcp.dataview.coerce import canonical_key
from obsidian_mcp.dataview.columns import column, column_key, subset
from obsidian_mcp.dataview.compiler import (
    COMPARISON_TESTS,
    NATIVE_EQUALITY,
    NATIVE_ORDER,
    PLAIN_OBJECTS,
    compile_expr,
    index_value,
    is_constant,
)
from obsidian_mcp.dataview.context import EvalContext
from obsidian_mcp.dataview.functions import FUNCTIONS
from obsidian_mcp.dataview.operators import COMPARISONS, compare_op
from obsidian_mcp.dataview.records import FileObject
from obsidian_mcp.dataview.rows import MISSING
from obsidian_mcp.dataview.values import Link, Row, Value, sort_key, truthy

Batch = Callable[[Sequence[Row], EvalContext], list[Value]]


def is_true(value: Value) -> bool:
    """Dataview's truthiness, with the common cases decided inline."""
    return value is True or (value is not False and value is not None and truthy(value))


def compile_batch(expr: s.Expr) -> Batch:
    """An evaluator of `expr` over a batch of rows, values in row order."""
    if not isinstance(expr, s.Literal_) and is_constant(expr):
        single = compile_expr(expr)
        return lambda rows, context: [single({}, context)] * len(rows) if rows else []
    match expr:
        case s.Literal_(value=value):
            return lambda rows, context: [value] * len(rows)
        case s.Variable(name=name) if name != "row":
            return _variable(expr)
        case s.Index(obj=obj, index=s.Literal_(value=str() as name)):
            return _member(compile_batch(obj), name, column_key(expr))
        case s.Binary(op="&" | "|" as op):
            return _logic(op, [compile_batch(part) for part in _operands(expr, op)])
        case s.Binary(op=op) if op in COMPARISONS:
            return _comparison(op, compile_batch(expr.left), expr.right, column_key(expr.left))
        case s.Unary(op="!", operand=operand):
            inner = compile_batch(operand)
            return lambda rows, context: [
                value is False or value is None or (value is not True and not truthy(value))
                for value in inner(rows, context)
            ]
        case s.Call(func=s.Variable(name=name), args=(haystack, s.Literal_(value=str() as needle))) if (
            name.lower() == "contains"
        ):
            return _contains_text(compile_batch(haystack), needle, FUNCTIONS["contains"])
        case s.Call(func=s.Variable(name=name), args=args):
            return _call(FUNCTIONS[name.lower()], [compile_batch(arg) for arg in args])
    single = compile_expr(expr)
    return lambda rows, context: [single(row, context) for row in rows]


def _operands(expr: s.Expr, op: str) -> list[s.Expr]:
    if isinstance(expr, s.Binary) and expr.op == op:
        return [*_operands(expr.left, op), *_operands(expr.right, op)]
    return [expr]


def _variable(expr: s.Variable) -> Batch:
    """A field: the exact key, else the canonical alias, else a global (`this`), as `compiler`."""
    name = expr.name
    alias = canonical_key(name)
    key = column_key(expr)

    def variable(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        return column(key, rows, lambda some: lookup(some, context))

    def lookup(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        values: list[Value] = [row.get(name, MISSING) for row in rows]
        missing = [i for i, value in enumerate(values) if value is MISSING]
        if missing:
            fallback = context.globals.get(name)  # the same for every row that lacks the field
            for index in missing:
                found = rows[index].get(alias, MISSING) if alias != name else MISSING
                values[index] = fallback if found is MISSING else found
        return values

    return variable


def _member(target: Batch, name: str, key: Hashable | None) -> Batch:
    def member(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        return column(key, rows, lambda some: lookup(some, context))

    def lookup(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        objects = target(rows, context)
        values: list[Value] = [
            value.cached(name)  # `file.x` computed before: a dictionary lookup
            if type(value) is FileObject
            else value.get(name, MISSING)  # type: ignore[union-attr]
            if type(value) in PLAIN_OBJECTS
            else MISSING
            for value in objects
        ]
        for index in [i for i, value in enumerate(values) if value is MISSING]:
            values[index] = index_value(objects[index], name, context)
        return values

    return member


def _comparison(op: str, left: Batch, right_expr: s.Expr, left_key: Hashable | None) -> Batch:
    test = COMPARISON_TESTS[op]
    native = NATIVE_EQUALITY if op in ("=", "!=") else NATIVE_ORDER
    if is_constant(right_expr):
        single = compile_expr(right_expr)

        def against_constant(rows: Sequence[Row], context: EvalContext) -> list[Value]:
            if not rows:
                return []
            constant = single({}, context)
            values = left(rows, context)
            if type(constant) is Link and op in ("=", "!="):  # `owner = [[Bob]]`: its key once, not per row
                wanted, equal = sort_key(constant, context.normalize), op == "="

                def link_keys(some: Sequence[Row]) -> list[tuple[object, ...] | None]:
                    found = values if some is rows else left(some, context)  # the shared rows: all of them
                    return [sort_key(value, context.normalize) if type(value) is Link else None for value in found]

                keys = column(("link keys", left_key) if left_key is not None else None, rows, link_keys)
                return [
                    (link_key == wanted) is equal if link_key is not None else compare_op(op, value, constant, context)
                    for value, link_key in zip(values, keys, strict=True)
                ]
            kind = type(constant) if type(constant) in native else None
            if constant is None:
                return [compare_op(op, value, constant, context) for value in values]
            missing = compare_op(op, None, constant, context)  # a null field: the same answer on every row
            return [
                test(value, constant)
                if type(value) is kind
                else (missing if value is None else compare_op(op, value, constant, context))
                for value in values
            ]

        return against_constant
    right = compile_batch(right_expr)

    def comparison(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        return [
            test(a, b) if type(a) is type(b) and type(a) in native else compare_op(op, a, b, context)
            for a, b in zip(left(rows, context), right(rows, context), strict=True)
        ]

    return comparison


def _logic(op: str, parts: list[Batch]) -> Batch:
    """`and` / `or`, each operand evaluated only on the rows it can still decide."""
    deciding = op == "|"  # the truth value that ends the evaluation of a row

    def logic(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        result: list[Value] = [not deciding] * len(rows)
        pending = list(range(len(rows)))
        batch: Sequence[Row] = rows
        for part in parts:
            if not pending:
                break
            undecided = []
            for index, value in zip(pending, part(batch, context), strict=True):
                if is_true(value) == deciding:
                    result[index] = deciding
                else:
                    undecided.append(index)
            pending = undecided
            batch = subset(rows, pending)
        return result

    return logic


def _contains_text(haystack: Batch, needle: str, builtin: Callable[[EvalContext, list[Value]], Value]) -> Batch:
    """`contains(x, "text")` as `compiler._contains_text` decides it, over a batch."""

    def contains(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        found: list[Value] = []
        for value in haystack(rows, context):
            if type(value) is list:
                for item in value:
                    if type(item) is not str:
                        found.append(builtin(context, [value, needle]))
                        break
                else:
                    for item in value:
                        if needle in item:  # type: ignore[operator]
                            found.append(True)
                            break
                    else:
                        found.append(False)
            elif type(value) is str:
                found.append(needle in value)
            else:
                found.append(builtin(context, [value, needle]))
        return found

    return contains


def _call(builtin: Callable[[EvalContext, list[Value]], Value], args: list[Batch]) -> Batch:
    if len(args) == 1:
        [only] = args
        return lambda rows, context: [builtin(context, [value]) for value in only(rows, context)]

    def call(rows: Sequence[Row], context: EvalContext) -> list[Value]:
        columns = [arg(rows, context) for arg in args]
        return [builtin(context, list(values)) for values in zip(*columns, strict=True)]

    return call
