"""ODT → Markdown-ish text with odfpy: headings as `#` (by outline level), list items as `-`, tables as rows,
sections and frames read in order."""

from __future__ import annotations

import io
from typing import Any

from .archive import open_archive
from .errors import UnreadableDocument
from .extracted import Extracted, clean, one_line
from .limits import Budget, Limits

_MAX_DEPTH = 64
_CHECK_EVERY = 100


def read_odt(data: bytes, limits: Limits) -> Extracted:
    open_archive(data, limits).close()
    from odf.opendocument import load  # type: ignore[import-untyped]  # odfpy, loaded with the first ODT

    try:
        document = load(io.BytesIO(data))
        body = document.text
    except Exception as exc:  # odfpy raises whatever its zip and XML readers raise
        raise UnreadableDocument("corrupt", "the ODT cannot be read (damaged, cut short or not an ODT)") from exc
    reader = _Reader(Budget(limits), limits)
    reader.blocks(body, 0, 0)
    return Extracted(text=clean(reader.budget.text()).strip("\n") + "\n", kind="odt", cut=reader.budget.cut)


class _Reader:
    def __init__(self, budget: Budget, limits: Limits) -> None:
        self.budget = budget
        self.limits = limits
        self.count = 0
        self.cells = 0

    def blocks(self, element: Any, depth: int, list_level: int) -> None:
        if depth > _MAX_DEPTH:
            return
        for child in element.childNodes:
            if self.budget.cut is not None:
                return
            self.count += 1
            if self.count % _CHECK_EVERY == 0 and self.budget.out_of_time(self.count):
                return
            name = getattr(child, "qname", (None, None))[1]
            if name == "h":
                level = _int(child.getAttribute("outlinelevel"), 1)
                self._add("#" * min(max(level, 1), 6) + " " + _text(child))
            elif name == "p":
                self._add(_text(child))
            elif name == "list":
                self._list(child, depth + 1, list_level)
            elif name == "table":
                self._table(child)
            elif name in ("section", "frame", "text-box", "index-body", "table-of-content", "span", "a"):
                self.blocks(child, depth + 1, list_level)

    def _list(self, element: Any, depth: int, level: int) -> None:
        for item in element.childNodes:
            if getattr(item, "qname", (None, None))[1] not in ("list-item", "list-header"):
                continue
            for child in item.childNodes:
                name = getattr(child, "qname", (None, None))[1]
                if name in ("p", "h"):
                    self._add("  " * level + "- " + _text(child))
                elif name == "list" and depth < _MAX_DEPTH:
                    self._list(child, depth + 1, level + 1)

    def _table(self, element: Any) -> None:
        from odf.table import TableCell, TableRow  # type: ignore[import-untyped]

        rows = []
        for row in element.getElementsByType(TableRow):
            values = []
            for cell in row.getElementsByType(TableCell)[: self.limits.max_columns]:
                self.cells += 1
                values.append(_text(cell))
            rows.append(" | ".join(values))
            if self.cells >= self.limits.max_cells:
                break
        self._add("\n".join(rows))
        if self.cells >= self.limits.max_cells:
            self.budget.stop("cells", self.cells)

    def _add(self, line: str) -> None:
        if line.strip(" -#|"):
            self.budget.add(line + "\n\n")


def _text(element: Any) -> str:
    from odf import teletype  # type: ignore[import-untyped]

    return one_line(teletype.extractText(element))


def _int(value: object, default: int) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default
