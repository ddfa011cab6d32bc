"""Walking the MIME tree of a Gmail `payload` (a `Part`, as `api.views` parsed it): body text and attachments.

The tree is untrusted: the walk is capped in depth (`MAX_MIME_DEPTH`) and in the number of
parts (`MAX_PARTS`), the body in length (`MAX_BODY_CHARS`); a cap reached is recorded as a
problem, never raised.
"""

from __future__ import annotations

import datetime as dt
import email.utils
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .headers import (
    HeaderMap,
    decode_header_value,
    disposition,
    message_ids,
    part_charset,
    part_filename,
)
from .message import Part
from .text import decode_base64url, decode_bytes, normalise_newlines, one_line, strip_controls

MAX_MIME_DEPTH = 32
MAX_PARTS = 2_000
MAX_BODY_CHARS = 5_000_000


@dataclass(frozen=True, kw_only=True)
class Attachment:
    """A downloadable part. `attachment_id` is None when Gmail sent the bytes inline (`body.data`)."""

    attachment_id: str | None
    filename: str  # decoded, as the sender wrote it: NOT safe for the file system (see filenames.py)
    mime_type: str
    size: int
    part_id: str
    inline: bool  # Content-Disposition inline or referenced by Content-ID (e.g. a signature logo)


def _mime_type(part: Part) -> str:
    value = part.mime_type
    return one_line(value).lower()[:255] if value is not None and value.strip() else "text/plain"


def _children(part: Part) -> tuple[Part, ...]:
    return part.parts or ()


def part_id(part: Part) -> str:
    """The part's id made safe for one line ("" when Gmail gave none)."""
    return one_line(part.part_id)[:64] if part.part_id is not None else ""


def _attachment_id(part: Part) -> str | None:
    return part.body.attachment_id or None


def _size(part: Part) -> int:
    size = part.body.size
    return size if size is not None and size >= 0 else 0


def _filename(part: Part, headers: HeaderMap) -> str:
    name = part.filename
    if name is not None and name.strip():
        return decode_header_value(name) if "=?" in name else one_line(name)
    return part_filename(headers)


def _attachment(part: Part, headers: HeaderMap) -> Attachment | None:
    """The attachment a part represents, if any.

    A part with a filename, an attachmentId or `Content-Disposition: attachment` is one, except
    an image without filename that is not explicitly an attachment: an inline (cid:) picture of
    the HTML body, which Gmail also gives an attachmentId. multipart/* never is; message/rfc822
    is one attachment (its own parts are not listed).
    """
    mime = _mime_type(part)
    if mime.startswith("multipart/"):
        return None
    attachment_id = _attachment_id(part)
    filename = _filename(part, headers)
    kind = disposition(headers)
    if not filename and attachment_id is None and kind != "attachment":
        return None
    if not filename and mime.startswith("image/") and kind != "attachment":
        return None  # an inline image (cid: reference) without a name is part of the HTML, not an attachment
    return Attachment(
        attachment_id=attachment_id,
        filename=filename,
        mime_type=mime,
        size=_size(part),
        part_id=part_id(part),
        inline=kind == "inline" or "content-id" in headers,
    )


@dataclass(frozen=True, kw_only=True)
class PartRef:
    """A leaf part of a payload to carry into another message: what it is and where its bytes are
    (`data` when Gmail sent them inline, else `attachment_id`; neither for a part Gmail only expanded)."""

    part_id: str
    mime_type: str
    filename: str
    size: int
    inline: bool
    content_id: str | None
    charset: str | None
    data: bytes | None
    attachment_id: str | None


def _content_id(headers: HeaderMap) -> str | None:
    """The `<id>` of a Content-ID header (it has the shape of a Message-ID), if well formed."""
    found = message_ids(headers.get("content-id", ""))
    return found[0] if found else None


def _is_body_text(part: Part, headers: HeaderMap) -> bool:
    """A text part that is (part of) the body: text/plain or text/html, no file name, not an attachment."""
    return (
        _mime_type(part) in ("text/plain", "text/html")
        and not _filename(part, headers)
        and disposition(headers) != "attachment"
    )


def body_text_parts(payload: Part) -> tuple[Part | None, Part | None]:
    """The first text/plain and the first text/html part of the body, in document order (either may be None)."""
    plain = html = None
    for part, headers in _walk(payload, []):
        if not _is_body_text(part, headers):
            continue
        if _mime_type(part) == "text/plain" and plain is None:
            plain = part
        elif _mime_type(part) == "text/html" and html is None:
            html = part
    return plain, html


def carried_parts(payload: Part, problems: list[str]) -> list[PartRef]:
    """The parts a forward carries over: every attachment (`collect_attachments`'s) and every inline
    picture the HTML refers to by Content-ID, in document order."""
    found: list[PartRef] = []
    for part, headers in _walk(payload, problems):
        attachment = _attachment(part, headers)
        content_id = _content_id(headers)
        if attachment is None and not (content_id and _mime_type(part).startswith("image/")):
            continue
        data = part.body.data
        decoded = decode_base64url(data) if data else None
        found.append(
            PartRef(
                part_id=part_id(part),
                mime_type=_mime_type(part),
                filename=attachment.filename if attachment is not None else "",
                size=_size(part),
                inline=attachment.inline if attachment is not None else True,
                content_id=content_id,
                charset=part_charset(headers),
                data=decoded,
                attachment_id=_attachment_id(part),
            )
        )
    return found


def named_text_part(payload: Part) -> Part | None:
    """The first text part that carries a file name but is not `Content-Disposition: attachment`:
    what the standard library's `EmailMessage.get_body` answers for a message without other text."""
    for part, headers in _walk(payload, []):
        if (
            _mime_type(part) in ("text/plain", "text/html")
            and _filename(part, headers)
            and disposition(headers) != "attachment"
        ):
            return part
    return None


def record_problem(problems: list[str], code: str) -> None:
    """Record a problem once; the list stays short whatever the message does."""
    if code not in problems and len(problems) < 100:
        problems.append(code)


def _walk(payload: Part, problems: list[str]) -> Iterator[tuple[Part, HeaderMap]]:
    """Parts in document order; does not enter attached messages (message/rfc822 is one attachment)."""
    stack: list[tuple[Part, int]] = [(payload, 0)]
    seen = 0
    while stack:
        part, depth = stack.pop()
        seen += 1
        if seen > MAX_PARTS:
            record_problem(problems, "too_many_parts")
            return
        yield part, part.headers
        if not _mime_type(part).startswith("multipart/"):
            continue
        children = _children(part)
        if children and depth >= MAX_MIME_DEPTH:
            record_problem(problems, "mime_depth_limit")
            continue
        stack.extend((child, depth + 1) for child in reversed(children))


def collect_attachments(payload: Part, problems: list[str], limit: int = MAX_PARTS) -> list[Attachment]:
    """The attachments of a payload, in document order (at most `limit`)."""
    found: list[Attachment] = []
    for part, headers in _walk(payload, problems):
        attachment = _attachment(part, headers)
        if attachment is not None:
            found.append(attachment)
            if len(found) >= limit:
                break
    return found


Fetch = Callable[[str], "bytes | None"]
"""Gets an attachment's bytes by its attachment id; None when they could not be had."""


class BodyRenderer:
    """Builds the readable body: the text/plain alternative if any, else HTML as text; inline
    text parts of a multipart/mixed are concatenated in order. A message whose only text parts
    carry a file name (inline, with `filename=` or `name=`) shows the first of them, as the standard
    library's `get_body` does; it stays in the attachment list too. Its bytes are fetched with
    `fetch` when Gmail did not send them inline."""

    def __init__(self, problems: list[str], fetch: Fetch | None = None) -> None:
        self.problems = problems
        self.incomplete = False
        self.fetch = fetch
        self._parts = 0
        self._chars = 0

    def render(self, payload: Part) -> str:
        """The body text of `payload`; sets `incomplete` when something could not be included."""
        chunks, incomplete = self._render(payload, 0)
        if not any(chunk.strip() for chunk in chunks):
            named = named_text_part(payload)
            if named is not None:
                chunks, named_incomplete = self._named(named)
                incomplete = incomplete or named_incomplete
        self.incomplete = self.incomplete or incomplete
        return "\n\n".join(chunk.strip("\n") for chunk in chunks)

    def _named(self, part: Part) -> tuple[list[str], bool]:
        headers = part.headers
        attachment_id = _attachment_id(part)
        if part.body.data is not None or attachment_id is None:
            return self._leaf(part, headers, _mime_type(part))
        size = part.body.size
        raw = None
        if self.fetch is not None and not (size is not None and size > 2 * MAX_BODY_CHARS):
            raw = self.fetch(attachment_id)
        if raw is None:
            self._problem(f"body_not_inline:{part_id(part)}")
            return [], True
        return self._text(raw, headers, _mime_type(part), part_id(part))

    def _problem(self, code: str) -> None:
        record_problem(self.problems, code)

    def _render(self, part: Part, depth: int) -> tuple[list[str], bool]:
        self._parts += 1
        if self._parts > MAX_PARTS:
            self._problem("too_many_parts")
            return [], True
        mime = _mime_type(part)
        if mime.startswith("multipart/"):
            children = _children(part)
            if children and depth >= MAX_MIME_DEPTH:
                self._problem("mime_depth_limit")
                return [], True
            if mime == "multipart/alternative":
                return self._alternative(children, depth)
            chunks: list[str] = []
            incomplete = False
            for child in children:
                child_chunks, child_incomplete = self._render(child, depth + 1)
                chunks.extend(child_chunks)
                incomplete = incomplete or child_incomplete
            return chunks, incomplete
        if mime not in ("text/plain", "text/html"):
            return [], False
        headers = part.headers
        if _filename(part, headers) or disposition(headers) == "attachment":
            return [], False
        return self._leaf(part, headers, mime)

    def _alternative(self, children: tuple[Part, ...], depth: int) -> tuple[list[str], bool]:
        """The first alternative that yields text, trying text/plain ones first."""
        ordered = sorted(children, key=lambda child: _mime_type(child) != "text/plain")  # stable
        incomplete = False
        for child in ordered:
            chunks, child_incomplete = self._render(child, depth + 1)
            if any(chunk.strip() for chunk in chunks):
                return chunks, child_incomplete
            incomplete = incomplete or child_incomplete
        return [], incomplete

    def _leaf(self, part: Part, headers: HeaderMap, mime: str) -> tuple[list[str], bool]:
        leaf_id = part_id(part)
        if self._chars >= MAX_BODY_CHARS:
            self._problem("body_truncated")
            return [], True
        data = part.body.data
        if not data:
            if part.body.attachment_id:
                self._problem(f"body_not_inline:{leaf_id}")
                return [], True
            return [], False
        raw = decode_base64url(data)
        if raw is None:
            self._problem(f"undecodable_part:{leaf_id}")
            return [], True
        return self._text(raw, headers, mime, leaf_id)

    def _text(self, raw: bytes, headers: HeaderMap, mime: str, part_id: str) -> tuple[list[str], bool]:
        text, exact = decode_bytes(raw, part_charset(headers))
        if not exact:
            self._problem(f"charset_replaced:{part_id}")
        incomplete = False
        if mime == "text/html":
            from .htmltext import html_to_text  # inscriptis+lxml cost ~25 ms: load them for HTML mail only

            text, truncated = html_to_text(text)
            if truncated:
                self._problem(f"html_truncated:{part_id}")
                incomplete = True
        text = strip_controls(normalise_newlines(text))
        room = MAX_BODY_CHARS - self._chars
        if len(text) > room:
            text = text[: max(room, 0)]
            self._problem("body_truncated")
            incomplete = True
        self._chars += len(text)
        return ([text] if text else []), incomplete


def iso_date(date_header: str | None, internal_date: object) -> str | None:
    """ISO 8601 from the Date header; else from Gmail's `internalDate` (epoch ms, as a string); else None."""
    if isinstance(date_header, str) and date_header.strip():
        try:
            parsed = email.utils.parsedate_to_datetime(one_line(date_header[:256]))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=dt.UTC)
            return parsed.isoformat()
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    try:
        millis = int(internal_date) if isinstance(internal_date, str | int) else None
        if millis is not None:
            return dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).isoformat()
    except (ValueError, OverflowError, OSError):
        pass
    return None


SYNTHETIC_ID_PREFIX = "part-"


def part_token(part_id: str) -> str:
    """The id a part without a Gmail attachment id is read by (its bytes came inline, or it is an attached
    message Gmail only shows expanded): `part-` and its part id, dots as dashes (an attachment id's alphabet)."""
    return SYNTHETIC_ID_PREFIX + (part_id.replace(".", "-") if part_id else "root")


def attachment_ref(attachment: Attachment) -> str:
    """The id to name an attachment by: Gmail's attachment id, else its part's token."""
    return attachment.attachment_id or part_token(attachment.part_id)


def _walk_all(payload: Part) -> Iterator[tuple[Part, HeaderMap]]:
    """Every part in document order, entering attached messages (message/*) too; capped like `_walk`."""
    stack: list[tuple[Part, int]] = [(payload, 0)]
    seen = 0
    while stack and seen < MAX_PARTS:
        part, depth = stack.pop()
        seen += 1
        yield part, part.headers
        mime = _mime_type(part)
        if (mime.startswith(("multipart/", "message/"))) and depth < MAX_MIME_DEPTH:
            stack.extend((child, depth + 1) for child in reversed(_children(part)))


def find_attachment(payload: Part, attachment_id: str) -> tuple[Part, Attachment] | None:
    """The attachment (anywhere: in attached messages too) named by `attachment_id` (`attachment_ref`)."""
    for part, headers in _walk_all(payload):
        attachment = _attachment(part, headers)
        if attachment is not None and attachment_ref(attachment) == attachment_id:
            return part, attachment
    return None


def attachments_of_size(payload: Part, size: int) -> list[tuple[Part, Attachment]]:
    """The attachments anywhere in `payload` whose size is `size` (Gmail may hand out a new attachment id on
    each read: the part is then found by its size)."""
    found = []
    for part, headers in _walk_all(payload):
        attachment = _attachment(part, headers)
        if attachment is not None and attachment.size == size:
            found.append((part, attachment))
    return found


def attached_message(part: Part) -> Part | None:
    """The message inside a message/rfc822 part Gmail shows expanded (its one child), else None."""
    if _mime_type(part) != "message/rfc822" or part.body.data or len(_children(part)) != 1:
        return None
    return _children(part)[0]
