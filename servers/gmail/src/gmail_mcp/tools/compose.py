"""Writing tools: send or forward a message, and the draft lifecycle (create, update, list, send, delete)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from gmail_mcp.accounts import Accounts
from gmail_mcp.drafts import DraftChange
from gmail_mcp.outgoing import Forward, Outgoing
from gmail_mcp.results import CreatedDraft, DeletedDraft, DraftList, SentDraft, SentMessage, UpdatedDraft
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.annotations import DELETE, DRAFT, READ, SEND, UPDATE
from gmail_mcp.tools.arguments import GMAIL_ID_PATTERN, Account, DraftId, MessageId
from gmail_mcp.tools.person import Elicitation

To = Annotated[
    list[str] | str,
    Field(description="addresses (list or comma-separated)"),
]
ReplyTo = Annotated[
    list[str] | str | None, Field(description="addresses (list or comma-separated); omitted in a reply: the sender")
]
Cc = list[str] | str | None  # like `to`; descriptions are kept few: tools/list has a size budget
Body = Annotated[str, Field(description="plain text")]
HtmlBody = Annotated[str | None, Field(description="optional HTML version")]
ReplyToMessageId = Annotated[
    str | None, Field(pattern=GMAIL_ID_PATTERN, description="id of the message answered: threads the reply")
]
Attachments = Annotated[list[str] | None, Field(max_length=100, description="absolute local file paths (25 MB total)")]
ReplyAll = Annotated[bool, Field(description="a reply also goes to the original's To and Cc (not to you)")]
FromAddress = Annotated[str | None, Field(max_length=400, description="one of your send-as addresses")]
Signature = Annotated[bool, Field(description="add the sender's Gmail signature")]
# The same arguments without descriptions, for the tools whose description says "arguments as
# send_email": tools/list has a size budget and the model reads each description once is enough.
PlainId = Annotated[str | None, Field(pattern=GMAIL_ID_PATTERN)]
PlainFiles = Annotated[list[str] | None, Field(max_length=100)]
PlainFrom = Annotated[str | None, Field(max_length=400)]

SEND_EMAIL = (
    "Send an email now (cannot be undone); a reply (reply_to_message_id) stays in its thread. send_failed with "
    "delivery 'not_sent': nothing went out, retry; 'unknown': check Sent first. New recipients need the "
    "person's yes, else permission_denied."
)
SEND_DRAFT = "Send a draft now (cannot be undone). send_failed as for send_email."
FORWARD_EMAIL = (
    "Forward a message now (cannot be undone) as Gmail does: body, then the original with its attachments. "
    "send_failed as for send_email."
)
UPDATE_DRAFT = (
    "Change a draft (arguments as send_email): fields not given keep their value; its attachments "
    "(attachments adds files) and thread stay."
)


def register(server: ContractServer, accounts: Accounts) -> None:
    @server.tool(annotations=READ)
    def list_drafts(
        max_results: Annotated[int, Field(ge=1, le=100)] = 20,
        page_token: Annotated[str | None, Field(max_length=1000, description="from the last page")] = None,
        account: Account = None,
    ) -> DraftList:
        """List drafts, newest first: draft id, recipients, subject and snippet."""
        with accounts.reading(account) as mail:
            return mail.drafts.list(max_results, page_token)

    @server.tool(annotations=SEND, description=SEND_EMAIL)
    def send_email(
        subject: str,
        body: Body,
        to: ReplyTo = None,
        cc: Cc = None,
        bcc: Cc = None,
        html_body: HtmlBody = None,
        reply_to_message_id: ReplyToMessageId = None,
        attachments: Attachments = None,
        reply_all: ReplyAll = False,
        from_address: FromAddress = None,
        signature: Signature = True,
        account: Account = None,
        *,
        ctx: Context,
    ) -> SentMessage:
        outgoing = Outgoing(
            to=to, subject=subject, body=body, cc=cc, bcc=bcc, html_body=html_body,
            reply_to_message_id=reply_to_message_id, attachments=attachments, reply_all=reply_all,
            from_address=from_address, signature=signature
        )  # fmt: skip
        with accounts.writing(account) as mail:
            return mail.sender.send(outgoing, Elicitation(ctx))

    @server.tool(annotations=DRAFT)
    def create_draft(
        subject: str,
        body: str,
        to: Cc = None,
        cc: Cc = None,
        bcc: Cc = None,
        html_body: str | None = None,
        reply_to_message_id: PlainId = None,
        attachments: PlainFiles = None,
        reply_all: bool = False,
        from_address: PlainFrom = None,
        signature: bool = True,
        account: Account = None,
    ) -> CreatedDraft:
        """Save a message as a draft (arguments as send_email); send it later with send_draft."""
        outgoing = Outgoing(
            to=to, subject=subject, body=body, cc=cc, bcc=bcc, html_body=html_body,
            reply_to_message_id=reply_to_message_id, attachments=attachments, reply_all=reply_all,
            from_address=from_address, signature=signature
        )  # fmt: skip
        with accounts.writing(account) as mail:
            return mail.drafts.create(outgoing)

    @server.tool(annotations=SEND, description=FORWARD_EMAIL)
    def forward_email(
        message_id: MessageId,
        to: To,
        cc: Cc = None,
        bcc: Cc = None,
        body: Annotated[str, Field(description="your note above the forwarded message")] = "",
        include_attachments: bool = True,
        from_address: FromAddress = None,
        signature: Signature = True,
        account: Account = None,
        *,
        ctx: Context,
    ) -> SentMessage:
        forward = Forward(
            message_id=message_id, to=to, cc=cc, bcc=bcc, body=body, include_attachments=include_attachments,
            from_address=from_address, signature=signature
        )  # fmt: skip
        with accounts.writing(account) as mail:
            return mail.sender.forward(forward, Elicitation(ctx))

    @server.tool(annotations=UPDATE, description=UPDATE_DRAFT)
    def update_draft(
        draft_id: DraftId,
        to: Cc = None,
        subject: str | None = None,
        body: str | None = None,
        cc: Cc = None,
        bcc: Cc = None,
        html_body: str | None = None,
        reply_to_message_id: PlainId = None,
        attachments: PlainFiles = None,
        reply_all: bool = False,
        from_address: PlainFrom = None,
        signature: bool = True,
        account: Account = None,
    ) -> UpdatedDraft:
        change = DraftChange(
            to=to, subject=subject, body=body, cc=cc, bcc=bcc, html_body=html_body,
            reply_to_message_id=reply_to_message_id, attachments=attachments, reply_all=reply_all,
            from_address=from_address, signature=signature
        )  # fmt: skip
        with accounts.writing(account) as mail:
            return mail.drafts.update(draft_id, change)

    @server.tool(annotations=SEND, description=SEND_DRAFT)
    def send_draft(draft_id: DraftId, account: Account = None, *, ctx: Context) -> SentDraft:
        with accounts.writing(account) as mail:
            return mail.drafts.send(draft_id, Elicitation(ctx))

    @server.tool(annotations=DELETE)
    def delete_draft(draft_id: DraftId, account: Account = None) -> DeletedDraft:
        """Delete a draft for good (Gmail keeps no deleted drafts)."""
        with accounts.writing(account) as mail:
            return mail.drafts.delete(draft_id)
