"""Reading the mailbox: search, messages, threads, attachments. Knows Gmail's resources, not MCP."""

from __future__ import annotations

import base64
import contextlib
import os
from pathlib import Path

from gmail_mcp import warnings
from gmail_mcp.api.errors import ApiNotFound, ApiUnavailable, GmailFailure
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.api.views import Message
from gmail_mcp.files import atomic_write
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.mail.filenames import reserve_unique_path, safe_filename
from gmail_mcp.mail.parse import Fetch, ParsedEmail, parse_full, slice_body, summarize
from gmail_mcp.results import AttachmentInfo, Email, SavedAttachment, SearchResult, Thread

SUMMARY_HEADERS = ("From", "To", "Subject", "Date")


class MailReader:
    def __init__(self, mailbox: MailboxApi, labels: LabelDirectory, download_dir: Path) -> None:
        self.mailbox = mailbox
        self.labels = labels
        self.download_dir = download_dir

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

    def save_attachment(self, message_id: str, attachment_id: str) -> SavedAttachment:
        """Save one attachment under the download folder: sanitised name, never overwriting, atomic."""
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
                attachment_id=a.attachment_id, filename=a.filename, mime_type=a.mime_type, size=a.size, inline=a.inline
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
