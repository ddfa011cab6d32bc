"""Gmail messages (`users.messages.get`, as the typed `Message` that `api.views` parsed) → clean Python objects.

Content is untrusted: every field may be missing, of the wrong type or hostile. Nothing here
raises for bad content except `MessageMalformed` when the resource is not a message at all (no id);
what cannot be decoded is skipped and reported in `ParsedEmail.problems` / `body_incomplete`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidField, MessageMalformed
from .headers import HeaderMap, decode_header_value, header_map, part_charset, raw_header
from .message import Message, Part
from .mime import (
    Attachment,
    BodyRenderer,
    Fetch,
    PartRef,
    body_text_parts,
    carried_parts,
    collect_attachments,
    iso_date,
    part_id,
)
from .text import decode_base64url, decode_bytes

__all__ = [
    "Attachment",
    "Fetch",
    "HeaderMap",
    "MessageContent",
    "MessageSummary",
    "ParsedEmail",
    "PartRef",
    "decode_header_value",
    "header_map",
    "message_content",
    "parse_full",
    "slice_body",
    "summarize",
]

_INVISIBLE = re.compile(r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2060-\u206f\ufeff]+")
_WHITESPACE = re.compile(r"\s+")


@dataclass(kw_only=True)
class ParsedEmail:
    """One message as read from `format=full`. Header fields are decoded, single-line text."""

    id: str
    thread_id: str
    from_: str
    to: str
    cc: str
    bcc: str | None
    reply_to: str | None
    subject: str
    date: str | None  # ISO 8601
    message_id: str  # raw `<id@host>` values, for threading replies
    in_reply_to: str
    references: str
    labels: list[str]
    unread: bool
    snippet: str
    body: str
    attachments: list[Attachment] = field(default_factory=list)
    body_incomplete: bool = False  # some text could not be decoded, or the body was cut at a limit
    problems: list[str] = field(default_factory=list)  # machine-readable notes: "undecodable_part:1", ...


# The list view of a message, as search_emails answers it (its field names are the wire's).
# No docstring on purpose: pydantic would copy it into the tool's outputSchema.
class MessageSummary(BaseModel):
    model_config = ConfigDict(validate_by_name=True)

    id: str
    thread_id: str
    from_: str = Field(alias="from")
    to: str
    subject: str
    date: str | None
    snippet: str
    labels: list[str]
    unread: bool
    has_attachments: bool = Field(description="from the message's MIME type: multipart/mixed")


EMPTY = Part()  # what a message without a payload is read as


def _check_resource(resource: Message) -> str:
    """The message's id; MessageMalformed when it has none (it is not a message resource)."""
    if resource.id is None:
        raise MessageMalformed("the Gmail API returned something that is not a message resource")
    return resource.id


def _labels(resource: Message, label_names: Mapping[str, str]) -> tuple[list[str], bool]:
    ids = resource.label_ids
    return [label_names.get(i, i) for i in ids], "UNREAD" in ids


def _snippet(resource: Message) -> str:
    text = html.unescape((resource.snippet or "")[:4096])
    return _WHITESPACE.sub(" ", _INVISIBLE.sub("", text)).strip()


def _optional(headers: HeaderMap, name: str) -> str | None:
    return decode_header_value(headers[name]) if name in headers else None


def summarize(
    resource: Message,
    label_names: Mapping[str, str],
    *,
    has_attachments_hint: bool | None = None,
) -> MessageSummary:
    """A list-view summary of a `format=metadata` (or `full`) resource.

    `has_attachments` comes from the payload's parts when there are any. The metadata format
    carries no parts, so it is then `has_attachments_hint` (e.g. the caller knows the message
    matched `has:attachment`), else False: a summary cannot know about attachments by itself.
    """
    message_id = _check_resource(resource)
    payload = resource.payload or EMPTY
    headers = payload.headers
    labels, unread = _labels(resource, label_names)
    if payload.parts is not None:
        has_attachments = bool(collect_attachments(payload, [], limit=1))
    else:
        has_attachments = bool(has_attachments_hint)
    return MessageSummary(
        id=message_id,
        thread_id=resource.thread_id or "",
        from_=decode_header_value(headers.get("from", "")),
        to=decode_header_value(headers.get("to", "")),
        subject=decode_header_value(headers.get("subject", "")),
        date=iso_date(headers.get("date"), resource.internal_date),
        snippet=_snippet(resource),
        labels=labels,
        unread=unread,
        has_attachments=has_attachments,
    )


def parse_full(resource: Message, label_names: Mapping[str, str], fetch: Fetch | None = None) -> ParsedEmail:
    """Read a `format=full` resource: headers, the readable body text and the attachment list.

    `fetch` gets an attachment's bytes: needed only for a body whose one text part is a named
    part Gmail did not send inline (without it that body is reported missing).
    """
    message_id = _check_resource(resource)
    payload = resource.payload
    problems: list[str] = []
    if payload is None:
        problems.append("no_payload")
    headers = resource.headers
    labels, unread = _labels(resource, label_names)
    renderer = BodyRenderer(problems, fetch)
    body = renderer.render(payload) if payload is not None else ""
    return ParsedEmail(
        id=message_id,
        thread_id=resource.thread_id or "",
        from_=decode_header_value(headers.get("from", "")),
        to=decode_header_value(headers.get("to", "")),
        cc=decode_header_value(headers.get("cc", "")),
        bcc=_optional(headers, "bcc"),
        reply_to=_optional(headers, "reply-to"),
        subject=decode_header_value(headers.get("subject", "")),
        date=iso_date(headers.get("date"), resource.internal_date),
        message_id=raw_header(headers, "message-id"),
        in_reply_to=raw_header(headers, "in-reply-to"),
        references=raw_header(headers, "references"),
        labels=labels,
        unread=unread,
        snippet=_snippet(resource),
        body=body,
        attachments=collect_attachments(payload, problems) if payload is not None else [],
        body_incomplete=renderer.incomplete or payload is None,
        problems=problems,
    )


@dataclass(frozen=True, kw_only=True)
class MessageContent:
    """What a message is made of, to carry into another one (a forward, an updated draft)."""

    text: str | None  # the first text/plain body part, decoded exactly (None: there is none)
    html: str | None  # the first text/html body part, decoded (None: there is none)
    html_attachment_id: str | None  # the HTML part's bytes were not sent inline: fetch them by this id
    html_charset: str | None
    parts: list[PartRef]  # attachments and inline pictures, in document order
    problems: list[str]


def _part_text(part: Part | None, problems: list[str]) -> tuple[str | None, str | None, str | None]:
    """(text, attachment id when not inline, charset) of a body part."""
    if part is None:
        return None, None, None
    charset = part_charset(part.headers)
    data = part.body.data
    if data:
        raw = decode_base64url(data)
        if raw is None:
            problems.append(f"undecodable_part:{part_id(part)}")
            return None, None, charset
        return decode_bytes(raw, charset)[0], None, charset
    if part.body.attachment_id:
        return None, part.body.attachment_id, charset
    return "", None, charset


def message_content(resource: Message) -> MessageContent:
    """The body parts and carried parts of a `format=full` resource (nothing fetched here)."""
    _check_resource(resource)
    payload = resource.payload or EMPTY
    problems: list[str] = []
    plain, html = body_text_parts(payload)
    text, _, _ = _part_text(plain, problems)
    html_text, html_id, html_charset = _part_text(html, problems)
    return MessageContent(
        text=text,
        html=html_text,
        html_attachment_id=html_id,
        html_charset=html_charset,
        parts=carried_parts(payload, problems),
        problems=problems,
    )


def slice_body(body: str, offset: int, max_chars: int) -> tuple[str, int | None]:
    """The page `body[offset:offset + max_chars]` and the offset of the next page (None at the end).

    Out-of-range values name the tool arguments they come from: `body_offset`, `max_body_chars`.
    """
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= len(body):
        raise InvalidField("body_offset", "out_of_range", f"body_offset must be between 0 and {len(body)}")
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
        raise InvalidField("max_body_chars", "out_of_range", "max_body_chars must be a positive integer")
    end = min(offset + max_chars, len(body))
    return body[offset:end], (end if end < len(body) else None)
