"""Documents as text (`gmail_mcp.documents`), through its public functions only, on real files nobody here wrote
(tests/fixtures/documents/NOTICE.md says where each comes from) and on hostile ones built here: ground-truth
sentences, page counts, limits and their warnings, and every failure as the typed error the contract maps."""

from __future__ import annotations

import io
import re
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from gmail_mcp.documents import (
    EncryptedDocument,
    Extracted,
    Limits,
    UnreadableDocument,
    UnsupportedDocument,
    extract,
    kind_of,
    readable,
)

FIXTURES = Path(__file__).parent / "fixtures" / "documents"
PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
ODT = "application/vnd.oasis.opendocument.text"
OCTET = "application/octet-stream"
# blindtext's English paragraph: pdflatex-4-pages.tex is `\blindtext[23]`, that paragraph 23 times.
BLINDTEXT = (FIXTURES / "blindtext.txt").read_text(encoding="utf-8").splitlines()


def read(name: str, mime: str = OCTET, **limits: Any) -> tuple[str, Extracted]:
    found = extract((FIXTURES / name).read_bytes(), mime, name, limits=Limits(**limits))
    return found.text, found


def flowing(text: str) -> str:
    """Text as a reader sees it: no page markers, words broken at a line end joined, whitespace single."""
    text = re.sub(r"--- page \d+ of \d+ ---", "\n", text)
    return " ".join(re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text).split())


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.?!])\s+", " ".join(text.split())) if len(s) > 20]


# --- PDF --------------------------------------------------------------------------------------------------


def test_a_latex_pdf_reads_with_its_pages_and_every_sentence_of_its_source() -> None:
    text, found = read("pdflatex-4-pages.pdf", PDF)
    assert found.kind == "pdf" and found.pages == 4 and found.cut is None and not found.no_text_layer
    assert [int(n) for n in re.findall(r"^--- page (\d+) of 4 ---$", text, re.M)] == [1, 2, 3, 4]
    flow = flowing(text)
    # every sentence of the paragraph, at least 22 of its 23 times (one may straddle a page break)
    assert all(flow.count(sentence) >= 22 for sentence in BLINDTEXT), [flow.count(s) for s in BLINDTEXT]
    assert flow.count("Hello, here is some text without a meaning.") == 23


def test_a_two_column_pdf_keeps_the_lipsum_sentences_and_the_table() -> None:
    text, found = read("multicolumn.pdf", PDF)
    assert found.pages == 3
    flow = flowing(text)
    truth = sentences((FIXTURES / "lipsum-1-10.txt").read_text(encoding="utf-8"))
    hits = [s for s in truth if s in flow]
    assert len(hits) >= 0.9 * len(truth), [s for s in truth if s not in flow][:5]
    assert "Two-Column Document with Lorem Ipsum" in flow
    for row in ("Austria 8.9 83,879 Vienna German", "Finland 5.5 338,424 Helsinki Finnish, Swedish"):
        assert row in flow


def test_google_docs_and_libreoffice_pdfs() -> None:
    text, found = read("google-doc-document.pdf", PDF)
    assert found.pages == 1 and "Beautiful is better than ugly." in text
    assert "Errors should never pass silently." in text
    text, _ = read("libre-office-writer.pdf", "application/x-pdf")
    assert flowing(text).startswith("Lorem ipsum dolor sit amet, consetetur sadipscing elitr")


def test_the_117_page_book_reads_every_page() -> None:
    text, found = read("GeoTopo-komprimiert.pdf", OCTET)  # a generic type: the bytes say PDF
    assert found.kind == "pdf" and found.pages == 117 and found.cut is None
    assert text.count("\n--- page ") == 116 and "Einführung in die\nGeometrie und Topologie" in text


def test_an_image_only_pdf_has_no_text_layer() -> None:
    text, found = read("imagemagick-images.pdf", PDF)
    assert found.pages == 6 and found.no_text_layer
    assert flowing(text) == ""


def test_a_pdf_that_needs_a_password_is_encrypted() -> None:
    with pytest.raises(EncryptedDocument) as raised:
        read("libreoffice-writer-password.pdf", PDF)
    assert raised.value.reason == "encrypted"


def test_a_pdf_with_only_an_owner_password_reads_as_readers_read_it() -> None:
    text, found = read("owner-password-only.pdf", PDF)
    assert found.pages == 1 and flowing(text).startswith("Lorem ipsum dolor sit amet, consetetur")


def test_an_arabic_pdf_reads_without_failing() -> None:
    """PDFium returns the shaped Arabic glyphs, not the source's letters (pypdf reads them; the trade-off is
    recorded in specs/spec.md with bench/documents.py's figures); the Latin word survives."""
    text, found = read("habibi.pdf", PDF)
    assert found.pages == 1 and "habibi" in text


def test_a_truncated_pdf_is_a_parse_error_or_its_readable_pages() -> None:
    data = (FIXTURES / "pdflatex-4-pages.pdf").read_bytes()
    for cut in (len(data) // 2, 200, 10):
        try:
            found = extract(data[:cut], PDF, "cut.pdf")
        except UnreadableDocument as exc:
            assert exc.reason == "corrupt"
        else:  # PDFium rebuilds what it can of a cut file
            assert found.pages is not None and found.pages <= 4


def test_bytes_that_claim_to_be_a_pdf_but_are_not() -> None:
    with pytest.raises(UnreadableDocument) as raised:
        extract(b"%PDF-1.7\n" + b"\x00garbage" * 100, PDF, "x.pdf")
    assert raised.value.reason == "corrupt"
    with pytest.raises(UnreadableDocument):
        extract(b"", PDF, "empty.pdf")


def _pdf(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _page_tree(fan: int) -> bytes:
    """fan × fan pages from a 12 KB file: two levels of /Kids naming the same node `fan` times each."""
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Count %d /Kids [%s] >>" % (fan * fan, b" ".join([b"3 0 R"] * fan)),
            b"<< /Type /Pages /Parent 2 0 R /Count %d /Kids [%s] >>" % (fan, b" ".join([b"4 0 R"] * fan)),
            b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 10 10] >>",
        ]
    )


def test_a_huge_page_tree_is_refused_at_once() -> None:
    started = time.monotonic()
    with pytest.raises(UnreadableDocument) as raised:
        extract(_page_tree(1000), PDF, "million.pdf")  # a million pages claimed
    assert raised.value.reason == "too_many_pages" and time.monotonic() - started < 2


def test_a_large_page_tree_is_read_up_to_the_page_limit() -> None:
    started = time.monotonic()
    found = extract(_page_tree(220), PDF, "many.pdf")  # 48,400 pages: under the refusal, over the read limit
    assert found.pages == 48_400 and found.cut is not None and found.cut.reason == "pages"
    assert (found.cut.read, found.cut.total) == (1000, 48_400) and time.monotonic() - started < 5
    assert found.no_text_layer


def test_the_page_limit_and_the_size_limit_cut_with_a_reason() -> None:
    _, found = read("pdflatex-4-pages.pdf", PDF, max_pages=2)
    assert found.cut.reason == "pages" and (found.cut.read, found.cut.total) == (2, 4)
    text, found = read("pdflatex-4-pages.pdf", PDF, max_chars=1000)
    assert found.cut.reason == "size" and len(text) <= 1001


def test_the_time_budget_stops_between_pages() -> None:
    _, found = read("GeoTopo-komprimiert.pdf", PDF, seconds=0.0)
    assert found.cut.reason == "time" and found.cut.total == 117


# --- Office and ODT ---------------------------------------------------------------------------------------


def test_docx_headings_lists_and_tables() -> None:
    text, found = read("par-known-paragraphs.docx", DOCX)
    assert found.kind == "docx" and text == "# Heading Paragraph\n\nNormal paragraph\n"
    assert read("simple-list.docx", DOCX)[0] == "- Apple\n\n- Banana\n"
    assert read("num-having-numbering-part.docx", OCTET)[0] == "1. Paragraph having List Number style.\n"
    assert read("tables.docx", DOCX)[0] == "Above\n\nTop left | Top right\nBottom left | Bottom right\n\nBelow\n"


def test_xlsx_each_sheet_by_name_as_rows() -> None:
    text, found = read("contains_chartsheets.xlsx", XLSX)
    assert found.kind == "xlsx"
    assert text.startswith("## Sheet: data\nx | y\n0 | 0\n1 | 0.31296179620778664\n")
    assert "\n## Sheet: moredata\nmonth | count\njanuary | 18\n" in text and "## Sheet: chart" not in text
    text, _ = read("libreoffice_nrt.xlsx", OCTET)
    assert text == "## Sheet: Sheet1\nSimple LibreOffice spreadsheet\nGenerated on a mac\nUsing OSX Mountain Lion\n"


def test_xlsx_cells_are_bounded() -> None:
    text, found = read("contains_chartsheets.xlsx", XLSX, max_cells=10)
    assert found.cut.reason == "cells" and text.count("\n") <= 7


def test_pptx_slide_by_slide_with_notes() -> None:
    text, found = read("shp-shapes.pptx", PPTX)
    assert found.kind == "pptx"
    assert text.startswith("## Slide 1 of 2: shapes[0]\nshapes[1]\nPicture is shapes[2]\n")
    assert text.endswith("\n## Slide 2 of 2\n")
    assert read("prs-notes.pptx", PPTX)[0] == "## Slide 1 of 1\nNotes: Notes\n"
    _, found = read("shp-shapes.pptx", PPTX, max_pages=1)
    assert (found.cut.reason, found.cut.read, found.cut.total) == ("pages", 1, 2)


def test_odt_reads_like_the_pdf_libreoffice_made_of_it() -> None:
    text, found = read("libre-office-writer.odt", ODT)
    assert found.kind == "odt"
    pdf_text, _ = read("libre-office-writer.pdf", PDF)
    assert flowing(text) == flowing(pdf_text)


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _docx_members() -> dict[str, bytes]:
    with zipfile.ZipFile(FIXTURES / "tables.docx") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_a_docx_zip_bomb_is_refused_before_parsing() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in _docx_members().items():
            archive.writestr(name, data)
        with archive.open("word/media/bomb.bin", "w", force_zip64=True) as member:
            for _ in range(70):  # 70 MB of zeros: ~70 KB deflated
                member.write(bytes(1_000_000))
    bomb = buffer.getvalue()
    assert len(bomb) < 1_000_000
    started = time.monotonic()
    with pytest.raises(UnreadableDocument) as raised:
        extract(bomb, DOCX, "bomb.docx")
    assert raised.value.reason == "zip_bomb" and time.monotonic() - started < 5


def test_a_docx_member_that_inflates_a_thousand_times_is_a_bomb() -> None:
    members = _docx_members()
    members["word/document.xml"] = members["word/document.xml"] + b" " * 5_000_000
    with pytest.raises(UnreadableDocument) as raised:
        extract(_zip(members), DOCX, "ratio.docx")
    assert raised.value.reason == "zip_bomb"


def test_an_archive_that_lies_about_its_sizes_cannot_inflate_past_them() -> None:
    """A member declared small whose stream inflates further: zipfile stops at the declared size (CRC error)."""
    members = _docx_members()
    honest = _zip(members)
    forged = honest.replace(b"word/document.xml", b"word/document.xml", 1)
    with zipfile.ZipFile(io.BytesIO(honest)) as archive:
        info = archive.getinfo("word/document.xml")
    # shrink the declared size in the central directory: the real stream is longer
    central = forged.rfind(b"PK\x01\x02", 0, forged.rfind(b"word/document.xml"))
    size_at = central + 24
    forged = forged[:size_at] + (10).to_bytes(4, "little") + forged[size_at + 4 :]
    assert info.file_size > 10
    with pytest.raises(UnreadableDocument) as raised:
        extract(forged, DOCX, "forged.docx")
    assert raised.value.reason == "corrupt"


OFFICE = ["tables.docx", "contains_chartsheets.xlsx", "shp-shapes.pptx", "libre-office-writer.odt"]


@pytest.mark.parametrize("name", OFFICE)
def test_truncated_and_corrupt_office_files_are_parse_errors(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    for broken in (data[: len(data) // 2], data[:100], b"PK\x03\x04" + b"\xff" * 64):
        with pytest.raises(UnreadableDocument) as raised:
            extract(broken, OCTET, name)
        assert raised.value.reason == "corrupt"
    members = {"[Content_Types].xml": b"<Types", "word/document.xml": b"<not xml"}
    with pytest.raises(UnreadableDocument):
        extract(_zip(members), DOCX, "broken.docx")


# --- text, CSV, HTML, attached mail -----------------------------------------------------------------------


def test_plain_text_decodes_as_get_email_decodes() -> None:
    assert extract("Grüße\r\nZoë\x00".encode(), "text/plain", "a.txt").text == "Grüße\nZoë"
    latin = extract("crème brûlée".encode("latin-1"), "text/plain", "menu.txt", charset="iso-8859-1")
    assert latin.text == "crème brûlée" and latin.problems == []
    assert extract("\ufeffBOM".encode("utf-16-le"), OCTET, "notes.txt").text.endswith("BOM")
    bad = extract(b"\xff\xfe\xfa not utf-8 \xc3", "text/plain", "x.txt", charset="utf-8")
    assert bad.problems == ["charset_replaced"]


def test_csv_rows_with_a_sniffed_delimiter_and_bounded_cells() -> None:
    data = b'name;city\nAnn;Berlin\n"Bob; Jr.";Paris\n'
    assert extract(data, "text/csv", "people.csv").text == "name | city\nAnn | Berlin\nBob; Jr. | Paris\n"
    big = b"".join(b"%d,%d,%d\n" % (i, i, i) for i in range(10_000))
    found = extract(big, "text/csv", "big.csv", limits=Limits(max_cells=300))
    assert found.cut is not None and found.cut.reason == "cells" and found.text.count("\n") == 100


def test_html_uses_the_mail_converter() -> None:
    text = extract((FIXTURES / "habibi.html").read_bytes(), "text/html", "habibi.html").text
    assert "حَبيبي" in text and "habibi" in text and "<" not in text


def test_an_attached_eml_reads_as_get_email_reads_a_message() -> None:
    raw = (
        b"From: Ann <ann@example.org>\r\nTo: me@example.com\r\nSubject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n"
        b"Date: Tue, 20 Oct 2026 10:45:00 +0000\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n'
        b"<p>Hello <b>there</b></p>\r\n--b\r\nContent-Type: application/pdf\r\n"
        b'Content-Disposition: attachment; filename="a.pdf"\r\n\r\n%PDF-1.4\r\n--b--\r\n'
    )
    found = extract(raw, "message/rfc822", "")
    assert found.kind == "eml"
    head, _, body = found.text.partition("\n\n")
    assert head.splitlines() == [
        "Subject: Grüße",
        "From: Ann <ann@example.org>",
        "To: me@example.com",
        "Date: 2026-10-20T10:45:00+00:00",
        "Attachments: a.pdf (application/pdf, 8 bytes)",
    ]
    assert " ".join(body.split()) == "Hello there"


# --- kinds ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mime", "name", "kind"),
    [
        (PDF, "x", "pdf"),
        (OCTET, "Report.PDF", "pdf"),
        (DOCX, "", "docx"),
        (OCTET, "a.xlsx", "xlsx"),
        (PPTX, "", "pptx"),
        (ODT, "", "odt"),
        ("text/html; charset=utf-8", "", "html"),
        ("text/csv", "", "csv"),
        ("text/x-python", "a.py", "text"),
        ("message/rfc822", "", "eml"),
        (OCTET, "fwd.eml", "eml"),
        ("image/png", "logo.png", None),
        ("application/msword", "old.doc", None),
        (OCTET, "archive.zip", None),
        ("application/zip", "", None),
    ],
)
def test_kind_from_type_and_name(mime: str, name: str, kind: str | None) -> None:
    assert kind_of(mime, name) == kind and readable(mime, name) == (kind is not None)


def test_another_type_is_unsupported() -> None:
    with pytest.raises(UnsupportedDocument) as raised:
        extract(b"\x89PNG\r\n\x1a\n", "image/png", "logo.png")
    assert raised.value.reason == "unsupported_type" and raised.value.mime_type == "image/png"
    with pytest.raises(UnsupportedDocument):  # a zip that is no Office file, whatever its name says
        extract(_zip({"a.txt": b"hi"}), OCTET, "a.zip")


def test_the_bytes_decide_over_a_wrong_type() -> None:
    data = (FIXTURES / "tables.docx").read_bytes()
    assert extract(data, PDF, "tables.pdf").kind == "docx"
    assert extract((FIXTURES / "google-doc-document.pdf").read_bytes(), "text/plain", "x.txt").kind == "pdf"


def test_more_bytes_than_any_attachment_is_refused() -> None:
    with pytest.raises(UnreadableDocument) as raised:
        extract(b"x" * 101, "text/plain", "a.txt", limits=Limits(max_bytes=100))
    assert raised.value.reason == "too_large"
