"""What `vault_pages` keeps of one note: its metadata as the index stored it (no note text), and
the Dataview `Page` built from it.

A note arrives either from the index's tables (`from_tables`, when the pages are first built) or
from the record a sync just extracted (`from_record`). Either way the frontmatter, the inline
fields and the list items are what `index.extract` read, so the pages never read a note file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from obsidian_mcp.index.extract import NoteRecord
from obsidian_mcp.index.links_table import RawLink
from obsidian_mcp.index.metadata import StoredNote
from obsidian_mcp.vault import markdown

if TYPE_CHECKING:
    from obsidian_mcp.dataview.extract import NoteMetadata
    from obsidian_mcp.dataview.page import Page

_NO_FRONTMATTER: Mapping[str, Any] = {}


class PageNote:
    """One indexed note; `page` is None until (re)built after a change."""

    __slots__ = (
        "aliases",
        "body_line",
        "ctime",
        "digest",
        "frontmatter",
        "inlinks",
        "links",
        "metadata",
        "mtime",
        "outlinks",
        "page",
        "path",
        "size",
        "tags",
    )

    def __init__(self, path: str, digest: str, size: int, mtime: float, ctime: float) -> None:
        self.path, self.digest, self.size, self.mtime, self.ctime = path, digest, size, mtime, ctime
        self.frontmatter: Mapping[str, Any] = _NO_FRONTMATTER
        self.metadata: NoteMetadata | None = None  # None: nothing in the body (no fields, no list)
        self.body_line = 1
        self.tags: tuple[str, ...] = ()
        self.aliases: tuple[str, ...] = ()
        self.links: tuple[RawLink, ...] = ()  # frontmatter links first, then the body's
        self.outlinks: tuple[str, ...] = ()
        self.inlinks: set[str] = set()
        self.page: Page | None = None

    def from_record(self, record: NoteRecord) -> None:
        """Take what a sync just extracted from the note."""
        self.frontmatter = record.frontmatter_values or _NO_FRONTMATTER
        self.metadata = record.metadata if record.metadata.fields or record.metadata.items else None
        self.body_line = record.body_line
        self.aliases = tuple(record.aliases)
        self.tags = tuple("#" + tag for tag in record.tags)
        found = frontmatter_links(record.frontmatter_values.values())
        self.links = (*found, *((link.kind, link.target) for link in record.links))

    def from_tables(
        self,
        stored: StoredNote | None,
        body_line: int,
        aliases: Iterable[str],
        tags: Iterable[str],
        links: Iterable[RawLink],
    ) -> None:
        """Take what the index's tables hold of the note."""
        self.body_line = body_line
        self.aliases = tuple(aliases)
        self.tags = tuple("#" + tag for tag in tags)
        found: tuple[RawLink, ...] = ()
        if stored is not None:
            self.metadata = stored.metadata
            if stored.frontmatter:
                self.frontmatter = StoredFrontmatter(stored.frontmatter)
                found = frontmatter_links(json.loads(value) for _, value in stored.frontmatter if "[[" in value)
        self.links = (*found, *links)

    def build(self) -> Page:
        from obsidian_mcp.dataview.extract import NoteMetadata  # the engine loads on the first query
        from obsidian_mcp.dataview.page import Page

        return Page(
            path=self.path,
            frontmatter=self.frontmatter,
            size=self.size,
            ctime=datetime.fromtimestamp(self.ctime),
            mtime=datetime.fromtimestamp(self.mtime),
            outlinks=self.outlinks,
            inlinks=tuple(sorted(self.inlinks)),
            tags=self.tags,
            aliases=self.aliases,
            body_start_line=self.body_line,
            metadata=self.metadata if self.metadata is not None else NoteMetadata((), ()),
        )


class StoredFrontmatter(Mapping[str, Any]):
    """A note's frontmatter from the `fields` table, each value decoded from its JSON on first use
    (a query reads the fields of only some notes)."""

    __slots__ = ("_data", "_pairs")

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self._pairs = pairs
        self._data: dict[str, Any] | None = None

    def parsed(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {key: json.loads(value) for key, value in self._pairs}
            self._pairs = []
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self.parsed()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.parsed())

    def __len__(self) -> int:
        return len(self.parsed())


def frontmatter_links(values: Iterable[Any]) -> tuple[RawLink, ...]:
    """`[[links]]` in frontmatter strings (`owner: "[[Bob]]"`), which Obsidian and Dataview count
    as the note's links."""
    from obsidian_mcp.dataview.coerce import frontmatter_strings  # loaded with the pages' first query

    found = (
        markdown.wikilink_at(match, 0).target
        for value in values
        for text in frontmatter_strings(value)
        if "[[" in text
        for match in markdown.WIKILINK.finditer(text)
    )
    return tuple(("wikilink", target) for target in found if target.strip())
