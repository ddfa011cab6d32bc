"""Failures of message composition. `gmail_mcp.errors` maps them to the contract."""

from __future__ import annotations


class MailError(Exception):
    """Base class of anticipated mail-handling failures."""


class InvalidField(MailError):
    """An argument cannot be used (bad address in `to`, empty subject when required, ...)."""

    def __init__(self, field: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.reason = reason


class AttachmentNotFound(MailError):
    def __init__(self, path: str) -> None:
        super().__init__(f"attachment file not found: {path}")
        self.path = path


class MessageMalformed(MailError):
    """A message from the API cannot be decoded (broken MIME / base64)."""


class NotSendAs(MailError):
    """`from_address` is not one of the account's send-as addresses (Gmail would silently send from another)."""

    def __init__(self, address: str, allowed: list[str]) -> None:
        shown = repr(address) if len(address) <= 100 else repr(address[:99] + "…")
        super().__init__(f"{shown} is not a send-as address of this account; use one of: {', '.join(allowed)}")
        self.address = address
        self.allowed = allowed
