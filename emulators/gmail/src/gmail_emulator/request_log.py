"""The request log: one record per HTTP request and per batch part."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

# Query parameters that may repeat; they are always logged as lists.
REPEATED_PARAMS = frozenset({"labelIds", "metadataHeaders"})


def flatten_query(query: dict[str, list[str]]) -> dict[str, str | list[str]]:
    """Single-valued params as ``str``, repeatable ones (labelIds, metadataHeaders) as ``list``."""
    out: dict[str, str | list[str]] = {}
    for key, values in query.items():
        name = key[:-2] if key.endswith("[]") else key
        if name in REPEATED_PARAMS:
            existing = out.get(name)
            merged = list(existing) if isinstance(existing, list) else []
            out[name] = merged + list(values)
        elif values:
            out[name] = values[-1]
    return out


@dataclass
class RequestRecord:
    """What the emulator saw and answered.

    ``status`` is 0 when the connection was dropped without an answer. ``in_batch`` marks
    a part of a batch request (the enclosing request is logged separately with route ``batch``).
    ``fault`` describes the injected fault that fired for this request, if any.
    ``mailbox`` names the mailbox the request's bearer token is bound to (None for requests
    without a known token: the token endpoint, unknown tokens), so a test can prove that an
    action made with account B's token never touched mailbox A.
    """

    method: str
    path: str
    route: str
    query: dict[str, str | list[str]]
    status: int
    timestamp: float
    body_bytes: int
    in_batch: bool = False
    fault: str | None = None
    mailbox: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class RequestLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[RequestRecord] = []

    def append(self, record: RequestRecord) -> None:
        with self._lock:
            self._records.append(record)

    def snapshot(self) -> list[RequestRecord]:
        with self._lock:
            return list(self._records)

    def clear(self) -> None:
        with self._lock:
            self._records.clear()

    def for_mailbox(self, mailbox: str) -> list[RequestRecord]:
        with self._lock:
            return [r for r in self._records if r.mailbox == mailbox]

    def counts(self, *, include_batch_parts: bool = False) -> dict[str, int]:
        with self._lock:
            return dict(Counter(r.route for r in self._records if include_batch_parts or not r.in_batch))
