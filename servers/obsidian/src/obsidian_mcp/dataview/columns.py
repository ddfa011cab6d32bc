"""Columns kept with the rows of whole-vault queries.

The executor keeps the starting rows of queries over every page while the pages stay the same
(`executor._starting`). A column that depends on nothing but those rows, a field (`status`) or a
member chain from one (`file.tags`, `file.mtime`), has the same values in every such query, so it
is computed once and kept with the rows (`SharedRows.columns`); later queries copy it instead of
looking the field up in ten thousand rows again. `and` / `or` evaluate their later operands on
the rows still undecided (`RowsOf`): their columns are picked from the shared ones.

Only expressions that read nothing but the row are keyed (`column_key`): not `this`, which
depends on the note a query is written in, nor any call or comparison, which may depend on the
clock. The rows are dropped, with their columns, as soon as any page changes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from obsidian_mcp.dataview import syntax as s
from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.values import Row

T = TypeVar("T")
MAX_COLUMNS = 64  # kept per set of shared rows; the oldest goes first (a column of 10k rows: ~80 KB)


class SharedRows(list[Row]):
    """Rows kept between queries, with the columns computed over them."""

    __slots__ = ("columns",)

    def __init__(self, rows: Iterable[Row]) -> None:
        super().__init__(rows)
        self.columns: dict[Hashable, list[Any]] = {}

    def keep(self, key: Hashable, values: list[T]) -> list[T]:
        """Keep `values` as the column `key`, dropping the oldest column past `MAX_COLUMNS`."""
        if len(self.columns) >= MAX_COLUMNS:
            del self.columns[next(iter(self.columns))]
        self.columns[key] = values
        return values


class RowsOf(list[Row]):
    """The rows of `shared` at `indices`, in that order."""

    __slots__ = ("indices", "shared")

    def __init__(self, shared: SharedRows, indices: list[int]) -> None:
        super().__init__(shared[index] for index in indices)
        self.shared = shared
        self.indices = indices


def subset(rows: Sequence[Row], indices: list[int]) -> list[Row]:
    """`rows` at `indices`, still knowing the shared rows they come from."""
    if type(rows) is SharedRows:
        return RowsOf(rows, indices)
    if type(rows) is RowsOf:
        return RowsOf(rows.shared, [rows.indices[index] for index in indices])
    return [rows[index] for index in indices]


def column_key(expr: s.Expr) -> Hashable | None:
    """A key for the column of `expr` when it reads nothing but the row, else None."""
    match expr:
        case s.Variable(name=name) if name not in ("this", "row"):
            return ("field", name)
        case s.Index(obj=obj, index=s.Literal_(value=str() as name)):
            target = column_key(obj)
            return (target, name) if target is not None else None
    return None


def column(key: Hashable | None, rows: Sequence[Row], compute: Callable[[Sequence[Row]], list[T]]) -> list[T]:
    """`compute(rows)`, from the shared column when there is one (computed and kept if not yet).

    The whole shared column is computed even for a few of its rows; should that fail on a row
    outside them, only those rows are computed, and nothing is kept."""
    if key is None:
        return compute(rows)
    if type(rows) is SharedRows:
        found = rows.columns.get(key)
        if found is None:
            found = rows.keep(key, compute(rows))
        return list(found)  # the caller may change its list
    if type(rows) is RowsOf:
        found = rows.shared.columns.get(key)
        if found is None:
            try:
                found = rows.shared.keep(key, compute(rows.shared))
            except EvalError:
                return compute(rows)
        return [found[index] for index in rows.indices]
    return compute(rows)
