"""Failures of reading a document as text. `gmail_mcp.errors` maps them to the contract."""

from __future__ import annotations


class DocumentError(Exception):
    """A document that cannot be read as text; `reason` is the contract's `details.reason`."""

    reason = "corrupt"


class UnsupportedDocument(DocumentError):
    """Not a kind of document this server reads (an image, an archive, a legacy .doc, ...)."""

    reason = "unsupported_type"

    def __init__(self, mime_type: str) -> None:
        super().__init__(f"documents of type {mime_type} cannot be read as text")
        self.mime_type = mime_type


class EncryptedDocument(DocumentError):
    """Encrypted, and opening it needs a password (a PDF with an owner password only is read as readers do)."""

    reason = "encrypted"

    def __init__(self) -> None:
        super().__init__("the document is encrypted and needs a password to be opened")


class UnreadableDocument(DocumentError):
    """Corrupt, truncated or hostile (a zip bomb, a page tree no reader needs): `reason` says which."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
