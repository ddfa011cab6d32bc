"""Row mappings: a page's data, a task's data over its page's, and overlays (FLATTEN, lambdas)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from obsidian_mcp.dataview.values import Value

MISSING: Any = object()  # what a lookup answers for a key a row does not hold: no value is this


class PageRow(dict[str, Value]):
    """A page's data (`file` plus its fields); knows the page's path."""

    __slots__ = ("path",)

    def __init__(self, path: str, data: dict[str, Value]) -> None:
        super().__init__(data)
        self.path = path


class Overlay(Mapping[str, Value]):
    """`top`'s keys over `base`'s (a task over its page, FLATTEN's new name over the row)."""

    __slots__ = ("base", "top")

    def __init__(self, top: Mapping[str, Value], base: Mapping[str, Value]) -> None:
        self.top = top
        self.base = base

    def __getitem__(self, key: str) -> Value:
        top = self.top
        if key in top:
            return top[key]
        return self.base[key]

    def __contains__(self, key: object) -> bool:
        return key in self.top or key in self.base

    def get(self, key: str, default: Value = None) -> Value:  # type: ignore[override]
        top = self.top
        if key in top:
            return top[key]
        return self.base.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self.top, *self.base]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*self.top, *self.base]))


class TaskRow(dict[str, Value]):
    """A task's data merged over its page's data (task keys win), as Dataview's TASK queries see it."""

    __slots__ = ("path", "task")

    def __init__(self, task: dict[str, Value], page: PageRow) -> None:
        super().__init__(page)
        self.update(task)
        self.task = task
        self.path = page.path
