"""Argument types shared by the tool modules, validated before any request leaves the server."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gmail_mcp.results import lean_optional

# Gmail's message and thread ids are hexadecimal (16 digits today). Checking the shape up front
# keeps a caller's string from ever becoming part of a request line or a batch part header.
GMAIL_ID_PATTERN = r"^[0-9a-fA-F]{1,64}$"

HexId = Annotated[str, Field(pattern=GMAIL_ID_PATTERN)]  # a message or thread id, where the field says which
MessageId = Annotated[str, Field(pattern=GMAIL_ID_PATTERN, description="id from search_emails")]
ThreadId = Annotated[str, Field(pattern=GMAIL_ID_PATTERN, description="thread_id from search_emails")]
# Draft ids ("r" and digits today) and attachment ids (long base64url) are URL-safe tokens.
DraftId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,256}$", description="draft id from list_drafts")]
ATTACHMENT_ID_PATTERN = r"^[A-Za-z0-9_-]{1,4096}$"
AttachmentId = Annotated[str, Field(pattern=ATTACHMENT_ID_PATTERN, description="attachment id from get_email")]


# Every tool takes it: an account's name or address (list_accounts); None is the default account. Its shape is
# checked where it is resolved (`Accounts.resolve`). The schema is a bare string, explained once by
# list_accounts's description: tools/list has a size budget.
Account = Annotated[str | None, Field(json_schema_extra=lean_optional)]
