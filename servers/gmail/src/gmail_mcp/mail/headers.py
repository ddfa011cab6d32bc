"""Header access and decoding for Gmail's `payload.headers` lists (untrusted values)."""

from __future__ import annotations

import email.header
import email.message
import re
from collections.abc import Iterator, Mapping
from typing import Any

from .text import decode_bytes, one_line

# Longer values are cut before decoding: email.header's regexes are slow on pathological input.
MAX_HEADER_CHARS = 65_536
_FOLD = re.compile(r"\r?\n(?=[ \t])")
_MSG_ID = re.compile(r"<[!-;=?-~]{1,990}>")  # printable ASCII, no <, >, space


class HeaderMap(Mapping[str, str]):
    """Case-insensitive, first-occurrence-wins view of a Gmail header list (raw values)."""

    def __init__(self, headers: object) -> None:
        self._values: dict[str, str] = {}
        if not isinstance(headers, list):
            return
        for entry in headers:
            if not isinstance(entry, dict):
                continue
            name, value = entry.get("name"), entry.get("value")
            if isinstance(name, str) and isinstance(value, str):
                self._values.setdefault(name.strip().lower(), value)

    def __getitem__(self, name: str) -> str:
        return self._values[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def header_map(headers: list[dict[str, Any]]) -> HeaderMap:
    """Case-insensitive first-wins lookup over `[{"name": ..., "value": ...}]`; malformed entries are skipped."""
    return HeaderMap(headers)


def decode_header_value(value: str) -> str:
    """Decode RFC 2047 encoded-words into one clean line; never raises.

    Unknown charsets and broken encoded-words degrade to replacement characters or the raw
    text; CR, LF and other control characters become spaces.
    """
    if not isinstance(value, str):
        return ""
    value = _FOLD.sub("", value[:MAX_HEADER_CHARS])  # RFC 5322 unfolding: drop CRLF before WSP
    if "=?" not in value:
        return one_line(value)
    try:
        chunks = email.header.decode_header(value)
    except Exception:  # email.errors.HeaderParseError and anything else garbage can provoke
        return one_line(value)
    out: list[str] = []
    for chunk, charset in chunks:
        if isinstance(chunk, str):
            out.append(chunk)
        elif charset is None:
            # decode_header re-encodes the plain stretches with raw-unicode-escape
            try:
                out.append(chunk.decode("raw-unicode-escape"))
            except UnicodeDecodeError:
                out.append(chunk.decode("latin-1"))
        else:
            out.append(decode_bytes(chunk, charset.split("*", 1)[0])[0])
    return one_line("".join(out))


def message_ids(value: str | None) -> list[str]:
    """The `<id@host>` tokens of a Message-ID / In-Reply-To / References value, in order, deduplicated."""
    if not isinstance(value, str):
        return []
    seen: dict[str, None] = {}
    for token in _MSG_ID.findall(value[:MAX_HEADER_CHARS]):
        seen.setdefault(token, None)
    return list(seen)


def _params_message(headers: Mapping[str, str]) -> email.message.Message:
    msg = email.message.Message()
    for name in ("content-type", "content-disposition"):
        if name in headers:
            msg[name] = headers[name][:MAX_HEADER_CHARS]
    return msg


def part_filename(headers: Mapping[str, str]) -> str:
    """The filename from Content-Disposition `filename` (or Content-Type `name`), RFC 2231/2047 decoded."""
    try:
        name = _params_message(headers).get_filename()
    except Exception:
        return ""
    if not isinstance(name, str):
        return ""
    return decode_header_value(name)


def part_charset(headers: Mapping[str, str]) -> str | None:
    """The `charset` parameter of the Content-Type header, lower-cased, if any."""
    try:
        charset = _params_message(headers).get_content_charset()
    except Exception:
        return None
    return charset if isinstance(charset, str) else None


def disposition(headers: Mapping[str, str]) -> str:
    """`attachment`, `inline` or "" from the Content-Disposition header."""
    value = headers.get("content-disposition", "")
    return value.split(";", 1)[0].strip().lower()[:32]


def raw_header(headers: Mapping[str, str], name: str) -> str:
    """A header value kept raw (not RFC 2047 decoded) but made safe for one line."""
    return one_line(headers.get(name, "")[:MAX_HEADER_CHARS])
