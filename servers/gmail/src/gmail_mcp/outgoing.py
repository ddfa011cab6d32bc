"""A message as the caller describes it, composed into MIME (for sending now, or saving as a draft),
and a forward of a message in the mailbox.

Every argument that can be checked without Gmail is checked before the first request. Recipients
come only from the arguments and, for a reply, from the original's headers: a forward takes none
from the message it forwards, and nothing is ever read out of a message body.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gmail_mcp import warnings
from gmail_mcp.api.errors import ApiUnavailable, GmailFailure
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.mail.compose import (
    BuiltMessage,
    CarriedPart,
    ForwardedOriginal,
    ReplyContext,
    Signature,
    build_message,
    check_attachments,
    check_carried_size,
    check_recipients,
    forward_subject,
)
from gmail_mcp.mail.parse import PartRef, message_content, parse_full
from gmail_mcp.mail.text import decode_base64url, decode_bytes
from gmail_mcp.models import ToolWarning
from gmail_mcp.sendas import SendAs, SendAsAddress

# What a reply needs from the original; format=metadata keeps a big original from being downloaded.
REPLY_HEADERS = ("Message-ID", "References", "In-Reply-To", "Subject", "From", "Reply-To", "To", "Cc")

Recipients = str | list[str] | None


@dataclass(frozen=True, kw_only=True)
class Outgoing:
    """A message as the caller describes it (the arguments of send_email / create_draft)."""

    to: Recipients
    subject: str
    body: str
    cc: Recipients = None
    bcc: Recipients = None
    html_body: str | None = None
    reply_to_message_id: str | None = None
    attachments: list[str] | None = None
    reply_all: bool = False
    from_address: str | None = None
    signature: bool = True


@dataclass(frozen=True, kw_only=True)
class Forward:
    """A forward as the caller describes it (the arguments of forward_email)."""

    message_id: str
    to: Recipients
    cc: Recipients = None
    bcc: Recipients = None
    body: str = ""
    include_attachments: bool = True
    from_address: str | None = None
    signature: bool = True


@dataclass(frozen=True)
class Composed:
    """A composed message and what the caller should know about how it was made."""

    built: BuiltMessage
    warnings: list[ToolWarning] = field(default_factory=list)


class Carrier:
    """Gets the bytes of parts of one message to carry into another, each attachment fetched once."""

    def __init__(self, mailbox: MailboxApi, message_id: str) -> None:
        self.mailbox = mailbox
        self.message_id = message_id
        self._fetched: dict[str, bytes] = {}

    def fetch(self, attachment_id: str) -> bytes:
        if attachment_id not in self._fetched:
            data = self.mailbox.get_attachment(self.message_id, attachment_id)
            decoded = decode_base64url(data) if data is not None else None
            if decoded is None:
                raise ApiUnavailable("Gmail sent attachment data that is not base64")
            self._fetched[attachment_id] = decoded
        return self._fetched[attachment_id]

    def carry(self, parts: list[PartRef]) -> tuple[list[CarriedPart], list[str]]:
        """(the parts with their bytes, the names of those whose bytes Gmail does not give out)."""
        carried: list[CarriedPart] = []
        dropped: list[str] = []
        for part in parts:
            if part.data is not None:
                data = part.data
            elif part.attachment_id is not None:
                data = self.fetch(part.attachment_id)
            else:  # e.g. an attached message Gmail only shows expanded
                dropped.append(part.filename or part.mime_type)
                continue
            carried.append(
                CarriedPart(
                    data=data,
                    mime_type=part.mime_type,
                    filename=part.filename,
                    inline=part.inline,
                    content_id=part.content_id,
                    charset=part.charset,
                )
            )
        return carried, dropped


class Composer:
    def __init__(self, mailbox: MailboxApi, send_as: SendAs | None = None) -> None:
        self.mailbox = mailbox
        self.send_as = send_as if send_as is not None else SendAs(mailbox)

    # -- who it is from ------------------------------------------------------------------------------
    def identity(self, from_address: str | None) -> SendAsAddress | None:
        """The send-as address named (NotSendAs when it is not one), else the account's default."""
        return self.send_as.resolve(from_address) if from_address else self.send_as.default()

    def signature(self, identity: SendAsAddress | None, wanted: bool) -> Signature | None:
        return identity.signature() if wanted and identity is not None else None

    def reply_context(self, message_id: str) -> ReplyContext:
        """The original's threading and address headers (ApiNotFound if it is gone)."""
        original = self.mailbox.get_message_headers(message_id, REPLY_HEADERS, "reply_to_message_id")
        return ReplyContext.from_parsed(parse_full(original, {}))

    # -- composing -----------------------------------------------------------------------------------
    def compose(self, outgoing: Outgoing) -> BuiltMessage:
        """The MIME message; a reply fetches the original's headers first (ApiNotFound if it is gone)."""
        check_recipients(
            outgoing.to,
            outgoing.cc,
            outgoing.bcc,
            reply=bool(outgoing.reply_to_message_id),
            reply_all=outgoing.reply_all,
        )
        check_attachments(outgoing.attachments)
        identity = self.identity(outgoing.from_address) if outgoing.from_address or outgoing.signature else None
        reply = self.reply_context(outgoing.reply_to_message_id) if outgoing.reply_to_message_id else None
        return build_message(
            sender=identity.from_header() if outgoing.from_address and identity else None,  # else Gmail's default
            to=outgoing.to,
            subject=outgoing.subject,
            body=outgoing.body,
            cc=outgoing.cc,
            bcc=outgoing.bcc,
            html_body=outgoing.html_body,
            attachments=outgoing.attachments,
            reply=reply,
            reply_all=outgoing.reply_all,
            own_addresses=self.send_as.own() if reply is not None else frozenset(),
            signature=self.signature(identity, outgoing.signature),
        )

    def compose_forward(self, forward: Forward) -> Composed:
        """The forward of a message: Gmail's forwarded-message block under the caller's note, the original's
        HTML when it had one, its attachments byte for byte (each fetched once) unless left out.

        Attachments over Gmail's limit are refused (parse_error, `include_attachments`) before any is
        fetched. The forward stays in the original's thread, as Gmail's own forwards do.
        """
        check_recipients(forward.to, forward.cc, forward.bcc, reply=False)
        identity = self.identity(forward.from_address) if forward.from_address or forward.signature else None
        resource = self.mailbox.get_message(forward.message_id)
        content = message_content(resource)
        parts = content.parts if forward.include_attachments else []
        check_carried_size(sum(part.size for part in parts))
        carrier = Carrier(self.mailbox, forward.message_id)
        parsed = parse_full(resource, {}, _quiet(carrier.fetch))
        carried, dropped = carrier.carry(parts)
        html = content.html
        if html is None and content.html_attachment_id is not None:
            html = decode_bytes(carrier.fetch(content.html_attachment_id), content.html_charset)[0]
        original = ForwardedOriginal(
            from_=parsed.from_,
            date=parsed.date,
            subject=parsed.subject,
            to=parsed.to,
            cc=parsed.cc,
            text=parsed.body,
            html=html,
        )
        built = build_message(
            sender=identity.from_header() if forward.from_address and identity else None,
            to=forward.to,
            subject=forward_subject(parsed.subject),
            body=forward.body,
            cc=forward.cc,
            bcc=forward.bcc,
            signature=self.signature(identity, forward.signature),
            forward=original,
            carried=carried,
            threading=ReplyContext.from_parsed(parsed).threading(),
        )
        notes = [warnings.parts_not_carried(dropped)] if dropped else []
        return Composed(built, notes)


def _quiet(fetch: Callable[[str], bytes]) -> Callable[[str], bytes | None]:
    """`fetch` for reading a body: a failure leaves that part out (reported) instead of failing the whole read."""

    def attempt(attachment_id: str) -> bytes | None:
        try:
            return fetch(attachment_id)
        except GmailFailure:
            return None

    return attempt
