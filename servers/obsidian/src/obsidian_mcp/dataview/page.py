"""What the engine queries: pages, a source of pages, and link resolution."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from obsidian_mcp.dataview.extract import NoteMetadata

# resolve(link target as written, path of the note it is written in) -> vault path, or None
Resolver = Callable[[str, str | None], str | None]


@dataclass(frozen=True, eq=False)
class Page:
    """One markdown note, as the index knows it.

    `path` is vault-relative (`Projects/Alpha.md`); `frontmatter` is the parsed YAML; `body` is
    the markdown after the frontmatter, whose first line is line `body_start_line` of the file
    (task line numbers are file lines). `metadata`, when given, is what was already read from
    that body (its fields and list items, as `extract.scan_body` reads them): the server's index
    stores it, so its pages carry it and no body. `outlinks` / `inlinks` are resolved vault paths; `tags`
    are the note's explicit tags with `#` (frontmatter and body). Pages compare by identity: the
    engine caches what it derives from a page on the object (`derived`), so a changed note is a
    new `Page`.
    """

    path: str
    frontmatter: Mapping[str, object] = field(default_factory=dict)
    body: str = ""
    size: int = 0
    ctime: datetime | None = None
    mtime: datetime | None = None
    outlinks: tuple[str, ...] = ()
    inlinks: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    body_start_line: int = 1
    metadata: NoteMetadata | None = None
    # What the engine derived from the page (`records.record_of`), kept on the page itself.
    derived: object = field(default=None, init=False, repr=False, compare=False)


class PageSource(Protocol):
    """All pages to query, and one page by its vault path."""

    def __iter__(self) -> Iterator[Page]: ...

    def get(self, path: str) -> Page | None: ...


@runtime_checkable
class IndexedPages(PageSource, Protocol):
    """A `PageSource` that answers FROM without reading every page (the server's index does).

    `ordered` is every page in path order. `tagged("#a/b")` (lower case) is the paths of the pages
    having that tag or a subtag of it, as `file.tags` has them; `in_folder("A/B")` the paths under
    that folder (case-sensitive, no trailing `/`); `linking_to(path)` the paths of the pages whose
    `outlinks` hold `path`. The engine uses them for FROM and never changes what they return.
    """

    def ordered(self) -> Sequence[Page]: ...

    def paths(self) -> Set[str]: ...

    def tagged(self, tag: str) -> Set[str]: ...

    def in_folder(self, folder: str) -> Set[str]: ...

    def linking_to(self, path: str) -> Set[str]: ...


class PageList:
    """A `PageSource` over pages in memory."""

    def __init__(self, pages: Iterable[Page]) -> None:
        self._pages = sorted(pages, key=lambda page: page.path)
        self._by_path = {page.path: page for page in self._pages}
        self._resolver: Resolver | None = None

    def __iter__(self) -> Iterator[Page]:
        return iter(self._pages)

    def __len__(self) -> int:
        return len(self._pages)

    def ordered(self) -> Sequence[Page]:
        """Every page, in path order."""
        return self._pages

    def get(self, path: str) -> Page | None:
        return self._by_path.get(path)

    def resolver(self) -> Resolver:
        """Obsidian-like resolution over these pages: an exact path (with or without `.md`), else a
        case-insensitive match of the path's end (`Alpha`, `Projects/Alpha`), the shortest path first."""
        if self._resolver is None:
            self._resolver = self._build_resolver()
        return self._resolver

    def _build_resolver(self) -> Resolver:
        by_suffix: dict[str, str] = {}
        for page in sorted(self._pages, key=lambda p: (p.path.count("/"), len(p.path), p.path)):
            stem = page.path[:-3] if page.path.endswith(".md") else page.path
            parts = stem.lower().split("/")
            for start in range(len(parts)):
                by_suffix.setdefault("/".join(parts[start:]), page.path)

        def resolve(target: str, source: str | None) -> str | None:
            target = target.strip().lstrip("/")
            if target in self._by_path:
                return target
            if target + ".md" in self._by_path:
                return target + ".md"
            key = target[:-3] if target.lower().endswith(".md") else target
            return by_suffix.get(key.lower())

        return resolve
