"""How long-running index work reports how far it got (a first build of a large vault).

Index operations take an optional `ProgressFn`; the tool layer supplies one that turns each call
into an MCP progress notification (`tools.worker`). A `ProgressFn` is always called on the thread
of the call it reports for (that is where `tools.worker` can reach the event loop from), never on
the build's own thread: a call waiting for the background build replays the build's `IndexProgress`
points itself (`ProgressPoints`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from obsidian_mcp import warnings
from obsidian_mcp.models import ToolWarning

ProgressFn = Callable[[int, int], None]
"""Called with (notes done, notes to do) while many notes are (re)indexed."""


@dataclass(frozen=True)
class IndexProgress:
    """How far the background build of the keyword index got: `done` of the `total` notes it found
    to (re)index are in the index; `listing` while it still lists the vault (both 0 then)."""

    done: int
    total: int
    listing: bool = False


def partial_answer(building: IndexProgress | None) -> list[ToolWarning]:
    """The `INDEX_BUILDING` warning of an answer that could search only part of the notes while the
    keyword index is built (`building`: how far; None for a complete answer, which warrants none)."""
    return [] if building is None else [warnings.index_building(building.done, building.total)]


class ProgressPoints:
    """The points a build reached, in order (one per batch written), so that every call waiting for
    it can report each of them once, on its own thread, whenever it wakes up."""

    def __init__(self) -> None:
        self._points: list[IndexProgress] = []

    def add(self, point: IndexProgress) -> None:
        self._points.append(point)

    def since(self, seen: int) -> list[IndexProgress]:
        """The points after the first `seen` ones."""
        return self._points[seen:]

    def __len__(self) -> int:
        return len(self._points)
