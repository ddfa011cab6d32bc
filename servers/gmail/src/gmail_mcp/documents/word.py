"""DOCX → Markdown-ish text with python-docx: headings as `#`, list items as `-` or `1.`, tables as rows of
cells separated by ` | `, in document order."""

from __future__ import annotations

import contextlib
import io
from typing import Any

from .archive import open_archive
from .errors import UnreadableDocument
from .extracted import Extracted, clean, one_line
from .limits import Budget, Limits

_CHECK_EVERY = 100  # blocks between looks at the clock


def read_docx(data: bytes, limits: Limits) -> Extracted:
    open_archive(data, limits).close()
    import docx  # python-docx, loaded with the first DOCX

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises whatever its zip, XML and package readers raise
        raise UnreadableDocument("corrupt", "the DOCX cannot be read (damaged, cut short or not a DOCX)") from exc
    budget = Budget(limits)
    lists = _Lists(document)
    cells = 0
    for count, block in enumerate(document.iter_inner_content()):
        if count % _CHECK_EVERY == 0 and budget.out_of_time(count):
            break
        if hasattr(block, "rows"):
            rows, cells = _table(block, cells, limits)
            text = "\n".join(rows)
            if cells >= limits.max_cells:
                budget.add(text + "\n")
                budget.stop("cells", cells)
                break
        else:
            text = _paragraph(block, lists)
        if text and not budget.add(text + "\n\n"):
            break
    return Extracted(text=clean(budget.text()).strip("\n") + "\n", kind="docx", cut=budget.cut)


def _paragraph(paragraph: Any, lists: _Lists) -> str:
    text = one_line(paragraph.text)
    if not text:
        return ""
    style = _style_name(paragraph)
    level = _heading_level(style)
    if level:
        return "#" * level + " " + text
    item = lists.marker(paragraph, style)
    return item + text if item else text


def _style_name(paragraph: Any) -> str:
    try:
        style = paragraph.style
        return str(style.name) if style is not None and style.name else ""
    except (KeyError, ValueError, AttributeError):
        return ""


def _heading_level(style: str) -> int:
    if style == "Title":
        return 1
    if style.startswith("Heading ") and style[8:].isdigit():
        return min(int(style[8:]), 6)
    return 0


class _Lists:
    """List markers: `-` for bullets, `1.`, `2.` … for numbered items (counted per list and level), indented by
    level. The numbering format comes from the numbering part; without one, from the paragraph's style."""

    def __init__(self, document: Any) -> None:
        self.formats: dict[tuple[str, str], str] = {}
        self.counters: dict[tuple[str, int], int] = {}
        with contextlib.suppress(KeyError, NotImplementedError, AttributeError, ValueError):
            self._load(document.part.numbering_part.element)

    def _load(self, numbering: Any) -> None:
        from docx.oxml.ns import qn

        abstract: dict[tuple[str, str], str] = {}
        for definition in numbering.findall(qn("w:abstractNum")):
            key = definition.get(qn("w:abstractNumId"))
            for level in definition.findall(qn("w:lvl")):
                fmt = level.find(qn("w:numFmt"))
                value = fmt.get(qn("w:val")) if fmt is not None else "decimal"
                abstract[(key, level.get(qn("w:ilvl")))] = value or "decimal"
        for num in numbering.findall(qn("w:num")):
            ref = num.find(qn("w:abstractNumId"))
            if ref is None:
                continue
            for (key, level), value in abstract.items():
                if key == ref.get(qn("w:val")):
                    self.formats[(num.get(qn("w:numId")), level)] = value

    def marker(self, paragraph: Any, style: str) -> str:
        num_id, level = _numbering(paragraph)
        if num_id is None:
            if style.startswith("List Number"):
                return self._numbered(f"style:{style}", 0)
            if style.startswith(("List Bullet", "List Paragraph", "List")):
                return "- "
            return ""
        if num_id == "0":  # numbering switched off for this paragraph
            return ""
        fmt = self.formats.get((num_id, str(level)))
        if fmt is None:
            fmt = "decimal" if style.startswith("List Number") else "bullet"
        if fmt in ("bullet", "none"):
            return "  " * level + "- "
        return self._numbered(num_id, level)

    def _numbered(self, list_id: str, level: int) -> str:
        for key in [k for k in self.counters if k[0] == list_id and k[1] > level]:
            del self.counters[key]  # a shallower item restarts the deeper levels
        number = self.counters.get((list_id, level), 0) + 1
        self.counters[(list_id, level)] = number
        return "  " * level + f"{number}. "


def _numbering(paragraph: Any) -> tuple[str | None, int]:
    properties = paragraph._p.pPr
    numbered = properties.numPr if properties is not None else None
    if numbered is None or numbered.numId is None:
        return None, 0
    level = numbered.ilvl.val if numbered.ilvl is not None else 0
    return str(numbered.numId.val), max(0, min(int(level), 8))


def _table(table: Any, cells: int, limits: Limits) -> tuple[list[str], int]:
    """The table's rows, one line each (a merged cell once), and the running count of cells."""
    rows = []
    for row in table.rows:
        seen: set[int] = set()
        values = []
        for cell in row.cells:
            cells += 1
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            values.append(one_line(cell.text))
        rows.append(" | ".join(values[: limits.max_columns]))
        if cells >= limits.max_cells:
            break
    return rows, cells
