"""Reading the mailbox: search, messages, threads, attachments. Knows Gmail's resources, not MCP."""

from __future__ import annotations

import base64
import contextlib
import os
import threading
from collections import OrderedDict
from pathlib import Path

from gmail_mcp import documents, warnings
from gmail_mcp.api.errors import ApiNotFound, ApiUnavailable, GmailFailure
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.api.views import Message
from gmail_mcp.files import atomic_write
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.mail.filenames import reserve_unique_path, safe_filename
from gmail_mcp.mail.headers import part_charset
from gmail_mcp.mail.message import Part
from gmail_mcp.mail.mime import (
    SYNTHETIC_ID_PREFIX,
    Attachment,
    attached_message,
    attachment_ref,
    attachments_of_size,
    find_attachment,
)
from gmail_mcp.mail.parse import Fetch, ParsedEmail, parse_full, slice_body, summarize
from gmail_mcp.mail.render import attached_message_text
from gmail_mcp.mail.text import decode_base64url
from gmail_mcp.results import AttachmentInfo, AttachmentText, Email, SavedAttachment, SearchResult, Thread

SUMMARY_HEADERS = ("From", "To", "Subject", "Date")
# Documents read lately, kept so that paging through one does not fetch and parse it again for every page
# (a message never changes in Gmail): at most this many, and this many characters in all.
KEPT_DOCUMENTS = 4
KEPT_CHARS = 8_000_000


class MailReader:
    def __init__(self, mailbox: MailboxApi, labels: LabelDirectory, download_dir: Path) -> None:
        self.mailbox = mailbox
        self.labels = labels
        self.download_dir = download_dir
        self._kept: OrderedDict[tuple[str, str], tuple[Attachment, documents.Extracted]] = OrderedDict()
        self._kept_lock = threading.Lock()

    def search(self, query: str, max_results: int, page_token: str | None, include_spam_trash: bool) -> SearchResult:
        """Matching message summaries in two round trips: messages.list, then one batch of metadata gets.

        The label list rides in the same batch when the cache is cold. Messages whose metadata could
        not be fetched are left out, named in a PARTIAL_RESULTS warning.
        """
        listed = self.mailbox.list_messages(query, max_results, page_token, include_spam_trash)
        ids = list(listed.ids)
        fetched = self.mailbox.get_messages_metadata(
            ids, SUMMARY_HEADERS, with_label_list=bool(ids) and not self.labels.fresh()
        )
        if fetched.labels is not None:
            self.labels.load(fetched.labels)
        names = self.labels.cached_names()
        summaries = []
        for message_id in ids:
            resource = fetched.messages.succeeded.get(message_id)
            if resource is not None:
                mime = resource.payload.mime_type if resource.payload is not None else None
                summaries.append(summarize(resource, names, has_attachments_hint=mime == "multipart/mixed"))
        failed = list(fetched.messages.failed)
        estimate = listed.result_size_estimate
        result = SearchResult(
            messages=summaries,
            next_page_token=listed.next_page_token,
            result_size_estimate=estimate if estimate is not None else len(ids),
        )
        if failed:
            notice = f"{len(failed)} matching messages could not be fetched and are left out"
            result.warnings.append(warnings.partial_results(notice, message_ids=failed))
        return result

    def email(self, message_id: str, body_offset: int, max_body_chars: int) -> Email:
        """One message with a page of its body."""
        return email_view(self._parsed(message_id), body_offset, max_body_chars)

    def thread(self, thread_id: str, max_body_chars: int) -> Thread:
        """Every message of a thread, oldest first, each with the first page of its body."""
        resource = self.mailbox.get_thread(thread_id)
        names = self.labels.names()
        parsed = [parse_full(message, names, self._fetcher(message)) for message in resource.messages]
        return Thread(thread_id=thread_id, messages=[email_view(p, 0, max_body_chars) for p in parsed])

    def _parsed(self, message_id: str) -> ParsedEmail:
        resource = self.mailbox.get_message(message_id)
        return parse_full(resource, self.labels.names(), self._fetcher(resource))

    def _fetcher(self, resource: Message) -> Fetch | None:
        """Gets a named text part's bytes when it is a message's only body (`BodyRenderer`); a failure
        leaves that body out, reported as CONTENT_DROPPED, instead of failing the whole read."""
        message_id = resource.id
        if message_id is None:
            return None

        def fetch(attachment_id: str) -> bytes | None:
            try:
                return _decode(self.mailbox.get_attachment(message_id, attachment_id))
            except GmailFailure:
                return None

        return fetch

    def read_attachment(self, message_id: str, attachment_id: str, offset: int, max_chars: int) -> AttachmentText:
        """A page of an attachment's text: any part of the message, in attached messages too, named by its
        attachment id (or, for a part Gmail gave no id, by `part_token`)."""
        attachment, extracted = self._document(message_id, attachment_id)
        text = extracted.text
        if not 0 <= offset <= len(text):
            raise InvalidField("offset", "out_of_range", f"offset must be between 0 and {len(text)}")
        end = min(offset + max_chars, len(text))
        next_offset = end if end < len(text) else None
        answer = AttachmentText(
            filename=attachment.filename,
            mime_type=attachment.mime_type,
            size=attachment.size,
            text=text[offset:end],
            pages=extracted.pages,
            total_chars=len(text),
            next_offset=next_offset,
        )
        if next_offset is not None:
            answer.warnings.append(warnings.text_continues(end - offset, len(text), next_offset))
        if extracted.cut is not None:
            cut = extracted.cut
            answer.warnings.append(warnings.document_cut(cut.reason, cut.read, cut.total))
        if extracted.no_text_layer:
            answer.warnings.append(warnings.no_text_layer(extracted.pages or 0))
        if extracted.problems:
            answer.warnings.append(warnings.content_dropped(extracted.problems, "the document"))
        return answer

    def _document(self, message_id: str, attachment_id: str) -> tuple[Attachment, documents.Extracted]:
        resource = self.mailbox.get_message(message_id)
        payload = resource.payload
        found = find_attachment(payload, attachment_id) if payload is not None else None
        content = None
        if found is None and payload is not None and not attachment_id.startswith(SYNTHETIC_ID_PREFIX):
            # Gmail may hand out a different attachmentId on each read: fetch by it, find the part by its size.
            content = _decode(self.mailbox.get_attachment(message_id, attachment_id))
            same = attachments_of_size(payload, len(content))
            found = same[0] if len(same) == 1 else None
        if found is None:
            raise ApiNotFound("attachment", attachment_id[:100])
        part, attachment = found
        key = (message_id, part.part_id or "")
        with self._kept_lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                return kept
        extracted = self._extract(resource, part, attachment, content)
        with self._kept_lock:
            self._kept[key] = (attachment, extracted)
            while len(self._kept) > KEPT_DOCUMENTS or (
                len(self._kept) > 1 and sum(len(e.text) for _, e in self._kept.values()) > KEPT_CHARS
            ):
                self._kept.popitem(last=False)
        return attachment, extracted

    def _extract(
        self, resource: Message, part: Part, attachment: Attachment, content: bytes | None
    ) -> documents.Extracted:
        inner = attached_message(part)
        if inner is not None and content is None:  # an attached message Gmail shows expanded, read as get_email does
            parsed = parse_full(Message(id="", payload=inner), {}, self._fetcher(resource))
            text = attached_message_text(parsed, [attachment_ref(a) for a in parsed.attachments])
            kept = documents.LIMITS.max_chars
            cut = documents.Cut(reason="size", read=kept) if len(text) > kept else None
            return documents.Extracted(text=text[:kept], kind="eml", cut=cut)
        if content is None:
            if part.body.data:
                content = decode_base64url(part.body.data)
                if content is None:
                    raise documents.UnreadableDocument("corrupt", "Gmail sent the attachment's bytes undecodable")
            elif attachment.attachment_id is not None and resource.id is not None:
                content = _decode(self.mailbox.get_attachment(resource.id, attachment.attachment_id))
            else:
                content = b""
        return documents.extract(content, attachment.mime_type, attachment.filename, part_charset(part.headers))

    def save_attachment(self, message_id: str, attachment_id: str) -> SavedAttachment:
        """Save one attachment under the download folder: sanitised name, never overwriting, atomic."""
        if attachment_id.startswith(SYNTHETIC_ID_PREFIX):  # a part whose bytes Gmail sent inline
            resource = self.mailbox.get_message(message_id)
            found = find_attachment(resource.payload, attachment_id) if resource.payload is not None else None
            data = decode_base64url(found[0].body.data) if found is not None and found[0].body.data else None
            if found is None or data is None:
                raise ApiNotFound("attachment", attachment_id[:100])
            target = self._save(safe_filename(found[1].filename), data)
            return SavedAttachment(path=str(target), filename=target.name, size=len(data), mime_type=found[1].mime_type)
        parsed = self._parsed(message_id)
        content = _decode(self.mailbox.get_attachment(message_id, attachment_id))
        # Gmail may hand out a different attachmentId on each read; fall back to the part of the same size.
        parts = [a for a in parsed.attachments if a.attachment_id == attachment_id] or [
            a for a in parsed.attachments if a.size == len(content)
        ]
        if len(parts) != 1:
            raise ApiNotFound("attachment", attachment_id)
        target = self._save(safe_filename(parts[0].filename), content)
        return SavedAttachment(path=str(target), filename=target.name, size=len(content), mime_type=parts[0].mime_type)

    def _save(self, filename: str, content: bytes) -> Path:
        self.download_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = reserve_unique_path(self.download_dir, filename)
        try:
            atomic_write(target, content, mode=0o600)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)  # give the reserved name back
            raise
        return target


def email_view(parsed: ParsedEmail, body_offset: int, max_body_chars: int) -> Email:
    """What get_email answers for a parsed message: a page of the body, and what was left out as warnings.

    Kept from `ParsedEmail` on purpose: headers (with Bcc and Reply-To when the message has them),
    labels, the Message-ID, attachments (with whether each is inline). Left out on purpose: the
    threading headers (`references`, `in_reply_to`: send_email's reply_to_message_id threads a
    reply by itself), the snippet (the body is there) and each attachment's MIME part id (internal;
    download_attachment takes the attachment id). An incomplete body is the CONTENT_DROPPED warning.
    """
    body, next_offset = slice_body(parsed.body, body_offset, max_body_chars)
    view = Email(
        id=parsed.id,
        thread_id=parsed.thread_id,
        from_=parsed.from_,
        to=parsed.to,
        cc=parsed.cc,
        bcc=parsed.bcc,
        reply_to=parsed.reply_to,
        subject=parsed.subject,
        date=parsed.date,
        labels=parsed.labels,
        unread=parsed.unread,
        message_id=parsed.message_id,
        body=body,
        truncated=next_offset is not None,
        next_body_offset=next_offset,
        attachments=[
            AttachmentInfo(
                attachment_id=attachment_ref(a),
                filename=a.filename,
                mime_type=a.mime_type,
                size=a.size,
                inline=a.inline,
                readable=documents.readable(a.mime_type, a.filename),
            )
            for a in parsed.attachments
        ],
    )
    if next_offset is not None:
        view.warnings.append(warnings.content_truncated(len(body), len(parsed.body), next_offset))
    if parsed.body_incomplete:
        view.warnings.append(warnings.content_dropped(parsed.problems))
    return view


def _decode(data: str | None) -> bytes:
    if data is None:
        raise ApiUnavailable("Gmail sent an attachment without data")
    try:
        return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except ValueError:
        raise ApiUnavailable("Gmail sent attachment data that is not base64") from None
