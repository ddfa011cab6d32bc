"""Organising messages: labels and trash, for given ids or for every message a query matches. Nothing here,
or anywhere in the server, deletes a message for good."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from gmail_mcp import warnings
from gmail_mcp.api.errors import ApiNotFound, ApiRejected, GmailFailure
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.api.views import Batch, Message
from gmail_mcp.guard.gate import NOBODY, Gate, Person
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.mail.parse import summarize
from gmail_mcp.models import ToolWarning
from gmail_mcp.results import Modified, SampleMessage, Trashed

MAX_IDS = 1000  # messages.batchModify takes at most 1000 ids
PAGE = 500  # messages.list gives at most 500 ids a page
MAX_QUERY_MESSAGES = 5000  # the most one call changes by query
DEFAULT_QUERY_MESSAGES = 500
SAMPLE = 10  # messages shown of those a query matched
SAMPLE_HEADERS = ("From", "Subject", "Date")
# Labels no request may add or remove, and those of which a request may add only one (Gmail's rules).
FIXED_LABELS = frozenset({"SENT", "DRAFT"})
EXCLUSIVE_LABELS = frozenset({"INBOX", "SPAM", "TRASH"})
# Trashing by query is one label change: Gmail's reference lets messages.batchModify add TRASH, and removing
# INBOX too is what messages.trash does to an inbox message (specs/spec.md, "Bulk by query").
TRASH_ADD, TRASH_REMOVE = ["TRASH"], ["INBOX"]


@dataclass(frozen=True, kw_only=True)
class _Change:
    """A label change by query: the label ids to add and remove, what a 400 blames, and the change of one
    message at a time (for a chunk that batchModify refuses)."""

    add: list[str]
    remove: list[str]
    blame: dict[str, str]
    each: Callable[[list[str]], Batch[Message]]


def _blame(selected_by: str, add: Sequence[str] = (), remove: Sequence[str] = ()) -> dict[str, str]:
    """What a Gmail 400 blames (request parameter → tool argument): the labels the caller gave first, then
    the argument the messages were selected by (`message_ids` or `query`)."""
    given = {"addLabelIds": "add_labels"} if add else {}
    given |= {"removeLabelIds": "remove_labels"} if remove else {}
    return given | {"ids": selected_by, "id": selected_by}


@dataclass(frozen=True, kw_only=True)
class Selection:
    """The messages a call is about: given ids, or what a query matches (with its dry run and limit)."""

    message_ids: list[str] | None
    query: str | None
    dry_run: bool
    max_messages: int


def select(
    message_ids: list[str] | None, query: str | None, dry_run: bool | None, max_messages: int = DEFAULT_QUERY_MESSAGES
) -> Selection:
    """Exactly one of `message_ids` and `query`. With a query, a dry run unless `dry_run` is false; with
    ids the change is made at once, so asking for a dry run there is refused rather than ignored."""
    if message_ids is not None and query is not None:
        raise InvalidField("query", "conflict", "give message_ids or query, not both")
    if query is not None:
        if not query.strip():
            raise InvalidField("query", "missing", "query: give a Gmail search, e.g. 'from:news@example.com'")
        if not 1 <= max_messages <= MAX_QUERY_MESSAGES:
            raise InvalidField("max_messages", "out_of_range", f"max_messages: 1 to {MAX_QUERY_MESSAGES}")
        return Selection(message_ids=None, query=query.strip(), dry_run=dry_run is not False, max_messages=max_messages)
    if message_ids is None:
        raise InvalidField("message_ids", "missing", "give message_ids, or a query to change what it matches")
    if dry_run:
        raise InvalidField("dry_run", "query_only", "dry_run works with query; message_ids are changed at once")
    return Selection(message_ids=_unique(message_ids), query=None, dry_run=False, max_messages=max_messages)


@dataclass(frozen=True)
class _Matched:
    ids: list[str]
    truncated: bool
    sample: list[SampleMessage]
    warnings: list[ToolWarning]


@dataclass
class _Run:
    """How far a change by query got: messages changed, those that failed on their own, and the stop."""

    done: int = 0
    failed: dict[str, GmailFailure] | None = None
    stopped: GmailFailure | None = None
    never_tried: int = 0

    def not_done(self) -> int:
        return len(self.failed or {}) + self.never_tried


class Organizer:
    def __init__(self, mailbox: MailboxApi, labels: LabelDirectory, gate: Gate) -> None:
        self.mailbox = mailbox
        self.labels = labels
        self.gate = gate

    def modify_labels(
        self, selection: Selection, add: list[str], remove: list[str], person: Person = NOBODY
    ) -> Modified:
        """Add and remove labels on the selected messages (`modify` for ids, `modify_matching` for a query;
        a query's change of more than the gate's limit is asked of the person first)."""
        if selection.query is None:
            return self.modify(selection.message_ids or [], add, remove)
        return self.modify_matching(selection.query, add, remove, selection.dry_run, selection.max_messages, person)

    def trash_messages(self, selection: Selection, person: Person = NOBODY) -> Trashed:
        """Move the selected messages to Trash (`trash` for ids, `trash_matching` for a query, asked as above)."""
        if selection.query is None:
            return self.trash(selection.message_ids or [])
        return self.trash_matching(selection.query, selection.dry_run, selection.max_messages, person)

    # -- given ids -------------------------------------------------------------------------------
    def modify(self, message_ids: list[str], add: list[str], remove: list[str]) -> Modified:
        """Add and remove labels (names or ids). Unknown labels fail before any change.

        One messages.batchModify when it succeeds. It is all-or-nothing, so when it is refused
        (400/404: some id is bad) every message is modified on its own, in one batch request, to
        learn which ones fail: those are named in a PARTIAL_RESULTS warning.
        """
        ids = _unique(message_ids)
        add_ids, remove_ids = self._change(add, remove)
        try:
            self.mailbox.batch_modify(ids, add_ids, remove_ids, _blame("message_ids", add_ids, remove_ids))
        except (ApiNotFound, ApiRejected):
            outcome = self.mailbox.modify_each(ids, add_ids, remove_ids, _blame("message_ids", add_ids, remove_ids))
            return Modified(modified=_settled(ids, outcome), warnings=_partial(outcome, "changed"))
        return Modified(modified=ids)

    def trash(self, message_ids: list[str]) -> Trashed:
        """Move messages to Trash (messages.trash per id, in one batch request); failures are warnings."""
        ids = _unique(message_ids)
        outcome = self.mailbox.trash_each(ids, _blame("message_ids"))
        return Trashed(trashed=_settled(ids, outcome), warnings=_partial(outcome, "trashed"))

    # -- what a query matches ------------------------------------------------------------------------
    def modify_matching(
        self, query: str, add: list[str], remove: list[str], dry_run: bool, max_messages: int, person: Person = NOBODY
    ) -> Modified:
        """Change the labels of up to `max_messages` messages matching `query`; a dry run changes nothing.

        Requests: messages.list pages (500 ids each), one batch of metadata gets for the sample, then one
        messages.batchModify per 1000 ids. See `_apply` for what a failure halfway answers.
        """
        add_ids, remove_ids = self._change(add, remove)
        matched = self._matching(query, max_messages)
        run = None
        if not dry_run:
            change = "; ".join(
                f"{verb} {', '.join(names)}" for verb, names in (("add", add), ("remove", remove)) if names
            )
            question = _bulk_question(f"Change the labels ({change}) of", query, matched)
            self.gate.clear_bulk(person, len(matched.ids), question)
            blame = _blame("query", add_ids, remove_ids)
            each = functools.partial(self.mailbox.modify_each, add=add_ids, remove=remove_ids, arguments=blame)
            run = self._apply(matched.ids, _Change(add=add_ids, remove=remove_ids, blame=blame, each=each))
        return Modified(
            modified=run.done if run else 0,
            matched=len(matched.ids),
            dry_run=dry_run,
            truncated=matched.truncated,
            sample=matched.sample,
            warnings=_notes(matched, run, "changed"),
        )

    def trash_matching(self, query: str, dry_run: bool, max_messages: int, person: Person = NOBODY) -> Trashed:
        """Move up to `max_messages` messages matching `query` to Trash (add TRASH, remove INBOX, by batchModify)."""
        matched = self._matching(query, max_messages)
        run = None
        if not dry_run:
            self.gate.clear_bulk(person, len(matched.ids), _bulk_question("Move to Trash", query, matched))
            blame = _blame("query")
            each = functools.partial(self.mailbox.trash_each, arguments=blame)
            run = self._apply(matched.ids, _Change(add=TRASH_ADD, remove=TRASH_REMOVE, blame=blame, each=each))
        return Trashed(
            trashed=run.done if run else 0,
            matched=len(matched.ids),
            dry_run=dry_run,
            truncated=matched.truncated,
            sample=matched.sample,
            warnings=_notes(matched, run, "trashed"),
        )

    def _matching(self, query: str, max_messages: int) -> _Matched:
        """Up to `max_messages` ids matching `query` (newest first) and a sample of the first ten."""
        ids: dict[str, None] = {}
        page_token: str | None = None
        while True:
            page = self.mailbox.list_messages(query, min(PAGE, max_messages - len(ids)), page_token, False)
            for message_id in page.ids:
                ids.setdefault(message_id)
            page_token = page.next_page_token or None
            if page_token is None or len(ids) >= max_messages:
                break
        found = list(ids)
        truncated = len(found) > max_messages or page_token is not None
        found = found[:max_messages]
        sample, failed = self._sample(found[:SAMPLE])
        notices = []
        if failed:
            notice = f"{len(failed)} sample messages could not be fetched and are left out of the sample"
            notices.append(warnings.partial_results(notice, message_ids=failed))
        return _Matched(ids=found, truncated=truncated, sample=sample, warnings=notices)

    def _sample(self, ids: list[str]) -> tuple[list[SampleMessage], list[str]]:
        if not ids:
            return [], []
        fetched = self.mailbox.get_messages_metadata(ids, SAMPLE_HEADERS, with_label_list=False).messages
        sample = []
        for message_id in ids:
            resource = fetched.succeeded.get(message_id)
            if resource is not None:
                summary = summarize(resource, {})
                sample.append(
                    SampleMessage(id=message_id, from_=summary.from_, subject=summary.subject, date=summary.date)
                )
        return sample, list(fetched.failed)

    def _apply(self, ids: list[str], change: _Change) -> _Run:
        """messages.batchModify per 1000 ids. A chunk Gmail refuses (400/404: a message went away since it was
        listed) is changed message by message (`change.each`), its failures kept. Any other failure stops the run:
        before any change it is the answer; after one, the run says what was done and what was not. When no
        message at all could be changed, the (first) failure is the answer: never a success for nothing."""
        run = _Run(failed={})
        for start in range(0, len(ids), MAX_IDS):
            chunk = ids[start : start + MAX_IDS]
            try:
                outcome = self._change_chunk(chunk, change)
            except GmailFailure as failure:
                if run.done == 0 and not run.failed:
                    raise
                run.stopped, run.never_tried = failure, len(ids) - start
                break
            run.done += len(outcome.succeeded)
            assert run.failed is not None
            run.failed.update(outcome.failed)
        if run.done == 0 and run.not_done():
            raise run.stopped or next(iter((run.failed or {}).values()))
        return run

    def _change_chunk(self, chunk: list[str], change: _Change) -> Batch[Message]:
        try:
            self.mailbox.batch_modify(chunk, change.add, change.remove, change.blame)
        except (ApiNotFound, ApiRejected):
            return change.each(chunk)
        return Batch(succeeded={i: Message(id=i) for i in chunk}, failed={})

    def _change(self, add: list[str], remove: list[str]) -> tuple[list[str], list[str]]:
        """Label ids to add and remove, checked against Gmail's rules before anything is asked of it."""
        add_ids, remove_ids = self.labels.resolve(add), self.labels.resolve(remove)
        if not add_ids and not remove_ids:
            raise InvalidField("add_labels", "missing", "give at least one label in add_labels or remove_labels")
        both = sorted(set(add_ids) & set(remove_ids))
        if both:
            raise InvalidField("remove_labels", "conflict", f"labels both added and removed: {', '.join(both)}")
        for field, ids in (("add_labels", add_ids), ("remove_labels", remove_ids)):
            fixed = sorted(FIXED_LABELS & set(ids))
            if fixed:
                raise InvalidField(field, "fixed_label", f"{field}: {', '.join(fixed)} cannot be added or removed")
        if len(EXCLUSIVE_LABELS & set(add_ids)) > 1:
            raise InvalidField("add_labels", "conflict", "add_labels: add at most one of INBOX, SPAM and TRASH")
        return add_ids, remove_ids


def _bulk_question(action: str, query: str, matched: _Matched) -> str:
    """The question for a change by query: the count, the query and a sample of what it matched."""
    lines = [f"{action} {len(matched.ids)} messages matching the search {query!r}?", "", "For example:"]
    lines += [f"- {m.from_ or '(no sender)'}: {m.subject or '(no subject)'}" for m in matched.sample]
    return "\n".join(lines)


def _notes(matched: _Matched, run: _Run | None, action: str) -> list[ToolWarning]:
    """The warnings of an answer by query: sample messages left out, and what a run did not change."""
    notes = list(matched.warnings)
    if run is not None and run.not_done():
        notes.append(warnings.bulk_incomplete(action, run.done, run.not_done(), run.failed or {}, run.stopped))
    return notes


def _unique(ids: Iterable[str]) -> list[str]:
    unique = list(dict.fromkeys(ids))
    if not unique:
        raise InvalidField("message_ids", "missing", "message_ids: give at least one message id")
    if len(unique) > MAX_IDS:
        raise InvalidField("message_ids", "too_many", f"message_ids: at most {MAX_IDS} per call")
    return unique


def _settled(ids: Sequence[str], outcome: Batch[Message]) -> list[str]:
    """The ids the batch did; when it did none, their (common) failure is the answer."""
    if outcome.succeeded:
        return [message_id for message_id in ids if message_id in outcome.succeeded]
    failures = list(outcome.failed.values())
    if all(isinstance(f, ApiNotFound) for f in failures):
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        raise ApiNotFound("message", shown)
    raise failures[0]


def _partial(outcome: Batch[Message], action: str) -> list[ToolWarning]:
    if not outcome.failed:
        return []
    notice = f"{len(outcome.failed)} messages could not be {action}; the others were"
    return [warnings.partial_results(notice, failed=outcome.failed)]
