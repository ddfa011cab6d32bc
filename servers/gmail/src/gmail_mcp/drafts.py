"""Drafts, their whole life: create and send (each at most once, through `Delivery`), update, list, delete."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gmail_mcp import warnings
from gmail_mcp.api.errors import ApiNotFound
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.delivery import Delivery, SentFingerprint
from gmail_mcp.guard.errors import ConfirmationRequired, DraftChanged
from gmail_mcp.guard.gate import NOBODY, Gate, Person
from gmail_mcp.mail.addresses import addr_spec, header_addresses, parse_address_list
from gmail_mcp.mail.compose import FINGERPRINT_HEADER, CarriedPart, Threading, build_message, check_attachments
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.mail.filenames import safe_filename
from gmail_mcp.mail.headers import HeaderMap, message_ids, raw_header
from gmail_mcp.mail.parse import MessageContent, message_content, parse_full, summarize
from gmail_mcp.mail.text import decode_bytes, normalise_newlines
from gmail_mcp.outgoing import Carrier, Composer, Outgoing, Recipients
from gmail_mcp.results import CreatedDraft, DeletedDraft, DraftList, DraftSummary, SentDraft, UpdatedDraft
from gmail_mcp.sendas import SendAsAddress


@dataclass(frozen=True, kw_only=True)
class DraftChange:
    """The arguments of update_draft: None keeps a field as the draft has it."""

    to: Recipients = None
    subject: str | None = None
    body: str | None = None
    cc: Recipients = None
    bcc: Recipients = None
    html_body: str | None = None  # "" drops the HTML part
    reply_to_message_id: str | None = None
    attachments: list[str] | None = None  # added to the draft's own (a file it already carries is not added twice)
    reply_all: bool = False
    from_address: str | None = None
    signature: bool = True  # added to a body given in this call; a kept body is kept as it is


class Drafts:
    def __init__(self, mailbox: MailboxApi, composer: Composer, delivery: Delivery, gate: Gate) -> None:
        self.mailbox = mailbox
        self.composer = composer
        self.delivery = delivery
        self.gate = gate

    def create(self, outgoing: Outgoing) -> CreatedDraft:
        """Save a composed message as a draft, at most once."""
        built = self.composer.compose(outgoing)
        done = self.delivery.create_draft(built)
        message = done.answer.message
        return CreatedDraft(
            draft_id=done.id,
            message_id=message.id or "",
            thread_id=message.thread_id or built.thread_id or "",
            warnings=done.warnings,
        )

    def list(self, max_results: int, page_token: str | None) -> DraftList:
        """One page of drafts in two round trips: drafts.list, then one batch of drafts.get (format=metadata).

        A draft deleted between the two is left out; one whose details could not be fetched is listed
        by id only and named in a PARTIAL_RESULTS warning.
        """
        listed = self.mailbox.list_drafts(max_results, page_token)
        ids = [item.id for item in listed.drafts if item.id is not None]
        details = self.mailbox.get_drafts(ids)
        drafts, failed = [], []
        for item in listed.drafts:
            draft_id = item.id
            if draft_id is None or isinstance(details.failed.get(draft_id), ApiNotFound):
                continue
            got = details.succeeded.get(draft_id)
            message = got.message if got is not None else None
            if message is None or message.id is None:
                failed.append(draft_id)
                message_id = item.message.id or ""
                drafts.append(DraftSummary(draft_id=draft_id, message_id=message_id, to="", subject="", snippet=""))
                continue
            summary = summarize(message, {})
            drafts.append(
                DraftSummary(
                    draft_id=draft_id,
                    message_id=message.id,
                    to=summary.to,
                    subject=summary.subject,
                    snippet=summary.snippet,
                )
            )
        result = DraftList(drafts=drafts, next_page_token=listed.next_page_token or None)
        if failed:
            notice = f"details of {len(failed)} drafts could not be fetched; they are listed by id only"
            result.warnings.append(warnings.partial_results(notice, draft_ids=failed))
        return result

    def send(self, draft_id: str, person: Person = NOBODY) -> SentDraft:
        """Send a draft at most once, once the gate clears its recipients as they are now; not_found if there
        is no such draft. A draft changed while the person was asked is not sent (DraftChanged)."""
        current = self.mailbox.get_draft_raw(draft_id).message
        raw = current.raw
        if raw is None or current.id is None:
            raise ApiNotFound("draft", draft_id)
        clearance = self.gate.clear_to_send(raw, person)
        if clearance.unavailable:
            new = [r.address for r in clearance.outbound.new]
            raise ConfirmationRequired.unsent(new, draft_id, f"The draft {draft_id} is unchanged")
        message = self.mailbox.get_draft(draft_id).message
        if message.id != current.id:
            raise DraftChanged(draft_id)
        done = self.delivery.send_draft(draft_id, _fingerprint(message.headers, message.id))
        return SentDraft(
            id=done.id,
            thread_id=done.answer.thread_id or message.thread_id or done.id,
            warnings=done.warnings,
        )

    def update(self, draft_id: str, change: DraftChange) -> UpdatedDraft:
        """Replace the fields given, keep the others as the draft has them (its attachments and threading
        too); not_found if there is no such draft. drafts.update is idempotent in effect: retried like a read.
        """
        for name, value in (("to", change.to), ("cc", change.cc), ("bcc", change.bcc)):
            parse_address_list(value, name)
        if change.reply_all and not change.reply_to_message_id:
            raise InvalidField("reply_all", "needs_reply_to_message_id", "reply_all needs reply_to_message_id")
        check_attachments(change.attachments)
        identity = self.composer.send_as.resolve(change.from_address) if change.from_address else None

        message = self.mailbox.get_draft_full(draft_id).message
        if message.id is None:
            raise ApiNotFound("draft", draft_id)
        parsed = parse_full(message, {})
        headers = message.headers
        content = message_content(message)
        carrier = Carrier(self.mailbox, message.id)
        kept, dropped = carrier.carry(content.parts)
        new_files = [p for p in change.attachments or [] if not _already_carried(p, kept)]

        reply = self.composer.reply_context(change.reply_to_message_id) if change.reply_to_message_id else None
        threading = None
        if reply is None:
            threading = Threading.of_headers(
                raw_header(headers, "in-reply-to"), raw_header(headers, "references"), parsed.thread_id
            )
        sender = identity.from_header() if identity is not None else _one(headers.get("from", ""))
        if change.body is not None:
            body, html = change.body, change.html_body
            signer = identity or self._signer(headers.get("from", ""))
            signature = self.composer.signature(signer, change.signature)
        else:
            body = normalise_newlines(content.text or "")
            html = change.html_body if change.html_body is not None else self._kept_html(content, carrier)
            signature = None
        built = build_message(
            sender=sender,
            to=change.to if change.to is not None else _kept(headers, "to"),
            subject=change.subject if change.subject is not None else parsed.subject,
            body=body,
            cc=change.cc if change.cc is not None else _kept(headers, "cc"),
            bcc=change.bcc if change.bcc is not None else _kept(headers, "bcc"),
            html_body=html or None,
            attachments=new_files,
            reply=reply,
            reply_all=change.reply_all,
            own_addresses=self.composer.send_as.own() if reply is not None else frozenset(),
            signature=signature,
            carried=kept,
            threading=threading,
        )
        answer = self.mailbox.update_draft(draft_id, built.mime, built.thread_id)
        updated = answer.message
        result = UpdatedDraft(
            draft_id=answer.id or draft_id,
            message_id=updated.id or "",
            thread_id=updated.thread_id or built.thread_id or "",
        )
        if dropped:
            result.warnings.append(warnings.parts_not_carried(dropped))
        return result

    def _signer(self, from_header: str) -> SendAsAddress | None:
        """The send-as address a draft is from (its From header), else the account's default."""
        found = header_addresses(from_header)
        if found:
            wanted = found[0].addr_spec.casefold()
            match = next((a for a in self.composer.send_as.addresses() if a.email.casefold() == wanted), None)
            if match is not None:
                return match
        return self.composer.send_as.default()

    @staticmethod
    def _kept_html(content: MessageContent, carrier: Carrier) -> str | None:
        if content.html is not None:
            return normalise_newlines(content.html)
        if content.html_attachment_id is not None:
            return normalise_newlines(decode_bytes(carrier.fetch(content.html_attachment_id), content.html_charset)[0])
        return None

    def delete(self, draft_id: str) -> DeletedDraft:
        """Delete a draft for good (Gmail has no trash for drafts)."""
        self.mailbox.delete_draft(draft_id)
        return DeletedDraft(deleted=draft_id)


def _kept(headers: HeaderMap, name: str) -> list[str]:
    """A draft's own recipients in one header, as addresses build_message accepts."""
    return [str(a) for a in header_addresses(headers.get(name, ""))]


def _one(value: str) -> str | None:
    found = header_addresses(value)
    return str(found[0]) if found else None


def _already_carried(path: str, kept: list[CarriedPart]) -> bool:
    """Whether the draft already carries this very file (same name, same bytes): update_draft stays idempotent."""
    name = safe_filename(Path(path).expanduser().name)
    try:
        size = Path(path).expanduser().stat().st_size
    except (OSError, ValueError):
        return False  # build_message reports it
    same = [p for p in kept if p.filename == name and len(p.data) == size]
    if not same:
        return False
    try:
        data = Path(path).expanduser().read_bytes()
    except OSError:
        return False
    return any(p.data == data for p in same)


def _fingerprint(headers: HeaderMap, gmail_id: str | None) -> SentFingerprint:
    """How a draft's message is recognised in Sent: its Message-IDs (ours too), one recipient, its message id."""
    ids = message_ids(headers.get("message-id", "")) + message_ids(headers.get(FINGERPRINT_HEADER.lower(), ""))
    recipient = None
    for name in ("to", "cc", "bcc"):
        found = [a for a in header_addresses(headers.get(name, "")) if addr_spec(a.addr_spec)]
        if found:
            recipient = (name, found[0].addr_spec)
            break
    return SentFingerprint(ids=tuple(dict.fromkeys(ids)), recipient=recipient, gmail_id=gmail_id)
