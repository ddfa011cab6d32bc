"""Knowing which notes this server itself just wrote, so the index sees them at once.

Every write tool holds the note's lock from `PathLocks` while it changes the file; this subclass
remembers each path once its lock is released (the write is complete then). The index drains the
set before answering, so a search right after `write_note` finds the new text even between two
full rescans of the vault.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from obsidian_mcp.vault.storage import PathLocks


class TrackedLocks(PathLocks):
    """PathLocks that record every path held, for `drain()`."""

    def __init__(self) -> None:
        super().__init__()
        self._changed: set[Path] = set()
        self._changed_guard = threading.Lock()

    @contextmanager
    def hold(self, abs_path: Path) -> Iterator[None]:
        try:
            with super().hold(abs_path):
                yield
        finally:
            with self._changed_guard:
                self._changed.add(abs_path)

    def drain(self) -> set[Path]:
        """The paths held since the last drain (real paths inside the vault)."""
        with self._changed_guard:
            changed, self._changed = self._changed, set()
        return changed
