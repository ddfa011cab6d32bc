"""Outgoing messages: RFC 822 bytes ready to be base64url-encoded into `users.messages.send`'s `raw`.

Everything is 7-bit on the wire (quoted-printable / base64 bodies, RFC 2047 headers, RFC 2231
filenames): googleapiclient's multipart media upload breaks on 8-bit MIME.
"""

from __future__ import annotations

import email.policy
import email.utils
import mimetypes
import os
import re
import stat
import uuid
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

from .addresses import parse_address_list, parse_addresses
from .errors import AttachmentNotFound, InvalidField
from .filenames import safe_filename
from .headers import decode_header_value, message_ids
from .text import one_line

if TYPE_CHECKING:
    from .parse import ParsedEmail

__all__ = [
    "ATTACHMENT_LIMIT_BYTES",
    "BuiltMessage",
    "ReplyContext",
    "build_message",
    "parse_addresses",
]

ATTACHMENT_LIMIT_BYTES = 25 * 1024 * 1024  # Gmail's limit, applied to the sum of the raw file sizes
MAX_REFERENCES = 50
# refold_source="none": the raw In-Reply-To / References lines we fold ourselves are kept as they
# are; the default would turn message ids longer than a line into RFC 2047 words, breaking threading.
POLICY = email.policy.SMTP.clone(cte_type="7bit", refold_source="none")
_REPLY_PREFIX = re.compile(r"\s*re\s*(?:\[\d+\])?\s*:", re.IGNORECASE)
_ANGLE_ADDR = re.compile(r"<([^<>\s]{1,254})>")
_ID_DOMAIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")


@dataclass(frozen=True)
class ReplyContext:
    """What a reply needs from the original message (its header values, as read)."""

    message_id: str = ""
    references: str = ""
    subject: str = ""
    thread_id: str | None = None
    from_: str = ""
    reply_to: str = ""

    @classmethod
    def from_parsed(cls, original: ParsedEmail) -> ReplyContext:
        """The context of a reply to a message read with `parse_full`."""
        return cls(
            message_id=original.message_id,
            references=original.references,
            subject=original.subject,
            thread_id=original.thread_id or None,
            from_=original.from_,
            reply_to=original.reply_to or "",
        )


@dataclass(frozen=True)
class BuiltMessage:
    """The message as CRLF RFC 822 bytes, its Message-ID and the Gmail thread it belongs to."""

    mime: bytes
    message_id: str
    thread_id: str | None
    size: int


@dataclass(frozen=True)
class _File:
    given: str
    path: Path
    size: int


def _check_attachments(paths: list[str]) -> list[_File]:
    """Existence, type and total size of the files, from `stat` alone: nothing is read yet."""
    files: list[_File] = []
    for given in paths:
        if not isinstance(given, str | os.PathLike):
            raise InvalidField("attachments", "invalid", "attachments: expected a list of file paths")
        given_str = os.fspath(given)
        path = Path(given_str).expanduser()
        try:
            info = path.stat()
        except (OSError, ValueError):  # missing, unreadable folder, NUL in the path, ...
            raise AttachmentNotFound(given_str) from None
        if not stat.S_ISREG(info.st_mode):
            raise AttachmentNotFound(given_str)
        files.append(_File(given_str, path, info.st_size))
    total = sum(f.size for f in files)
    if total > ATTACHMENT_LIMIT_BYTES:
        raise _too_large(total)
    return files


def _too_large(total: int) -> InvalidField:
    return InvalidField(
        "attachments",
        "too_large",
        f"attachments total {total} bytes, over Gmail's limit of {ATTACHMENT_LIMIT_BYTES} bytes (25 MB)",
    )


def _read_limited(file: _File, limit: int) -> bytes:
    """The file's bytes, refusing to read more than `limit` (it may have grown since `stat`)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(file.path, flags)
    except FileNotFoundError:
        raise AttachmentNotFound(file.given) from None
    except OSError as exc:
        raise InvalidField("attachments", "unreadable", f"cannot read {file.path.name!r}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped for a FIFO / device meanwhile
            raise AttachmentNotFound(file.given)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise _too_large(ATTACHMENT_LIMIT_BYTES - limit + len(data))
    return data


def _mime_type(filename: str) -> tuple[str, str]:
    guessed, encoding = mimetypes.guess_type(filename)
    if guessed is None or encoding is not None or guessed.startswith(("message/", "multipart/")):
        # .gz & co. are opaque bytes; message/* may not be base64-encoded (RFC 2046 §5.2.1)
        return "application", "octet-stream"
    maintype, _, subtype = guessed.partition("/")
    return maintype, subtype


def _is_utf8(data: bytes) -> bool:
    """Whether a text attachment is UTF-8 (then it says so: without a charset readers assume ASCII)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _reply_subject(subject: str, reply: ReplyContext) -> str:
    base = subject or one_line(decode_header_value(reply.subject))
    if _REPLY_PREFIX.match(base):
        return base
    return f"Re: {base}".rstrip()


def _references(reply: ReplyContext) -> tuple[str | None, list[str]]:
    """(In-Reply-To, References ids) for a reply: the original's References plus its Message-ID."""
    original = message_ids(reply.message_id)[:1]
    chain = list(dict.fromkeys(message_ids(reply.references) + original))
    if len(chain) > MAX_REFERENCES:  # keep the thread's root and the most recent ancestors
        chain = chain[:1] + chain[-(MAX_REFERENCES - 1) :]
    return (original[0] if original else None), chain


def _reply_recipients(original: str) -> list[Address]:
    """The original's Reply-To / From as recipients; decoded display names may not reparse
    (`Doe, John <j@d.com>`), so the bare `<addr>`s are the fallback."""
    try:
        return parse_address_list(original, "to")
    except InvalidField:
        pass
    try:
        return parse_address_list(_ANGLE_ADDR.findall(original[:10_000]), "to")
    except InvalidField:
        raise InvalidField(
            "to", "missing", "no recipient given, and the original sender's address cannot be used"
        ) from None


def _recipients(
    to: str | list[str] | None,
    cc: str | list[str] | None,
    bcc: str | list[str] | None,
    reply: ReplyContext | None,
) -> tuple[list[Address], list[Address], list[Address]]:
    to_list = parse_address_list(to, "to")
    cc_list = parse_address_list(cc, "cc")
    bcc_list = parse_address_list(bcc, "bcc")
    if not (to_list or cc_list or bcc_list) and reply is not None:
        to_list = _reply_recipients(reply.reply_to or reply.from_)
    if not (to_list or cc_list or bcc_list):
        raise InvalidField("to", "missing", "at least one recipient is required in to, cc or bcc")
    return to_list, cc_list, bcc_list


def build_message(
    *,
    sender: str | None,
    to: str | list[str] | None,
    subject: str,
    body: str,
    cc: str | list[str] | None = None,
    bcc: str | list[str] | None = None,
    html_body: str | None = None,
    attachments: list[str] | None = None,
    reply: ReplyContext | None = None,
    message_id_domain: str = "gmail-mcp.local",
) -> BuiltMessage:
    """Compose a message. A reply without recipients goes to the original's Reply-To, else its From.

    Raises InvalidField (bad address, no recipient, attachments too large or unreadable) and
    AttachmentNotFound (path missing or not a regular file); the size check happens before
    any attachment is read.
    """
    if not _ID_DOMAIN.fullmatch(message_id_domain or ""):
        raise InvalidField("message_id_domain", "invalid", "message_id_domain must be a host name")
    if not isinstance(body, str) or not (html_body is None or isinstance(html_body, str)):
        raise InvalidField("body", "invalid", "body must be text")
    to_list, cc_list, bcc_list = _recipients(to, cc, bcc, reply)
    senders = parse_address_list(sender, "sender")
    if len(senders) > 1:
        raise InvalidField("sender", "invalid_address", "sender: exactly one address expected")
    subject = one_line(subject if isinstance(subject, str) else "")
    if reply is not None:
        subject = _reply_subject(subject, reply)
    if isinstance(attachments, str | bytes):
        raise InvalidField("attachments", "invalid", "attachments: expected a list of file paths")
    files = _check_attachments(list(attachments or []))

    message_id = f"<{uuid.uuid4().hex}@{message_id_domain}>"
    msg = EmailMessage(policy=POLICY)
    if senders:
        msg["From"] = senders[0]
    for name, addresses in (("To", to_list), ("Cc", cc_list), ("Bcc", bcc_list)):
        if addresses:
            msg[name] = addresses
    msg["Subject"] = subject
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = message_id
    if reply is not None:
        in_reply_to, chain = _references(reply)
        if in_reply_to:  # validated <id> tokens only: safe to emit raw, folded one id per line
            msg.set_raw("In-Reply-To", in_reply_to)
        if chain:
            msg.set_raw("References", "\n ".join(chain))

    msg.set_content(body, charset="utf-8")
    if html_body is not None:
        msg.add_alternative(html_body, subtype="html", charset="utf-8")
    budget = ATTACHMENT_LIMIT_BYTES
    for file in files:
        data = _read_limited(file, budget)
        budget -= len(data)
        maintype, subtype = _mime_type(file.path.name)
        filename = safe_filename(file.path.name)
        params = {"charset": "utf-8"} if maintype == "text" and _is_utf8(data) else {}
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename, params=params)
    for part in msg.walk():
        if part is not msg:
            del part["MIME-Version"]  # the email package repeats it on every sub-part

    mime = msg.as_bytes(policy=POLICY)
    thread_id = reply.thread_id if reply is not None and reply.thread_id else None
    return BuiltMessage(mime=mime, message_id=message_id, thread_id=thread_id, size=len(mime))
