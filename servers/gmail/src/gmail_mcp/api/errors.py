"""Failures of the Gmail API and of authorisation, classified. `gmail_mcp.errors` maps them to the contract."""

from __future__ import annotations

from typing import Literal

AuthReason = Literal["no_token", "expired", "revoked", "insufficient_scope", "unknown_account"]


class GmailFailure(Exception):
    """Base class of anticipated Gmail-side failures."""


class AuthRequired(GmailFailure):
    def __init__(self, reason: AuthReason, message: str, account: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        # The account to authorise again; None until the account's own context (accounts.Accounts) names it.
        self.account = account


class UnknownAccount(AuthRequired):
    """The `account` a call names (or GMAIL_MCP_ACCOUNT) has no stored token; `known` are the accounts that do."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__("unknown_account", f"no Gmail account is called {name!r}", account=name)
        self.known = known


class ReadOnlyAccount(GmailFailure):
    """A write to an account whose token allows reading only (gmail.readonly)."""

    def __init__(self, account: str) -> None:
        super().__init__(f"the account {account!r} is authorised read-only; it cannot be changed")
        self.account = account


class ApiNotFound(GmailFailure):
    def __init__(self, resource: str, id: str) -> None:
        super().__init__(f"{resource} not found: {id}")
        self.resource = resource
        self.id = id


class RateLimited(GmailFailure):
    def __init__(self, retry_after_seconds: int) -> None:
        super().__init__(f"Gmail is rate limiting requests; wait {retry_after_seconds} s and try again")
        self.retry_after_seconds = retry_after_seconds


class ApiConflict(GmailFailure):
    """The thing to create exists already (Gmail's 409, or a duplicate found first)."""

    def __init__(self, resource: str, name: str, id: str | None = None) -> None:
        super().__init__(f"{resource} already exists: {name}")
        self.resource = resource
        self.name = name
        self.id = id


class SystemLabel(GmailFailure):
    """A system label (INBOX, SENT, ...) cannot be renamed or deleted, nor its name taken."""

    def __init__(self, label_id: str) -> None:
        super().__init__(f"{label_id} is a system label: it cannot be renamed or deleted, nor its name taken")
        self.label_id = label_id


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
