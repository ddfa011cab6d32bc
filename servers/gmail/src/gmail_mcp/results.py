"""The typed result of every domain operation: exactly what its tool answers on the wire.

Each operation of the domain (reader, labels, organizer, sender, drafts) returns one of these with
its warnings already attached; the tools return them as they are. Field names are the wire's
(specs/contracts/gmail-tools.json). No class here has a docstring: pydantic would copy it into the
tool's outputSchema.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from gmail_mcp.mail.parse import MessageSummary
from gmail_mcp.models import ToolWarning

__all__ = [
    "AccountInfo",
    "AccountList",
    "AttachmentInfo",
    "AttachmentText",
    "CreatedDraft",
    "DeletedDraft",
    "DraftList",
    "DraftSummary",
    "Email",
    "Filter",
    "FilterAction",
    "FilterCriteria",
    "FilterList",
    "Label",
    "LabelRef",
    "ListLabelsResult",
    "ManagedFilter",
    "ManagedLabel",
    "MessageSummary",
    "Modified",
    "SampleMessage",
    "SavedAttachment",
    "SearchResult",
    "SentDraft",
    "SentMessage",
    "Thread",
    "Trashed",
    "UpdatedDraft",
]


# The warnings of an answer (specs/data-model.md, "Warning"). Their schema names only the keys every warning
# has: the full ToolWarning definition in every tool's outputSchema cost ~10% of tools/list.
Warnings = Annotated[
    list[ToolWarning], WithJsonSchema({"items": {"required": ["code", "message"], "type": "object"}, "type": "array"})
]


def lean_optional(schema: dict[str, Any]) -> None:
    """The schema of an optional field without its `null` arm and `null` default: not being required already
    says it may be absent (tools/list has a size budget). Values are validated by the type as written."""
    arms = schema.get("anyOf")
    if isinstance(arms, list):
        kept = [arm for arm in arms if arm != {"type": "null"}]
        if len(kept) == 1:
            del schema["anyOf"]
            schema.update(kept[0])
    if "default" in schema and schema["default"] is None:
        del schema["default"]


def _omitted(value: object) -> bool:
    return value is None


def _optional(description: str | None = None, alias: str | None = None) -> Any:
    """A field left out of the answer when it does not apply (None): e.g. the query fields of modify_labels."""
    return Field(
        default=None, alias=alias, exclude_if=_omitted, description=description, json_schema_extra=lean_optional
    )


# --- reading --------------------------------------------------------------------------------------


class SearchResult(BaseModel):
    messages: list[MessageSummary]  # mail.parse's own list view of a message
    next_page_token: str | None
    result_size_estimate: int
    warnings: Warnings = Field(default_factory=list)


class AttachmentInfo(BaseModel):
    attachment_id: str | None
    filename: str
    mime_type: str
    size: int
    inline: bool = Field(description="part of the body's layout (e.g. a logo) rather than a file attached")
    readable: bool = Field(description="read_attachment can give its text")


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
    warnings: Warnings = Field(default_factory=list)


class Thread(BaseModel):
    thread_id: str
    messages: list[Email]


class AttachmentText(BaseModel):
    filename: str
    mime_type: str
    size: int = Field(description="bytes")
    text: str
    pages: int | None = _optional("a PDF's page count")
    total_chars: int
    next_offset: int | None
    warnings: Warnings = Field(default_factory=list)


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
    warnings: Warnings = Field(default_factory=list)


class LabelRef(BaseModel):
    id: str
    name: str


class ManagedLabel(BaseModel):
    label: LabelRef | None = _optional()
    deleted: str | None = _optional("the deleted label's id")


# --- filters --------------------------------------------------------------------------------------


class FilterCriteria(BaseModel):
    model_config = ConfigDict(validate_by_name=True, extra="forbid")

    from_: str | None = _optional(alias="from")
    to: str | None = _optional()
    subject: str | None = _optional()
    query: str | None = _optional("Gmail search syntax")
    negated_query: str | None = _optional()
    has_attachment: bool | None = _optional()
    size_larger: int | None = _optional("bytes")
    size_smaller: int | None = _optional("bytes")


class FilterAction(BaseModel):
    add: list[str]
    remove: list[str]
    mark_read: bool
    archive: bool
    forward: str | None = _optional("never set by this server")


class Filter(BaseModel):
    id: str
    criteria: FilterCriteria
    action: FilterAction


class FilterList(BaseModel):
    filters: list[Filter]
    warnings: Warnings = Field(default_factory=list)


class ManagedFilter(BaseModel):
    filter: Filter | None = _optional()
    deleted: str | None = _optional("the deleted filter's id")


# --- accounts -------------------------------------------------------------------------------------


class AccountInfo(BaseModel):
    name: str
    email: str | None
    read_only: bool


class AccountList(BaseModel):
    accounts: list[AccountInfo]
    default_account: str = Field(description="used when a tool gets no account")
    warnings: Warnings = Field(default_factory=list)


# --- organising -----------------------------------------------------------------------------------


class SampleMessage(BaseModel):
    model_config = ConfigDict(validate_by_name=True)

    id: str
    from_: str = Field(alias="from")
    subject: str
    date: str | None


class Modified(BaseModel):
    modified: list[str] | int = Field(description="the ids changed; with query, how many")
    matched: int | None = _optional()
    dry_run: bool | None = _optional()
    truncated: bool | None = _optional("more matched than max_messages")
    sample: list[SampleMessage] | None = _optional()
    warnings: Warnings = Field(default_factory=list)


class Trashed(BaseModel):
    trashed: list[str] | int = Field(description="the ids trashed; with query, how many")
    matched: int | None = _optional()
    dry_run: bool | None = _optional()
    truncated: bool | None = _optional("more matched than max_messages")
    sample: list[SampleMessage] | None = _optional()
    warnings: Warnings = Field(default_factory=list)


# --- sending and drafts ---------------------------------------------------------------------------


class SentMessage(BaseModel):
    id: str
    thread_id: str
    message_id: str = Field(description="the Message-ID header the message was sent with")
    warnings: Warnings = Field(default_factory=list)


class CreatedDraft(BaseModel):
    draft_id: str
    message_id: str = Field(description="Gmail's id of the draft's message")
    thread_id: str
    warnings: Warnings = Field(default_factory=list)


class DraftSummary(BaseModel):
    draft_id: str
    message_id: str
    to: str
    subject: str
    snippet: str


class DraftList(BaseModel):
    drafts: list[DraftSummary]
    next_page_token: str | None
    warnings: Warnings = Field(default_factory=list)


class SentDraft(BaseModel):
    id: str
    thread_id: str
    warnings: Warnings = Field(default_factory=list)


class DeletedDraft(BaseModel):
    deleted: str


class UpdatedDraft(BaseModel):
    draft_id: str
    message_id: str = Field(description="Gmail's id of the draft's new message")
    thread_id: str
    warnings: Warnings = Field(default_factory=list)
