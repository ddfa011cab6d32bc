"""Writing mail: a message composed from the tool's arguments, then sent or saved as a draft."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gmail_mcp.api.client import GmailClient
from gmail_mcp.delivery import Delivery
from gmail_mcp.mail.compose import BuiltMessage, ReplyContext, build_message
from gmail_mcp.mail.parse import parse_full

# What a reply needs from the original; format=metadata keeps a big original from being downloaded.
REPLY_HEADERS = ["Message-ID", "References", "In-Reply-To", "Subject", "From", "Reply-To"]


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


class Sender:
    def __init__(self, client: GmailClient, delivery: Delivery) -> None:
        self.client = client
        self.delivery = delivery

    def reply_context(self, message_id: str) -> ReplyContext:
        """Threading headers and thread id of the message being answered; ApiNotFound if it does not exist."""
        resource = self.client.read(
            lambda users: users.messages().get(
                userId="me", id=message_id, format="metadata", metadataHeaders=REPLY_HEADERS
            ),
            "message",
            message_id,
        )
        return ReplyContext.from_parsed(parse_full(resource, {}))

    def compose(self, outgoing: Outgoing) -> BuiltMessage:
        """The MIME message (a reply fetches the original's threading headers first)."""
        fields: dict[str, Any] = {
            "sender": None,  # Gmail sets From to the authorised account
            "to": outgoing.to,
            "subject": outgoing.subject,
            "body": outgoing.body,
            "cc": outgoing.cc,
            "bcc": outgoing.bcc,
            "html_body": outgoing.html_body,
            "attachments": outgoing.attachments,
        }
        if not outgoing.reply_to_message_id:
            return build_message(**fields)
        return build_message(**fields, reply=self.reply_context(outgoing.reply_to_message_id))

    def send(self, outgoing: Outgoing) -> dict[str, Any]:
        built = self.compose(outgoing)
        done = self.delivery.send_message(built)
        return {
            "id": done.result["id"],
            "thread_id": done.result.get("threadId") or built.thread_id or done.result["id"],
            "message_id": built.message_id,
            "warnings": done.warnings,
        }

    def create_draft(self, outgoing: Outgoing) -> dict[str, Any]:
        built = self.compose(outgoing)
        done = self.delivery.create_draft(built)
        message = done.result.get("message")
        if not isinstance(message, dict):
            message = {}
        return {
            "draft_id": done.result["id"],
            "message_id": str(message.get("id") or ""),
            "thread_id": str(message.get("threadId") or built.thread_id or ""),
            "warnings": done.warnings,
        }
