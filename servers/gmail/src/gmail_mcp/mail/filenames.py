"""File names from untrusted attachments, and collision-free paths to save them under."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

MAX_FILENAME_BYTES = 200
MAX_SUFFIX_ATTEMPTS = 10_000
_MAX_EXTENSION_BYTES = 32
# C0/C1 controls, DEL, Unicode line separators, and bidi/zero-width controls used to fake extensions.
_UNSAFE_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_WINDOWS_RESERVED_CHARS = re.compile(r'[<>:"|?*]')
_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(1, 10)} | {f"lpt{i}" for i in range(1, 10)}
)
_DOUBLE_EXTENSIONS = (".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst")


def _split_extension(name: str) -> tuple[str, str]:
    """("report", ".pdf"); ("backup", ".tar.gz"); ("README", "")."""
    lowered = name.lower()
    for double in _DOUBLE_EXTENSIONS:
        if lowered.endswith(double) and len(name) > len(double):
            return name[: -len(double)], name[-len(double) :]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or not ext:
        return name, ""
    return stem, "." + ext


def _truncate_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of `text` (whole code points) that fits in `max_bytes` of UTF-8."""
    return text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")


def _clean(name: str) -> str:
    name = unicodedata.normalize("NFC", name).replace("\\", "/")
    name = name.rsplit("/", 1)[-1]  # only the last path component survives
    name = _UNSAFE_CHARS.sub("", name)
    name = _WINDOWS_RESERVED_CHARS.sub("_", name)
    name = name.strip().lstrip(".").strip().rstrip(". ")  # no hidden files; Windows drops trailing dots
    if not name:
        return ""
    stem, ext = _split_extension(name)
    if stem.split(".", 1)[0].strip().lower() in _WINDOWS_DEVICES:
        name = "_" + name
        stem = "_" + stem
    if len(name.encode("utf-8")) > MAX_FILENAME_BYTES:
        if len(ext.encode("utf-8")) > _MAX_EXTENSION_BYTES:
            stem, ext = name, ""
        stem = _truncate_utf8(stem, MAX_FILENAME_BYTES - len(ext.encode("utf-8"))).rstrip(". ")
        name = stem + ext if stem else ""
    return name


def safe_filename(name: str | None, fallback: str = "attachment") -> str:
    """A plain file name (no folders, no hidden file, no control characters, ≤ 200 UTF-8 bytes, NFC).

    `../../etc/passwd` → `passwd`; `.bashrc` → `bashrc`; ``, `.`, `..`, `\\x00` → `fallback`.
    """
    cleaned = _clean(name) if isinstance(name, str) else ""
    if cleaned:
        return cleaned
    return _clean(fallback) or "attachment"


def _numbered(filename: str, number: int) -> str:
    """`name (n).ext`, still within the byte limit."""
    if number == 0:
        return filename
    stem, ext = _split_extension(filename)
    suffix = f" ({number})"
    room = MAX_FILENAME_BYTES - len(suffix.encode("utf-8")) - len(ext.encode("utf-8"))
    return _truncate_utf8(stem, max(room, 1)) + suffix + ext


def _check_plain(filename: str) -> None:
    if filename in ("", ".", "..") or "/" in filename or "\\" in filename or "\x00" in filename:
        raise ValueError(f"not a plain file name: {filename!r}")


def unique_path(folder: Path, filename: str) -> Path:
    """`folder / filename`, or `name (1).ext`, `name (2).ext`, ... if taken.

    Racy by nature (another process may create the file right after the check): when the
    result will be written to, use `reserve_unique_path`.
    """
    _check_plain(filename)
    for number in range(MAX_SUFFIX_ATTEMPTS):
        candidate = folder / _numbered(filename, number)
        if not os.path.lexists(candidate):
            return candidate
    raise FileExistsError(f"no free name for {filename!r} in {folder}")


def reserve_unique_path(folder: Path, filename: str) -> Path:
    """Like `unique_path`, but atomically creates the file (empty, mode 0600, O_EXCL) to claim it.

    The caller writes to a temporary file and `os.replace`s it onto the returned path. O_EXCL
    also refuses to follow a symlink planted at the path.
    """
    _check_plain(filename)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for number in range(MAX_SUFFIX_ATTEMPTS):
        candidate = folder / _numbered(filename, number)
        try:
            fd = os.open(candidate, flags, 0o600)
        except FileExistsError:
            continue
        os.close(fd)
        return candidate
    raise FileExistsError(f"no free name for {filename!r} in {folder}")
