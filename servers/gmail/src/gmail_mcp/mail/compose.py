"""Outgoing messages: RFC 822 bytes ready to be base64url-encoded into `users.messages.send`'s `raw`.

Everything is 7-bit on the wire (quoted-printable / base64 bodies, RFC 2047 headers, RFC 2231
filenames): googleapiclient's multipart media upload breaks on 8-bit MIME.

Recipients come only from the caller's arguments and, for a reply, from the original's address
headers (`ReplyContext`): never from any message body. A signature is laid out as Gmail's web
client does it; a forward carries Gmail's "Forwarded message" block (`forward.py` builds both).
Every message carries its own Message-ID twice: in `Message-ID`, which Gmail may replace when it
sends, and in `FINGERPRINT_HEADER`, by which `delivery` still recognises its copy in Sent.
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

from .addresses import header_addresses, parse_address_list, parse_addresses
from .errors import AttachmentNotFound, InvalidField
from .filenames import safe_filename
from .forward import ForwardedOriginal, Signature, combine_bodies
from .headers import decode_header_value, message_ids
from .text import one_line

if TYPE_CHECKING:
    from .parse import ParsedEmail

__all__ = [
    "ATTACHMENT_LIMIT_BYTES",
    "FINGERPRINT_HEADER",
    "BuiltMessage",
    "CarriedPart",
    "ForwardedOriginal",
    "ReplyContext",
    "Signature",
    "Threading",
    "build_message",
    "check_attachments",
    "check_carried_size",
    "check_recipients",
    "forward_subject",
    "parse_addresses",
]

ATTACHMENT_LIMIT_BYTES = 25 * 1024 * 1024  # Gmail's limit, applied to the sum of the raw file sizes
# Our own copy of the Message-ID: Gmail may replace Message-ID when it sends, and (assumed, specs/spec.md)
# keeps custom headers as they are.
FINGERPRINT_HEADER = "X-Gmail-MCP-Message-ID"
MAX_REFERENCES = 50
# refold_source="none": the raw In-Reply-To / References lines we fold ourselves are kept as they
# are; the default would turn message ids longer than a line into RFC 2047 words, breaking threading.
POLICY = email.policy.SMTP.clone(cte_type="7bit", refold_source="none")
_REPLY_PREFIX = re.compile(r"\s*re\s*(?:\[\d+\])?\s*:", re.IGNORECASE)
_FORWARD_PREFIX = re.compile(r"\s*(?:fwd?|fw)\s*:", re.IGNORECASE)
_MIME_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}")
_CHARSET = re.compile(r"[A-Za-z0-9!#$%&'+^_`{}~.-]{1,64}")
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
    to: str = ""
    cc: str = ""

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
            to=original.to,
            cc=original.cc,
        )

    def threading(self) -> Threading:
        """In-Reply-To, References and thread of a reply (or forward) to this message."""
        in_reply_to, chain = _references(self)
        return Threading(in_reply_to=in_reply_to, references=tuple(chain), thread_id=self.thread_id)


@dataclass(frozen=True)
class Threading:
    """Where a message belongs: its In-Reply-To and References ids (validated `<id>` tokens) and Gmail thread."""

    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    thread_id: str | None = None

    @classmethod
    def of_headers(cls, in_reply_to: str, references: str, thread_id: str | None) -> Threading:
        """The threading a message already has (a draft being updated), from its raw header values."""
        first = message_ids(in_reply_to)[:1]
        chain = message_ids(references)
        if len(chain) > MAX_REFERENCES:
            chain = chain[:1] + chain[-(MAX_REFERENCES - 1) :]
        return cls(in_reply_to=first[0] if first else None, references=tuple(chain), thread_id=thread_id or None)


@dataclass(frozen=True, kw_only=True)
class CarriedPart:
    """A part of another message carried over byte for byte (a forward's attachments, a draft's own)."""

    data: bytes
    mime_type: str
    filename: str = ""
    inline: bool = False
    content_id: str | None = None  # `<id>`: an inline picture the HTML refers to as cid:
    charset: str | None = None


@dataclass(frozen=True)
class BuiltMessage:
    """The message as CRLF RFC 822 bytes, its Message-ID and the Gmail thread it belongs to."""

    mime: bytes
    message_id: str
    thread_id: str | None
    size: int
    # (header, address) of one recipient: what `delivery` searches Sent by (`to`, `cc` or `bcc`).
    recipient: tuple[str, str] = ("to", "")


@dataclass(frozen=True)
class _File:
    given: str
    path: Path
    size: int


def _check_attachments(paths: list[str], already: int = 0) -> list[_File]:
    """Existence, type and total size of the files (plus `already` bytes), from `stat` alone: nothing is read yet."""
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
    total = already + sum(f.size for f in files)
    if total > ATTACHMENT_LIMIT_BYTES:
        raise _too_large(total)
    return files


def check_attachments(paths: object) -> None:
    """Refuse unusable attachment arguments before anything else happens (no file is read)."""
    if paths is None:
        return
    if not isinstance(paths, list | tuple):
        raise InvalidField("attachments", "invalid", "attachments: expected a list of file paths")
    _check_attachments(list(paths))


def _too_large(total: int, field: str = "attachments", hint: str = "") -> InvalidField:
    return InvalidField(
        field,
        "too_large",
        f"attachments total {total} bytes, over Gmail's limit of {ATTACHMENT_LIMIT_BYTES} bytes (25 MB){hint}",
    )


def check_carried_size(total: int) -> None:
    """A forward's attachments over Gmail's limit: refused before any is fetched, naming the way out."""
    if total > ATTACHMENT_LIMIT_BYTES:
        raise _too_large(total, "include_attachments", "; forward with include_attachments=false")


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


def forward_subject(original: str) -> str:
    """`Fwd: <subject>`, unless it already starts with Fwd: / Fw: / FW: (any case)."""
    base = one_line(original)
    if _FORWARD_PREFIX.match(base):
        return base
    return f"Fwd: {base}".rstrip()


def _references(reply: ReplyContext) -> tuple[str | None, list[str]]:
    """(In-Reply-To, References ids) for a reply: the original's References plus its Message-ID."""
    original = message_ids(reply.message_id)[:1]
    chain = list(dict.fromkeys(message_ids(reply.references) + original))
    if len(chain) > MAX_REFERENCES:  # keep the thread's root and the most recent ancestors
        chain = chain[:1] + chain[-(MAX_REFERENCES - 1) :]
    return (original[0] if original else None), chain


def _key(address: Address) -> str:
    return address.addr_spec.casefold()


def _reply_target(reply: ReplyContext, own: frozenset[str]) -> list[Address]:
    """Who a reply goes to: the original's Reply-To, else its From. An original we sent ourselves
    (every such address is the account's) is answered to its own To, as Gmail does."""
    target = header_addresses(reply.reply_to) or header_addresses(reply.from_)
    if target and all(_key(a) in own for a in target):
        others = [a for a in header_addresses(reply.to) if _key(a) not in own]
        return others or target
    return target


def check_recipients(
    to: str | list[str] | None,
    cc: str | list[str] | None,
    bcc: str | list[str] | None,
    *,
    reply: bool,
    reply_all: bool = False,
) -> None:
    """The caller's recipient arguments, checked before any request: bad addresses, reply_all without
    a reply, and no recipient at all where no original can supply one."""
    named = [parse_address_list(to, "to"), parse_address_list(cc, "cc"), parse_address_list(bcc, "bcc")]
    if reply_all and not reply:
        raise InvalidField("reply_all", "needs_reply_to_message_id", "reply_all needs reply_to_message_id")
    if not reply and not any(named):
        raise InvalidField("to", "missing", "at least one recipient is required in to, cc or bcc")


def _recipients(
    to: str | list[str] | None,
    cc: str | list[str] | None,
    bcc: str | list[str] | None,
    reply: ReplyContext | None,
    reply_all: bool,
    own: frozenset[str],
) -> tuple[list[Address], list[Address], list[Address]]:
    """To, Cc and Bcc: the caller's, then for a reply with an empty `to` the original's Reply-To / From,
    then with `reply_all` the original's To and Cc, minus the account's own addresses and anyone
    already there (addresses compared case-insensitively). Nothing else ever becomes a recipient."""
    check_recipients(to, cc, bcc, reply=reply is not None, reply_all=reply_all)
    to_list = parse_address_list(to, "to")
    cc_list = parse_address_list(cc, "cc")
    bcc_list = parse_address_list(bcc, "bcc")
    if reply is not None:
        present = {_key(a) for a in to_list + cc_list + bcc_list}

        def add(into: list[Address], found: list[Address], skip_own: bool) -> None:
            for address in found:
                if _key(address) not in present and not (skip_own and _key(address) in own):
                    into.append(address)
                    present.add(_key(address))

        if not to_list:
            add(to_list, _reply_target(reply, own), skip_own=False)
        if reply_all:
            add(to_list, header_addresses(reply.to), skip_own=True)
            add(cc_list, header_addresses(reply.cc), skip_own=True)
    if not (to_list or cc_list or bcc_list):
        raise InvalidField("to", "missing", "no recipient given, and the original message names none that can be used")
    return to_list, cc_list, bcc_list


def _carried_mime(part: CarriedPart) -> tuple[str, str]:
    mime = part.mime_type.lower() if isinstance(part.mime_type, str) else ""
    if not _MIME_TYPE.fullmatch(mime) or mime.startswith(("message/", "multipart/")):
        return "application", "octet-stream"  # message/* may not be base64-encoded (RFC 2046 §5.2.1)
    maintype, _, subtype = mime.partition("/")
    return maintype, subtype


def _add_carried(msg: EmailMessage, parts: list[CarriedPart], has_html: bool) -> None:
    """Carried parts: inline pictures the HTML refers to next to it (multipart/related), the rest attached."""
    related = [p for p in parts if has_html and p.inline and p.content_id]
    if related:
        html_part = next(part for part in msg.walk() if part.get_content_type() == "text/html")
        for part in related:
            maintype, subtype = _carried_mime(part)
            html_part.add_related(
                part.data, maintype=maintype, subtype=subtype, cid=part.content_id, disposition="inline",
                filename=one_line(part.filename)[:255] or None,
            )  # fmt: skip
    for part in parts:
        if part in related:
            continue
        maintype, subtype = _carried_mime(part)
        charset = part.charset if maintype == "text" and part.charset and _CHARSET.fullmatch(part.charset) else None
        msg.add_attachment(
            part.data,
            maintype=maintype,
            subtype=subtype,
            filename=one_line(part.filename)[:255] or None,
            disposition="inline" if part.inline else "attachment",
            cid=part.content_id,
            params={"charset": charset} if charset else {},
        )


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
    reply_all: bool = False,
    own_addresses: frozenset[str] = frozenset(),
    signature: Signature | None = None,
    forward: ForwardedOriginal | None = None,
    carried: list[CarriedPart] | tuple[CarriedPart, ...] = (),
    threading: Threading | None = None,
) -> BuiltMessage:
    """Compose a message. A reply with an empty `to` goes to the original's Reply-To, else its From;
    `reply_all` adds the original's To and Cc but none of `own_addresses` (casefolded).

    `subject` is taken as given except for a reply (one `Re:`). `signature` is laid out as Gmail's
    client does; `forward` appends Gmail's forwarded-message block; `carried` parts come from
    another message; `threading` (default: the reply's) sets In-Reply-To, References and the thread.
    Raises InvalidField (bad address, no recipient, attachments too large or unreadable) and
    AttachmentNotFound (path missing or not a regular file); the size check happens before
    any attachment is read.
    """
    if not _ID_DOMAIN.fullmatch(message_id_domain or ""):
        raise InvalidField("message_id_domain", "invalid", "message_id_domain must be a host name")
    if not isinstance(body, str) or not (html_body is None or isinstance(html_body, str)):
        raise InvalidField("body", "invalid", "body must be text")
    to_list, cc_list, bcc_list = _recipients(to, cc, bcc, reply, reply_all, own_addresses)
    senders = parse_address_list(sender, "sender")
    if len(senders) > 1:
        raise InvalidField("sender", "invalid_address", "sender: exactly one address expected")
    subject = one_line(subject if isinstance(subject, str) else "")
    if reply is not None:
        subject = _reply_subject(subject, reply)
    if isinstance(attachments, str | bytes):
        raise InvalidField("attachments", "invalid", "attachments: expected a list of file paths")
    carried = list(carried)
    files = _check_attachments(list(attachments or []), sum(len(p.data) for p in carried))
    if threading is None and reply is not None:
        threading = reply.threading()

    token = uuid.uuid4().hex
    message_id = f"<{token}@{message_id_domain}>"
    msg = EmailMessage(policy=POLICY)
    if senders:
        msg["From"] = senders[0]
    for name, addresses in (("To", to_list), ("Cc", cc_list), ("Bcc", bcc_list)):
        if addresses:
            msg[name] = addresses
    msg["Subject"] = subject
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = message_id
    msg[FINGERPRINT_HEADER] = message_id
    if threading is not None:
        if threading.in_reply_to:  # validated <id> tokens only: safe to emit raw, folded one id per line
            msg.set_raw("In-Reply-To", threading.in_reply_to)
        if threading.references:
            msg.set_raw("References", "\n ".join(threading.references))

    text, html = combine_bodies(body, html_body, signature, forward)
    msg.set_content(text, charset="utf-8")
    if html is not None:
        msg.add_alternative(html, subtype="html", charset="utf-8")
    _add_carried(msg, carried, html is not None)
    budget = ATTACHMENT_LIMIT_BYTES - sum(len(p.data) for p in carried)
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
    thread_id = threading.thread_id if threading is not None and threading.thread_id else None
    recipient = next(
        (header, found[0].addr_spec) for header, found in (("to", to_list), ("cc", cc_list), ("bcc", bcc_list)) if found
    )
    return BuiltMessage(mime=mime, message_id=message_id, thread_id=thread_id, size=len(mime), recipient=recipient)
