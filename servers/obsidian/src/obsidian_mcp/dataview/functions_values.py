"""Constructors and utility functions: object, list, date, dur, number, string, link, embed,
typeof, default, ldefault, choice, display, striptime, dateformat, localtime, meta."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from obsidian_mcp.dataview.date_format import format_date
from obsidian_mcp.dataview.dates import from_date, parse_date, shorthand
from obsidian_mcp.dataview.durations import parse_duration
from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.function_builder import Builtin, DataviewFunction
from obsidian_mcp.dataview.grammar import DATE_SHORTHANDS
from obsidian_mcp.dataview.values import Link, Value, display, truthy, type_name

if TYPE_CHECKING:
    from obsidian_mcp.dataview.context import EvalContext

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SHORTHANDS = frozenset(DATE_SHORTHANDS.split("|"))
_MARKDOWN = re.compile(r"(\*\*|__|~~|==|[*_`])")


def object_(context: EvalContext, args: Sequence[Value]) -> Value:
    if len(args) % 2:
        raise EvalError("object() needs key, value pairs")
    result: dict[str, Value] = {}
    for key, value in zip(args[::2], args[1::2], strict=True):
        if not isinstance(key, str):
            raise EvalError("object() keys must be strings")
        result[key] = value
    return result


def list_(context: EvalContext, args: Sequence[Value]) -> Value:
    return list(args)


def date_from_text(text: str, context: EvalContext) -> datetime | None:
    text = text.strip()
    if text in _SHORTHANDS:
        return shorthand(text, context.now, context.today)
    return parse_date(text)


date = DataviewFunction("date").vectorize(1, 0)
date.on("string")(lambda c, s: date_from_text(s, c))
date.on("date")(lambda c, d: d)
date.on("null")(lambda c, n: None)


@date.on("link")
def _date_of_link(context: EvalContext, link: Link) -> Value:
    for text in (link.display, link.path):
        if text and (moment := parse_date(text)) is not None:
            return moment
    row = context.row_of(link)
    file = row.get("file") if row is not None else None
    return file.get("day") if isinstance(file, Mapping) else None


dur = DataviewFunction("dur").vectorize(1, 0)
dur.on("string")(lambda c, s: parse_duration(s.strip()))
dur.on("duration")(lambda c, d: d)
dur.on("null")(lambda c, n: None)

number = DataviewFunction("number").vectorize(1, 0)
number.on("number")(lambda c, n: n)
number.on("null")(lambda c, n: None)


@number.on("string")
def _number_in(context: EvalContext, text: str) -> Value:
    match = _NUMBER.search(text)
    if match is None:
        return None
    return float(match.group(0)) if "." in match.group(0) else int(match.group(0))


string = DataviewFunction("string")
string.on("*")(lambda c, v: display(v, c.normalize))

link = DataviewFunction("link").vectorize(1, 0).vectorize(2, 0, 1)
link.on("string")(lambda c, s: Link(s, origin=c.origin, written=True))
link.on("link")(lambda c, lk: lk)
link.on("null")(lambda c, n: None)
link.on("string", "string")(lambda c, s, d: Link(s, display=d, origin=c.origin, written=True))
link.on("link", "string")(lambda c, lk, d: Link(lk.path, d, lk.subpath, lk.kind, lk.embed, lk.origin, lk.written))
link.on("null", "*")(lambda c, n, d: None)
link.on("*", "null")(lambda c, v, n: link(c, [v]))

embed = DataviewFunction("embed").vectorize(1, 0).vectorize(2, 0, 1)


@embed.on("link", "boolean")
def _embed(context: EvalContext, target: Link, on: bool = True) -> Value:
    return Link(target.path, target.display, target.subpath, target.kind, on, target.origin, target.written)


embed.on("link")(_embed)
embed.on("null")(lambda c, n: None)
embed.on("null", "*")(lambda c, n, b: None)
embed.on("*", "null")(lambda c, v, n: None)

typeof = DataviewFunction("typeof")
typeof.on("*")(lambda c, v: type_name(v))

default = DataviewFunction("default").vectorize(2, 0, 1)
default.on("*", "*")(lambda c, v, fallback: fallback if v is None else v)
ldefault = DataviewFunction("ldefault")
ldefault.on("*", "*")(lambda c, v, fallback: fallback if v is None else v)

choice = DataviewFunction("choice").vectorize(3, 0)
choice.on("*", "*", "*")(lambda c, test, yes, no: yes if truthy(test) else no)


display_ = DataviewFunction("display")
display_.on("null")(lambda c, n: "")
display_.on("array")(lambda c, items: ", ".join(str(display_(c, [item])) for item in items))


@display_.on("string")
def _plain(context: EvalContext, text: str) -> Value:
    text = re.sub(r"!?\[\[(?:[^\]|]*\|)?([^\]]*)\]\]", r"\1", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return _MARKDOWN.sub("", text)


display_.on("link")(lambda c, lk: lk.display or Link(c.normalize(lk)).title())
display_.on("*")(lambda c, v: display(v, c.normalize))

striptime = DataviewFunction("striptime").vectorize(1, 0)
striptime.on("date")(lambda c, d: from_date(d.date()))
striptime.on("null")(lambda c, n: None)

dateformat = DataviewFunction("dateformat").vectorize(2, 0)
dateformat.on("date", "string")(lambda c, d, fmt: format_date(d, fmt))
dateformat.on("null", "string")(lambda c, n, fmt: None)

localtime = DataviewFunction("localtime").vectorize(1, 0)
localtime.on("date")(lambda c, d: d)  # dates are already local
localtime.on("null")(lambda c, n: None)

meta = DataviewFunction("meta")
meta.on("link")(
    lambda c, lk: {
        "display": lk.display,
        "embed": lk.embed,
        "path": c.normalize(lk),
        "subpath": lk.subpath,
        "type": lk.kind,
    }
)

FUNCTIONS: dict[str, Builtin] = {
    "object": object_,
    "list": list_,
    "array": list_,
    "date": date,
    "dur": dur,
    "number": number,
    "string": string,
    "link": link,
    "embed": embed,
    "typeof": typeof,
    "default": default,
    "ldefault": ldefault,
    "choice": choice,
    "display": display_,
    "striptime": striptime,
    "dateformat": dateformat,
    "localtime": localtime,
    "meta": meta,
}
