"""Numeric and aggregate functions: round, trunc, floor, ceil, min, max, sum, product, average,
minby, maxby, reduce.

Difference: sum, product and average skip nulls (Dataview's `+` fails on null, so one missing
value fails the row there); average divides by the count of non-null values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.function_builder import Builtin, DataviewFunction
from obsidian_mcp.dataview.operators import binary
from obsidian_mcp.dataview.values import Function, Value, compare

if TYPE_CHECKING:
    from obsidian_mcp.dataview.context import EvalContext


def _js_round(number: float, digits: float | None = None) -> Value:
    if not math.isfinite(number):
        return number
    if digits is None or digits <= 0:
        return math.floor(number + 0.5)  # Math.round: halves go up
    return float(Decimal(number).quantize(Decimal(1).scaleb(-int(digits)), rounding=ROUND_HALF_UP))


round_ = DataviewFunction("round").vectorize(1, 0).vectorize(2, 0)
round_.on("number")(lambda c, n: _js_round(n))
round_.on("null")(lambda c, n: None)
round_.on("number", "number")(lambda c, n, d: _js_round(n, d))
round_.on("number", "null")(lambda c, n, d: _js_round(n))
round_.on("null", "*")(lambda c, n, d: None)


def _unary(name: str, op: Callable[[float], int]) -> DataviewFunction:
    function = DataviewFunction(name).vectorize(1, 0)
    function.on("number")(lambda c, n: op(n) if math.isfinite(n) else n)
    function.on("null")(lambda c, n: None)
    return function


trunc = _unary("trunc", math.trunc)
floor = _unary("floor", math.floor)
ceil = _unary("ceil", math.ceil)


def _extreme(name: str, keep_first: Callable[[int], bool]) -> DataviewFunction:
    function = DataviewFunction(name)

    def pick(context: EvalContext, a: Value, b: Value) -> Value:
        if a is None:
            return b
        if b is None:
            return a
        return a if keep_first(compare(a, b, context.normalize)) else b

    def over(context: EvalContext, *values: Value) -> Value:
        result: Value = None
        for index, value in enumerate(values):
            result = value if index == 0 else pick(context, result, value)
        return result

    function.on("*", "*")(pick)
    function.on("array")(lambda c, items: over(c, *items))
    function.any_args(over)
    return function


min_ = _extreme("min", lambda order: order <= 0)
max_ = _extreme("max", lambda order: order > 0)


def _fold(context: EvalContext, items: Sequence[Value], op: str) -> Value:
    present: list[Value] = [item for item in items if item is not None]
    if not present:
        return None
    if op == "+" and {type(item) for item in present} <= {int, float}:
        return sum(present)  # type: ignore[arg-type]  # numbers only: what `binary` would give, at C speed
    result = present[0]
    for item in present[1:]:
        result = binary(op, result, item, context)
    return result


sum_ = DataviewFunction("sum")
sum_.on("array")(lambda c, items: _fold(c, items, "+"))
sum_.on("*")(lambda c, v: v)
product = DataviewFunction("product")
product.on("array")(lambda c, items: _fold(c, items, "*"))
product.on("*")(lambda c, v: v)
average = DataviewFunction("average")


@average.on("array")
def _average(context: EvalContext, items: list[Value]) -> Value:
    present = [item for item in items if item is not None]
    total = _fold(context, present, "+")
    return None if total is None else binary("/", total, len(present), context)


average.on("*")(lambda c, v: v)


def _by(name: str, keep_first: Callable[[int], bool]) -> DataviewFunction:
    function = DataviewFunction(name)

    @function.on("array", "function")
    def by(context: EvalContext, items: list[Value], key: Function) -> Value:
        if not items:
            return None
        scored = [(item, key.invoke([item])) for item in items]
        scored = [pair for pair in scored if pair[1] is not None] or [(items[0], None)]
        best = scored[0]
        for pair in scored[1:]:
            if not keep_first(compare(best[1], pair[1], context.normalize)):
                best = pair
        return best[0]

    function.on("null", "function")(lambda c, n, f: None)
    return function


minby = _by("minby", lambda order: order <= 0)
maxby = _by("maxby", lambda order: order > 0)

reduce = DataviewFunction("reduce").vectorize(2, 1)


@reduce.on("array", "string")
def _reduce_op(context: EvalContext, items: list[Value], op: str) -> Value:
    if op not in ("+", "-", "*", "/", "&", "|"):
        raise EvalError("reduce(list, op) takes '+', '-', '*', '/', '&' or '|'")
    if not items:
        return None
    result = items[0]
    for item in items[1:]:
        result = binary(op, result, item, context)
    return result


@reduce.on("array", "function")
def _reduce_with(context: EvalContext, items: list[Value], step: Function) -> Value:
    if not items:
        return None
    result = items[0]
    for item in items[1:]:
        if item is not None:
            result = step.invoke([result, item])
    return result


reduce.on("null", "*")(lambda c, n, op: None)
reduce.on("*", "null")(lambda c, v, n: None)

FUNCTIONS: dict[str, Builtin] = {
    "round": round_,
    "trunc": trunc,
    "floor": floor,
    "ceil": ceil,
    "min": min_,
    "max": max_,
    "sum": sum_,
    "product": product,
    "average": average,
    "minby": minby,
    "maxby": maxby,
    "reduce": reduce,
}
