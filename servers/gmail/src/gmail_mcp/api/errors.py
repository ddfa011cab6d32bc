"""Failures of the Gmail API and of authorisation, classified. `gmail_mcp.errors` maps them to the contract."""

from __future__ import annotations

from typing import Literal

AuthReason = Literal["no_token", "expired", "revoked", "insufficient_scope"]


class GmailFailure(Exception):
    """Base class of anticipated Gmail-side failures."""


class AuthRequired(GmailFailure):
    def __init__(self, reason: AuthReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class ApiNotFound(GmailFailure):
    def __init__(self, resource: str, id: str) -> None:
        super().__init__(f"{resource} not found: {id}")
        self.resource = resource
        self.id = id


class RateLimited(GmailFailure):
    def __init__(self, retry_after_seconds: int) -> None:
        super().__init__(f"Gmail is rate limiting requests; wait {retry_after_seconds} s and try again")
        self.retry_after_seconds = retry_after_seconds


class ApiForbidden(GmailFailure):
    def __init__(self, reason: str) -> None:
        super().__init__(f"Gmail refused the request ({reason})")
        self.reason = reason


class ApiRejected(GmailFailure):
    """Gmail answered 400: the request (a query, an id, a message) is invalid."""

    def __init__(self, reason: str, detail: str, field: str | None = None) -> None:
        super().__init__(f"Gmail rejected the request as invalid ({reason}): {detail}")
        self.reason = reason
        self.field = field  # the tool argument to blame, when the caller knows it
        self.location = ""  # the request parameter Gmail's answer names, if any


class ApiUnavailable(GmailFailure):
    """Gmail could not be reached, timed out, answered 5xx, or sent a body that is not JSON."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the Gmail API is unavailable: {detail}")


class SendFailed(GmailFailure):
    def __init__(self, delivery: Literal["not_sent", "unknown"], message: str) -> None:
        super().__init__(message)
        self.delivery = delivery


class RequestNotSent(ConnectionError):
    """The connection could not be established: the request was never sent (raised by the send transport)."""
