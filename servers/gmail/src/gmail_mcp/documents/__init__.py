"""Documents as text: PDF, DOCX, XLSX, PPTX, ODT, HTML, CSV, plain text and attached messages.

`extract(data, mime_type, filename)` reads one document's bytes; `readable(mime_type, filename)` says
beforehand whether its kind can be read. One small module per format, each importing its library only when
a document of that kind is read (start-up time). Knows nothing of Gmail's API or of MCP: failures are the
exceptions of `errors` (mapped to the contract by `gmail_mcp.errors`), limits reached are `Extracted.cut`.
"""

from __future__ import annotations

import logging
import posixpath

from .errors import DocumentError, EncryptedDocument, UnreadableDocument, UnsupportedDocument
from .extracted import Extracted
from .limits import LIMITS, Cut, Limits

__all__ = [
    "LIMITS",
    "Cut",
    "DocumentError",
    "EncryptedDocument",
    "Extracted",
    "Limits",
    "UnreadableDocument",
    "UnsupportedDocument",
    "extract",
    "kind_of",
    "readable",
]

log = logging.getLogger(__name__)

_OOXML = "application/vnd.openxmlformats-officedocument."
_BY_TYPE = {
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
    _OOXML + "wordprocessingml.document": "docx",
    _OOXML + "spreadsheetml.sheet": "xlsx",
    "application/vnd.ms-excel.sheet.macroenabled.12": "xlsx",
    _OOXML + "presentationml.presentation": "pptx",
    "application/vnd.oasis.opendocument.text": "odt",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/csv": "csv",
    "application/csv": "csv",
    "text/tab-separated-values": "csv",
    "message/rfc822": "eml",
    "text/plain": "text",
    "text/markdown": "text",
    "text/x-markdown": "text",
    "application/json": "text",
    "application/xml": "text",
    "text/xml": "text",
    "text/calendar": "text",
    "text/x-log": "text",
}
_BY_EXTENSION = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".pptx": "pptx",
    ".odt": "odt",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".csv": "csv",
    ".tsv": "csv",
    ".eml": "eml",
    ".txt": "text",
    ".text": "text",
    ".md": "text",
    ".markdown": "text",
    ".log": "text",
    ".json": "text",
    ".xml": "text",
    ".ics": "text",
}
# Types that say nothing of the content: the file name's extension decides.
_GENERIC = frozenset(
    {"", "application/octet-stream", "binary/octet-stream", "application/x-download", "application/force-download",
     "application/zip", "application/x-zip-compressed", "application/unknown"}
)  # fmt: skip


_TEXTUAL = frozenset({"eml", "html", "csv", "text"})


def kind_of(mime_type: str, filename: str) -> str | None:
    """What a document would be read as from its type and name alone (None: not a kind read here)."""
    mime = (mime_type or "").split(";", 1)[0].strip().lower()
    kind = _BY_TYPE.get(mime)
    if kind is None and (mime in _GENERIC or mime.startswith("text/")):
        kind = _BY_EXTENSION.get(posixpath.splitext((filename or "").lower())[1])
        if kind is None and mime.startswith("text/"):
            kind = "text"
    return kind


def readable(mime_type: str, filename: str) -> bool:
    """Whether read_attachment can give this attachment's text (its type, or its name for a generic type)."""
    return kind_of(mime_type, filename) is not None


def _sniffed(data: bytes, declared: str | None) -> str | None:
    """The kind the bytes show (a PDF header; a zip archive's members), else the declared kind."""
    # A PDF may start with junk before its header (readers look at the first 1024 bytes); a text, HTML or mail
    # that merely holds a PDF further on is still what it says it is.
    if data.startswith(b"%PDF-") or (declared not in _TEXTUAL and b"%PDF-" in data[:1024]):
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        from .archive import member_names, odf_mimetype

        names = member_names(data)
        if "word/document.xml" in names:
            return "docx"
        if "xl/workbook.xml" in names:
            return "xlsx"
        if "ppt/presentation.xml" in names:
            return "pptx"
        if odf_mimetype(data) == "application/vnd.oasis.opendocument.text":
            return "odt"
        return declared if declared in ("docx", "xlsx", "pptx", "odt") else None
    return declared


def extract(
    data: bytes, mime_type: str, filename: str, charset: str | None = None, limits: Limits = LIMITS
) -> Extracted:
    """The text of one document. Raises `UnsupportedDocument` for a kind not read here, `EncryptedDocument`
    when it needs a password, `UnreadableDocument` (with its reason) when it is damaged or hostile."""
    if len(data) > limits.max_bytes:
        raise UnreadableDocument("too_large", f"the document has more than {limits.max_bytes} bytes")
    kind = _sniffed(data, kind_of(mime_type, filename))
    if kind is None:
        raise UnsupportedDocument((mime_type or "application/octet-stream").split(";", 1)[0].strip()[:100])
    try:
        return _read(kind, data, charset, limits)
    except DocumentError:
        raise
    except Exception as exc:
        # Whatever a parser raises on input it never expected (lxml's syntax errors, zlib, struct, KeyError for a
        # missing part, ...): the document is damaged. The failure's type is logged, never its text (it may
        # quote the document).
        log.info("document unreadable", extra={"kind": kind, "failure": type(exc).__name__})
        raise UnreadableDocument("corrupt", f"the {kind.upper()} cannot be read (damaged or malformed)") from exc


def _read(kind: str, data: bytes, charset: str | None, limits: Limits) -> Extracted:
    if kind == "pdf":
        from .pdf import read_pdf

        return read_pdf(data, limits)
    if kind == "docx":
        from .word import read_docx

        return read_docx(data, limits)
    if kind == "xlsx":
        from .spreadsheet import read_xlsx

        return read_xlsx(data, limits)
    if kind == "pptx":
        from .slides import read_pptx

        return read_pptx(data, limits)
    if kind == "odt":
        from .opendocument import read_odt

        return read_odt(data, limits)
    if kind == "eml":
        from .message import read_eml

        return read_eml(data, limits)
    from .textual import read_csv, read_html, read_text

    reader = {"html": read_html, "csv": read_csv}.get(kind, read_text)
    return reader(data, charset, limits)
