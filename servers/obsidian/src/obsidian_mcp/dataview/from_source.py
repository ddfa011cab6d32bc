"""FROM: which pages a query starts with.

`#tag` matches the tag and its subtags, case-insensitively; `"folder"` matches pages under it (or
the one note at that path, with or without `.md`; `""` is the whole vault); `[[note]]` matches
pages linking to the note and `outgoing([[note]])` the pages it links to; `and`, `or`, `-`/`!`
combine them. A link that resolves to no note matches nothing (and says so in a warning).

A source that is `IndexedPages` answers tags, folders and links from its own indexes, so
`FROM #tag` reads only the tagged pages; any other source is scanned page by page.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from functools import cached_property

from obsidian_mcp.dataview import syntax as s
from obsidian_mcp.dataview.context import EvalContext
from obsidian_mcp.dataview.page import IndexedPages, Page, PageSource
from obsidian_mcp.dataview.records import record_of
from obsidian_mcp.dataview.result import QueryWarning
from obsidian_mcp.dataview.values import Link


class Universe:
    """Every page of a source, in path order, and the FROM primitives over them."""

    def __init__(self, source: PageSource) -> None:
        self.source = source
        self.indexed: IndexedPages | None = source if isinstance(source, IndexedPages) else None

    @cached_property
    def pages(self) -> Sequence[Page]:
        if self.indexed is not None:
            return self.indexed.ordered()
        return sorted(self.source, key=lambda page: page.path)

    @cached_property
    def paths(self) -> Set[str]:
        if self.indexed is not None:
            return self.indexed.paths()
        return {page.path for page in self.pages}

    def tagged(self, tag: str) -> Set[str]:
        wanted = tag.lower()
        if self.indexed is not None:
            return self.indexed.tagged(wanted)
        return {page.path for page in self.pages if wanted in record_of(page).lower_tags}

    def in_folder(self, path: str) -> Set[str]:
        folder = path.strip("/")
        if not folder:
            return self.paths
        if self.indexed is not None:
            inside = self.indexed.in_folder(folder)
        else:
            inside = {page.path for page in self.pages if page.path.startswith(folder + "/")}
        if inside:
            return inside
        return {candidate for candidate in (folder, folder + ".md") if candidate in self.paths}

    def linking_to(self, target: str) -> Set[str]:
        if self.indexed is not None:
            return self.indexed.linking_to(target)
        return {page.path for page in self.pages if target in page.outlinks}

    def outgoing(self, target: str) -> Set[str]:
        note = self.source.get(target)
        return set(note.outlinks) & self.paths if note is not None else set()


def _link_target(inner: str, context: EvalContext) -> str | None:
    link = Link.parse(inner, origin=context.origin)
    target = context.resolve(link.path, context.origin)
    if target is None:
        message = f"[[{inner}]] in FROM does not resolve to a note, so it matches nothing"
        context.warn(QueryWarning(kind="unresolved_link", message=message, link=inner))
    return target


def matching_paths(source: s.Source, universe: Universe, context: EvalContext) -> Set[str]:
    match source:
        case s.TagSource(tag=tag):
            return universe.tagged(tag)
        case s.FolderSource(path=path):
            return universe.in_folder(path)
        case s.LinkSource(inner=inner, outgoing=False):
            target = _link_target(inner, context)
            return universe.linking_to(target) if target else set()
        case s.LinkSource(inner=inner, outgoing=True):
            target = _link_target(inner, context)
            return universe.outgoing(target) if target else set()
        case s.NegatedSource(child=child):
            return universe.paths - matching_paths(child, universe, context)
        case s.BinarySource(op=op, left=left, right=right):
            first, second = matching_paths(left, universe, context), matching_paths(right, universe, context)
            return first & second if op == "&" else first | second
    raise AssertionError(f"unknown source {source!r}")  # pragma: no cover


def select_pages(source: s.Source | None, universe: Universe, context: EvalContext) -> Sequence[Page]:
    """The pages a query starts from, in path order."""
    if source is None:
        return universe.pages
    paths = matching_paths(source, universe, context)
    if universe.indexed is not None:  # sorting the matches beats filtering every page, even for most of them
        found = (universe.source.get(path) for path in sorted(paths))
        return [page for page in found if page is not None]
    return [page for page in universe.pages if page.path in paths]
