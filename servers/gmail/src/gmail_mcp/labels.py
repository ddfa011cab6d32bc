"""Labels: Gmail's API speaks ids, people speak names. One short-lived cache maps them, for every tool."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

from gmail_mcp import warnings
from gmail_mcp.api.errors import ApiNotFound
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.results import Label, ListLabelsResult

CACHE_SECONDS = 300.0


class LabelDirectory:
    """The mailbox's labels (id → name), fetched when the cache is older than CACHE_SECONDS."""

    def __init__(self, mailbox: MailboxApi) -> None:
        self.mailbox = mailbox
        self._lock = threading.Lock()
        self._names: dict[str, str] = {}
        self._loaded_at = float("-inf")

    def fresh(self) -> bool:
        with self._lock:
            return time.monotonic() - self._loaded_at < CACHE_SECONDS

    def load(self, listed: dict[str, Any]) -> None:
        """Take a `labels.list` answer (fetched here, or riding along in someone else's batch)."""
        names = {str(item["id"]): str(item.get("name", item["id"])) for item in listed.get("labels", [])}
        with self._lock:
            self._names, self._loaded_at = names, time.monotonic()

    def reload(self) -> dict[str, Any]:
        """Fetch the label list now, refresh the cache with it, and return it."""
        listed = self.mailbox.list_labels()
        self.load(listed)
        return listed

    def names(self) -> dict[str, str]:
        """id → name, from the cache (fetched first when it is stale)."""
        if not self.fresh():
            self.reload()
        with self._lock:
            return dict(self._names)

    def cached_names(self) -> dict[str, str]:
        """id → name as cached, however old (empty before the first load): never a request."""
        with self._lock:
            return dict(self._names)

    def resolve(self, wanted: Iterable[str]) -> list[str]:
        """Label ids for names (any case) or ids; a miss reloads the list once (it may be newer than the cache).

        An unknown label → ApiNotFound('label').
        """
        wanted = list(wanted)
        if not wanted:
            return []
        try:
            return _resolve(self.names(), wanted)
        except ApiNotFound:
            self.reload()
            return _resolve(self.cached_names(), wanted)

    def list_with_counts(self) -> ListLabelsResult:
        """Every label with its counts (labels.list, then one batch of labels.get); also refreshes the cache.

        Labels whose counts could not be fetched are shown without them, named in a PARTIAL_RESULTS warning.
        """
        listed = self.reload().get("labels", [])
        counts = self.mailbox.get_labels([str(item["id"]) for item in listed])
        labels = []
        for item in listed:
            got = counts.succeeded.get(str(item["id"]), {})
            labels.append(
                Label(
                    id=item["id"],
                    name=item.get("name", item["id"]),
                    type=item.get("type", "user"),
                    messages_unread=got.get("messagesUnread"),
                    messages_total=got.get("messagesTotal"),
                )
            )
        labels.sort(key=lambda label: (label.type != "system", label.name.lower()))
        missing = list(counts.failed)
        if not missing:
            return ListLabelsResult(labels=labels)
        notice = f"counts unavailable for {len(missing)} labels; they are shown without counts"
        return ListLabelsResult(labels=labels, warnings=[warnings.partial_results(notice, label_ids=missing)])


def _resolve(names: dict[str, str], wanted: list[str]) -> list[str]:
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
