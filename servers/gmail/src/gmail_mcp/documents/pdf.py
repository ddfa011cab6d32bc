"""PDF → text with PDFium (pypdfium2), page by page.

Chosen by measurement (bench/documents.py, specs/spec.md "Documents as text"): an order of magnitude faster
than pypdf and pdfminer.six on the same files, and as faithful on Latin text; it loses the shaping of
Arabic text that pypdf keeps. No OCR: a PDF whose pages hold no text at all is reported (`no_text_layer`).

PDFium is not thread-safe and synchronous tools run on worker threads: every use holds one lock.
"""

from __future__ import annotations

import threading

from .errors import EncryptedDocument, UnreadableDocument
from .extracted import Extracted, clean
from .limits import Budget, Limits

_PDFIUM = threading.Lock()
# PDFium's load errors (fpdfview.h): FPDF_ERR_PASSWORD needs a password; FPDF_ERR_SECURITY is a security
# handler it does not support. An owner password alone (empty user password) opens like any PDF.
_ERR_PASSWORD = 4
_ERR_SECURITY = 5


def page_marker(number: int, total: int) -> str:
    """The line that opens each page of a PDF's text."""
    return f"--- page {number} of {total} ---"


def read_pdf(data: bytes, limits: Limits) -> Extracted:
    import pypdfium2  # type: ignore[import-untyped]  # ~20 ms: loaded with the first PDF

    with _PDFIUM:
        try:
            document = pypdfium2.PdfDocument(data)
        except pypdfium2.PdfiumError as exc:
            if exc.err_code in (_ERR_PASSWORD, _ERR_SECURITY):
                raise EncryptedDocument() from exc
            raise UnreadableDocument("corrupt", "the PDF cannot be read (damaged, cut short or not a PDF)") from exc
        try:
            return _pages(document, limits)
        finally:
            document.close()


def _pages(document: object, limits: Limits) -> Extracted:
    import pypdfium2

    total = len(document)  # type: ignore[arg-type]
    if total > limits.max_page_tree:
        raise UnreadableDocument(
            "too_many_pages", f"the PDF claims {total} pages, more than the {limits.max_page_tree} read at most"
        )
    budget = Budget(limits)
    problems: list[str] = []
    with_text = 0
    done = 0
    for index in range(min(total, limits.max_pages)):
        if budget.out_of_time(index, total):
            break
        try:
            page = document[index]  # type: ignore[index]
            try:
                textpage = page.get_textpage()
                raw = textpage.get_text_bounded()
                textpage.close()
            finally:
                page.close()
        except pypdfium2.PdfiumError:
            problems.append(f"page_unreadable:{index + 1}")
            raw = ""
        text = clean(raw).strip("\n")
        with_text += bool(text.strip())
        done = index + 1
        separator = "\n\n" if index else ""
        if not budget.add(f"{separator}{page_marker(index + 1, total)}\n{text}"):
            break
    if done < total and budget.cut is None:
        budget.stop("pages", done, total)
    return Extracted(
        text=budget.text() + "\n" if total else "",
        kind="pdf",
        pages=total,
        cut=budget.cut,
        no_text_layer=done > 0 and with_text == 0,
        problems=problems[:20],
    )
