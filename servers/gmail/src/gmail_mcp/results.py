"""The typed result of every domain operation: exactly what its tool answers on the wire.

Each operation of the domain (reader, labels, organizer, sender, drafts) returns one of these with
its warnings already attached; the tools return them as they are. Field names are the wire's
(specs/contracts/gmail-tools.json). No class here has a docstring: pydantic would copy it into the
tool's outputSchema.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from gmail_mcp.mail.parse import MessageSummary
from gmail_mcp.models import ToolWarning

__all__ = [
    "AttachmentInfo",
    "CreatedDraft",
    "DeletedDraft",
    "DraftList",
    "DraftSummary",
    "Email",
    "Label",
    "ListLabelsResult",
    "MessageSummary",
    "Modified",
    "SavedAttachment",
    "SearchResult",
    "SentDraft",
    "SentMessage",
    "Thread",
    "Trashed",
]

# --- reading --------------------------------------------------------------------------------------


class SearchResult(BaseModel):
    messages: list[MessageSummary]  # mail.parse's own list view of a message
    next_page_token: str | None
    result_size_estimate: int
    warnings: list[ToolWarning] = Field(default_factory=list)


class AttachmentInfo(BaseModel):
    attachment_id: str | None
    filename: str
    mime_type: str
    size: int
    inline: bool = Field(description="part of the body's layout (e.g. a logo) rather than a file attached")


class Email(BaseModel):
    model_config = ConfigDict(validate_by_name=True)

    id: str
    thread_id: str
    from_: str = Field(alias="from")
    to: str
    cc: str
    bcc: str | None
    reply_to: str | None
    subject: str
    date: str | None
    labels: list[str]
    unread: bool
    message_id: str
    body: str
    truncated: bool
    next_body_offset: int | None
    attachments: list[AttachmentInfo]
    warnings: list[ToolWarning] = Field(default_factory=list)


class Thread(BaseModel):
    thread_id: str
    messages: list[Email]


class SavedAttachment(BaseModel):
    path: str
    filename: str
    size: int
    mime_type: str


# --- labels ---------------------------------------------------------------------------------------


class Label(BaseModel):
    id: str
    name: str
    type: str
    messages_unread: int | None
    messages_total: int | None


class ListLabelsResult(BaseModel):
    labels: list[Label]
    warnings: list[ToolWarning] = Field(default_factory=list)


# --- organising -----------------------------------------------------------------------------------


class Modified(BaseModel):
    modified: list[str]
    warnings: list[ToolWarning] = Field(default_factory=list)


class Trashed(BaseModel):
    trashed: list[str]
    warnings: list[ToolWarning] = Field(default_factory=list)


# --- sending and drafts ---------------------------------------------------------------------------


class SentMessage(BaseModel):
    id: str
    thread_id: str
    message_id: str = Field(description="the Message-ID header the message was sent with")
    warnings: list[ToolWarning] = Field(default_factory=list)


class CreatedDraft(BaseModel):
    draft_id: str
    message_id: str = Field(description="Gmail's id of the draft's message")
    thread_id: str
    warnings: list[ToolWarning] = Field(default_factory=list)


class DraftSummary(BaseModel):
    draft_id: str
    message_id: str
    to: str
    subject: str
    snippet: str


class DraftList(BaseModel):
    drafts: list[DraftSummary]
    next_page_token: str | None
    warnings: list[ToolWarning] = Field(default_factory=list)


class SentDraft(BaseModel):
    id: str
    thread_id: str
    warnings: list[ToolWarning] = Field(default_factory=list)


class DeletedDraft(BaseModel):
    deleted: str
