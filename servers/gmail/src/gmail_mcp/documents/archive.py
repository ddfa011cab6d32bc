"""Office files and ODT are zip archives: each is checked before any of its XML is parsed.

Python's zipfile never inflates a member past its declared size (it stops there and the CRC check fails),
so bounding the declared sizes bounds the memory and time of inflating. A member that is small compressed
but large declared, at a ratio no document reaches, is a zip bomb.
"""

from __future__ import annotations

import io
import zipfile

from .errors import UnreadableDocument
from .limits import Limits

_RATIO_FLOOR = 1_000_000  # a member below this many bytes inflated is never a bomb, whatever its ratio


def open_archive(data: bytes, limits: Limits) -> zipfile.ZipFile:
    """The archive, its members checked: `UnreadableDocument` (`corrupt`, `zip_bomb`) when unsafe or broken."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        notice = "the document is not a readable zip archive (damaged or cut short)"
        raise UnreadableDocument("corrupt", notice) from exc
    if len(members) > limits.max_members:
        raise UnreadableDocument("zip_bomb", f"the document's archive has more than {limits.max_members} members")
    total = 0
    for member in members:
        declared, packed = member.file_size, member.compress_size
        total += declared
        if declared > limits.max_member_bytes or total > limits.max_total_bytes:
            raise UnreadableDocument("zip_bomb", "the document's archive inflates to more than any document needs")
        if declared > _RATIO_FLOOR and declared > limits.max_ratio * max(packed, 1):
            raise UnreadableDocument(
                "zip_bomb", f"a member of the document's archive inflates {declared // max(packed, 1)} times"
            )
    return archive


def member_names(data: bytes) -> set[str]:
    """The names in a zip archive (empty when it is none): what an Office file or ODT is told apart by."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return {name for name in archive.namelist()[:10_000]}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        return set()


def odf_mimetype(data: bytes) -> str:
    """The `mimetype` member of an OpenDocument archive ("" when there is none)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("mimetype")
            if info.file_size > 200:
                return ""
            return archive.read(info).decode("ascii", "replace").strip()
    except (KeyError, zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        return ""
