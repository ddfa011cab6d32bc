"""What reading one document may cost: bytes in, pages, cells and characters out, and time.

A limit reached while reading stops the reading and is reported (`Extracted.cut`, the CONTENT_TRUNCATED
warning); a document that is hostile from the start (a zip bomb, an absurd page tree, more bytes than any
attachment has) is refused before anything is parsed (`UnreadableDocument`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Limits:
    max_bytes: int = 40_000_000  # Gmail's attachments stop at 25 MB
    max_pages: int = 1_000  # PDF pages (and slides) read; the rest is cut with a warning
    max_page_tree: int = 100_000  # a PDF claiming more pages than this is refused: no reader needs it
    max_cells: int = 200_000  # spreadsheet and CSV cells visited, empty ones included
    max_columns: int = 500  # columns shown per row
    max_chars: int = 2_000_000  # characters of text kept
    seconds: float = 10.0  # time budget per document, checked between pages, sheets, slides and blocks
    # Office files and ODT are zip archives: checked member by member before any XML is parsed.
    max_members: int = 5_000
    max_member_bytes: int = 60_000_000  # declared uncompressed size of one member
    max_total_bytes: int = 120_000_000  # declared uncompressed size of all members
    max_ratio: int = 100  # uncompressed / compressed, for members above 1 MB


LIMITS = Limits()


@dataclass(frozen=True, kw_only=True)
class Cut:
    """Why reading stopped before the end: `reason` is `pages`, `cells`, `size` or `time`; `read` and
    `total` count what the reason counts (pages, cells, characters), `total` None when unknown."""

    reason: str
    read: int
    total: int | None = None


class Budget:
    """The text of one document as it is read: appends within `max_chars`, remembers the first cut."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.deadline = time.monotonic() + limits.seconds
        self.parts: list[str] = []
        self.chars = 0
        self.cut: Cut | None = None

    def add(self, text: str) -> bool:
        """Append `text`; False (and the text cut) once the size limit is reached."""
        if self.cut is not None:
            return False
        room = self.limits.max_chars - self.chars
        if len(text) > room:
            self.parts.append(text[:room])
            self.chars += room
            self.cut = Cut(reason="size", read=self.limits.max_chars)
            return False
        self.parts.append(text)
        self.chars += len(text)
        return True

    def stop(self, reason: str, read: int, total: int | None = None) -> None:
        if self.cut is None:
            self.cut = Cut(reason=reason, read=read, total=total)

    def out_of_time(self, read: int, total: int | None = None) -> bool:
        """True (and the cut recorded) once the time budget is spent; call between units of work."""
        if self.cut is not None:
            return True
        if time.monotonic() > self.deadline:
            self.stop("time", read, total)
            return True
        return False

    def text(self) -> str:
        return "".join(self.parts)
