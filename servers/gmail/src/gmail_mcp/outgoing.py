"""A message as the caller describes it, composed into MIME (for sending now, or saving as a draft)."""

from __future__ import annotations

from dataclasses import dataclass

from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.mail.compose import BuiltMessage, ReplyContext, build_message
from gmail_mcp.mail.parse import parse_full

# What a reply needs from the original; format=metadata keeps a big original from being downloaded.
REPLY_HEADERS = ("Message-ID", "References", "In-Reply-To", "Subject", "From", "Reply-To")


@dataclass(frozen=True)
class Outgoing:
    """A message as the caller describes it (the arguments of send_email / create_draft)."""

    to: str | list[str] | None
    subject: str
    body: str
    cc: str | list[str] | None = None
    bcc: str | list[str] | None = None
    html_body: str | None = None
    reply_to_message_id: str | None = None
    attachments: list[str] | None = None


class Composer:
    def __init__(self, mailbox: MailboxApi) -> None:
        self.mailbox = mailbox

    def compose(self, outgoing: Outgoing) -> BuiltMessage:
        """The MIME message; a reply fetches the original's threading headers first (ApiNotFound if it is gone)."""
        reply = None
        if outgoing.reply_to_message_id:
            original = self.mailbox.get_message_headers(outgoing.reply_to_message_id, REPLY_HEADERS)
            reply = ReplyContext.from_parsed(parse_full(original, {}))
        return build_message(
            sender=None,  # Gmail sets From to the authorised account
            to=outgoing.to,
            subject=outgoing.subject,
            body=outgoing.body,
            cc=outgoing.cc,
            bcc=outgoing.bcc,
            html_body=outgoing.html_body,
            attachments=outgoing.attachments,
            reply=reply,
        )
