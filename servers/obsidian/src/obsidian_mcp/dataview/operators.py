"""Binary operators with Dataview's semantics.

Comparisons never fail: they use the total order of `values.compare` (so `null <= date(today)` is
true, as the Dataview docs warn). `and`/`or` give booleans from truthiness and short-circuit
(Dataview evaluates both sides). Arithmetic follows Dataview's table: numbers, `string + any`
concatenation (with the display form), `string * n` repetition, date ± duration, date − date,
duration ± duration, duration × ÷ number, list + list, object + object.

Differences: any other arithmetic with a null operand yields null (Dataview fails the row for
`number + null`), and division or remainder by zero yields null (JavaScript gives Infinity/NaN).
Other type mismatches (`"a" - 1`, `date + 5`) are an `EvalError` for the row, as in Dataview.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from obsidian_mcp.dataview.durations import Duration, between, shift
from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.values import Value, compare, display, is_number, truthy, type_name

if TYPE_CHECKING:
    from obsidian_mcp.dataview.context import EvalContext

COMPARISONS = frozenset({"=", "!=", "<", "<=", ">", ">="})


def compare_op(op: str, left: Value, right: Value, context: EvalContext) -> bool:
    if type(left) is str and type(right) is str and op in ("=", "!="):
        return (left == right) == (op == "=")
    order = compare(left, right, context.normalize)
    match op:
        case "=":
            return order == 0
        case "!=":
            return order != 0
        case "<":
            return order < 0
        case "<=":
            return order <= 0
        case ">":
            return order > 0
    return order >= 0


def _numbers(op: str, left: float, right: float) -> Value:
    match op:
        case "+":
            return left + right
        case "-":
            return left - right
        case "*":
            return left * right
        case "/":
            return None if right == 0 else left / right
    if right == 0:
        return None
    result = math.fmod(left, right)  # JavaScript's %: the sign follows the dividend
    return int(result) if isinstance(left, int) and isinstance(right, int) else result


def arithmetic(op: str, left: Value, right: Value, context: EvalContext) -> Value:
    if op == "+" and (isinstance(left, str) or isinstance(right, str)):
        return display(left, context.normalize) + display(right, context.normalize)
    if left is None or right is None:
        return None
    if is_number(left) and is_number(right):
        return _numbers(op, left, right)
    if op == "*" and isinstance(left, str) and is_number(right):
        return left * max(0, int(right))
    if op == "*" and is_number(left) and isinstance(right, str):
        return right * max(0, int(left))
    if isinstance(left, datetime):
        if op == "-" and isinstance(right, datetime):
            return between(left, right)
        if op in "+-" and isinstance(right, Duration):
            return shift(left, right if op == "+" else -right)
    if isinstance(left, Duration):
        if op == "+" and isinstance(right, datetime):
            return shift(right, left)
        if op in "+-" and isinstance(right, Duration):
            return left + right if op == "+" else left - right
        if op in "*/" and is_number(right):
            factor = float(right)
            if op == "/":
                return None if factor == 0 else left.scaled(1 / factor)
            return left.scaled(factor)
    if op == "*" and isinstance(right, Duration) and is_number(left):
        return right.scaled(float(left))
    if op == "+" and isinstance(left, list) and isinstance(right, list):
        return left + right
    if op == "+" and isinstance(left, Mapping) and isinstance(right, Mapping):
        return {**left, **right}
    raise EvalError(f"cannot apply '{op}' to {type_name(left)} and {type_name(right)}")


def binary(op: str, left: Value, right: Value, context: EvalContext) -> Value:
    """`left op right` for an already evaluated pair (used by functions like sum and reduce)."""
    if op in COMPARISONS:
        return compare_op(op, left, right, context)
    if op == "&":
        return truthy(left) and truthy(right)
    if op == "|":
        return truthy(left) or truthy(right)
    return arithmetic(op, left, right, context)
