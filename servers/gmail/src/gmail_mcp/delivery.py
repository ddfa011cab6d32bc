"""Requests that must take effect at most once: sending a message, sending a draft, creating a draft.

None of them is ever repeated blindly. Each goes out once through the client's one-shot
transport; what happens after a failure depends on what the failure proves (specs/spec.md,
"Sending never duplicates"):

* REFUSED — Gmail answered 4xx (400, 401, 403, 404, 429): it did not act. The failure is answered
  as is (parse_error, auth_required, permission_denied, not_found, rate_limited); no retry.
* NOT_SENT — the connection could not be made (or the token could not be refreshed): the
  request never left. This is the only case certain enough for one more attempt.
* AMBIGUOUS — anything else after the request went out: timeout, dropped connection, any 5xx
  (503 included: a front end may answer it after the back end acted), a 2xx whose body is not
  the expected JSON. Gmail may have acted. We look for the result: found → success with a
  warning; not found → "cannot tell", never a retry.

Looking means finding the message by its own Message-ID in Sent (`rfc822msgid:` search), a few
times over a short period since a send may still be settling; for a draft, also whether it still
exists. A look that itself fails means "cannot tell".
"""

from __future__ import annotations

import base64
import enum
import io
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gmail_mcp.api.classify import classify
from gmail_mcp.api.client import GmailClient
from gmail_mcp.api.errors import ApiNotFound, ApiUnavailable, GmailFailure, RequestNotSent, SendFailed
from gmail_mcp.mail.compose import BuiltMessage
from gmail_mcp.mail.headers import message_ids

log = logging.getLogger(__name__)

# Up to this many bytes of MIME go as JSON `raw` (base64url: 4/3 of it, under Gmail's limit for
# a metadata request); larger messages go as a media upload (uploadType=media / multipart).
RAW_LIMIT_BYTES = 3 * 1024 * 1024
LOOKS = 3  # how many times to look for the result of an ambiguous request

CONFIRMED_WARNING = "DELIVERY_CONFIRMED_AFTER_ERROR"


class Verdict(enum.Enum):
    REFUSED = "refused"
    NOT_SENT = "not_sent"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class Done:
    """The request took effect: Gmail's answer (or what a look found) and what the caller should know."""

    result: dict[str, Any]
    warnings: list[dict[str, Any]] = field(default_factory=list)


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


Look = Callable[[], "dict[str, Any] | None"]
"""Finds the result of the request (the resource it created) or None when it is not there."""


def judge(exc: BaseException, resource: str, ident: str) -> tuple[Verdict, GmailFailure]:
    """What a failure of a one-shot request proves about whether the request took effect."""
    from google.auth.exceptions import RefreshError, TransportError
    from googleapiclient.errors import HttpError

    failure = classify(exc, resource, ident)
    if failure is None:  # unexpected, and maybe after the request went out: never a blind retry
        log.error("unexpected failure of a one-shot request", exc_info=(type(exc), exc, exc.__traceback__))
        return Verdict.AMBIGUOUS, ApiUnavailable("an unexpected failure")
    if isinstance(exc, RequestNotSent | TransportError) and not isinstance(exc, RefreshError):
        return Verdict.NOT_SENT, failure  # no connection, or the token refresh before sending failed
    if isinstance(exc, GmailFailure | RefreshError):
        return Verdict.REFUSED, failure  # raised before anything was sent (no token, revoked, ...)
    if isinstance(exc, HttpError):
        status = exc.status_code
        if 400 <= status < 500:
            return Verdict.REFUSED, failure
    return Verdict.AMBIGUOUS, failure


def run_once(
    client: GmailClient,
    build: Callable[[Any], Any],
    look: Look,
    *,
    resource: str,
    ident: str = "",
    retry_refusal: Callable[[GmailFailure], bool] = lambda failure: False,
) -> Done:
    """Execute `build` so that it takes effect at most once (the module docstring has the rules).

    `retry_refusal` lets the caller treat a refusal on the *second* attempt as ambiguous (a
    drafts.send retried after a lost answer finds the draft gone). Raises the refusal's failure,
    `NotDone` or `Undetermined`.
    """
    for attempt in (1, 2):
        try:
            answer = client.execute_once(build)
        except Exception as exc:
            verdict, failure = judge(exc, resource, ident)
            if attempt == 2 and verdict is Verdict.REFUSED and retry_refusal(failure):
                verdict = Verdict.AMBIGUOUS
        else:
            if isinstance(answer, dict) and isinstance(answer.get("id"), str):
                return Done(answer)
            verdict, failure = Verdict.AMBIGUOUS, ApiUnavailable("Gmail answered with a malformed body")
        log.warning("one-shot %s request, attempt %d: %s (%s)", resource, attempt, verdict.value, failure)
        if verdict is Verdict.REFUSED:
            raise failure
        if verdict is Verdict.NOT_SENT:
            if attempt == 1:
                time.sleep(client.backoff(1))
                continue
            raise NotDone(failure)
        found = _look(client, look)
        if found is not None:
            return Done(found, [_confirmed(failure)])
        raise Undetermined(failure, f"the {resource} request failed after it was sent, and the result is not found")
    raise AssertionError("unreachable")  # pragma: no cover


def _look(client: GmailClient, look: Look) -> dict[str, Any] | None:
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
            time.sleep(client.settings.backoff_base_seconds * 2**attempt)
    return None


def _confirmed(failure: GmailFailure) -> dict[str, Any]:
    return {
        "code": CONFIRMED_WARNING,
        "message": "the request failed on the way back, but Gmail did carry it out (found afterwards); "
        "do not repeat it",
        "failure": str(failure),
    }


def bare_id(message_id: str) -> str:
    """`<id@host>` → `id@host`, for `rfc822msgid:` searches."""
    found = message_ids(message_id)
    return found[0].strip("<>") if found else message_id.strip().strip("<>")


# --- the three operations ---------------------------------------------------------------------------


def _upload(mime: bytes) -> Any:
    from googleapiclient.http import MediaIoBaseUpload

    return MediaIoBaseUpload(io.BytesIO(mime), mimetype="message/rfc822", resumable=False)


def _message_body(built: BuiltMessage) -> tuple[dict[str, Any], bool]:
    """(the JSON part of a message, whether the MIME goes as a media upload instead of `raw`)."""
    body: dict[str, Any] = {"threadId": built.thread_id} if built.thread_id else {}
    if built.size <= RAW_LIMIT_BYTES:
        body["raw"] = base64.urlsafe_b64encode(built.mime).decode("ascii")
        return body, False
    return body, True


class Delivery:
    """Sends messages and drafts, and creates drafts, each at most once."""

    def __init__(self, client: GmailClient) -> None:
        self.client = client

    def find_sent(self, message_id: str) -> dict[str, Any] | None:
        """The Sent message carrying this Message-ID (`{id, threadId}`), or None."""
        query = f"rfc822msgid:{bare_id(message_id)} in:sent"
        listed = self.client.read(lambda users: users.messages().list(userId="me", q=query, maxResults=5), "message")
        messages = [m for m in listed.get("messages", []) if isinstance(m, dict) and isinstance(m.get("id"), str)]
        return messages[0] if messages else None

    def send_message(self, built: BuiltMessage) -> Done:
        """messages.send; SendFailed('not_sent' | 'unknown') when it did not certainly happen."""
        body, upload = _message_body(built)

        def build(users: Any) -> Any:
            if upload:
                return users.messages().send(userId="me", body=body or None, media_body=_upload(built.mime))
            return users.messages().send(userId="me", body=body)

        resource, ident = ("thread", built.thread_id) if built.thread_id else ("message", "")
        return self._send(build, lambda: self.find_sent(built.message_id), resource, ident)

    def send_draft(self, draft_id: str, message_id: str | None) -> Done:
        """drafts.send of a draft whose Message-ID header is `message_id` (None if it has none)."""

        def look() -> dict[str, Any] | None:
            if message_id:
                found = self.find_sent(message_id)
                if found is not None:
                    return found
            try:
                self.client.read(lambda users: users.drafts().get(userId="me", id=draft_id, format="minimal"), "draft")
            except ApiNotFound:
                # Gone, yet not found in Sent: sent but not searchable yet, or deleted meanwhile.
                raise LookFailed("the draft is gone but its message is not in Sent") from None
            return None  # the draft is still there: it was not sent

        return self._send(
            lambda users: users.drafts().send(userId="me", body={"id": draft_id}),
            look,
            "draft",
            draft_id,
            retry_refusal=lambda failure: isinstance(failure, ApiNotFound),
        )

    def _send(
        self,
        build: Callable[[Any], Any],
        look: Look,
        resource: str,
        ident: str,
        retry_refusal: Callable[[GmailFailure], bool] = lambda failure: False,
    ) -> Done:
        try:
            return run_once(self.client, build, look, resource=resource, ident=ident, retry_refusal=retry_refusal)
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

    def create_draft(self, built: BuiltMessage) -> Done:
        """drafts.create; after an ambiguous failure the draft is looked for by its Message-ID."""
        message, upload = _message_body(built)

        def build(users: Any) -> Any:
            if upload:
                return users.drafts().create(userId="me", body={"message": message}, media_body=_upload(built.mime))
            return users.drafts().create(userId="me", body={"message": message})

        def look() -> dict[str, Any] | None:
            query = f"rfc822msgid:{bare_id(built.message_id)}"
            listed = self.client.read(lambda users: users.drafts().list(userId="me", q=query, maxResults=5), "draft")
            drafts = [d for d in listed.get("drafts", []) if isinstance(d, dict) and isinstance(d.get("id"), str)]
            return drafts[0] if drafts else None

        try:
            resource, ident = ("thread", built.thread_id) if built.thread_id else ("draft", "")
            return run_once(self.client, build, look, resource=resource, ident=ident)
        except NotDone as exc:
            raise exc.failure from None
        except (Undetermined, LookFailed):
            raise ApiUnavailable(
                "the draft may or may not have been created — check list_drafts before creating it again"
            ) from None
