"""A mail about to leave, as the guard sees it: read back from the exact bytes that will be sent.

Reading the MIME (the composed message, or a draft as Gmail holds it at the moment of sending) rather
than the tool's arguments means a reply-all's added addresses, a draft's Bcc added by update_draft,
and every repeated To/Cc/Bcc header are all checked: Gmail delivers to what the headers say.
"""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass
from email.message import EmailMessage

from gmail_mcp.guard.addresses import canonical, skeleton
from gmail_mcp.guard.known import Directory
from gmail_mcp.mail.addresses import header_addresses
from gmail_mcp.mail.headers import decode_header_value
from gmail_mcp.mail.htmltext import html_to_text

BODY_START_CHARS = 300
FIELDS = ("to", "cc", "bcc")


@dataclass(frozen=True)
class Recipient:
    address: str  # as it will be sent (ASCII, IDNA domain)
    field: str  # to | cc | bcc
    display_name: str
    known: bool = False
    looks_like: str | None = None  # a known address this new one imitates
    name_claims: str | None = None  # a known address its display name shows, though it is not that address

    @property
    def canonical(self) -> str:
        return canonical(self.address)


@dataclass(frozen=True)
class Attachment:
    name: str
    size: int


@dataclass(frozen=True)
class Outbound:
    """What the person is shown before a mail leaves; `recipients` are marked known or new by `marked`."""

    sender: str
    recipients: tuple[Recipient, ...]
    subject: str
    attachments: tuple[Attachment, ...]
    body_start: str

    @classmethod
    def from_mime(cls, raw: bytes) -> Outbound:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        recipients: dict[str, Recipient] = {}
        for field in FIELDS:
            for value in message.get_all(field, []):
                for address in header_addresses(str(value)):
                    recipient = Recipient(address.addr_spec, field, address.display_name)
                    recipients.setdefault(recipient.canonical, recipient)
        return cls(
            sender=decode_header_value(str(message.get("from", ""))),
            recipients=tuple(recipients.values()),
            subject=decode_header_value(str(message.get("subject", ""))),
            attachments=tuple(_attachments(message)),
            body_start=_body_start(message),
        )

    @property
    def new(self) -> list[Recipient]:
        return [r for r in self.recipients if not r.known]

    def marked(self, known: set[str], directory: Directory) -> Outbound:
        """The same mail with each recipient marked known (its canonical form is in `known`) or new, and
        each new one compared with the `directory` of known ones for a lookalike or a borrowed name."""
        skeletons = {skeleton(k): k for k in directory.addresses}
        marked = []
        for r in self.recipients:
            if r.canonical in known:
                marked.append(Recipient(r.address, r.field, r.display_name, known=True))
                continue
            name = r.display_name.casefold()
            claims = directory.names.get(name)
            if claims is None and "@" in name:
                claims = next((k for k in directory.addresses if k in name), None)
            looks_like = skeletons.get(skeleton(r.address))
            marked.append(Recipient(r.address, r.field, r.display_name, looks_like=looks_like, name_claims=claims))
        return Outbound(self.sender, tuple(marked), self.subject, self.attachments, self.body_start)


def _attachments(message: EmailMessage) -> list[Attachment]:
    found = []
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() not in ("attachment", "inline"):
            continue
        name = part.get_filename()
        if part.get_content_disposition() == "inline" and not name:
            continue
        payload = part.get_payload(decode=True)
        found.append(Attachment(name or part.get_content_type(), len(payload) if isinstance(payload, bytes) else 0))
    return found


def _body_start(message: EmailMessage) -> str:
    body = message.get_body(("plain", "html"))
    if body is None:
        return ""
    try:
        text = str(body.get_content())
    except (LookupError, ValueError):  # unknown charset, broken transfer encoding
        return ""
    if body.get_content_subtype() == "html":
        text = html_to_text(text)[0]
    text = " ".join(text.split())
    return text if len(text) <= BODY_START_CHARS else text[: BODY_START_CHARS - 1] + "…"
