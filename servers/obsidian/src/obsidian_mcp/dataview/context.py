"""What expressions are evaluated against besides the row: the clock, the origin note (`this`),
link resolution and page lookup (for `[[Note]].field`)."""

from __future__ import annotations

from datetime import date, datetime

from obsidian_mcp.dataview import dates
from obsidian_mcp.dataview.page import PageSource, Resolver
from obsidian_mcp.dataview.records import record_of
from obsidian_mcp.dataview.result import QueryWarning
from obsidian_mcp.dataview.values import Link, Row, Value

MAX_WARNINGS = 20


class EvalContext:
    """Per-execution state; link resolutions are memoised."""

    def __init__(
        self,
        *,
        pages: PageSource | None = None,
        resolver: Resolver | None = None,
        origin: str | None = None,
        now: datetime | None = None,
        today: date | None = None,
    ) -> None:
        self.pages = pages
        self.resolver = resolver
        self.origin = origin
        if now is None:
            now = datetime.combine(today, datetime.min.time()) if today is not None else datetime.now()
        self.now = dates.naive(now)
        self.today = today if today is not None else self.now.date()
        self._resolved: dict[tuple[str, str | None], str | None] = {}
        self._shorthands: dict[str, datetime] = {}
        self.warnings: list[QueryWarning] = []
        origin_page = pages.get(origin) if pages is not None and origin is not None else None
        this: Value = record_of(origin_page).row if origin_page is not None else {}
        self.globals: dict[str, Value] = {"this": this}

    def warn(self, warning: QueryWarning) -> None:
        """Record a warning, once per message, at most `MAX_WARNINGS` of them."""
        if len(self.warnings) < MAX_WARNINGS and all(w.message != warning.message for w in self.warnings):
            self.warnings.append(warning)

    def resolve(self, target: str, origin: str | None) -> str | None:
        """The vault path `target` (as written in `origin`) leads to, or None."""
        key = (target, origin)
        if key not in self._resolved:
            self._resolved[key] = self.resolver(target, origin) if self.resolver is not None and target else None
        return self._resolved[key]

    def normalize(self, link: Link) -> str:
        """The path a link compares by: its resolved vault path, else the text as written."""
        if not link.written:
            return link.path
        if not link.path:  # [[#Heading]] points into the note it is written in
            return link.origin or ""
        return self.resolve(link.path, link.origin) or link.path

    def row_of(self, link: Link) -> Row | None:
        """The data of the page a link leads to."""
        if self.pages is None:
            return None
        page = self.pages.get(self.normalize(link))
        return record_of(page).row if page is not None else None

    def shorthand(self, name: str) -> datetime:
        if name not in self._shorthands:
            self._shorthands[name] = dates.shorthand(name, self.now, self.today)
        return self._shorthands[name]
