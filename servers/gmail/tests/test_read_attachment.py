"""read_attachment, get_email's `readable` and the attachment resource, in process against the emulator
(`mcp.Client` on the assembled server, so every answer is validated against its outputSchema): real
documents in a message, inline parts, an attached message and the attachments inside it, paging that
reassembles the text exactly, and each failure as its contract error."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator
from gmail_mcp.documents import extract
from gmail_mcp.runtime.server import ContractServer
from mcp import Client

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).parent / "fixtures" / "documents"
DOCX = ("application", "vnd.openxmlformats-officedocument.wordprocessingml.document")


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(fixtures_path("tables.docx")) as source, zipfile.ZipFile(buffer, "w", 8) as archive:
        for name in source.namelist():
            archive.writestr(name, source.read(name))
        with archive.open("word/media/bomb.bin", "w", force_zip64=True) as member:
            for _ in range(70):
                member.write(bytes(1_000_000))
    return buffer.getvalue()


def fixtures_path(name: str) -> Path:
    return FIXTURES / name


def documents_mail() -> bytes:
    """A message as a mail client makes one: text, a PDF, a picture, an inline CSV, an attached message
    carrying a DOCX, an encrypted PDF and a DOCX zip bomb."""
    inner = EmailMessage()
    inner["From"] = "Carol <carol@example.org>"
    inner["To"] = "ann@example.org"
    inner["Subject"] = "Agenda for Monday"
    inner["Date"] = "Mon, 19 Oct 2026 08:00:00 +0000"
    inner.set_content("The agenda is attached.\n")
    inner.add_attachment(fixture("tables.docx"), *DOCX, filename="agenda.docx")
    outer = EmailMessage()
    outer["From"] = "Ann <ann@example.org>"
    outer["To"] = "me@example.com"
    outer["Subject"] = "Papers for the meeting"
    outer["Date"] = "Tue, 20 Oct 2026 10:45:00 +0000"
    outer["Message-ID"] = "<papers@example.org>"
    outer.set_content("Everything for Monday.\n")
    outer.add_attachment(fixture("pdflatex-4-pages.pdf"), "application", "pdf", filename="blindtext.pdf")
    outer.add_attachment(b"\x89PNG\r\n\x1a\n", "image", "png", filename="logo.png")
    outer.add_attachment(b"name,city\nAnn,Berlin\n", "text", "csv", filename="people.csv", disposition="inline")
    outer.add_attachment(inner, filename="forwarded.eml")
    outer.add_attachment(fixture("libreoffice-writer-password.pdf"), "application", "pdf", filename="secret.pdf")
    outer.add_attachment(zip_bomb(), *DOCX, filename="bomb.docx")
    return outer.as_bytes()


@pytest.fixture
def server(make_server: Callable[..., ContractServer]) -> ContractServer:
    return make_server()


@pytest.fixture
def message(emu: Emulator) -> str:
    return emu.add_message(documents_mail(), ["INBOX"])


async def call(server: ContractServer, tool: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    async with Client(server) as session:
        result = await session.call_tool(tool, arguments)
    payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
    if not result.is_error:
        assert result.structured_content == payload
    return bool(result.is_error), payload


async def attachments(server: ContractServer, message: str) -> dict[str, dict[str, Any]]:
    failed, email = await call(server, "get_email", {"message_id": message})
    assert not failed, email
    return {a["filename"]: a for a in email["attachments"]}


async def test_get_email_says_which_attachments_can_be_read(server: ContractServer, message: str) -> None:
    found = await attachments(server, message)
    assert {name: (a["readable"], a["inline"]) for name, a in found.items()} == {
        "blindtext.pdf": (True, False),
        "logo.png": (False, False),
        "people.csv": (True, True),
        "forwarded.eml": (True, False),
        "secret.pdf": (True, False),
        "bomb.docx": (True, False),
    }
    assert found["forwarded.eml"]["attachment_id"].startswith("part-")  # Gmail shows it expanded, without an id
    assert all(a["attachment_id"] for a in found.values())


async def test_a_pdf_pages_and_the_pages_reassemble_the_text_exactly(server: ContractServer, message: str) -> None:
    attachment_id = (await attachments(server, message))["blindtext.pdf"]["attachment_id"]
    pages: list[str] = []
    offset: int | None = 0
    while offset is not None:
        arguments = {"message_id": message, "attachment_id": attachment_id, "offset": offset, "max_chars": 4000}
        failed, page = await call(server, "read_attachment", arguments)
        assert not failed, page
        assert (page["filename"], page["mime_type"], page["pages"]) == ("blindtext.pdf", "application/pdf", 4)
        assert page["size"] == len(fixture("pdflatex-4-pages.pdf"))
        pages.append(page["text"])
        if page["next_offset"] is not None:
            [warning] = page["warnings"]
            assert warning["code"] == "CONTENT_TRUNCATED" and warning["next_offset"] == page["next_offset"]
            assert f"offset={page['next_offset']}" in warning["message"]
        else:
            assert page["warnings"] == []
        offset = page["next_offset"]
    whole = extract(fixture("pdflatex-4-pages.pdf"), "application/pdf", "x.pdf").text
    assert "".join(pages) == whole and page["total_chars"] == len(whole) and len(pages) == 4
    assert pages[0].startswith("--- page 1 of 4 ---\nHello, here is some text without a meaning.")


async def test_an_inline_part_reads(server: ContractServer, message: str) -> None:
    attachment_id = (await attachments(server, message))["people.csv"]["attachment_id"]
    failed, answer = await call(server, "read_attachment", {"message_id": message, "attachment_id": attachment_id})
    assert not failed and answer["text"] == "name | city\nAnn | Berlin\n" and "pages" not in answer


async def test_an_attached_message_reads_as_get_email_and_its_attachments_then(
    server: ContractServer, message: str
) -> None:
    attachment_id = (await attachments(server, message))["forwarded.eml"]["attachment_id"]
    failed, answer = await call(server, "read_attachment", {"message_id": message, "attachment_id": attachment_id})
    assert not failed, answer
    head, _, body = answer["text"].partition("\n\n")
    lines = head.splitlines()
    assert lines[:4] == [
        "Subject: Agenda for Monday",
        "From: Carol <carol@example.org>",
        "To: ann@example.org",
        "Date: 2026-10-19T08:00:00+00:00",
    ]
    assert body == "The agenda is attached.\n"
    assert lines[4].startswith("Attachments: agenda.docx (application/vnd.openxmlformats-officedocument")
    inner_id = lines[4].rsplit("attachment_id ", 1)[1].rstrip(")")
    failed, inner = await call(server, "read_attachment", {"message_id": message, "attachment_id": inner_id})
    assert not failed, inner
    assert inner["filename"] == "agenda.docx"
    assert inner["text"] == "Above\n\nTop left | Top right\nBottom left | Bottom right\n\nBelow\n"


async def test_the_attachment_resource_gives_the_text(server: ContractServer, message: str) -> None:
    attachment_id = (await attachments(server, message))["people.csv"]["attachment_id"]
    async with Client(server) as session:
        result = await session.read_resource(f"gmail://message/{message}/attachment/{attachment_id}")
    [content] = result.contents
    assert content.mime_type == "text/plain" and getattr(content, "text", None) == "name | city\nAnn | Berlin\n"


async def errors_of(server: ContractServer, message: str, name: str, **more: Any) -> dict[str, Any]:
    attachment_id = (await attachments(server, message))[name]["attachment_id"]
    failed, answer = await call(
        server, "read_attachment", {"message_id": message, "attachment_id": attachment_id, **more}
    )
    assert failed, answer
    assert set(answer) == {"error", "message", "details"}
    return answer


async def test_each_failure_is_its_contract_error(server: ContractServer, message: str) -> None:
    answer = await errors_of(server, message, "secret.pdf")
    assert answer["error"] == "permission_denied" and answer["details"]["reason"] == "encrypted"
    answer = await errors_of(server, message, "logo.png")
    assert answer["error"] == "parse_error" and answer["details"]["reason"] == "unsupported_type"
    assert answer["details"]["mime_type"] == "image/png"
    answer = await errors_of(server, message, "bomb.docx")
    assert answer["error"] == "parse_error" and answer["details"]["reason"] == "zip_bomb"
    answer = await errors_of(server, message, "people.csv", offset=10_000)
    assert answer["error"] == "parse_error" and answer["details"]["field"] == "offset"
    for attachment_id in ("ANGjdJnope", "part-9-9"):
        failed, answer = await call(server, "read_attachment", {"message_id": message, "attachment_id": attachment_id})
        assert failed and answer["error"] == "not_found"
        assert answer["details"]["resource"] == "attachment" and answer["details"]["id"] == attachment_id
    failed, answer = await call(server, "read_attachment", {"message_id": "ffffffffffffffff", "attachment_id": "x"})
    assert failed and answer["error"] == "not_found" and answer["details"]["resource"] == "message"


async def test_download_attachment_takes_part_tokens_only_for_attachments(
    server: ContractServer, emu: Emulator, message: str
) -> None:
    """A `part-` token naming a part that is no attachment (the body) is not_found, as is the token of an attached
    message Gmail only shows expanded (no bytes to save); a real attachment id still saves."""
    raw = EmailMessage()
    raw["From"] = "a@example.org"
    raw["Subject"] = "inline bytes"
    raw.set_content("body\n")
    raw.add_attachment(b"a,b\n", "text", "csv", filename="t.csv")
    simple = emu.add_message(raw.as_bytes(), ["INBOX"])
    failed, saved = await call(server, "download_attachment", {"message_id": simple, "attachment_id": "part-0"})
    assert failed and saved["error"] == "not_found"  # part 0 is the body, not an attachment
    forwarded = (await attachments(server, message))["forwarded.eml"]["attachment_id"]
    failed, saved = await call(server, "download_attachment", {"message_id": message, "attachment_id": forwarded})
    assert failed and saved["error"] == "not_found" and saved["details"]["resource"] == "attachment"
    failed, email = await call(server, "get_email", {"message_id": simple})
    [attachment] = email["attachments"]
    failed, saved = await call(
        server, "download_attachment", {"message_id": simple, "attachment_id": attachment["attachment_id"]}
    )
    assert not failed and Path(saved["path"]).read_bytes() == b"a,b\n"
