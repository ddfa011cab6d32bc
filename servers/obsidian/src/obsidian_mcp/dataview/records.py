"""What the engine derives from a `Page`, once per page object: its row (fields plus the implicit
`file` object), its tasks and list items as Dataview objects, and its full tag set.

Field values from frontmatter come first, then inline fields in body order. Fields never
override `file`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from obsidian_mcp.dataview.coerce import frontmatter_value, raw_frontmatter_value
from obsidian_mcp.dataview.dates import from_date, naive
from obsidian_mcp.dataview.extract import NoteMetadata, scan_body
from obsidian_mcp.dataview.fields import merge_fields, typed_fields
from obsidian_mcp.dataview.list_objects import list_objects
from obsidian_mcp.dataview.page import Page
from obsidian_mcp.dataview.rows import MISSING, PageRow, TaskRow
from obsidian_mcp.dataview.values import Link, Value

_EPOCH = datetime(1970, 1, 1)
_DAY_IN_NAME = (re.compile(r"(\d{4})-(\d{2})-(\d{2})"), re.compile(r"(\d{4})(\d{2})(\d{2})"))


def _title(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def full_tags(tags: Sequence[str]) -> list[str]:
    """`file.tags`: each tag and its parents (`#a/b` gives `#a/b` and `#a`), first spelling kept."""
    full: dict[str, None] = {}
    for tag in tags:
        parts = tag.split("/")
        for end in range(len(parts), 0, -1):
            full.setdefault("/".join(parts[:end]), None)
    return list(full)


class FileObject(Mapping[str, Value]):
    """The implicit `file` object, computed key by key on first use."""

    __slots__ = ("_cache", "_record")
    KEYS = (
        "name",
        "path",
        "folder",
        "ext",
        "link",
        "size",
        "ctime",
        "cday",
        "mtime",
        "mday",
        "tags",
        "etags",
        "inlinks",
        "outlinks",
        "aliases",
        "tasks",
        "lists",
        "frontmatter",
        "day",
    )

    def __init__(self, record: PageRecord) -> None:
        self._record = record
        self._cache: dict[str, Value] = {}

    def __getitem__(self, key: str) -> Value:
        if key in self._cache:
            return self._cache[key]
        compute = _FILE_KEYS.get(key)
        if compute is None:
            raise KeyError(key)
        value = self._cache[key] = compute(self._record)
        return value

    def __contains__(self, key: object) -> bool:
        return key in _FILE_KEYS

    def cached(self, key: str) -> Any:
        """The value of `key` if computed already, else `rows.MISSING`."""
        return self._cache.get(key, MISSING)

    def get(self, key: str, default: Value = None) -> Value:  # type: ignore[override]
        cache = self._cache
        if key in cache:
            return cache[key]
        return self[key] if key in _FILE_KEYS else default

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)


def _stamp(moment: datetime | None) -> datetime:
    return naive(moment) if moment is not None else _EPOCH


def _day(record: PageRecord) -> Value:
    for key, value in record.fields.items():
        if key.lower() not in ("date", "day"):
            continue
        if isinstance(value, datetime):
            return value
        if isinstance(value, list) and value and isinstance(value[0], datetime):
            return value[0]
    for pattern in _DAY_IN_NAME:
        if match := pattern.search(_title(record.page.path)):
            try:
                return datetime(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            except ValueError:
                continue
    return None


_FILE_KEYS: dict[str, Callable[[PageRecord], Value]] = {
    "name": lambda r: _title(r.page.path),
    "path": lambda r: r.page.path,
    "folder": lambda r: r.page.path.rpartition("/")[0],
    "ext": lambda r: r.page.path.rpartition(".")[2] if "." in r.page.path else "",
    "link": lambda r: Link(r.page.path),
    "size": lambda r: r.page.size,
    "ctime": lambda r: _stamp(r.page.ctime),
    "cday": lambda r: from_date(_stamp(r.page.ctime).date()),
    "mtime": lambda r: _stamp(r.page.mtime),
    "mday": lambda r: from_date(_stamp(r.page.mtime).date()),
    "tags": lambda r: list(r.full_tags),
    "etags": lambda r: list(dict.fromkeys(r.page.tags)),
    "inlinks": lambda r: [Link(path) for path in dict.fromkeys(r.page.inlinks)],
    "outlinks": lambda r: [Link(path) for path in dict.fromkeys(r.page.outlinks)],
    "aliases": lambda r: list(r.page.aliases),
    "tasks": lambda r: [item for item in r.list_objects if item["task"]],
    "lists": lambda r: list(r.list_objects),
    "frontmatter": lambda r: {str(k): raw_frontmatter_value(v) for k, v in r.page.frontmatter.items()},
    "day": _day,
}


class PageRecord:
    """Everything derived from one page; build with `record_of`."""

    page: Page
    full_tags: list[str]
    lower_tags: frozenset[str]

    def __init__(self, page: Page) -> None:
        self.page = page
        self._body: NoteMetadata | None = None
        self._list_objects: list[dict[str, Value]] | None = None
        self._row: PageRow | None = None
        self._fields: dict[str, Value] | None = None
        self._task_rows: list[TaskRow] | None = None
        self.page_entry: Any = None  # the executor's starting entries, kept with the page
        self.task_entries: Any = None
        self.full_tags = full_tags(list(dict.fromkeys(page.tags)))
        self.lower_tags = frozenset(tag.lower() for tag in self.full_tags)

    @property
    def row(self) -> PageRow:
        """The page's data: `file` plus every field."""
        if self._row is None:
            data: dict[str, Value] = {"file": FileObject(self)}
            for key, value in self.fields.items():
                data.setdefault(key, value)
            self._row = PageRow(self.page.path, data)
        return self._row

    @property
    def fields(self) -> dict[str, Value]:
        if self._fields is None:
            pairs = [
                (str(key), frontmatter_value(value, self.page.path)) for key, value in self.page.frontmatter.items()
            ]
            pairs += typed_fields(self.body.fields, self.page.path)
            self._fields = merge_fields(pairs)
        return self._fields

    @property
    def body(self) -> NoteMetadata:
        if self._body is None:
            self._body = self.page.metadata if self.page.metadata is not None else scan_body(self.page.body)
        return self._body

    @property
    def list_objects(self) -> list[dict[str, Value]]:
        """Every list item as a Dataview object (tasks included), in line order."""
        if self._list_objects is None:
            self._list_objects = list_objects(self.page, self.body.items)
        return self._list_objects

    def task_rows(self) -> list[TaskRow]:
        """Each task's data merged over the page's, as TASK queries see them (built once)."""
        if self._task_rows is None:
            row = self.row
            self._task_rows = [TaskRow(item, row) for item in self.list_objects if item["task"]]
        return self._task_rows


def reuse_derived(old: Page, new: Page) -> None:
    """Give `new` what was derived from `old`'s text (body scan, fields, list items), for a page
    rebuilt with the same path, frontmatter and body but other metadata (links, times)."""
    previous = old.derived
    if not isinstance(previous, PageRecord) or old.path != new.path or old.body != new.body:
        return
    if old.metadata is not new.metadata and old.metadata != new.metadata:
        return
    if old.frontmatter is not new.frontmatter and old.frontmatter != new.frontmatter:
        return
    record = record_of(new)
    record._body = previous._body
    record._fields = previous._fields
    if old.body_start_line == new.body_start_line:
        record._list_objects = previous._list_objects


def record_of(page: Page) -> PageRecord:
    record = page.derived
    if record is None:
        record = PageRecord(page)
        object.__setattr__(page, "derived", record)  # a cache on a frozen page, set once
    return record  # type: ignore[return-value]
