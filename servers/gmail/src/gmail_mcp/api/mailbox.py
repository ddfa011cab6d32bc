"""Every Gmail request the server makes, as a named method. The domain calls these and never sees googleapiclient.

Answers are typed views (`api.views`) parsed once from Gmail's JSON (`mail.parse` reads a message's).
Reads and writes that
are idempotent in effect go through `GmailClient.execute` (retried) or `GmailClient.batch` (one
`BatchOutcome`); the three requests that must take effect at most once (`*_once`) go through
`GmailClient.execute_once` and raise whatever the library raised, for `classify.judge`. Nothing
here deletes a message for good: the only delete is a draft's, on request.
"""

from __future__ import annotations

import base64
import functools
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gmail_mcp.api.client import BatchOutcome, Build, GmailClient
from gmail_mcp.api.errors import ApiConflict, ApiNotFound, ApiRejected, ApiUnavailable
from gmail_mcp.api.views import (
    Batch,
    Draft,
    DraftPage,
    Filter,
    FilterAction,
    FilterCriteria,
    Label,
    LabelChange,
    MessagePage,
    Profile,
    SendAs,
    Thread,
    message,
)
from gmail_mcp.mail.headers import message_ids
from gmail_mcp.mail.message import Message

ME = "me"  # the authorised account
# Up to this many bytes of MIME go as JSON `raw` (base64url: 4/3 of it, under Gmail's limit for a
# metadata request); larger messages go as a media upload (uploadType=media, or multipart with a thread id).
RAW_LIMIT_BYTES = 3 * 1024 * 1024
_LABEL_LIST = "labels.list"
# What a 400 blames (request parameter → tool argument, first suspect first) where it is always the same.
LABEL = {"id": "label"}
MESSAGE = {"id": "message_id"}
THREAD = {"id": "thread_id"}
DRAFT = {"id": "draft_id"}
DRAFT_UPDATE = {"id": "draft_id", "threadId": "reply_to_message_id", "raw": "body"}
FILTER = {"criteria": "criteria", "action": "action_labels"}
# The one-shot requests, for `classify.judge`: a message is refused for its recipients first.
SEND = {"raw": "to", "threadId": "reply_to_message_id"}
SEND_DRAFT = {"id": "draft_id"}  # the batch key of the label list riding along with message gets (never a message id)


@dataclass(frozen=True)
class MessagesMetadata:
    """Metadata of several messages from one batch request, and the label list when it was asked to ride along."""

    messages: Batch[Message]
    labels: tuple[Label, ...] | None  # None when not asked for, or when that part failed


class MailboxApi:
    def __init__(self, client: GmailClient) -> None:
        self.client = client

    def _delete(self, build: Build, resource: str, resource_id: str, arguments: Mapping[str, str]) -> None:
        """A delete, retried like any idempotent write: a 404 on a retry is done (an earlier attempt
        whose answer was lost deleted it)."""
        request = _Counted(build)
        try:
            self.client.execute(request, resource, resource_id, arguments)
        except ApiNotFound:
            if not request.retried:
                raise

    # -- messages ------------------------------------------------------------------------------
    def list_messages(
        self, query: str, max_results: int, page_token: str | None, include_spam_trash: bool
    ) -> MessagePage:
        """One page of message ids matching a Gmail query; a 400 blames `query` or `page_token`."""
        answer = self.client.execute(
            lambda users: users.messages().list(
                userId=ME,
                q=query,
                maxResults=max_results,
                pageToken=page_token or None,
                includeSpamTrash=include_spam_trash,
            ),
            "message",
            arguments={"q": "query", "pageToken": "page_token"},
        )
        return MessagePage.parse(answer)

    def get_message(self, message_id: str) -> Message:
        """The whole message (format=full): headers, MIME tree, inline body data, attachment ids."""
        answer = self.client.execute(
            functools.partial(_get_full, message_id=message_id), "message", message_id, MESSAGE
        )
        return message(answer)

    def get_message_headers(self, message_id: str, headers: Sequence[str], argument: str) -> Message:
        """Only the named headers of a message (format=metadata): a big message is not downloaded. A 400
        blames `argument`, the tool argument the id came from."""
        answer = self.client.execute(
            functools.partial(_get_metadata, message_id=message_id, headers=headers),
            "message",
            message_id,
            {"id": argument},
        )
        return message(answer)

    def get_messages_metadata(
        self, ids: Sequence[str], headers: Sequence[str], *, with_label_list: bool
    ) -> MessagesMetadata:
        """The named headers of each message in one batch request; the label list can ride in the same batch."""
        requests: list[tuple[str, Build]] = [
            (i, functools.partial(_get_metadata, message_id=i, headers=headers)) for i in ids
        ]
        if with_label_list:
            requests.append((_LABEL_LIST, _list_labels))
        outcome = self.client.batch(requests, "message")
        messages = Batch(
            succeeded={k: message(v) for k, v in outcome.succeeded.items() if k != _LABEL_LIST},
            failed={k: v for k, v in outcome.failed.items() if k != _LABEL_LIST},
        )
        listed = outcome.succeeded.get(_LABEL_LIST)
        return MessagesMetadata(messages=messages, labels=Label.listed(listed) if listed is not None else None)

    def get_thread(self, thread_id: str) -> Thread:
        """Every message of a thread (format=full), oldest first."""
        answer = self.client.execute(
            lambda users: users.threads().get(userId=ME, id=thread_id, format="full"), "thread", thread_id, THREAD
        )
        return Thread.parse(answer)

    def get_attachment(self, message_id: str, attachment_id: str) -> str | None:
        """An attachment's bytes as Gmail sends them, base64url (None when the answer carries none)."""
        answer = self.client.execute(
            lambda users: users.messages().attachments().get(userId=ME, messageId=message_id, id=attachment_id),
            "attachment",
            attachment_id,
            {"id": "attachment_id", "messageId": "message_id"},
        )
        data = answer.get("data")
        return data if isinstance(data, str) else None

    def batch_modify(
        self, ids: Sequence[str], add: Sequence[str], remove: Sequence[str], arguments: Mapping[str, str]
    ) -> None:
        """messages.batchModify: all or nothing (at most 1000 ids); a bad id makes Gmail refuse the whole call.
        `arguments` maps `ids`, `addLabelIds` and `removeLabelIds` to the tool arguments a 400 blames."""
        body = {"ids": list(ids), "addLabelIds": list(add), "removeLabelIds": list(remove)}
        self.client.execute(
            lambda users: users.messages().batchModify(userId=ME, body=body), "message", arguments=arguments
        )

    def modify_each(
        self, ids: Sequence[str], add: Sequence[str], remove: Sequence[str], arguments: Mapping[str, str]
    ) -> Batch[Message]:
        """messages.modify for each id, in one batch request: each message succeeds or fails on its own."""
        change = {"addLabelIds": list(add), "removeLabelIds": list(remove)}
        requests = [(i, functools.partial(_modify, message_id=i, body=change)) for i in ids]
        return _messages(self.client.batch(requests, "message", arguments))

    def trash_each(self, ids: Sequence[str], arguments: Mapping[str, str]) -> Batch[Message]:
        """messages.trash for each id, in one batch request (Gmail has no batch trash)."""
        requests = [(i, functools.partial(_trash, message_id=i)) for i in ids]
        return _messages(self.client.batch(requests, "message", arguments))

    # -- labels --------------------------------------------------------------------------------
    def list_labels(self) -> tuple[Label, ...]:
        """Every label's id, name and type (no counts)."""
        return Label.listed(self.client.execute(_list_labels, "label"))

    def get_labels(self, ids: Sequence[str]) -> Batch[Label]:
        """Each label with its message counts, in one batch request."""
        outcome = self.client.batch([(i, functools.partial(_get_label, label_id=i)) for i in ids], "label", LABEL)
        return Batch(
            succeeded={key: _label(answer, key) for key, answer in outcome.succeeded.items()}, failed=outcome.failed
        )

    def create_label(self, change: LabelChange, arguments: Mapping[str, str]) -> Label:
        """labels.create; a 409 (the name is taken) is `ApiConflict`.

        Retried like an idempotent request: a 409 on a retry means an earlier attempt whose answer
        was lost did create it, so the label of that name is looked up and answered.
        """
        body, name = change.body(), change.name or ""
        request = _Counted(lambda users: users.labels().create(userId=ME, body=body))
        try:
            created = Label.parse(self.client.execute(request, "label", name, arguments))
        except ApiConflict:
            found = _named(self.list_labels(), name) if request.retried else None
            if found is None:
                raise
            return found
        if created is None:
            raise ApiUnavailable("Gmail answered with a malformed body")
        return created

    def patch_label(self, label_id: str, change: LabelChange, arguments: Mapping[str, str]) -> Label:
        """labels.patch: change only the fields given (a rename, a colour); 409 if the new name is taken."""
        body = change.body()
        answer = self.client.execute(
            lambda users: users.labels().patch(userId=ME, id=label_id, body=body), "label", label_id, arguments
        )
        return _label(answer, label_id)

    def delete_label(self, label_id: str) -> None:
        """labels.delete: the label goes, and off every message; no message is deleted. A 404 on a retry is done."""
        self._delete(lambda users: users.labels().delete(userId=ME, id=label_id), "label", label_id, LABEL)

    # -- the account and its settings ----------------------------------------------------------
    def get_profile(self) -> Profile:
        """users.getProfile: the account's address."""
        return Profile.parse(self.client.execute(lambda users: users.getProfile(userId=ME), "account"))

    def list_filters(self) -> list[Filter]:
        """Every filter (criteria and action, label ids); Gmail omits the list when there is none."""
        listed = self.client.execute(lambda users: users.settings().filters().list(userId=ME), "filter")
        items = listed.get("filter")
        filters = (Filter.parse(item) for item in items) if isinstance(items, list) else ()
        return [f for f in filters if f is not None]

    def create_filter(self, criteria: FilterCriteria, action: FilterAction) -> Filter:
        """settings.filters.create (needs gmail.settings.basic). Gmail refuses an identical filter (400).

        Retried like an idempotent request: when a retry is refused, an identical filter found now was
        made by the earlier attempt whose answer was lost, and is answered.
        """
        body = {"criteria": criteria.body(), "action": action.body()}
        request = _Counted(lambda users: users.settings().filters().create(userId=ME, body=body))
        try:
            created = Filter.parse(self.client.execute(request, "filter", arguments=FILTER))
        except ApiRejected:
            same = (f for f in self.list_filters() if f.criteria == criteria and f.action == action)
            found = next(same, None) if request.retried else None
            if found is None:
                raise
            return found
        if created is None:
            raise ApiUnavailable("Gmail answered with a malformed body")
        return created

    def delete_filter(self, filter_id: str) -> None:
        """settings.filters.delete (needs gmail.settings.basic). A 404 on a retry is done."""
        self._delete(
            lambda users: users.settings().filters().delete(userId=ME, id=filter_id),
            "filter",
            filter_id,
            {"id": "filter_id"},
        )

    # -- drafts --------------------------------------------------------------------------------
    def list_drafts(self, max_results: int, page_token: str | None) -> DraftPage:
        """One page of draft ids, newest first."""
        answer = self.client.execute(
            lambda users: users.drafts().list(userId=ME, maxResults=max_results, pageToken=page_token or None),
            "draft",
            arguments={"pageToken": "page_token", "maxResults": "max_results"},
        )
        return DraftPage.parse(answer)

    def get_draft(self, draft_id: str) -> Draft:
        """A draft with its message's headers (format=metadata)."""
        return Draft.parse(
            self.client.execute(functools.partial(_get_draft, draft_id=draft_id), "draft", draft_id, DRAFT)
        )

    def get_drafts(self, ids: Sequence[str]) -> Batch[Draft]:
        """Each draft with its message's headers, in one batch request."""
        outcome = self.client.batch([(i, functools.partial(_get_draft, draft_id=i)) for i in ids], "draft", DRAFT)
        return Batch(
            succeeded={key: Draft.parse(answer) for key, answer in outcome.succeeded.items()}, failed=outcome.failed
        )

    def draft_exists(self, draft_id: str) -> bool:
        try:
            self.client.execute(
                lambda users: users.drafts().get(userId=ME, id=draft_id, format="minimal"), "draft", arguments=DRAFT
            )
        except ApiNotFound:
            return False
        return True

    def delete_draft(self, draft_id: str) -> None:
        """Delete a draft for good (Gmail keeps no deleted drafts); the only delete the server makes.

        Retried like any idempotent write; a 404 on a retry means an earlier attempt whose answer
        was lost did delete it.
        """
        self._delete(lambda users: users.drafts().delete(userId=ME, id=draft_id), "draft", draft_id, DRAFT)

    def get_draft_raw(self, draft_id: str) -> Draft:
        """A draft with its message as RFC 822 bytes (format=raw): exactly what drafts.send would send."""
        return Draft.parse(
            self.client.execute(
                lambda users: users.drafts().get(userId=ME, id=draft_id, format="raw"), "draft", draft_id, DRAFT
            )
        )

    def get_draft_full(self, draft_id: str) -> Draft:
        """A draft with its whole message (format=full): headers, MIME tree, attachment ids."""
        return Draft.parse(
            self.client.execute(
                lambda users: users.drafts().get(userId=ME, id=draft_id, format="full"), "draft", draft_id, DRAFT
            )
        )

    def update_draft(self, draft_id: str, mime: bytes, thread_id: str | None) -> Draft:
        """drafts.update: the draft's message replaced by RFC 822 bytes, in `thread_id` when given.

        Idempotent in effect (the same bytes again leave the same draft), so retried like a read.
        """

        def build(users: Any) -> Any:
            message, upload = _message_body(mime, thread_id)
            body = {"id": draft_id, "message": message}
            if upload:
                return users.drafts().update(userId=ME, id=draft_id, body=body, media_body=_upload(mime))
            return users.drafts().update(userId=ME, id=draft_id, body=body)

        return Draft.parse(self.client.execute(build, "draft", draft_id, DRAFT_UPDATE))

    # -- send-as, and our own copies in Sent ---------------------------------------------------------
    def list_send_as(self) -> list[SendAs]:
        """settings.sendAs.list: the primary address and every custom "from" alias, with signatures.

        Google renders empty fields by leaving them out (a primary address without signature has no
        `signature` key), so every field is read with a default.
        """
        listed = self.client.execute(lambda users: users.settings().sendAs().list(userId=ME), "send_as")
        items = listed.get("sendAs")
        found = (SendAs.parse(item) for item in items) if isinstance(items, list) else ()
        return [s for s in found if s is not None]

    def list_sent_to(self, header: str, address: str, after_epoch: int, max_results: int) -> list[str]:
        """Ids of Sent messages to `address` (as `to`, `cc` or `bcc`) since `after_epoch`, newest first.

        Gmail documents epoch seconds for `after:` ("in:sent after:1388552400"); the address is
        quoted, so no character of it is read as query syntax.
        """
        if header not in ("to", "cc", "bcc") or '"' in address or "\\" in address:
            return []
        query = f'in:sent after:{int(after_epoch)} {header}:"{address}"'
        listed = self.client.execute(
            lambda users: users.messages().list(userId=ME, q=query, maxResults=max_results), "message"
        )
        return list(MessagePage.parse(listed).ids)

    # -- at most once: one attempt each, failures unclassified (see `classify.judge`) ---------------
    # An answer that is not the resource (a malformed 200) parses to a view without id: `delivery` treats
    # it as ambiguous, since Gmail may have acted.
    def send_message_once(self, mime: bytes, thread_id: str | None) -> Message:
        """messages.send of RFC 822 bytes, in `thread_id` when given: the sent message's ids."""
        body, upload = _message_body(mime, thread_id)
        if upload:
            return message(
                self.client.execute_once(
                    lambda users: users.messages().send(userId=ME, body=body or None, media_body=_upload(mime))
                )
            )
        return message(self.client.execute_once(lambda users: users.messages().send(userId=ME, body=body)))

    def send_draft_once(self, draft_id: str) -> Message:
        """drafts.send: the draft becomes a sent message (its ids answered) and is gone."""
        return message(self.client.execute_once(lambda users: users.drafts().send(userId=ME, body={"id": draft_id})))

    def create_draft_once(self, mime: bytes, thread_id: str | None) -> Draft:
        """drafts.create of RFC 822 bytes, in `thread_id` when given: the draft and its message's ids."""
        part, upload = _message_body(mime, thread_id)
        if upload:
            return Draft.parse(
                self.client.execute_once(
                    lambda users: users.drafts().create(userId=ME, body={"message": part}, media_body=_upload(mime))
                )
            )
        return Draft.parse(
            self.client.execute_once(lambda users: users.drafts().create(userId=ME, body={"message": part}))
        )

    def find_sent_by_header(self, message_id: str) -> Message | None:
        """The Sent message carrying this Message-ID header (its id and thread id), or None."""
        query = f"rfc822msgid:{_bare_id(message_id)} in:sent"
        listed = self.client.execute(lambda users: users.messages().list(userId=ME, q=query, maxResults=5), "message")
        found = _first_with_id(listed.get("messages"))
        return message(found) if found is not None else None

    def find_draft_by_header(self, message_id: str) -> Draft | None:
        """The draft whose message carries this Message-ID header (its id, its message's ids), or None."""
        query = f"rfc822msgid:{_bare_id(message_id)}"
        listed = self.client.execute(lambda users: users.drafts().list(userId=ME, q=query, maxResults=5), "draft")
        found = _first_with_id(listed.get("drafts"))
        return Draft.parse(found) if found is not None else None


# --- the request builders more than one method shares (each receives `service.users()`) ---------------


class _Counted:
    """A request builder that counts how often the client built the request: more than once means
    a retry, after an attempt whose answer may have been lost once it had taken effect."""

    def __init__(self, build: Build) -> None:
        self._build = build
        self.calls = 0

    def __call__(self, users: Any) -> Any:
        self.calls += 1
        return self._build(users)

    @property
    def retried(self) -> bool:
        return self.calls > 1


def _get_full(users: Any, message_id: str) -> Any:
    return users.messages().get(userId=ME, id=message_id, format="full")


def _get_metadata(users: Any, message_id: str, headers: Sequence[str]) -> Any:
    return users.messages().get(userId=ME, id=message_id, format="metadata", metadataHeaders=list(headers))


def _modify(users: Any, message_id: str, body: dict[str, list[str]]) -> Any:
    return users.messages().modify(userId=ME, id=message_id, body=body)


def _trash(users: Any, message_id: str) -> Any:
    return users.messages().trash(userId=ME, id=message_id)


def _list_labels(users: Any) -> Any:
    return users.labels().list(userId=ME)


def _get_label(users: Any, label_id: str) -> Any:
    return users.labels().get(userId=ME, id=label_id)


def _get_draft(users: Any, draft_id: str) -> Any:
    return users.drafts().get(userId=ME, id=draft_id, format="metadata")


def _message_body(mime: bytes, thread_id: str | None) -> tuple[dict[str, Any], bool]:
    """(the JSON part of a message, whether the MIME goes as a media upload instead of `raw`)."""
    body: dict[str, Any] = {"threadId": thread_id} if thread_id else {}
    if len(mime) <= RAW_LIMIT_BYTES:
        body["raw"] = base64.urlsafe_b64encode(mime).decode("ascii")
        return body, False
    return body, True


def _upload(mime: bytes) -> Any:
    from googleapiclient.http import MediaIoBaseUpload

    return MediaIoBaseUpload(io.BytesIO(mime), mimetype="message/rfc822", resumable=False)


def _bare_id(message_id: str) -> str:
    """`<id@host>` → `id@host`, for `rfc822msgid:` searches."""
    found = message_ids(message_id)
    return found[0].strip("<>") if found else message_id.strip().strip("<>")


def _first_with_id(items: object) -> dict[str, Any] | None:
    """The first listed resource that has an id (Gmail's answers are not trusted to be well formed)."""
    if not isinstance(items, list):
        return None
    return next((i for i in items if isinstance(i, dict) and isinstance(i.get("id"), str)), None)


def _named(labels: Sequence[Label], name: str) -> Label | None:
    """The listed label called `name` (any case), or None."""
    wanted = name.strip().casefold()
    return next((label for label in labels if (label.name or "").casefold() == wanted), None)


def _label(answer: dict[str, Any], label_id: str) -> Label:
    """A label Gmail answered for `label_id` (its own id kept when the answer has one)."""
    label = Label.parse(answer, default_id=label_id)
    assert label is not None  # a default id always makes one
    return label


def _messages(outcome: BatchOutcome) -> Batch[Message]:
    return Batch(succeeded={key: message(answer) for key, answer in outcome.succeeded.items()}, failed=outcome.failed)
