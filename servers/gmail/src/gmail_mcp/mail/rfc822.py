"""An RFC 822 message's bytes (an attached `.eml`) → the `Part` tree Gmail would have given for it, so that it
is read exactly as a message from Gmail is (`parse.parse_full`). Body bytes travel as base64url `data`, as
Gmail sends small bodies; attached messages are expanded into their parts, as Gmail shows them."""

from __future__ import annotations

import base64
import email.message
import email.parser
import email.policy
from typing import Any

from .headers import HeaderMap
from .message import Message, Part, PartBody
from .mime import MAX_MIME_DEPTH, MAX_PARTS

MAX_RAW_BYTES = 30_000_000


def message_of(raw: bytes) -> Message:
    """A message resource without Gmail ids (`id` is "") for `raw`; never raises (bad MIME reads as text)."""
    parsed = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(raw[:MAX_RAW_BYTES])
    budget = [MAX_PARTS]
    return Message(id="", payload=_part(parsed, "", 0, budget))


def _part(node: email.message.Message, part_id: str, depth: int, budget: list[int]) -> Part:
    budget[0] -= 1
    headers = [{"name": str(name), "value": _header(value)} for name, value in node.raw_items()]
    common: dict[str, Any] = {
        "part_id": part_id,
        "mime_type": node.get_content_type(),
        "filename": None,
        "headers": HeaderMap(headers),
    }
    payload = node.get_payload()
    if node.is_multipart() and isinstance(payload, list):
        children: list[Part] = []
        if depth < MAX_MIME_DEPTH:
            for index, child in enumerate(payload):
                if budget[0] <= 0:
                    break
                if isinstance(child, email.message.Message):
                    child_id = str(index) if part_id == "" else f"{part_id}.{index}"
                    children.append(_part(child, child_id, depth + 1, budget))
        return Part(**common, body=PartBody(size=0), parts=tuple(children))
    data = node.get_payload(decode=True)
    if not isinstance(data, bytes):
        data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
    encoded = base64.urlsafe_b64encode(data).decode("ascii")
    return Part(**common, body=PartBody(data=encoded, size=len(data)))


def _header(value: object) -> str:
    text = str(value)
    try:
        return text.encode("ascii", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text
