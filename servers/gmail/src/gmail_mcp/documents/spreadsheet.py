"""XLSX → text with openpyxl (read-only, cached values): each worksheet under `## Sheet: NAME`, one row a line,
cells separated by ` | `, empty rows left out. Bounded in cells visited and columns shown."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

from .archive import open_archive
from .errors import UnreadableDocument
from .extracted import Extracted, one_line
from .limits import Budget, Limits

_CHECK_EVERY = 500  # rows between looks at the clock


def read_xlsx(data: bytes, limits: Limits) -> Extracted:
    open_archive(data, limits).close()
    import openpyxl  # type: ignore[import-untyped]  # loaded with the first spreadsheet

    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises whatever its zip and XML readers raise
        raise UnreadableDocument("corrupt", "the XLSX cannot be read (damaged, cut short or not an XLSX)") from exc
    budget = Budget(limits)
    cells = 0
    try:
        sheets = list(workbook.worksheets)
        for number, sheet in enumerate(sheets):
            if budget.out_of_time(number, len(sheets)):
                break
            if not budget.add(f"{chr(10) if number else ''}## Sheet: {one_line(str(sheet.title))}\n"):
                break
            if hasattr(sheet, "reset_dimensions"):
                sheet.reset_dimensions()  # a declared size is not trusted: rows are not padded to it
            for count, row in enumerate(sheet.iter_rows(values_only=True)):
                cells += len(row)
                if cells > limits.max_cells:
                    budget.stop("cells", cells - len(row))
                    break
                if count % _CHECK_EVERY == 0 and budget.out_of_time(number, len(sheets)):
                    break
                line = _row(row, limits.max_columns)
                if line and not budget.add(line + "\n"):
                    break
            if budget.cut is not None:
                break
    finally:
        workbook.close()
    return Extracted(text=budget.text(), kind="xlsx", cut=budget.cut)


def _row(values: tuple[Any, ...], max_columns: int) -> str:
    shown = [_cell(value) for value in values[:max_columns]]
    while shown and not shown[-1]:
        shown.pop()
    if len(values) > max_columns and shown:
        shown.append("…")
    return " | ".join(shown)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return one_line(str(value))
