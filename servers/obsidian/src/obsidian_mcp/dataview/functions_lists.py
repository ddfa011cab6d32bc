"""List, object and containment functions: contains, icontains, econtains, extract, sort,
reverse, length, nonnull, firstvalue, all, any, none, join, filter, map, flat, slice, unique.

`contains` looks into lists recursively and into strings by substring, as Dataview's does:
`contains(file.tags, "#proj")` is true for a page tagged `#project`; `econtains` compares
list elements exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.function_builder import Builtin, DataviewFunction
from obsidian_mcp.dataview.operators import compare_op
from obsidian_mcp.dataview.values import Value, display, sort_key, truthy

if TYPE_CHECKING:
    from obsidian_mcp.dataview.context import EvalContext


def _containment(name: str, fold: bool, deep: bool) -> DataviewFunction:
    function = DataviewFunction(name).vectorize(2, 1)

    def test(context: EvalContext, haystack: Value, needle: Value) -> bool:
        if isinstance(haystack, list):
            if not deep:
                return any(compare_op("=", needle, item, context) for item in haystack)
            plain = isinstance(needle, str) and not fold
            for item in haystack:  # `contains(file.tags, "#a")`: substrings of strings, looked at directly
                if plain and type(item) is str:
                    if needle in item:  # type: ignore[operator]
                        return True
                elif test(context, item, needle):
                    return True
            return False
        if isinstance(haystack, str) and isinstance(needle, str):
            return needle.lower() in haystack.lower() if fold else needle in haystack
        if isinstance(haystack, Mapping) and isinstance(needle, str):
            return needle in haystack
        return compare_op("=", haystack, needle, context)

    function.on("*", "*")(test)
    return function


contains = _containment("contains", fold=False, deep=True)
icontains = _containment("icontains", fold=True, deep=True)
econtains = _containment("econtains", fold=False, deep=False)


def extract(context: EvalContext, args: Sequence[Value]) -> Value:
    if not args:
        raise EvalError("extract(object, key1, ...) needs an object")
    target, keys = args[0], args[1:]
    if isinstance(target, list):
        return [extract(context, [item, *keys]) for item in target]
    if not all(isinstance(key, str) for key in keys):
        raise EvalError("extract(object, key1, ...) takes string keys")
    if not isinstance(target, Mapping):
        return {str(key): None for key in keys}
    return {str(key): target.get(str(key)) for key in keys}


sort = DataviewFunction("sort")
sort.on("array")(lambda c, items: sorted(items, key=lambda v: sort_key(v, c.normalize)))
sort.on("array", "function")(lambda c, items, key: sorted(items, key=lambda v: sort_key(key.invoke([v]), c.normalize)))
sort.on("*")(lambda c, v: v)

reverse = DataviewFunction("reverse")
reverse.on("array")(lambda c, items: items[::-1])
reverse.on("string")(lambda c, text: text[::-1])
reverse.on("*")(lambda c, v: v)

length = DataviewFunction("length")
length.on("array")(lambda c, items: len(items))
length.on("object")(lambda c, obj: len(obj))
length.on("string")(lambda c, text: len(text))
length.on("null")(lambda c, n: 0)

nonnull = DataviewFunction("nonnull")
nonnull.on("array")(lambda c, items: [item for item in items if item is not None])
nonnull.any_args(lambda c, *items: [item for item in items if item is not None])

firstvalue = DataviewFunction("firstvalue")
firstvalue.on("array")(lambda c, items: next((item for item in items if item is not None), None))
firstvalue.on("null")(lambda c, n: None)


def _quantifier(name: str, combine: Callable[[Iterable[bool]], bool]) -> DataviewFunction:
    function = DataviewFunction(name)
    function.on("array")(lambda c, items: combine(truthy(item) for item in items))
    function.on("array", "function")(lambda c, items, test: combine(truthy(test.invoke([item])) for item in items))
    function.any_args(lambda c, *items: combine(truthy(item) for item in items))
    return function


all_ = _quantifier("all", all)
any_ = _quantifier("any", any)
none = _quantifier("none", lambda flags: not any(flags))

join = DataviewFunction("join").vectorize(2, 1)
join.on("array", "string")(lambda c, items, sep: sep.join(display(item, c.normalize) for item in items))
join.on("array", "null")(lambda c, items, n: ", ".join(display(item, c.normalize) for item in items))
join.on("*", "string")(lambda c, v, sep: display(v, c.normalize))
join.on("array")(lambda c, items: ", ".join(display(item, c.normalize) for item in items))
join.on("*")(lambda c, v: display(v, c.normalize))

filter_ = DataviewFunction("filter")
filter_.on("array", "function")(lambda c, items, test: [item for item in items if truthy(test.invoke([item]))])
filter_.on("null", "*")(lambda c, n, f: None)

map_ = DataviewFunction("map")
map_.on("array", "function")(lambda c, items, step: [step.invoke([item]) for item in items])
map_.on("null", "*")(lambda c, n, f: None)


def _flat(items: list[Value], depth: float) -> list[Value]:
    out: list[Value] = []
    for item in items:
        if isinstance(item, list) and depth >= 1:
            out += _flat(item, depth - 1)
        else:
            out.append(item)
    return out


flat = DataviewFunction("flat")
flat.on("array")(lambda c, items: _flat(items, 1))
flat.on("array", "number")(lambda c, items, depth: _flat(items, depth))
flat.on("null")(lambda c, n: None)

slice_ = DataviewFunction("slice")
slice_.on("array")(lambda c, items: list(items))
slice_.on("array", "number")(lambda c, items, start: items[int(start) :])
slice_.on("array", "number", "number")(lambda c, items, start, end: items[int(start) : int(end)])
slice_.on("null")(lambda c, n: None)


def _unique(context: EvalContext, items: list[Value]) -> Value:
    seen: set[tuple[object, ...]] = set()
    kept: list[Value] = []
    for item in items:
        key = sort_key(item, context.normalize)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


unique = DataviewFunction("unique")
unique.on("array")(_unique)
unique.on("null")(lambda c, n: None)

FUNCTIONS: dict[str, Builtin] = {
    "contains": contains,
    "icontains": icontains,
    "econtains": econtains,
    "extract": extract,
    "sort": sort,
    "reverse": reverse,
    "length": length,
    "nonnull": nonnull,
    "firstvalue": firstvalue,
    "all": all_,
    "any": any_,
    "none": none,
    "join": join,
    "filter": filter_,
    "map": map_,
    "flat": flat,
    "slice": slice_,
    "unique": unique,
}
