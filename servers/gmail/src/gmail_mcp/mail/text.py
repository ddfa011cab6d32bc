"""Byte and string decoding for untrusted message content: base64url, charsets, control characters.

Nothing here raises on bad input: every function degrades to a best-effort result.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

# Declared charsets that are, in practice, written by software using a superset of them
# (the WHATWG encoding standard makes the same substitutions for web content).
_CHARSET_SUPERSETS: dict[str, str] = {
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
    "iso-8859-8-i": "iso-8859-8",
    "utf8": "utf-8",
    "unicode-1-1-utf-8": "utf-8",
}

_NOT_MIME_CHARSETS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined"})

_SINGLE_BYTE = frozenset({"ascii", "latin-1", "koi8-r", "koi8-u"})

_BASE64URL = re.compile(r"[A-Za-z0-9_\-+/]*")
# C0/C1 controls except TAB/LF/CR, DEL, and the Unicode line/paragraph separators.
_CONTROL_EXCEPT_NEWLINES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u0085]+")


def decode_base64url(data: str) -> bytes | None:
    """Decode Gmail's base64url `body.data` (padding optional). None when it is not base64 at all.

    Standard-alphabet input (`+`, `/`) and embedded whitespace are tolerated; anything else
    (or an impossible length) is reported as undecodable rather than silently skipped.
    """
    if not isinstance(data, str):
        return None
    compact = "".join(data.split()).rstrip("=")
    if not _BASE64URL.fullmatch(compact) or len(compact) % 4 == 1:
        return None
    compact = compact.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _text_codec(charset: str | None) -> str | None:
    """The Python text codec name for a MIME charset label, or None if unknown / not a text codec."""
    if not charset or not isinstance(charset, str):
        return None
    label = charset.strip().strip("\"'").lower()
    label = _CHARSET_SUPERSETS.get(label, label)
    try:
        info = codecs.lookup(label)
    except (LookupError, ValueError):
        return None
    # bytes.decode refuses non-text codecs (zlib, rot13) anyway; the others are Python
    # internals, not MIME charsets, and punycode decodes in quadratic time.
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_MIME_CHARSETS:
        return None
    return info.name


def _single_byte(codec: str) -> bool:
    return codec in _SINGLE_BYTE or codec.startswith(("iso8859-", "cp125", "mac-"))


def decode_bytes(data: bytes, charset: str | None) -> tuple[str, bool]:
    """Decode bytes of a declared charset; returns (text, exact).

    Tries the declared charset (or its common superset) and UTF-8, strictly. UTF-8 goes first
    when the label is missing, unknown or a single-byte charset: mislabelled UTF-8 is common, and
    Latin text is practically never valid UTF-8 by accident. Failing both, decodes with the
    declared charset (UTF-8 when unknown) replacing bad bytes, and `exact` is False.
    """
    codec = _text_codec(charset)
    order = ("utf-8", codec) if codec is None or _single_byte(codec) else (codec, "utf-8")
    for candidate in order:
        if candidate is None:
            continue
        try:
            return data.decode(candidate), True
        except (UnicodeDecodeError, LookupError, ValueError):
            continue
    try:
        return data.decode(codec or "utf-8", errors="replace"), False
    except (LookupError, ValueError):
        return data.decode("utf-8", errors="replace"), False


def strip_controls(text: str) -> str:
    """Remove control characters other than TAB, LF and CR (NUL, escape sequences, ...)."""
    return _CONTROL_EXCEPT_NEWLINES.sub("", text)


def one_line(text: str) -> str:
    """Collapse all control characters (CR, LF, NUL, ...) into single spaces and strip: safe for one line."""
    return _ANY_CONTROL.sub(" ", text).strip()


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
