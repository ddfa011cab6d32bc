"""Read tools: search, read a message or a thread, download an attachment."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gmail_mcp.accounts import Accounts
from gmail_mcp.results import AttachmentText, Email, SavedAttachment, SearchResult, Thread, lean_optional
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.annotations import READ, SAVE
from gmail_mcp.tools.arguments import Account, AttachmentId, MessageId, ThreadId

MaxBody = Annotated[int, Field(ge=1, le=200_000, description="body characters to return at most")]


def register(server: ContractServer, accounts: Accounts) -> None:
    @server.tool(annotations=READ)
    def search_emails(
        query: Annotated[str, Field(max_length=2000, description="Gmail search syntax, e.g. 'from:ann is:unread'")],
        max_results: Annotated[int, Field(ge=1, le=100)] = 20,
        page_token: Annotated[
            str | None, Field(description="from the last page", json_schema_extra=lean_optional)
        ] = None,
        include_spam_trash: bool = False,
        account: Account = None,
    ) -> SearchResult:
        """Search messages with Gmail's query syntax; returns summaries (sender, subject, date, snippet, labels)."""
        with accounts.reading(account) as mail:
            return mail.reader.search(query, max_results, page_token, include_spam_trash)

    @server.tool(annotations=READ)
    def get_email(
        message_id: MessageId,
        max_body_chars: MaxBody = 20_000,
        body_offset: Annotated[int, Field(ge=0)] = 0,
        account: Account = None,
    ) -> Email:
        """Read one message: headers, the body as plain text (HTML converted), attachment list; long bodies page."""
        with accounts.reading(account) as mail:
            return mail.reader.email(message_id, body_offset, max_body_chars)

    @server.tool(annotations=READ)
    def get_thread(thread_id: ThreadId, max_body_chars: MaxBody = 5_000, account: Account = None) -> Thread:
        """A whole conversation, oldest first; bodies are cut at max_body_chars (get_email reads on)."""
        with accounts.reading(account) as mail:
            return mail.reader.thread(thread_id, max_body_chars)

    @server.tool(annotations=SAVE, kept_read_only=True)  # writes a local file, never the mailbox
    def download_attachment(
        message_id: MessageId, attachment_id: AttachmentId, account: Account = None
    ) -> SavedAttachment:
        """Save an attachment in the download folder (GMAIL_MCP_DOWNLOAD_DIR) under a new, safe file name."""
        with accounts.reading(account) as mail:
            return mail.reader.save_attachment(message_id, attachment_id)

    @server.tool(annotations=READ)
    def read_attachment(
        message_id: MessageId,
        attachment_id: AttachmentId,
        offset: Annotated[int, Field(ge=0, description="from next_offset")] = 0,
        max_chars: Annotated[int, Field(ge=1, le=200_000)] = 20_000,
        account: Account = None,
    ) -> AttachmentText:
        """An attachment's text: PDF (by page), DOCX, XLSX, PPTX, ODT, HTML, CSV, text, attached mail; pages."""
        with accounts.reading(account) as mail:
            return mail.reader.read_attachment(message_id, attachment_id, offset, max_chars)
