"""Organising messages: labels and trash. Nothing here, or anywhere in the server, deletes a message for good."""

from __future__ import annotations

from collections.abc import Iterable

from gmail_mcp import warnings
from gmail_mcp.api.client import BatchOutcome
from gmail_mcp.api.errors import ApiNotFound, ApiRejected
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.models import ToolWarning
from gmail_mcp.results import Modified, Trashed

MAX_IDS = 1000  # messages.batchModify takes at most 1000 ids


class Organizer:
    def __init__(self, mailbox: MailboxApi, labels: LabelDirectory) -> None:
        self.mailbox = mailbox
        self.labels = labels

    def modify(self, message_ids: list[str], add: list[str], remove: list[str]) -> Modified:
        """Add and remove labels (names or ids). Unknown labels fail before any change.

        One messages.batchModify when it succeeds. It is all-or-nothing, so when it is refused
        (400/404: some id is bad) every message is modified on its own, in one batch request, to
        learn which ones fail: those are named in a PARTIAL_RESULTS warning.
        """
        ids = _unique(message_ids)
        add_ids, remove_ids = self.labels.resolve(add), self.labels.resolve(remove)
        if not add_ids and not remove_ids:
            raise InvalidField("add_labels", "missing", "give at least one label in add_labels or remove_labels")
        both = sorted(set(add_ids) & set(remove_ids))
        if both:
            raise InvalidField("remove_labels", "conflict", f"labels both added and removed: {', '.join(both)}")
        try:
            self.mailbox.batch_modify(ids, add_ids, remove_ids)
        except (ApiNotFound, ApiRejected):
            outcome = self.mailbox.modify_each(ids, add_ids, remove_ids)
            return Modified(modified=_settled(ids, outcome), warnings=_partial(outcome, "changed"))
        return Modified(modified=ids)

    def trash(self, message_ids: list[str]) -> Trashed:
        """Move messages to Trash (messages.trash per id, in one batch request); failures are warnings."""
        ids = _unique(message_ids)
        outcome = self.mailbox.trash_each(ids)
        return Trashed(trashed=_settled(ids, outcome), warnings=_partial(outcome, "trashed"))


def _unique(ids: Iterable[str]) -> list[str]:
    unique = list(dict.fromkeys(ids))
    if not unique:
        raise InvalidField("message_ids", "missing", "message_ids: give at least one message id")
    if len(unique) > MAX_IDS:
        raise InvalidField("message_ids", "too_many", f"message_ids: at most {MAX_IDS} per call")
    return unique


def _settled(ids: list[str], outcome: BatchOutcome) -> list[str]:
    """The ids the batch did; when it did none, their (common) failure is the answer."""
    if outcome.succeeded:
        return [message_id for message_id in ids if message_id in outcome.succeeded]
    failures = list(outcome.failed.values())
    if all(isinstance(f, ApiNotFound) for f in failures):
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        raise ApiNotFound("message", shown)
    raise failures[0]


def _partial(outcome: BatchOutcome, action: str) -> list[ToolWarning]:
    if not outcome.failed:
        return []
    notice = f"{len(outcome.failed)} messages could not be {action}; the others were"
    return [warnings.partial_results(notice, failed=outcome.failed)]
