"""The engine's runtime values and Dataview's rules for them: type names, truthiness, the total
order used by comparisons and SORT, the display string (`string(x)`, `"a" + x`) and JSON.

A value is one of: None (null), bool, int/float (number), str, naive `datetime` (date),
`Duration`, `Link`, list, a string-keyed Mapping (object; pages, tasks and groups are objects
too) or a `Function` (lambda).
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeAlias, TypeGuard

from obsidian_mcp.dataview import dates
from obsidian_mcp.dataview.durations import Duration

Value: TypeAlias = (
    "bool | int | float | str | datetime | Duration | Link | list[Value] | Mapping[str, Value] | Function | None"
)
Row: TypeAlias = Mapping[str, Value]
Normalizer = Callable[["Link"], str]
LinkKind = Literal["file", "header", "block"]


@dataclass(frozen=True, slots=True)
class Link:
    """A wiki link. `path` is a vault path, or, when `written` is true, the link text as written
    in the note `origin` (None: in the query), resolved when the link is compared or shown."""

    path: str
    display: str | None = None
    subpath: str | None = None
    kind: LinkKind = "file"
    embed: bool = False
    origin: str | None = None
    written: bool = False

    @staticmethod
    def parse(inner: str, *, origin: str | None, embed: bool = False) -> Link:
        """The link written as `[[inner]]` (`Note`, `Note|shown`, `Note#Heading`, `Note#^block`)."""
        target, display = _split_pipe(inner)
        if "#^" in target:
            path, _, block = target.partition("#^")
            return Link(path, display, block, "block", embed, origin, True)
        if "#" in target:
            path, _, heading = target.partition("#")
            return Link(path, display, normalize_heading(heading), "header", embed, origin, True)
        return Link(target, display, None, "file", embed, origin, True)

    def title(self) -> str:
        """The file name without folder and `.md`."""
        name = self.path.rsplit("/", 1)[-1]
        return name[:-3] if name.endswith(".md") else name


def _split_pipe(inner: str) -> tuple[str, str | None]:
    index = 0
    while (index := inner.find("|", index)) >= 0:
        if index == 0 or inner[index - 1] != "\\":
            return inner[:index].replace("\\|", "|"), inner[index + 1 :]
        index += 1
    return inner.replace("\\|", "|"), None


_HEADING_JUNK = re.compile(r"[^\w\s-]+|\s+")


def normalize_heading(heading: str) -> str:
    """Obsidian's linkable form of a heading: punctuation becomes space, runs of space collapse."""
    return " ".join(_HEADING_JUNK.sub(" ", heading).split())


class Function(ABC):
    """A callable value (a lambda). It is bound to the evaluation it was made in (its row, the
    query's context), so calling it takes only the arguments."""

    @abstractmethod
    def invoke(self, args: Sequence[Value]) -> Value: ...


_TYPE_NAMES: dict[type, str] = {
    type(None): "null",
    bool: "boolean",
    int: "number",
    float: "number",
    str: "string",
    datetime: "date",
    Duration: "duration",
    Link: "link",
    list: "array",
    dict: "object",
}


def type_name(value: Value) -> str:
    """Dataview's type name: null, boolean, number, string, date, duration, link, array, object, function."""
    name = _TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    if isinstance(value, Function):
        return "function"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, datetime):
        return "date"
    return "unknown"


def is_number(value: Value) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def truthy(value: Value) -> bool:
    """Dataview's truthiness: null, false, 0, "", empty lists/objects and zero durations are false."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | str | list):
        return bool(value)
    if isinstance(value, Link):
        return bool(value.path)
    if isinstance(value, Duration):
        return value.casual_seconds() != 0
    if isinstance(value, Mapping):
        return len(value) > 0
    return True


# Type ranks: null first, then Dataview's alphabetical order of type names.
_RANK = {
    "null": 0,
    "array": 1,
    "boolean": 2,
    "date": 3,
    "duration": 4,
    "function": 5,
    "link": 6,
    "number": 7,
    "object": 8,
    "string": 9,
    "unknown": 10,
}


def sort_key(value: Value, normalize: Normalizer) -> tuple[object, ...]:
    """A key whose ordering is Dataview's total order over values: null first, different types by
    type name, strings case-insensitively first (approximating `localeCompare`), links by resolved
    path, lists element by element, durations by length."""
    if value is None:
        return (0,)
    if isinstance(value, str):
        return (9, value.casefold(), value.swapcase())
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (7, value)
    if isinstance(value, datetime):
        return (3, value)
    if isinstance(value, Duration):
        return (4, value.casual_seconds())
    if isinstance(value, Link):
        return (6, normalize(value), value.kind, value.subpath is not None, value.subpath or "")
    if isinstance(value, list):
        return (1, tuple(sort_key(item, normalize) for item in value))
    if isinstance(value, Mapping):
        keys = sorted(value)
        return (8, tuple(keys), tuple(sort_key(value[key], normalize) for key in keys))
    return (_RANK[type_name(value)],)


def compare(left: Value, right: Value, normalize: Normalizer) -> int:
    """-1, 0 or 1 under Dataview's total order."""
    if left is None or right is None:  # null sorts first; the commonest case (a missing field)
        return (left is not None) - (right is not None)
    kind = type(left)
    if kind is type(right):
        if kind in (int, float, datetime):
            return (left > right) - (left < right)  # type: ignore[operator]
        if kind is Link:  # links order by resolved path first: most comparisons end there
            first, second = normalize(left), normalize(right)  # type: ignore[arg-type]
            if first != second:
                return 1 if first > second else -1
    a, b = sort_key(left, normalize), sort_key(right, normalize)
    return (a > b) - (a < b)


def number_text(number: float) -> str:
    """A number as JavaScript prints it (`3`, not `3.0`)."""
    if isinstance(number, int):
        return str(number)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return str(int(number)) if number == int(number) and abs(number) < 1e21 else repr(number)


def display(value: Value, normalize: Normalizer, nested: bool = False) -> str:
    """Dataview's display string (`string(x)`, `"text" + x`): dates as `January 05, 2024`,
    durations as `1 month, 2 days`, links as `[[path|name]]`, lists joined with `, `, null as `-`."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number_text(value)
    if isinstance(value, datetime):
        return dates.display(value)
    if isinstance(value, Duration):
        return value.human()
    if isinstance(value, Link):
        return link_markdown(value, normalize)
    if isinstance(value, list):
        inner = ", ".join(display(item, normalize, True) for item in value)
        return f"[{inner}]" if nested else inner
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{key}: {display(item, normalize, True)}" for key, item in value.items()) + " }"
    return "<function>"


def link_markdown(link: Link, normalize: Normalizer) -> str:
    path = normalize(link)
    anchor = "" if link.subpath is None else ("#" if link.kind == "header" else "#^") + link.subpath
    target = path + anchor
    shown = link.display or Link(path).title() + (f" > {link.subpath}" if link.subpath else "")
    return f"{'!' if link.embed else ''}[[{target}|{shown}]]"


JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"


def to_json(value: Value, normalize: Normalizer) -> JsonValue:
    """JSON-ready form: dates as ISO strings (`2024-01-05` at midnight), durations as ISO 8601
    durations, links as vault paths (`path#Heading` / `path#^block` for section links)."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return int(value) if value == int(value) and abs(value) < 2**53 else value
    if isinstance(value, datetime):
        return dates.iso(value)
    if isinstance(value, Duration):
        return value.iso()
    if isinstance(value, Link):
        path = normalize(value)
        if value.subpath is None:
            return path
        return f"{path}#{'^' if value.kind == 'block' else ''}{value.subpath}"
    if isinstance(value, list):
        return [to_json(item, normalize) for item in value]
    if isinstance(value, Mapping):
        return {str(key): to_json(item, normalize) for key, item in value.items()}
    return "<function>"
