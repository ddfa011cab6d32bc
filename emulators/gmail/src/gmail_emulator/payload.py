"""RFC 822 bytes -> Gmail's ``payload`` tree, snippet and searchable text (``email`` package only)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from email import policy
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser
from html.parser import HTMLParser
from typing import Any

SNIPPET_LENGTH = 200
_ATTACHMENT_ID_PREFIX = "ANGjdJ"


def b64url(data: bytes) -> str:
    """URL-safe base64 with padding, as Gmail encodes ``raw`` and body ``data``."""
    return base64.urlsafe_b64encode(data).decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Lenient decode: URL-safe or standard alphabet, padded or not, whitespace ignored."""
    cleaned = re.sub(r"\s+", "", text).replace("+", "-").replace("/", "_")
    cleaned += "=" * (-len(cleaned) % 4)
    try:
        return base64.urlsafe_b64decode(cleaned.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        raise ValueError(f"invalid base64url data: {exc}") from exc


def parse_message(raw: bytes) -> Message:
    return BytesParser(policy=policy.compat32).parsebytes(raw)


def _raw_str(value: Any) -> str:
    """A header value as str; 8-bit bytes (surrogate-escaped by the parser) read as UTF-8."""
    text = str(value)
    try:
        return text.encode("ascii", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text


def decode_header_value(value: Any) -> str:
    """Unfold and decode RFC 2047 encoded-words, as Gmail does for ``payload.headers``."""
    text = re.sub(r"\r?\n(?=[ \t])", "", _raw_str(value))
    if "=?" not in text:
        return text
    try:
        return str(make_header(decode_header(text)))
    except (LookupError, UnicodeDecodeError, ValueError, binascii.Error):
        return text


def header_list(msg: Message) -> list[dict[str, str]]:
    return [{"name": name, "value": decode_header_value(value)} for name, value in msg.raw_items()]


def get_header(msg: Message, name: str) -> str:
    """The decoded value of the first header ``name`` (case-insensitive), or ""."""
    wanted = name.lower()
    for key, value in msg.raw_items():
        if key.lower() == wanted:
            return decode_header_value(value)
    return ""


def get_headers(msg: Message, name: str) -> list[str]:
    wanted = name.lower()
    return [decode_header_value(v) for k, v in msg.raw_items() if k.lower() == wanted]


def part_filename(part: Message) -> str:
    name = part.get_filename()
    if not name:
        return ""
    return decode_header_value(name)


def is_attachment(part: Message) -> bool:
    if part.is_multipart():
        return False
    if part_filename(part):
        return True
    disposition = (part.get("Content-Disposition") or "").split(";", 1)[0].strip().lower()
    return disposition == "attachment"


def part_bytes(part: Message) -> bytes:
    """The body of a leaf part with its transfer encoding undone (still in the part's charset)."""
    data = part.get_payload(decode=True)
    if isinstance(data, bytes):
        return data
    payload = part.get_payload()
    if isinstance(payload, str):
        return payload.encode("utf-8", "surrogateescape")
    return b""


def part_text(part: Message) -> str:
    data = part_bytes(part)
    charset = part.get_content_charset() or "us-ascii"
    try:
        return data.decode(charset, "replace")
    except LookupError:
        return data.decode("utf-8", "replace")


def _children(part: Message) -> list[Message]:
    if not part.is_multipart():
        return []
    payload = part.get_payload()
    return [p for p in payload if isinstance(p, Message)] if isinstance(payload, list) else []


def iter_parts(msg: Message, part_id: str = "") -> Iterator[tuple[str, Message]]:
    """Every part with Gmail's partId: root "", its children "0", "1", grandchildren "1.0" ..."""
    yield part_id, msg
    for index, child in enumerate(_children(msg)):
        child_id = str(index) if part_id == "" else f"{part_id}.{index}"
        yield from iter_parts(child, child_id)


def find_part(msg: Message, part_id: str) -> Message | None:
    for pid, part in iter_parts(msg):
        if pid == part_id:
            return part
    return None


def attachment_id(message_id: str, part_id: str) -> str:
    token = base64.urlsafe_b64encode(f"{message_id}:{part_id}".encode()).decode("ascii").rstrip("=")
    return _ATTACHMENT_ID_PREFIX + token


def parse_attachment_id(att_id: str) -> tuple[str, str] | None:
    if not att_id.startswith(_ATTACHMENT_ID_PREFIX):
        return None
    token = att_id[len(_ATTACHMENT_ID_PREFIX) :]
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    message_id, sep, part_id = text.partition(":")
    return (message_id, part_id) if sep else None


def build_payload(msg: Message, message_id: str, part_id: str = "") -> dict[str, Any]:
    """The ``payload`` MessagePart of format=full."""
    node: dict[str, Any] = {
        "partId": part_id,
        "mimeType": msg.get_content_type(),
        "filename": part_filename(msg),
        "headers": header_list(msg),
    }
    children = _children(msg)
    if msg.is_multipart():
        node["body"] = {"size": 0}
        node["parts"] = [
            build_payload(child, message_id, str(i) if part_id == "" else f"{part_id}.{i}")
            for i, child in enumerate(children)
        ]
        return node
    data = part_bytes(msg)
    if is_attachment(msg):
        node["body"] = {"attachmentId": attachment_id(message_id, part_id), "size": len(data)}
    elif data:
        node["body"] = {"size": len(data), "data": b64url(data)}
    else:
        node["body"] = {"size": 0}
    return node


def metadata_payload(msg: Message, wanted: list[str]) -> dict[str, Any]:
    """The ``payload`` of format=metadata: mimeType and the (optionally filtered) headers."""
    headers = header_list(msg)
    if wanted:
        names = {w.lower() for w in wanted}
        headers = [h for h in headers if h["name"].lower() in names]
    return {"mimeType": msg.get_content_type(), "headers": headers}


class _TextExtractor(HTMLParser):
    _BLOCK = frozenset({"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol"})
    _SKIP = frozenset({"script", "style", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCK:
            self.chunks.append("\n")
        elif tag in ("td", "th"):
            self.chunks.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        elif tag in self._BLOCK:
            self.chunks.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.chunks.append(data)


def html_to_text(html: str) -> str:
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return "".join(parser.chunks)


def _text_parts(msg: Message) -> Iterator[tuple[str, str]]:
    for _pid, part in iter_parts(msg):
        if part.is_multipart() or is_attachment(part):
            continue
        ctype = part.get_content_type()
        if ctype in ("text/plain", "text/html"):
            yield ctype, part_text(part)


def body_text(msg: Message) -> str:
    """All readable text of the message (plain parts, and HTML parts as text), for search."""
    return "\n".join(html_to_text(text) if ctype == "text/html" else text for ctype, text in _text_parts(msg))


def _html_escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def snippet(msg: Message) -> str:
    """Gmail's snippet: the start of the text body, whitespace collapsed, HTML-escaped."""
    plain = [text for ctype, text in _text_parts(msg) if ctype == "text/plain"]
    if plain:
        text = plain[0]
    else:
        html = [text for ctype, text in _text_parts(msg) if ctype == "text/html"]
        text = html_to_text(html[0]) if html else ""
    collapsed = " ".join(text.split())
    if len(collapsed) > SNIPPET_LENGTH:
        collapsed = collapsed[:SNIPPET_LENGTH].rstrip()
    return _html_escape(collapsed)


def attachment_filenames(msg: Message) -> list[str]:
    return [part_filename(p) for _pid, p in iter_parts(msg) if is_attachment(p) and part_filename(p)]
