"""Every Gmail request the server makes, as a named method. The domain calls these and never sees googleapiclient.

Answers are Gmail's JSON resources as they come (`mail.parse` reads them). Reads and writes that
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
from gmail_mcp.api.errors import ApiConflict, ApiNotFound, ApiRejected
from gmail_mcp.mail.headers import message_ids

ME = "me"  # the authorised account
# Up to this many bytes of MIME go as JSON `raw` (base64url: 4/3 of it, under Gmail's limit for a
# metadata request); larger messages go as a media upload (uploadType=media, or multipart with a thread id).
RAW_LIMIT_BYTES = 3 * 1024 * 1024
_LABEL_LIST = "labels.list"
# What a 400 blames (request parameter → tool argument, first suspect first) where it is always the same.
LABEL = {"id": "label"}
DRAFT = {"id": "draft_id"}
DRAFT_UPDATE = {"id": "draft_id", "threadId": "reply_to_message_id", "raw": "body"}
FILTER = {"criteria": "criteria", "action": "action_labels"}
# The one-shot requests, for `classify.judge`: a message is refused for its recipients first.
SEND = {"raw": "to", "threadId": "reply_to_message_id"}
SEND_DRAFT = {"id": "draft_id"}  # the batch key of the label list riding along with message gets (never a message id)


@dataclass(frozen=True)
class MessagesMetadata:
    """Metadata of several messages from one batch request, and the label list when it was asked to ride along."""

    messages: BatchOutcome
    label_list: dict[str, Any] | None  # None when not asked for, or when that part failed


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
    ) -> dict[str, Any]:
        """One page of message ids matching a Gmail query; a 400 blames `query` or `page_token`."""
        return self.client.execute(
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

    def get_message(self, message_id: str) -> dict[str, Any]:
        """The whole message (format=full): headers, MIME tree, inline body data, attachment ids."""
        return self.client.execute(
            lambda users: users.messages().get(userId=ME, id=message_id, format="full"),
            "message",
            message_id,
            {"id": "message_id"},
        )

    def get_message_headers(self, message_id: str, headers: Sequence[str], argument: str) -> dict[str, Any]:
        """Only the named headers of a message (format=metadata): a big message is not downloaded. A 400
        blames `argument`, the tool argument the id came from."""
        return self.client.execute(
            functools.partial(_get_metadata, message_id=message_id, headers=headers),
            "message",
            message_id,
            {"id": argument},
        )

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
        messages = BatchOutcome(
            succeeded={k: v for k, v in outcome.succeeded.items() if k != _LABEL_LIST},
            failed={k: v for k, v in outcome.failed.items() if k != _LABEL_LIST},
        )
        return MessagesMetadata(messages=messages, label_list=outcome.succeeded.get(_LABEL_LIST))

    def get_thread(self, thread_id: str) -> dict[str, Any]:
        """Every message of a thread (format=full), oldest first."""
        return self.client.execute(
            lambda users: users.threads().get(userId=ME, id=thread_id, format="full"),
            "thread",
            thread_id,
            {"id": "thread_id"},
        )

    def get_attachment(self, message_id: str, attachment_id: str) -> dict[str, Any]:
        """An attachment's body: `{size, data}` with base64url data."""
        return self.client.execute(
            lambda users: users.messages().attachments().get(userId=ME, messageId=message_id, id=attachment_id),
            "attachment",
            attachment_id,
            {"id": "attachment_id", "messageId": "message_id"},
        )

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
    ) -> BatchOutcome:
        """messages.modify for each id, in one batch request: each message succeeds or fails on its own."""
        change = {"addLabelIds": list(add), "removeLabelIds": list(remove)}
        requests = [(i, functools.partial(_modify, message_id=i, body=change)) for i in ids]
        return self.client.batch(requests, "message", arguments)

    def trash_each(self, ids: Sequence[str], arguments: Mapping[str, str]) -> BatchOutcome:
        """messages.trash for each id, in one batch request (Gmail has no batch trash)."""
        return self.client.batch([(i, functools.partial(_trash, message_id=i)) for i in ids], "message", arguments)

    # -- labels --------------------------------------------------------------------------------
    def list_labels(self) -> dict[str, Any]:
        """Every label's id, name and type (no counts)."""
        return self.client.execute(_list_labels, "label")

    def get_labels(self, ids: Sequence[str]) -> BatchOutcome:
        """Each label with its message counts, in one batch request."""
        return self.client.batch([(i, functools.partial(_get_label, label_id=i)) for i in ids], "label", LABEL)

    def create_label(self, body: dict[str, Any], arguments: Mapping[str, str]) -> dict[str, Any]:
        """labels.create; a 409 (the name is taken) is `ApiConflict`.

        Retried like an idempotent request: a 409 on a retry means an earlier attempt whose answer
        was lost did create it, so the label of that name is looked up and answered.
        """
        request = _Counted(lambda users: users.labels().create(userId=ME, body=body))
        try:
            return self.client.execute(request, "label", str(body.get("name", "")), arguments)
        except ApiConflict:
            found = _named(self.list_labels().get("labels"), str(body.get("name", ""))) if request.retried else None
            if found is None:
                raise
            return found

    def patch_label(self, label_id: str, body: dict[str, Any], arguments: Mapping[str, str]) -> dict[str, Any]:
        """labels.patch: change only the fields given (a rename, a colour); 409 if the new name is taken."""
        return self.client.execute(
            lambda users: users.labels().patch(userId=ME, id=label_id, body=body), "label", label_id, arguments
        )

    def delete_label(self, label_id: str) -> None:
        """labels.delete: the label goes, and off every message; no message is deleted. A 404 on a retry is done."""
        self._delete(lambda users: users.labels().delete(userId=ME, id=label_id), "label", label_id, LABEL)

    # -- the account and its settings ----------------------------------------------------------
    def get_profile(self) -> dict[str, Any]:
        """users.getProfile: the account's address (`emailAddress`) and totals."""
        return self.client.execute(lambda users: users.getProfile(userId=ME), "account")

    def list_filters(self) -> list[dict[str, Any]]:
        """Every filter (`{id, criteria, action}`, label ids); Gmail omits the key when there is none."""
        listed = self.client.execute(lambda users: users.settings().filters().list(userId=ME), "filter")
        items = listed.get("filter")
        return (
            [f for f in items if isinstance(f, dict) and isinstance(f.get("id"), str)]
            if isinstance(items, list)
            else []
        )

    def create_filter(self, body: dict[str, Any]) -> dict[str, Any]:
        """settings.filters.create (needs gmail.settings.basic). Gmail refuses an identical filter (400).

        Retried like an idempotent request: when a retry is refused, an identical filter found now was
        made by the earlier attempt whose answer was lost, and is answered.
        """
        request = _Counted(lambda users: users.settings().filters().create(userId=ME, body=body))
        try:
            return self.client.execute(request, "filter", arguments=FILTER)
        except ApiRejected:
            found = next((f for f in self.list_filters() if _same_filter(f, body)), None) if request.retried else None
            if found is None:
                raise
            return found

    def delete_filter(self, filter_id: str) -> None:
        """settings.filters.delete (needs gmail.settings.basic). A 404 on a retry is done."""
        self._delete(
            lambda users: users.settings().filters().delete(userId=ME, id=filter_id),
            "filter",
            filter_id,
            {"id": "filter_id"},
        )

    # -- drafts --------------------------------------------------------------------------------
    def list_drafts(self, max_results: int, page_token: str | None) -> dict[str, Any]:
        """One page of draft ids, newest first."""
        return self.client.execute(
            lambda users: users.drafts().list(userId=ME, maxResults=max_results, pageToken=page_token or None),
            "draft",
            arguments={"pageToken": "page_token", "maxResults": "max_results"},
        )

    def get_draft(self, draft_id: str) -> dict[str, Any]:
        """A draft with its message's headers (format=metadata)."""
        return self.client.execute(functools.partial(_get_draft, draft_id=draft_id), "draft", draft_id, DRAFT)

    def get_drafts(self, ids: Sequence[str]) -> BatchOutcome:
        """Each draft with its message's headers, in one batch request."""
        return self.client.batch([(i, functools.partial(_get_draft, draft_id=i)) for i in ids], "draft", DRAFT)

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

    def get_draft_raw(self, draft_id: str) -> dict[str, Any]:
        """A draft with its message as RFC 822 bytes (format=raw): exactly what drafts.send would send."""
        return self.client.execute(
            lambda users: users.drafts().get(userId=ME, id=draft_id, format="raw"), "draft", draft_id, DRAFT
        )

    def get_draft_full(self, draft_id: str) -> dict[str, Any]:
        """A draft with its whole message (format=full): headers, MIME tree, attachment ids."""
        return self.client.execute(
            lambda users: users.drafts().get(userId=ME, id=draft_id, format="full"), "draft", draft_id, DRAFT
        )

    def update_draft(self, draft_id: str, mime: bytes, thread_id: str | None) -> dict[str, Any]:
        """drafts.update: the draft's message replaced by RFC 822 bytes, in `thread_id` when given.

        Idempotent in effect (the same bytes again leave the same draft), so retried like a read.
        """

        def build(users: Any) -> Any:
            message, upload = _message_body(mime, thread_id)
            body = {"id": draft_id, "message": message}
            if upload:
                return users.drafts().update(userId=ME, id=draft_id, body=body, media_body=_upload(mime))
            return users.drafts().update(userId=ME, id=draft_id, body=body)

        return self.client.execute(build, "draft", draft_id, DRAFT_UPDATE)

    # -- send-as, and our own copies in Sent ---------------------------------------------------------
    def list_send_as(self) -> list[dict[str, Any]]:
        """settings.sendAs.list: the primary address and every custom "from" alias, with signatures.

        Google renders empty fields by leaving them out (a primary address without signature has no
        `signature` key), so every field is read with a default.
        """
        listed = self.client.execute(lambda users: users.settings().sendAs().list(userId=ME), "send_as")
        items = listed.get("sendAs")
        return (
            [s for s in items if isinstance(s, dict) and isinstance(s.get("sendAsEmail"), str)]
            if isinstance(items, list)
            else []
        )

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
        items = listed.get("messages")
        if not isinstance(items, list):
            return []
        return [str(i["id"]) for i in items if isinstance(i, dict) and isinstance(i.get("id"), str)]

    # -- at most once: one attempt each, failures unclassified (see `classify.judge`) ---------------
    def send_message_once(self, mime: bytes, thread_id: str | None) -> Any:
        """messages.send of RFC 822 bytes, in `thread_id` when given."""
        body, upload = _message_body(mime, thread_id)
        if upload:
            return self.client.execute_once(
                lambda users: users.messages().send(userId=ME, body=body or None, media_body=_upload(mime))
            )
        return self.client.execute_once(lambda users: users.messages().send(userId=ME, body=body))

    def send_draft_once(self, draft_id: str) -> Any:
        """drafts.send: the draft becomes a sent message and is gone."""
        return self.client.execute_once(lambda users: users.drafts().send(userId=ME, body={"id": draft_id}))

    def create_draft_once(self, mime: bytes, thread_id: str | None) -> Any:
        """drafts.create of RFC 822 bytes, in `thread_id` when given."""
        message, upload = _message_body(mime, thread_id)
        if upload:
            return self.client.execute_once(
                lambda users: users.drafts().create(userId=ME, body={"message": message}, media_body=_upload(mime))
            )
        return self.client.execute_once(lambda users: users.drafts().create(userId=ME, body={"message": message}))

    def find_sent_by_header(self, message_id: str) -> dict[str, Any] | None:
        """The Sent message carrying this Message-ID header (`{id, threadId}`), or None."""
        query = f"rfc822msgid:{_bare_id(message_id)} in:sent"
        listed = self.client.execute(lambda users: users.messages().list(userId=ME, q=query, maxResults=5), "message")
        return _first_with_id(listed.get("messages"))

    def find_draft_by_header(self, message_id: str) -> dict[str, Any] | None:
        """The draft whose message carries this Message-ID header (`{id, message: {id, threadId}}`), or None."""
        query = f"rfc822msgid:{_bare_id(message_id)}"
        listed = self.client.execute(lambda users: users.drafts().list(userId=ME, q=query, maxResults=5), "draft")
        return _first_with_id(listed.get("drafts"))


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


def _named(labels: object, name: str) -> dict[str, Any] | None:
    """The listed label called `name` (any case), or None."""
    if not isinstance(labels, list):
        return None
    wanted = name.strip().casefold()
    return next(
        (item for item in labels if isinstance(item, dict) and str(item.get("name", "")).casefold() == wanted), None
    )


def _same_filter(found: dict[str, Any], body: dict[str, Any]) -> bool:
    """Whether a listed filter has exactly the criteria and action of a create request's body."""
    return found.get("criteria") == body.get("criteria") and found.get("action") == body.get("action")
