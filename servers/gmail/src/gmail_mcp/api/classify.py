"""Turning what googleapiclient / httplib2 / google-auth raise into the domain failures of `api.errors`.

`classify` serves every request; `judge` adds, for a request that must not repeat, what its
failure proves about whether it took effect. Reasons are read from Google's JSON error body;
neither the body nor Google's URLs ever reach a message.
"""

from __future__ import annotations

import email.utils
import enum
import http.client
import json
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gmail_mcp.api.errors import (
    ApiConflict,
    ApiForbidden,
    ApiNotFound,
    ApiRejected,
    ApiUnavailable,
    AuthRequired,
    GmailFailure,
    RateLimited,
    RequestNotSent,
)

log = logging.getLogger(__name__)

RATE_LIMIT_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
# OSError covers ConnectionError (refused, reset), TimeoutError and socket.timeout;
# http.client.HTTPException covers RemoteDisconnected.
NETWORK_ERRORS: tuple[type[BaseException], ...] = (OSError, http.client.HTTPException)
# What a 400 blames when the request had no argument of the caller's to blame (the call as a whole).
ANY_ARGUMENT = "arguments"


def error_reason(content: bytes | str | None) -> str:
    """The first `error.errors[].reason` (or `error.status`) of a Google error body; '' if none."""
    try:
        body = json.loads(content or b"")
        err = body.get("error", {})
        if isinstance(err, dict):
            for item in err.get("errors") or []:
                if isinstance(item, dict) and item.get("reason"):
                    return str(item["reason"])[:80]
            return str(err.get("status") or "")[:80]
        return str(err)[:80]
    except (ValueError, AttributeError, TypeError):
        return ""


def error_location(content: bytes | str | None) -> str:
    """The request parameter a Google error body blames (`error.errors[].location`); '' if none."""
    try:
        for item in json.loads(content or b"").get("error", {}).get("errors") or []:
            if isinstance(item, dict) and item.get("location"):
                return str(item["location"])[:80]
    except (ValueError, AttributeError, TypeError):
        pass
    return ""


def retry_after_seconds(headers: Any, default: int = 1) -> int:
    """Seconds from a Retry-After header (delta-seconds or HTTP-date); `default` when absent or unreadable."""
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return default
    try:
        return max(0, math.ceil(float(value)))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return default
    return max(0, math.ceil(when.timestamp() - time.time()))


def classify_http_error(status: int, reason: str, headers: Any, resource: str, ident: str) -> GmailFailure:
    if status == 401:
        return AuthRequired("expired", "Gmail no longer accepts the stored authorisation")
    if status == 429 or (status == 403 and reason in RATE_LIMIT_REASONS):
        return RateLimited(retry_after_seconds(headers))
    if status == 403 and reason == "insufficientPermissions":
        return AuthRequired("insufficient_scope", "the stored authorisation lacks the permission this needs")
    if status == 403:
        return ApiForbidden(reason or "forbidden")
    if status == 404:
        return ApiNotFound(resource, ident)
    if status == 409:  # labels.create / labels.patch: the name is taken
        return ApiConflict(resource, ident)
    if status == 400:
        return ApiRejected(reason or "invalid", f"check the {resource} arguments")
    return ApiUnavailable(f"HTTP {status}")


def blame(failure: GmailFailure, arguments: Mapping[str, str]) -> GmailFailure:
    """A 400 names the tool argument it blames: the one mapped from the request parameter Gmail's answer
    names (`criteria.from` falls back to `criteria`), else the first mapped (the first suspect), else
    ANY_ARGUMENT. `arguments` maps the request's parameters that came from the caller to the names of
    the tool arguments they came from, in order of suspicion."""
    if isinstance(failure, ApiRejected) and failure.field is None:
        location = failure.location
        failure.field = (
            arguments.get(location)
            or arguments.get(location.split(".")[0])
            or next(iter(arguments.values()), None)
            or ANY_ARGUMENT
        )
    return failure


def classify(exc: BaseException, resource: str = "resource", ident: str = "") -> GmailFailure | None:
    """The domain failure for an exception raised while calling Gmail, or None if it is unexpected."""
    from google.auth.exceptions import RefreshError, TransportError
    from googleapiclient.errors import HttpError
    from httplib2 import HttpLib2Error

    if isinstance(exc, GmailFailure):
        return exc
    if isinstance(exc, HttpError):
        status = getattr(exc.resp, "status", None)
        if status is None:  # a BatchError about a part the library could not read has resp=None
            return ApiUnavailable("Gmail's batch answer could not be read")
        failure = classify_http_error(int(status), error_reason(exc.content), exc.resp, resource, ident)
        if isinstance(failure, ApiRejected):
            failure.location = error_location(exc.content)
        return failure
    if isinstance(exc, RefreshError):
        text = str(exc)
        if "invalid_grant" in text:
            return AuthRequired("revoked", "Google refused to refresh the token (revoked or expired)")
        if "refresh" in text.lower() and "necessary fields" in text.lower():
            return AuthRequired("expired", "the access token expired and there is no refresh token")
        return AuthRequired("expired", "the token could not be refreshed")
    if isinstance(exc, (TransportError, HttpLib2Error, *NETWORK_ERRORS)):
        return ApiUnavailable("the connection failed or timed out")
    return None


class Verdict(enum.Enum):
    """What the failure of a one-shot request proves (specs/spec.md, "Sending never duplicates")."""

    REFUSED = "refused"  # Gmail answered 4xx, or the request was stopped before it left: nothing was done
    NOT_SENT = "not_sent"  # no connection (or the token refresh before sending failed): the request never left
    AMBIGUOUS = "ambiguous"  # anything after the request went out: Gmail may have acted


@dataclass(frozen=True)
class Judgement:
    """What a failed one-shot request proves (`verdict`) and the domain failure to report (`failure`)."""

    verdict: Verdict
    failure: GmailFailure


def judge(exc: BaseException, resource: str, ident: str, arguments: Mapping[str, str]) -> Judgement:
    """What a failure of a one-shot request proves about whether it took effect, and its domain failure
    (a 400 blames one of `arguments`, as `blame` says)."""
    from google.auth.exceptions import RefreshError, TransportError
    from googleapiclient.errors import HttpError

    failure = classify(exc, resource, ident)
    if failure is not None:
        failure = blame(failure, arguments)
    if failure is None:  # unexpected, and maybe after the request went out: never a blind retry
        log.error("unexpected failure of a one-shot request", exc_info=(type(exc), exc, exc.__traceback__))
        return Judgement(Verdict.AMBIGUOUS, ApiUnavailable("an unexpected failure"))
    if isinstance(exc, RequestNotSent | TransportError) and not isinstance(exc, RefreshError):
        return Judgement(Verdict.NOT_SENT, failure)  # no connection, or the token refresh before sending failed
    if isinstance(exc, GmailFailure | RefreshError):
        return Judgement(Verdict.REFUSED, failure)  # raised before anything was sent (no token, revoked, ...)
    if isinstance(exc, HttpError) and 400 <= int(getattr(exc.resp, "status", 0) or 0) < 500:
        return Judgement(Verdict.REFUSED, failure)
    return Judgement(Verdict.AMBIGUOUS, failure)
