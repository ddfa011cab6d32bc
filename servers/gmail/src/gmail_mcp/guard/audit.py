"""The audit log: one JSON line per change the server makes in a mailbox (interface.md §6).

A line holds `time`, `account`, `tool`, `request_id`, `outcome` (`done`, `declined`,
`confirmation_required`, `failed`), `ids` (what was touched), `recipients` (addresses only) and
`confirmation` (`known`, `accepted`, `declined`, `unavailable`, `not_needed`). Never a body, a
subject beyond 80 characters, or a token.

The runtime opens a line for every call of a write tool (`ContractServer`, `audit=`) and closes it
with the call's result or error (a call that only asked the client for input leaves no line: its retry
will); the domain adds what only it knows (the recipients and how the send
was confirmed) through `note()`, the note of the call being served. A dry run changes nothing and
leaves no line.

The file is created 0600 in a 0700 folder; at `max_bytes` it is rotated to `<name>.1` (one
generation kept), so it never holds more than twice that.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gmail_mcp.models import MCPError

log = logging.getLogger(__name__)

MAX_BYTES = 5 * 1024 * 1024
MAX_IDS = 100
SUBJECT_CHARS = 80
DEFAULT_PATH = "~/.local/state/gmail-mcp/audit.jsonl"
# Keys of a tool's arguments and result whose values are ids of what it touches.
ID_KEYS = ("id", "draft_id", "message_id", "thread_id", "filter_id", "label_id", "message_ids", "trashed", "deleted")


@dataclass
class AuditNote:
    """What the domain adds to the audit line of the call being served."""

    recipients: list[str] = field(default_factory=list)
    confirmation: str = "not_needed"
    account_address: str | None = None
    subject: str | None = None


_NOTE: ContextVar[AuditNote | None] = ContextVar("audit_note", default=None)


def note() -> AuditNote:
    """The audit note of the write call being served (a note nobody reads outside one)."""
    return _NOTE.get() or AuditNote()


class AuditLog:
    """Appends JSON lines to one private file, rotated at `max_bytes`; thread-safe. A write that fails is
    logged (without its content) and never fails the call: the change itself has already happened."""

    def __init__(self, path: Path, max_bytes: int = MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    def append(self, line: Mapping[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with self._lock:
            try:
                self._rotate_if_full(len(data))
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
            except OSError as exc:
                log.error("the audit log could not be written", extra={"audit_error": exc.strerror or "error"})

    def _rotate_if_full(self, adding: int) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size + adding > self.max_bytes:
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))


class Auditor:
    """Writes the audit line of each write call (the `audit` hook of `ContractServer`)."""

    def __init__(self, log: AuditLog, account_of: Callable[[str | None], str | None]) -> None:
        self.log = log
        self.account_of = account_of  # the account name a call's `account` argument means, None if it means none

    @contextmanager
    def call(self, tool: str, arguments: Mapping[str, Any], request_id: str) -> Iterator[AuditCall]:
        audit_call = AuditCall()
        token = _NOTE.set(audit_call.note)
        try:
            yield audit_call
        finally:
            _NOTE.reset(token)
            if audit_call.changed_something:
                self.log.append(self._line(tool, arguments, request_id, audit_call))

    def _line(self, tool: str, arguments: Mapping[str, Any], request_id: str, done: AuditCall) -> dict[str, Any]:
        given = arguments.get("account")
        try:
            account = self.account_of(given if isinstance(given, str) else None)
        except Exception:  # an account that does not resolve is what the caller gave
            account = given if isinstance(given, str) else None
        line: dict[str, Any] = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "account": account,
            "tool": tool,
            "request_id": request_id,
            "outcome": done.outcome(),
            "ids": _ids(arguments, done.result or {}, done.error.details if done.error else {}),
            "recipients": done.note.recipients,
            "confirmation": done.note.confirmation,
        }
        if done.note.account_address:
            line["account_address"] = done.note.account_address
        if done.note.subject is not None:
            line["subject"] = done.note.subject[:SUBJECT_CHARS]
        return line


@dataclass
class AuditCall:
    """One write call: the runtime sets `result` or `error` when it ends."""

    note: AuditNote = field(default_factory=AuditNote)
    result: dict[str, Any] | None = None
    error: MCPError | None = None

    @property
    def changed_something(self) -> bool:
        """False for a dry run, and for a call that only asked the client a question (no result nor error yet)."""
        if self.error is not None:
            return True
        return self.result is not None and self.result.get("dry_run") is not True

    def outcome(self) -> str:
        if self.error is None:
            return "done"
        reason = self.error.details.get("reason")
        if self.error.error == "permission_denied" and reason in ("declined", "confirmation_required"):
            return str(reason)
        return "failed"


def _ids(*sources: Mapping[str, Any]) -> list[str]:
    found: dict[str, None] = {}
    for source in sources:
        for key in ID_KEYS:
            value = source.get(key)
            values = value if isinstance(value, list) else [value]
            for item in values:
                if isinstance(item, str) and item:
                    found.setdefault(item[:200])
        for nested in ("filter", "label"):
            inner = source.get(nested)
            if isinstance(inner, dict) and isinstance(inner.get("id"), str):
                found.setdefault(inner["id"][:200])
    return list(found)[:MAX_IDS]
