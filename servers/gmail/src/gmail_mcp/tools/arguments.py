"""Argument types shared by the tool modules, validated before any request leaves the server."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

# Gmail's message and thread ids are hexadecimal (16 digits today). Checking the shape up front
# keeps a caller's string from ever becoming part of a request line or a batch part header.
GMAIL_ID_PATTERN = r"^[0-9a-fA-F]{1,64}$"

MessageId = Annotated[str, Field(pattern=GMAIL_ID_PATTERN, description="message id from search_emails (hexadecimal)")]
ThreadId = Annotated[str, Field(pattern=GMAIL_ID_PATTERN, description="thread id from search_emails (hexadecimal)")]
# Draft ids ("r" and digits today) and attachment ids (long base64url) are URL-safe tokens.
DraftId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,256}$", description="draft id from list_drafts")]
AttachmentId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,4096}$", description="attachment id from get_email")]
