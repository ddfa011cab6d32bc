"""Requests that must take effect at most once: sending a message, sending a draft, creating a draft.

None of them is ever repeated blindly. Each goes out once through the mailbox's one-shot
requests; what happens after a failure depends on what the failure proves (`classify.judge`;
specs/spec.md, "Sending never duplicates"):

* REFUSED — Gmail answered 4xx (400, 401, 403, 404, 429): it did not act. The failure is answered
  as is (parse_error, auth_required, permission_denied, not_found, rate_limited); no retry.
* NOT_SENT — the connection could not be made (or the token could not be refreshed): the
  request never left. This is the only case certain enough for one more attempt.
* AMBIGUOUS — anything else after the request went out: timeout, dropped connection, any 5xx
  (503 included: a front end may answer it after the back end acted), a 2xx whose body is not
  the expected JSON. Gmail may have acted. We look for the result: found → success with a
  warning; not found → "cannot tell", never a retry.

Looking means finding the message in Sent, a few times over a short period since a send may still
be settling; for a draft, also whether it still exists. A look that itself fails means "cannot
tell". Gmail may replace the Message-ID of a message it sends (and keep ours in
`X-Google-Original-Message-ID`, or not), so a look does not rely on it: first an `rfc822msgid:`
search for our id (exact, when Gmail kept it), then a narrow search of Sent (one recipient, the
last hour) whose few candidates are compared header by header (format=metadata): Message-ID,
X-Google-Original-Message-ID and our own copy of the id (`FINGERPRINT_HEADER`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from gmail_mcp import warnings
from gmail_mcp.api.classify import Verdict, judge
from gmail_mcp.api.errors import ApiNotFound, ApiUnavailable, GmailFailure, SendFailed
from gmail_mcp.api.mailbox import SEND, SEND_DRAFT, MailboxApi
from gmail_mcp.api.views import Draft, Message
from gmail_mcp.mail.compose import FINGERPRINT_HEADER, BuiltMessage
from gmail_mcp.mail.headers import message_ids
from gmail_mcp.models import ToolWarning

log = logging.getLogger(__name__)

LOOKS = 3  # how many times to look for the result of an ambiguous request
SENT_WINDOW_SECONDS = 3600  # how far before the send a Sent search reaches (clock skew, slow sends)
SENT_CANDIDATES = 25  # Sent messages to that recipient compared at most, newest first
ID_HEADERS = ("Message-ID", "X-Google-Original-Message-ID", FINGERPRINT_HEADER)


@dataclass(frozen=True, kw_only=True)
class SentFingerprint:
    """How to recognise a message in Sent, whatever Gmail did to its Message-ID."""

    ids: tuple[str, ...]  # Message-IDs it was sent with (`<id@host>`): ours, or a draft's own
    recipient: tuple[str, str] | None  # (`to` | `cc` | `bcc`, address) to narrow the search by
    gmail_id: str | None = None  # a draft's message id (Gmail may keep it when the draft is sent)

    @classmethod
    def of(cls, built: BuiltMessage) -> SentFingerprint:
        return cls(ids=(built.message_id,), recipient=built.recipient if built.recipient[1] else None)

    def matches(self, resource: Message) -> bool:
        if self.gmail_id is not None and resource.id == self.gmail_id:
            return True
        headers = resource.headers
        wanted = {i.casefold() for i in self.ids}
        return any(
            found.casefold() in wanted for name in ID_HEADERS for found in message_ids(headers.get(name.lower(), ""))
        )


class Identified(Protocol):
    """What a one-shot request answers: a resource whose id says it is one (a message, a draft)."""

    @property
    def id(self) -> str | None: ...


R = TypeVar("R", bound=Identified)


@dataclass(frozen=True)
class Done(Generic[R]):
    """The request took effect: Gmail's answer (or what a look found), its id, and what the caller should know."""

    answer: R  # the resource: a message (its id and thread id), or a draft (its id and its message's)
    id: str  # the answer's id: a resource without one is never Done
    warnings: list[ToolWarning] = field(default_factory=list)


class Undetermined(Exception):
    """The request may or may not have taken effect, and looking could not tell."""

    def __init__(self, failure: GmailFailure, detail: str) -> None:
        super().__init__(detail)
        self.failure = failure


class NotDone(Exception):
    """The request certainly did not take effect (and the one allowed retry did not help)."""

    def __init__(self, failure: GmailFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure


class LookFailed(Exception):
    """A look for the result of an ambiguous request failed: nothing can be concluded."""


Look = Callable[[], R | None]
"""Finds the result of the request (the resource it created) or None when it is not there."""


def at_most_once(
    mailbox: MailboxApi,
    request: Callable[[], R],
    look: Look[R],
    *,
    resource: str,
    ident: str = "",
    arguments: Mapping[str, str],
    retry_refusal: Callable[[GmailFailure], bool] = lambda failure: False,
) -> Done[R]:
    """Make a one-shot `request` take effect at most once (the module docstring has the rules).

    `retry_refusal` lets the caller treat a refusal on the *second* attempt as ambiguous (a
    drafts.send retried after a lost answer finds the draft gone). A refusal (400) blames one of
    `arguments` (request parameter → tool argument, as `classify.blame` says). Raises the refusal's failure,
    `NotDone` or `Undetermined`.
    """
    for attempt in (1, 2):
        try:
            answer = request()
        except Exception as exc:
            judged = judge(exc, resource, ident, arguments)
            verdict, failure = judged.verdict, judged.failure
            if attempt == 2 and verdict is Verdict.REFUSED and retry_refusal(failure):
                verdict = Verdict.AMBIGUOUS
        else:
            if answer.id is not None:
                return Done(answer, answer.id)
            verdict, failure = Verdict.AMBIGUOUS, ApiUnavailable("Gmail answered with a malformed body")
        log.warning("one-shot %s request, attempt %d: %s (%s)", resource, attempt, verdict.value, failure)
        if verdict is Verdict.REFUSED:
            raise failure
        if verdict is Verdict.NOT_SENT:
            if attempt == 1:
                time.sleep(mailbox.client.backoff(1))
                continue
            raise NotDone(failure)
        found = _look(mailbox, look)
        if found is not None and found.id is not None:
            return Done(found, found.id, [warnings.delivery_confirmed_after_error(failure)])
        raise Undetermined(failure, f"the {resource} request failed after it was sent, and the result is not found")
    raise AssertionError("unreachable")  # pragma: no cover


def _look(mailbox: MailboxApi, look: Look[R]) -> R | None:
    """Up to LOOKS looks with growing pauses; LookFailed when a look fails."""
    for attempt in range(1, LOOKS + 1):
        try:
            found = look()
        except LookFailed:
            raise
        except Exception as exc:  # whatever it is, the answer must be "cannot tell", never a crash
            log.warning("looking for the result failed", exc_info=not isinstance(exc, GmailFailure))
            raise LookFailed(str(exc)) from None
        if found is not None:
            return found
        if attempt < LOOKS:
            time.sleep(mailbox.client.settings.backoff_base_seconds * 2**attempt)
    return None


# --- the three operations ---------------------------------------------------------------------------


class Delivery:
    """Sends messages and drafts, and creates drafts, each at most once."""

    def __init__(self, mailbox: MailboxApi, clock: Callable[[], float] = time.time) -> None:
        self.mailbox = mailbox
        self.clock = clock

    def find_sent(self, fingerprint: SentFingerprint, since: float) -> Message | None:
        """The Sent message `fingerprint` recognises (its ids), sent after `since` (epoch seconds), or None.

        Raises LookFailed when some candidates could not be compared and none matched.
        """
        if fingerprint.ids:
            found = self.mailbox.find_sent_by_header(fingerprint.ids[0])
            if found is not None:
                return found
        if fingerprint.recipient is None:
            return None
        header, address = fingerprint.recipient
        after = int(since) - SENT_WINDOW_SECONDS
        ids = self.mailbox.list_sent_to(header, address, after, SENT_CANDIDATES)
        if not ids:
            return None
        fetched = self.mailbox.get_messages_metadata(ids, ID_HEADERS, with_label_list=False).messages
        for candidate in ids:
            resource = fetched.succeeded.get(candidate)
            if resource is not None and fingerprint.matches(resource):
                return Message(id=candidate, thread_id=resource.thread_id)
        if fetched.failed:
            raise LookFailed(f"{len(fetched.failed)} messages in Sent could not be compared")
        return None

    def send_message(self, built: BuiltMessage) -> Done[Message]:
        """messages.send; SendFailed('not_sent' | 'unknown') when it did not certainly happen."""
        resource, ident = ("thread", built.thread_id) if built.thread_id else ("message", "")
        since = self.clock()
        fingerprint = SentFingerprint.of(built)
        return self._send(
            lambda: self.mailbox.send_message_once(built.mime, built.thread_id),
            lambda: self.find_sent(fingerprint, since),
            resource,
            ident,
            SEND,
        )

    def send_draft(self, draft_id: str, fingerprint: SentFingerprint) -> Done[Message]:
        """drafts.send of a draft that `fingerprint` recognises in Sent (its Message-IDs, a recipient, its id)."""
        since = self.clock()

        def look() -> Message | None:
            found = self.find_sent(fingerprint, since)
            if found is not None:
                return found
            if not self.mailbox.draft_exists(draft_id):
                # Gone, yet not found in Sent: sent but not searchable yet, or deleted meanwhile.
                raise LookFailed("the draft is gone but its message is not in Sent")
            return None  # the draft is still there: it was not sent

        return self._send(
            lambda: self.mailbox.send_draft_once(draft_id),
            look,
            "draft",
            draft_id,
            SEND_DRAFT,
            retry_refusal=lambda failure: isinstance(failure, ApiNotFound),
        )

    def _send(
        self,
        request: Callable[[], Message],
        look: Look[Message],
        resource: str,
        ident: str,
        arguments: Mapping[str, str],
        retry_refusal: Callable[[GmailFailure], bool] = lambda failure: False,
    ) -> Done[Message]:
        try:
            return at_most_once(
                self.mailbox,
                request,
                look,
                resource=resource,
                ident=ident,
                arguments=arguments,
                retry_refusal=retry_refusal,
            )
        except NotDone as exc:
            raise SendFailed("not_sent", f"nothing was sent ({exc.failure}); it is safe to try again later") from None
        except Undetermined:
            raise SendFailed(
                "unknown",
                "the send failed after the request reached Gmail and the message was not found in Sent; "
                "it may still arrive — check the Sent folder before sending again",
            ) from None
        except LookFailed:
            raise SendFailed(
                "unknown",
                "the send failed after the request reached Gmail, and the Sent folder could not be checked; "
                "check the Sent folder before sending again",
            ) from None

    def create_draft(self, built: BuiltMessage) -> Done[Draft]:
        """drafts.create; after an ambiguous failure the draft is looked for by its Message-ID."""
        resource, ident = ("thread", built.thread_id) if built.thread_id else ("draft", "")
        try:
            return at_most_once(
                self.mailbox,
                lambda: self.mailbox.create_draft_once(built.mime, built.thread_id),
                lambda: self.mailbox.find_draft_by_header(built.message_id),
                resource=resource,
                ident=ident,
                arguments=SEND,
            )
        except NotDone as exc:
            raise exc.failure from None
        except (Undetermined, LookFailed):
            raise ApiUnavailable(
                "the draft may or may not have been created — check list_drafts before creating it again"
            ) from None
