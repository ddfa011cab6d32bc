"""Opaque paging cursors: a versioned JSON object in URL-safe base64, shared by every paged listing."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from obsidian_mcp.vault.errors import InvalidArgument

VERSION = 1


def encode_cursor(fields: dict[str, Any]) -> str:
    """The cursor carrying `fields` (a JSON object) and the format version."""
    raw = json.dumps({"v": VERSION, **fields}, ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii")


def decode_cursor(cursor: Any, *, again: str) -> dict[str, Any]:
    """The fields of a cursor made by `encode_cursor`; parse_error (`cursor`, invalid) for anything else.

    `again` completes the message: what the caller should do without a cursor ("list", "check").
    """
    bad = InvalidArgument("cursor", "invalid", f"the cursor is not valid; {again} again without a cursor")
    if not isinstance(cursor, str) or not cursor:
        raise bad
    try:
        payload = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8"))
    except (ValueError, UnicodeError, binascii.Error):
        raise bad from None
    if not isinstance(payload, dict) or payload.get("v") != VERSION:
        raise bad
    return payload
