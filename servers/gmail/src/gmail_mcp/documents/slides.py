"""PPTX → text with python-pptx, slide by slide: `## Slide N of M: TITLE`, then the text of every other shape
(text boxes, tables as rows, groups), then the speaker notes under `Notes:`."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from .archive import open_archive
from .errors import UnreadableDocument
from .extracted import Extracted, clean, one_line
from .limits import Budget, Limits

_MAX_GROUP_DEPTH = 16


def read_pptx(data: bytes, limits: Limits) -> Extracted:
    open_archive(data, limits).close()
    import pptx  # python-pptx, loaded with the first presentation

    try:
        presentation = pptx.Presentation(io.BytesIO(data))
        slides = list(presentation.slides)
    except Exception as exc:  # python-pptx raises whatever its zip, XML and package readers raise
        raise UnreadableDocument("corrupt", "the PPTX cannot be read (damaged, cut short or not a PPTX)") from exc
    budget = Budget(limits)
    total = len(slides)
    done = 0
    for index, slide in enumerate(slides[: limits.max_pages]):
        if budget.out_of_time(index, total):
            break
        done = index + 1
        if not budget.add(("\n" if index else "") + _slide(slide, index + 1, total) + "\n"):
            break
    if done < total and budget.cut is None:
        budget.stop("pages", done, total)
    return Extracted(text=budget.text(), kind="pptx", cut=budget.cut)


def _slide(slide: Any, number: int, total: int) -> str:
    title_shape = slide.shapes.title
    title = one_line(title_shape.text_frame.text) if title_shape is not None and title_shape.has_text_frame else ""
    lines = [f"## Slide {number} of {total}" + (f": {title}" if title else "")]
    for shape in _shapes(slide.shapes, 0):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            text = clean(shape.text_frame.text).strip()
            if text:
                lines.append(text)
        elif getattr(shape, "has_table", False) and shape.has_table:
            rows = (" | ".join(one_line(cell.text) for cell in row.cells) for row in shape.table.rows)
            lines.extend(row for row in rows if row.strip(" |"))
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = clean(frame.text).strip() if frame is not None else ""
        if notes:
            lines.append("Notes: " + notes)
    return "\n".join(lines)


def _shapes(shapes: Any, depth: int) -> Iterator[Any]:
    for shape in shapes:
        if hasattr(shape, "shapes"):  # a group
            if depth < _MAX_GROUP_DEPTH:
                yield from _shapes(shape.shapes, depth + 1)
        else:
            yield shape
