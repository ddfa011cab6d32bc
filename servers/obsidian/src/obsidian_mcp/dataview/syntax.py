"""The parsed form of a query: expressions, sources and clauses, each with the 0-based offset of
where it starts in the query text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from obsidian_mcp.dataview.values import Value

# --- expressions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Literal_:
    value: Value
    pos: int


@dataclass(frozen=True)
class LinkLiteral:
    """`[[target]]`: resolved against the query's origin note when the query runs."""

    inner: str
    embed: bool
    pos: int


@dataclass(frozen=True)
class DateShorthand:
    """`date(today)`, `date(sow)`, ...: depends on the clock the query runs with."""

    name: str
    pos: int


@dataclass(frozen=True)
class Variable:
    name: str
    pos: int


@dataclass(frozen=True)
class Index:
    """`obj.name` (index is a string literal) or `obj[expr]`."""

    obj: Expr
    index: Expr
    pos: int


@dataclass(frozen=True)
class Call:
    func: Expr
    args: tuple[Expr, ...]
    pos: int


@dataclass(frozen=True)
class Lambda:
    params: tuple[str, ...]
    body: Expr
    pos: int


@dataclass(frozen=True)
class Binary:
    op: str  # + - * / % = != < <= > >= & |
    left: Expr
    right: Expr
    pos: int


@dataclass(frozen=True)
class Unary:
    op: Literal["!", "-"]
    operand: Expr
    pos: int


@dataclass(frozen=True)
class ListExpr:
    items: tuple[Expr, ...]
    pos: int


@dataclass(frozen=True)
class ObjectExpr:
    items: tuple[tuple[str, Expr], ...]
    pos: int


Expr: TypeAlias = (
    "Literal_ | LinkLiteral | DateShorthand | Variable | Index | Call | Lambda | Binary | Unary | ListExpr | ObjectExpr"
)

# --- sources (FROM) ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TagSource:
    tag: str
    pos: int


@dataclass(frozen=True)
class FolderSource:
    """`"folder"` (with subfolders) or `"path/to/note"` (one file)."""

    path: str
    pos: int


@dataclass(frozen=True)
class LinkSource:
    """`[[note]]` (pages linking to it, incoming) or `outgoing([[note]])`."""

    inner: str
    outgoing: bool
    pos: int


@dataclass(frozen=True)
class NegatedSource:
    child: Source
    pos: int


@dataclass(frozen=True)
class BinarySource:
    op: Literal["&", "|"]
    left: Source
    right: Source
    pos: int


Source: TypeAlias = "TagSource | FolderSource | LinkSource | NegatedSource | BinarySource"

# --- the query -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NamedExpr:
    """An expression with its column / field name (`AS name`, else its text)."""

    expr: Expr
    name: str
    pos: int


@dataclass(frozen=True)
class SortKey:
    expr: Expr
    descending: bool


@dataclass(frozen=True)
class Where:
    expr: Expr
    pos: int


@dataclass(frozen=True)
class Sort:
    keys: tuple[SortKey, ...]
    pos: int


@dataclass(frozen=True)
class GroupBy:
    field: NamedExpr
    pos: int


@dataclass(frozen=True)
class Flatten:
    field: NamedExpr
    pos: int


@dataclass(frozen=True)
class Limit:
    expr: Expr
    pos: int


Clause: TypeAlias = "Where | Sort | GroupBy | Flatten | Limit"
QueryType = Literal["list", "table", "task"]


@dataclass(frozen=True)
class Query:
    """A parsed query. `columns` are TABLE's columns or LIST's one expression (if any)."""

    type: QueryType
    columns: tuple[NamedExpr, ...]
    show_id: bool
    source: Source | None
    clauses: tuple[Clause, ...]
    text: str
