"""What reading a document gives: its text, with what was left out said, never raised."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..mail.text import normalise_newlines, strip_controls
from .limits import Cut

_TRAILING_SPACES = re.compile(r"[ \t]+\n")
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True, kw_only=True)
class Extracted:
    """The text of one document. `kind` is what it was read as (`pdf`, `docx`, `xlsx`, `pptx`, `odt`, `html`,
    `csv`, `text`, `eml`); `pages` its page count (PDF only); `cut` why reading stopped early (None: read
    whole); `no_text_layer` a PDF with pages but not one character of text (scanned: no OCR here);
    `problems` short machine-readable notes (`charset_replaced`, `page_unreadable:N`, ...)."""

    text: str
    kind: str
    pages: int | None = None
    cut: Cut | None = None
    no_text_layer: bool = False
    problems: list[str] = field(default_factory=list)


def clean(text: str) -> str:
    """One block of extracted text made plain: LF line ends, no control characters but TAB and LF, no spaces
    before a line end, at most one empty line in a row."""
    text = strip_controls(normalise_newlines(text)).replace("\x0c", "")
    return _BLANK_LINES.sub("\n\n", _TRAILING_SPACES.sub("\n", text))


def one_line(text: str) -> str:
    """A table cell or a list item on one line."""
    return " ".join(clean(text).split())
