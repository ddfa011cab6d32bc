"""gmail-mcp's documents as text through `uv run gmail-mcp` against the emulator, over stdio and over HTTP in the
same run: read_attachment on real files (servers/gmail/tests/fixtures/documents), paging, attached messages,
the attachment resource, and every error code the tool can answer (specs/contracts/gmail-tools.json)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault

from tests.contract import checks
from tests.contract.checks import assert_error
from tests.contract.harness import REPO, Session, running, running_http

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"
FIXTURES = REPO / "servers" / "gmail" / "tests" / "fixtures" / "documents"
DOCX = ("application", "vnd.openxmlformats-officedocument.wordprocessingml.document")
TRANSPORTS: dict[str, Callable[..., AbstractAsyncContextManager[Session]]] = {
    "stdio": running,  # the pass's own transport (HTTP in the HTTP pass)
    "http": running_http,  # HTTP in every pass
}


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(FIXTURES / "tables.docx") as source, zipfile.ZipFile(buffer, "w", 8) as archive:
        for name in source.namelist():
            archive.writestr(name, source.read(name))
        with archive.open("word/media/bomb.bin", "w", force_zip64=True) as member:
            for _ in range(70):  # 70 MB of zeros, ~70 KB deflated
                member.write(bytes(1_000_000))
    return buffer.getvalue()


def documents_mail() -> bytes:
    inner = EmailMessage()
    inner["From"] = "Carol <carol@example.org>"
    inner["Subject"] = "Slides for Monday"
    inner.set_content("The slides.\n")
    pptx = "vnd.openxmlformats-officedocument.presentationml.presentation"
    inner.add_attachment(fixture("shp-shapes.pptx"), "application", pptx, filename="slides.pptx")
    outer = EmailMessage()
    outer["From"] = "Ann <ann@example.org>"
    outer["To"] = "me@example.com"
    outer["Subject"] = "Documents to read"
    outer["Date"] = "Tue, 20 Oct 2026 10:45:00 +0000"
    outer.set_content("Attached.\n")
    outer.add_attachment(fixture("multicolumn.pdf"), "application", "pdf", filename="lipsum.pdf")
    xlsx = "vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    outer.add_attachment(fixture("contains_chartsheets.xlsx"), "application", xlsx, filename="data.xlsx")
    outer.add_attachment(fixture("imagemagick-images.pdf"), "application", "pdf", filename="scan.pdf")
    outer.add_attachment(fixture("libreoffice-writer-password.pdf"), "application", "pdf", filename="secret.pdf")
    outer.add_attachment(b"\x89PNG\r\n\x1a\n", "image", "png", filename="logo.png")
    outer.add_attachment(zip_bomb(), *DOCX, filename="bomb.docx")
    outer.add_attachment(inner, filename="slides.eml")
    return outer.as_bytes()


@pytest.fixture(scope="module")
def documents(emulator: Emulator) -> str:
    """The id of one message carrying the documents (not in the inbox: other tests' listings stay as seeded)."""
    return emulator.add_message(documents_mail(), ["Label_1"], apply_filters=False)


async def ids(session: Session, message: str) -> dict[str, str]:
    answer = await session.call("get_email", {"message_id": message})
    assert answer.error is None, answer.payload
    return {a["filename"]: a["attachment_id"] for a in answer.payload["attachments"] if a["readable"]}


def read_error(session: Session, answer: Any, code: str, **expected: Any) -> dict[str, Any]:
    return assert_error(session, answer, code, server=SERVER, tool="read_attachment", **expected)


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
async def test_read_attachment_reads_pages_and_answers_its_errors(
    transport: str, gmail_env: dict[str, str], emulator: Emulator, documents: str
) -> None:
    async with TRANSPORTS[transport]([SERVER], gmail_env) as session:
        found = await ids(session, documents)
        assert set(found) == {"lipsum.pdf", "data.xlsx", "scan.pdf", "secret.pdf", "bomb.docx", "slides.eml"}

        # a PDF, paged: the pages put together are the whole text
        parts, offset = [], 0
        while offset is not None:
            arguments = {"message_id": documents, "attachment_id": found["lipsum.pdf"], "offset": offset,
                         "max_chars": 3000}  # fmt: skip
            page = (await session.call("read_attachment", arguments)).payload
            assert page["pages"] == 3 and page["mime_type"] == "application/pdf", page
            parts.append(page["text"])
            offset = page["next_offset"]
        text = "".join(parts)
        assert len(text) == page["total_chars"] and len(parts) == -(-len(text) // 3000)
        assert text.startswith("--- page 1 of 3 ---\nTwo-Column Document with Lorem Ipsum\n")
        assert "Lorem ipsum dolor sit amet, consectetuer adipiscing elit." in text and "--- page 3 of 3 ---" in text

        sheet = await session.call("read_attachment", {"message_id": documents, "attachment_id": found["data.xlsx"]})
        assert sheet.payload["text"].startswith("## Sheet: data\nx | y\n") and "pages" not in sheet.payload

        scan = await session.call("read_attachment", {"message_id": documents, "attachment_id": found["scan.pdf"]})
        assert [w["code"] for w in scan.payload["warnings"]] == ["NO_TEXT_LAYER"] and scan.payload["pages"] == 6

        attached = await session.call(
            "read_attachment", {"message_id": documents, "attachment_id": found["slides.eml"]}
        )
        assert attached.payload["text"].startswith("Subject: Slides for Monday\nFrom: Carol <carol@example.org>\n")
        inner_id = attached.payload["text"].split("attachment_id ", 1)[1].split(")", 1)[0]
        slides = await session.call("read_attachment", {"message_id": documents, "attachment_id": inner_id})
        assert slides.payload["filename"] == "slides.pptx"
        assert slides.payload["text"].startswith("## Slide 1 of 2: shapes[0]\n")

        # every error code read_attachment can answer
        def call(name: str, **more: Any) -> Any:
            return session.call("read_attachment", {"message_id": documents, "attachment_id": found[name], **more})

        read_error(session, await call("secret.pdf"), "permission_denied", reason="encrypted")
        read_error(session, await call("bomb.docx"), "parse_error", reason="zip_bomb")
        read_error(session, await call("lipsum.pdf", offset=10**9), "parse_error", field="offset")
        missing = await session.call("read_attachment", {"message_id": documents, "attachment_id": "ANGjdJnope"})
        read_error(session, missing, "not_found", resource="attachment")
        unknown = await session.call("read_attachment", {"message_id": "ffffffffffffffff", "attachment_id": "a"})
        read_error(session, unknown, "not_found", resource="message")
        emulator.add_fault(Fault(route="messages.get", status=429, reason="rateLimitExceeded", retry_after=3600))
        read_error(session, await call("data.xlsx"), "rate_limited", retry_after_seconds=3600)
        emulator.add_fault(Fault(route="messages.get", status=503, times=None))
        read_error(session, await call("data.xlsx"), "mcp_unavailable", service="gmail_api")
        emulator.clear_faults()


async def test_unsupported_types_crashes_and_a_missing_token(
    gmail_env: dict[str, str], emulator: Emulator, documents: str, tmp_path: Path
) -> None:
    env = gmail_env | {"GMAIL_MCP_CRASH_TOOLS": "read_attachment"}
    async with running([SERVER], env) as session:
        crash = await session.call("read_attachment", {"message_id": documents, "attachment_id": "a"})
        assert_error(session, crash, "internal_error", server=SERVER, tool="read_attachment")
    async with running([SERVER], gmail_env) as session:
        answer = await session.call("get_email", {"message_id": documents})
        [png] = [a for a in answer.payload["attachments"] if a["filename"] == "logo.png"]
        assert png["readable"] is False
        refused = await session.call(
            "read_attachment", {"message_id": documents, "attachment_id": png["attachment_id"]}
        )
        read_error(session, refused, "parse_error", reason="unsupported_type", mime_type="image/png")
        # the resource template gives the text; an attachment that does not exist is -32002
        [xlsx] = [a for a in answer.payload["attachments"] if a["filename"] == "data.xlsx"]
        uri = f"gmail://message/{documents}/attachment/{xlsx['attachment_id']}"
        result = await session.client.read_resource(uri)
        assert getattr(result.contents[0], "text", "").startswith("## Sheet: data\n")
        await checks.read_error(session, f"gmail://message/{documents}/attachment/ANGjdJnope", -32002, "not_found",
                                server=SERVER, resource="attachment")  # fmt: skip
    Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]).unlink()
    async with running([SERVER], gmail_env) as session:
        answer = await session.call("read_attachment", {"message_id": documents, "attachment_id": "a"})
        read_error(session, answer, "auth_required", reason="no_token")
