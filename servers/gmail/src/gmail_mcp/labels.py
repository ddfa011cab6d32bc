"""Label names and ids: Gmail's API speaks ids, people speak names."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

from gmail_mcp.api.errors import ApiNotFound

CACHE_SECONDS = 300.0


class LabelDirectory:
    """A short-lived cache of the mailbox's labels (id → name), refreshed after CACHE_SECONDS."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: dict[str, str] = {}
        self._loaded_at = float("-inf")

    def fresh(self) -> bool:
        with self._lock:
            return time.monotonic() - self._loaded_at < CACHE_SECONDS

    def load(self, listed: dict[str, Any]) -> None:
        """Take a `labels.list` answer."""
        names = {str(item["id"]): str(item.get("name", item["id"])) for item in listed.get("labels", [])}
        with self._lock:
            self._names, self._loaded_at = names, time.monotonic()

    def names(self) -> dict[str, str]:
        with self._lock:
            return dict(self._names)

    def resolve(self, wanted: Iterable[str]) -> list[str]:
        """Label ids for names or ids (names case-insensitive); an unknown one → ApiNotFound('label')."""
        names = self.names()
        by_name = {name.lower(): label_id for label_id, name in names.items()}
        ids = []
        for item in wanted:
            if item in names:
                ids.append(item)
            elif item.lower() in by_name:
                ids.append(by_name[item.lower()])
            else:
                raise ApiNotFound("label", item)
        return ids
