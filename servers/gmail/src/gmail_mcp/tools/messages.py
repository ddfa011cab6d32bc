"""Read tools: search, read a message or a thread, download an attachment."""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from gmail_mcp.mail.parse import ParsedEmail, slice_body
from gmail_mcp.models import ToolWarning
from gmail_mcp.reader import MailReader
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.arguments import AttachmentId, MessageId, ThreadId

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
SAVE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)

MaxBody = Annotated[int, Field(ge=1, le=200_000, description="body characters to return at most")]


class MessageSummary(BaseModel):
    id: str
    thread_id: str
    from_: str = Field(alias="from")
    to: str
    subject: str
    date: str | None
    snippet: str
    labels: list[str]
    unread: bool
    has_attachments: bool = Field(description="from the message's MIME type: multipart/mixed")


class SearchResult(BaseModel):
    messages: list[MessageSummary]
    next_page_token: str | None
    result_size_estimate: int
    warnings: list[ToolWarning] = Field(default_factory=list)


class AttachmentInfo(BaseModel):
    attachment_id: str | None
    filename: str
    mime_type: str
    size: int


class Email(BaseModel):
    id: str
    thread_id: str
    from_: str = Field(alias="from")
    to: str
    cc: str
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


def email_view(parsed: ParsedEmail, offset: int, max_chars: int) -> Email:
    body, next_offset = slice_body(parsed.body, offset, max_chars)
    view = Email.model_validate(
        {
            **parsed.to_dict(),
            "body": body,
            "truncated": next_offset is not None,
            "next_body_offset": next_offset,
            "attachments": [a.to_dict() for a in parsed.attachments],
        }
    )
    if next_offset is not None:
        view.warnings.append(
            ToolWarning(
                code="CONTENT_TRUNCATED",
                message=f"body cut at {len(body)} of {len(parsed.body)} characters; "
                f"call get_email with body_offset={next_offset} for more",
                next_body_offset=next_offset,
            )
        )
    if parsed.body_incomplete:
        view.warnings.append(
            ToolWarning(
                code="CONTENT_DROPPED", message="parts of the body could not be decoded", problems=parsed.problems[:10]
            )
        )
    return view


def register(server: ContractServer, reader: MailReader) -> None:
    @server.tool(annotations=READ)
    def search_emails(
        query: Annotated[str, Field(max_length=2000, description="Gmail search syntax, e.g. 'from:ann is:unread'")],
        max_results: Annotated[int, Field(ge=1, le=100)] = 20,
        page_token: Annotated[str | None, Field(description="next_page_token of the previous page")] = None,
        include_spam_trash: bool = False,
    ) -> SearchResult:
        """Search messages with Gmail's query syntax; returns summaries (sender, subject, date, snippet, labels)."""
        found, failed, next_token, estimate = reader.search(query, max_results, page_token, include_spam_trash)
        result = SearchResult.model_validate(
            {"messages": found, "next_page_token": next_token, "result_size_estimate": estimate}
        )
        if failed:
            result.warnings.append(
                ToolWarning(
                    code="PARTIAL_RESULTS",
                    message=f"{len(failed)} matching messages could not be fetched and are left out",
                    message_ids=failed,
                )
            )
        return result

    @server.tool(annotations=READ)
    def get_email(
        message_id: MessageId, max_body_chars: MaxBody = 20_000, body_offset: Annotated[int, Field(ge=0)] = 0
    ) -> Email:
        """Read one message: headers, the body as plain text (HTML converted), attachment list; long bodies page."""
        return email_view(reader.message(message_id), body_offset, max_body_chars)

    @server.tool(annotations=READ)
    def get_thread(thread_id: ThreadId, max_body_chars: MaxBody = 5_000) -> Thread:
        """Read a whole conversation, oldest first; each body is cut at max_body_chars (use get_email for more)."""
        messages = [email_view(parsed, 0, max_body_chars) for parsed in reader.thread(thread_id)]
        return Thread(thread_id=thread_id, messages=messages)

    @server.tool(annotations=SAVE, kept_read_only=True)  # writes a local file, never the mailbox
    def download_attachment(message_id: MessageId, attachment_id: AttachmentId) -> SavedAttachment:
        """Save an attachment into the download folder (GMAIL_MCP_DOWNLOAD_DIR) under a safe, unused file name."""
        return SavedAttachment.model_validate(reader.download(message_id, attachment_id))
