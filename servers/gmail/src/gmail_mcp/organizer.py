"""Organising messages: labels and trash. Nothing here, or anywhere in the server, deletes a message for good."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from gmail_mcp.api.client import GmailClient
from gmail_mcp.api.errors import (
    ApiNotFound,
    ApiRejected,
    ApiUnavailable,
    AuthRequired,
    GmailFailure,
)
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.reader import MailReader

MAX_IDS = 1000  # messages.batchModify takes at most 1000 ids

Failures = dict[str, GmailFailure]


def _modify(users: Any, message_id: str, add: list[str], remove: list[str]) -> Any:
    return users.messages().modify(userId="me", id=message_id, body={"addLabelIds": add, "removeLabelIds": remove})


def _trash(users: Any, message_id: str) -> Any:
    return users.messages().trash(userId="me", id=message_id)


def _unique(ids: Iterable[str]) -> list[str]:
    unique = list(dict.fromkeys(ids))
    if not unique:
        raise InvalidField("message_ids", "missing", "message_ids: give at least one message id")
    if len(unique) > MAX_IDS:
        raise InvalidField("message_ids", "too_many", f"message_ids: at most {MAX_IDS} per call")
    return unique


class Organizer:
    def __init__(self, client: GmailClient, reader: MailReader) -> None:
        self.client = client
        self.reader = reader

    def label_ids(self, wanted: list[str]) -> list[str]:
        """Ids for label names or ids; a miss reloads the label list once (it may be newer than the cache)."""
        if not wanted:
            return []
        self.reader.label_names()
        try:
            return self.reader.labels.resolve(wanted)
        except ApiNotFound:
            self.reader.reload_labels()
            return self.reader.labels.resolve(wanted)

    def modify(self, message_ids: list[str], add: list[str], remove: list[str]) -> tuple[list[str], Failures]:
        """Add and remove labels; (modified ids, failed id → failure). Unknown labels fail before any change.

        One messages.batchModify when it succeeds. It is all-or-nothing, so when it is refused
        (400/404: some id is bad) every message is modified on its own, in one batch request, to
        learn which ones fail.
        """
        ids = _unique(message_ids)
        add_ids, remove_ids = self.label_ids(add), self.label_ids(remove)
        if not add_ids and not remove_ids:
            raise InvalidField("add_labels", "missing", "give at least one label in add_labels or remove_labels")
        both = sorted(set(add_ids) & set(remove_ids))
        if both:
            raise InvalidField("remove_labels", "conflict", f"labels both added and removed: {', '.join(both)}")
        body = {"ids": ids, "addLabelIds": add_ids, "removeLabelIds": remove_ids}
        try:
            self.client.write(lambda users: users.messages().batchModify(userId="me", body=body), "message")
        except (ApiNotFound, ApiRejected):
            change = functools.partial(_modify, add=add_ids, remove=remove_ids)
            return self._each(ids, lambda message_id: functools.partial(change, message_id=message_id))
        return ids, {}

    def trash(self, message_ids: list[str]) -> tuple[list[str], Failures]:
        """Move messages to Trash (messages.trash per id, in one batch request); (trashed ids, failures)."""
        ids = _unique(message_ids)
        return self._each(ids, lambda message_id: functools.partial(_trash, message_id=message_id))

    def _each(self, ids: list[str], request: Callable[[str], Callable[[Any], Any]]) -> tuple[list[str], Failures]:
        """Run one request per id in a batch. Nothing done at all → the (common) failure is raised."""
        results = self.client.batch([(message_id, request(message_id)) for message_id in ids], "message")
        done, failed = [], {}
        for message_id in ids:
            outcome = results.get(message_id)
            if isinstance(outcome, AuthRequired):
                raise outcome
            if isinstance(outcome, GmailFailure):
                failed[message_id] = outcome
            elif outcome is None:
                failed[message_id] = ApiUnavailable("Gmail gave no answer for this message")
            else:
                done.append(message_id)
        if not done:
            failures = list(failed.values())
            if all(isinstance(f, ApiNotFound) for f in failures):
                shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
                raise ApiNotFound("message", shown)
            raise failures[0]
        return done, failed
