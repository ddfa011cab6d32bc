"""Gmail API message resources (`users.messages.get`) → clean Python objects.

Content is untrusted: every field may be missing, of the wrong type or hostile. Nothing here
raises for bad content except `MessageMalformed` when the resource is not a message at all;
what cannot be decoded is skipped and reported in `ParsedEmail.problems` / `body_incomplete`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidField, MessageMalformed
from .headers import HeaderMap, decode_header_value, header_map, part_charset, raw_header
from .mime import (
    Attachment,
    BodyRenderer,
    Fetch,
    PartRef,
    body_text_parts,
    carried_parts,
    collect_attachments,
    iso_date,
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


@dataclass
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


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _payload(resource: Mapping[str, Any]) -> dict[str, Any] | None:
    payload = resource.get("payload")
    return payload if isinstance(payload, dict) else None


def _check_resource(resource: object) -> Mapping[str, Any]:
    if not isinstance(resource, Mapping) or not isinstance(resource.get("id"), str):
        raise MessageMalformed("the Gmail API returned something that is not a message resource")
    return resource


def _labels(resource: Mapping[str, Any], label_names: Mapping[str, str]) -> tuple[list[str], bool]:
    ids = resource.get("labelIds")
    ids = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
    return [label_names.get(i, i) for i in ids], "UNREAD" in ids


def _snippet(resource: Mapping[str, Any]) -> str:
    text = html.unescape(_str(resource.get("snippet"))[:4096])
    return _WHITESPACE.sub(" ", _INVISIBLE.sub("", text)).strip()


def _optional(headers: HeaderMap, name: str) -> str | None:
    return decode_header_value(headers[name]) if name in headers else None


def summarize(
    resource: dict[str, Any],
    label_names: Mapping[str, str],
    *,
    has_attachments_hint: bool | None = None,
) -> MessageSummary:
    """A list-view summary of a `format=metadata` (or `full`) resource.

    `has_attachments` comes from the payload's parts when there are any. The metadata format
    carries no parts, so it is then `has_attachments_hint` (e.g. the caller knows the message
    matched `has:attachment`), else False: a summary cannot know about attachments by itself.
    """
    resource = dict(_check_resource(resource))
    payload = _payload(resource) or {}
    headers = header_map(payload.get("headers", []))
    labels, unread = _labels(resource, label_names)
    if isinstance(payload.get("parts"), list):
        has_attachments = bool(collect_attachments(payload, [], limit=1))
    else:
        has_attachments = bool(has_attachments_hint)
    return MessageSummary(
        id=resource["id"],
        thread_id=_str(resource.get("threadId")),
        from_=decode_header_value(headers.get("from", "")),
        to=decode_header_value(headers.get("to", "")),
        subject=decode_header_value(headers.get("subject", "")),
        date=iso_date(headers.get("date"), resource.get("internalDate")),
        snippet=_snippet(resource),
        labels=labels,
        unread=unread,
        has_attachments=has_attachments,
    )


def parse_full(resource: dict[str, Any], label_names: Mapping[str, str], fetch: Fetch | None = None) -> ParsedEmail:
    """Read a `format=full` resource: headers, the readable body text and the attachment list.

    `fetch` gets an attachment's bytes: needed only for a body whose one text part is a named
    part Gmail did not send inline (without it that body is reported missing).
    """
    checked = _check_resource(resource)
    payload = _payload(checked)
    problems: list[str] = []
    if payload is None:
        problems.append("no_payload")
        payload = {}
    headers = header_map(payload.get("headers", []))
    labels, unread = _labels(checked, label_names)
    renderer = BodyRenderer(problems, fetch)
    body = renderer.render(payload) if payload else ""
    return ParsedEmail(
        id=checked["id"],
        thread_id=_str(checked.get("threadId")),
        from_=decode_header_value(headers.get("from", "")),
        to=decode_header_value(headers.get("to", "")),
        cc=decode_header_value(headers.get("cc", "")),
        bcc=_optional(headers, "bcc"),
        reply_to=_optional(headers, "reply-to"),
        subject=decode_header_value(headers.get("subject", "")),
        date=iso_date(headers.get("date"), checked.get("internalDate")),
        message_id=raw_header(headers, "message-id"),
        in_reply_to=raw_header(headers, "in-reply-to"),
        references=raw_header(headers, "references"),
        labels=labels,
        unread=unread,
        snippet=_snippet(checked),
        body=body,
        attachments=collect_attachments(payload, problems) if payload else [],
        body_incomplete=renderer.incomplete or not payload,
        problems=problems,
    )


@dataclass(frozen=True)
class MessageContent:
    """What a message is made of, to carry into another one (a forward, an updated draft)."""

    text: str | None  # the first text/plain body part, decoded exactly (None: there is none)
    html: str | None  # the first text/html body part, decoded (None: there is none)
    html_attachment_id: str | None  # the HTML part's bytes were not sent inline: fetch them by this id
    html_charset: str | None
    parts: list[PartRef]  # attachments and inline pictures, in document order
    problems: list[str]


def _part_text(part: dict[str, Any] | None, problems: list[str]) -> tuple[str | None, str | None, str | None]:
    """(text, attachment id when not inline, charset) of a body part."""
    if part is None:
        return None, None, None
    headers = header_map(part.get("headers", []))
    charset = part_charset(headers)
    body = part.get("body")
    body = body if isinstance(body, dict) else {}
    data = body.get("data")
    if isinstance(data, str) and data:
        raw = decode_base64url(data)
        if raw is None:
            problems.append(f"undecodable_part:{part.get('partId', '')}")
            return None, None, charset
        return decode_bytes(raw, charset)[0], None, charset
    attachment_id = body.get("attachmentId")
    if isinstance(attachment_id, str) and attachment_id:
        return None, attachment_id, charset
    return "", None, charset


def message_content(resource: dict[str, Any]) -> MessageContent:
    """The body parts and carried parts of a `format=full` resource (nothing fetched here)."""
    payload = _payload(_check_resource(resource)) or {}
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
