"""Writing tools: send a message, and the draft lifecycle (create, list, send, delete)."""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

from gmail_mcp.drafts import Drafts
from gmail_mcp.outgoing import Outgoing
from gmail_mcp.results import CreatedDraft, DeletedDraft, DraftList, SentDraft, SentMessage
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.sender import Sender
from gmail_mcp.tools.arguments import GMAIL_ID_PATTERN, DraftId

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
# Sending cannot be undone: "destructive" in the sense of irreversible, and never idempotent.
SEND = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)
DRAFT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)
DELETE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True)

To = Annotated[
    list[str] | str,
    Field(description="addresses: a list or one comma-separated string; [] in a reply answers the sender"),
]
Cc = list[str] | str | None  # like `to`; descriptions are kept few: tools/list has a size budget
Body = Annotated[str, Field(description="plain text")]
HtmlBody = Annotated[str | None, Field(description="optional HTML version")]
ReplyToMessageId = Annotated[
    str | None, Field(pattern=GMAIL_ID_PATTERN, description="id of the message answered: threads the reply")
]
Attachments = Annotated[list[str] | None, Field(max_length=100, description="absolute local file paths (25 MB total)")]

SEND_EMAIL = (
    "Send an email now (cannot be undone). A reply (reply_to_message_id) stays in the original's thread with one "
    "'Re:'. Never sent twice: on send_failed, delivery 'not_sent' means nothing went out (safe to retry), "
    "'unknown' means check Sent (search_emails 'in:sent') before sending again."
)
SEND_DRAFT = "Send a draft now (cannot be undone). send_failed as for send_email."


def register(server: ContractServer, sender: Sender, drafts: Drafts) -> None:
    @server.tool(annotations=READ)
    def list_drafts(
        max_results: Annotated[int, Field(ge=1, le=100)] = 20,
        page_token: Annotated[
            str | None, Field(max_length=1000, description="next_page_token of the last page")
        ] = None,
    ) -> DraftList:
        """List drafts, newest first: draft id, recipients, subject and snippet."""
        return drafts.list(max_results, page_token)

    @server.tool(annotations=SEND, description=SEND_EMAIL)
    def send_email(
        to: To,
        subject: str,
        body: Body,
        cc: Cc = None,
        bcc: Cc = None,
        html_body: HtmlBody = None,
        reply_to_message_id: ReplyToMessageId = None,
        attachments: Attachments = None,
    ) -> SentMessage:
        outgoing = Outgoing(to, subject, body, cc, bcc, html_body, reply_to_message_id, attachments)
        return sender.send(outgoing)

    @server.tool(annotations=DRAFT)
    def create_draft(
        to: To,
        subject: str,
        body: Body,
        cc: Cc = None,
        bcc: Cc = None,
        html_body: HtmlBody = None,
        reply_to_message_id: ReplyToMessageId = None,
        attachments: Attachments = None,
    ) -> CreatedDraft:
        """Save a message as a draft (arguments as send_email); send it later with send_draft."""
        outgoing = Outgoing(to, subject, body, cc, bcc, html_body, reply_to_message_id, attachments)
        return drafts.create(outgoing)

    @server.tool(annotations=SEND, description=SEND_DRAFT)
    def send_draft(draft_id: DraftId) -> SentDraft:
        return drafts.send(draft_id)

    @server.tool(annotations=DELETE)
    def delete_draft(draft_id: DraftId) -> DeletedDraft:
        """Delete a draft for good (Gmail keeps no deleted drafts)."""
        return drafts.delete(draft_id)
