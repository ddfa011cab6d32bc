"""gmail_mcp.mail.compose: outgoing MIME, checked by reading the raw bytes back."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage, MIMEPart
from pathlib import Path
from typing import Any

import pytest
from gmail_mcp.mail import compose
from gmail_mcp.mail.compose import ATTACHMENT_LIMIT_BYTES, ReplyContext, build_message
from gmail_mcp.mail.errors import AttachmentNotFound, InvalidField


def build(**overrides: Any) -> compose.BuiltMessage:
    args: dict[str, Any] = {
        "sender": None,
        "to": "bob@example.com",
        "subject": "Hello",
        "body": "Hi Bob,\nsee you.\n",
    }
    args.update(overrides)
    return build_message(**args)


def read_back(built: compose.BuiltMessage) -> EmailMessage:
    msg = email.message_from_bytes(built.mime, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(part: MIMEPart | None) -> str:
    """Decoded text with LF line ends (on the wire, text is canonical CRLF)."""
    assert part is not None
    content = part.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def assert_wire_safe(mime: bytes) -> None:
    """7-bit, CRLF only, no 8bit/binary transfer encoding anywhere."""
    assert all(byte < 0x80 for byte in mime)
    assert b"\n" not in mime.replace(b"\r\n", b"")
    assert b"\r" not in mime.replace(b"\r\n", b"")
    assert not re.search(rb"(?im)^content-transfer-encoding:\s*(8bit|binary)", mime)


def test_plain_message_round_trips() -> None:
    body = "Grüße aus Köln 👋\n" + "long line " * 30 + "\nend"
    built = build(sender="Me <me@example.com>", subject="Grüße aus Köln", body=body, cc="c@example.com")
    assert_wire_safe(built.mime)
    assert built.size == len(built.mime)
    assert built.thread_id is None
    assert re.search(rb"(?m)^Subject: =\?utf-8\?[qb]\?", built.mime)
    msg = read_back(built)
    assert msg["Subject"] == "Grüße aus Köln"
    assert msg["From"] == "Me <me@example.com>"
    assert msg["To"] == "bob@example.com"
    assert msg["Cc"] == "c@example.com"
    assert msg["Message-ID"] == built.message_id
    assert msg["Date"]
    assert msg["MIME-Version"] == "1.0"
    assert text_of(msg) == body + "\n"


def test_non_ascii_display_names_are_encoded() -> None:
    built = build(to=["Jürgen Müller <jm@example.de>", '"Doe, John" <jd@example.com>'], bcc="Zoë <z@example.com>")
    assert_wire_safe(built.mime)
    assert b"=?utf-8?" in built.mime
    msg = read_back(built)
    assert [str(a) for a in msg["To"].addresses] == ["Jürgen Müller <jm@example.de>", '"Doe, John" <jd@example.com>']
    assert msg["Bcc"] == "Zoë <z@example.com>"  # kept: Gmail strips it for recipients only


def test_cjk_body_uses_7bit_safe_encoding() -> None:
    built = build(body="日本語のテキスト。" * 50)
    assert_wire_safe(built.mime)
    assert text_of(read_back(built)) == "日本語のテキスト。" * 50 + "\n"


def test_html_alternative() -> None:
    built = build(body="plain Grüße", html_body="<p>html <b>Grüße</b></p>")
    assert_wire_safe(built.mime)
    msg = read_back(built)
    assert msg.get_content_type() == "multipart/alternative"
    assert text_of(msg.get_body(("plain",))) == "plain Grüße\n"
    assert text_of(msg.get_body(("html",))) == "<p>html <b>Grüße</b></p>\n"
    assert built.mime.count(b"MIME-Version") == 1


def test_attachments_round_trip_bytes(tmp_path: Path) -> None:
    binary = bytes(range(256)) * 40
    pdf = tmp_path / "Bericht März 日本.pdf"
    pdf.write_bytes(binary)
    text = tmp_path / "notes.txt"
    text.write_bytes("naïve\r\nlines\n".encode())
    built = build(body="see attached", html_body="<p>see attached</p>", attachments=[str(pdf), str(text)])
    assert_wire_safe(built.mime)
    assert b"filename*=utf-8''Bericht%20M%C3%A4rz%20%E6%97%A5%E6%9C%AC.pdf" in built.mime
    msg = read_back(built)
    assert msg.get_content_type() == "multipart/mixed"
    found = {part.get_filename(): part for part in msg.iter_attachments()}
    assert set(found) == {"Bericht März 日本.pdf", "notes.txt"}
    assert found["Bericht März 日本.pdf"].get_content_type() == "application/pdf"
    assert found["Bericht März 日本.pdf"].get_payload(decode=True) == binary
    assert found["notes.txt"].get_payload(decode=True) == "naïve\r\nlines\n".encode()
    assert text_of(msg.get_body(("plain",))) == "see attached\n"


def test_missing_or_irregular_attachment(tmp_path: Path) -> None:
    with pytest.raises(AttachmentNotFound) as caught:
        build(attachments=["no/such/file.pdf"])
    assert caught.value.path == "no/such/file.pdf"
    with pytest.raises(AttachmentNotFound):
        build(attachments=[str(tmp_path)])
    with pytest.raises(InvalidField) as invalid:
        build(attachments=str(tmp_path))
    assert invalid.value.field == "attachments"


def test_too_large_attachment_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    huge = tmp_path / "huge.bin"
    with huge.open("wb") as f:
        f.truncate(26 * 1024 * 1024)  # sparse: costs no disk

    def must_not_read(*args: object) -> bytes:
        raise AssertionError("read before the size check")

    monkeypatch.setattr(compose, "_read_limited", must_not_read)
    with pytest.raises(InvalidField) as caught:
        build(attachments=[str(huge)])
    assert (caught.value.field, caught.value.reason) == ("attachments", "too_large")


def test_sum_of_attachments_counts(tmp_path: Path) -> None:
    half = tmp_path / "half.bin"
    with half.open("wb") as f:
        f.truncate(ATTACHMENT_LIMIT_BYTES // 2 + 1)
    with pytest.raises(InvalidField, match=r"over Gmail.s limit"):
        build(attachments=[str(half), str(half)])


def test_recipients_required() -> None:
    with pytest.raises(InvalidField) as caught:
        build(to=None)
    assert (caught.value.field, caught.value.reason) == ("to", "missing")
    with pytest.raises(InvalidField):
        build(to=" , ")
    assert read_back(build(to=None, bcc="hidden@example.com"))["Bcc"] == "hidden@example.com"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("to", "a@b.c\r\nBcc: x@y.z"),
        ("cc", ["ok@example.com", "evil@example.com\nSubject: hi"]),
        ("bcc", "not-an-address"),
        ("sender", "a@example.com, b@example.com"),
        ("sender", "me@localhost"),
    ],
)
def test_bad_addresses_rejected(field: str, value: Any) -> None:
    with pytest.raises(InvalidField) as caught:
        build(**{field: value})
    assert caught.value.field == field


def test_subject_cannot_inject_headers() -> None:
    built = build(subject="Hi\r\nBcc: victim@example.com\r\n\r\nbody")
    assert b"\r\nBcc:" not in built.mime
    assert read_back(built)["Subject"] == "Hi Bcc: victim@example.com body"


def test_own_message_id_unique_per_call() -> None:
    ids = {build().message_id for _ in range(20)}
    assert len(ids) == 20
    assert all(re.fullmatch(r"<[0-9a-f]{32}@gmail-mcp\.local>", i) for i in ids)
    assert build(message_id_domain="mail.example.org").message_id.endswith("@mail.example.org>")
    with pytest.raises(InvalidField):
        build(message_id_domain="bad domain>\r\nX: y")


# --- replies -----------------------------------------------------------------------------------------

ORIGINAL = ReplyContext(
    message_id="<orig@mail.example.com>",
    references="<root@mail.example.com>   <mid@mail.example.com>\r\n <orig@mail.example.com>",
    subject="Grüße zum Projekt",
    thread_id="18c0ffe0",
    from_="Alice <alice@example.com>",
    reply_to="",
)


def test_reply_headers() -> None:
    built = build(reply=ORIGINAL, subject="", to="alice@example.com")
    assert built.thread_id == "18c0ffe0"
    assert_wire_safe(built.mime)
    msg = read_back(built)
    assert msg["In-Reply-To"] == "<orig@mail.example.com>"
    assert msg["References"] == "<root@mail.example.com> <mid@mail.example.com> <orig@mail.example.com>"
    assert msg["Subject"] == "Re: Grüße zum Projekt"


@pytest.mark.parametrize(
    ("original", "given", "expected"),
    [
        ("Re: status", "", "Re: status"),
        ("RE: status", "", "RE: status"),
        ("Re : status", "", "Re : status"),
        ("status", "My own words", "Re: My own words"),
        ("status", "re: already", "re: already"),
        ("", "", "Re:"),
    ],
)
def test_reply_subject(original: str, given: str, expected: str) -> None:
    reply = ReplyContext(message_id="<a@b.c>", subject=original)
    assert read_back(build(reply=reply, subject=given))["Subject"] == expected


def test_reply_without_references_and_recipients() -> None:
    reply = ReplyContext(
        message_id="<only@x.y>", subject="s", thread_id="t1", from_="Alice <alice@example.com>", reply_to=""
    )
    msg = read_back(build(reply=reply, to=None))
    assert msg["References"] == "<only@x.y>"
    assert msg["To"] == "Alice <alice@example.com>"
    with_reply_to = ReplyContext(message_id="<x@y.z>", from_="a@example.com", reply_to="list@example.com")
    assert read_back(build(reply=with_reply_to, to=None))["To"] == "list@example.com"
    decoded_comma = ReplyContext(message_id="<x@y.z>", from_="Doe, John <jd@example.com>")
    assert read_back(build(reply=decoded_comma, to=None))["To"] == "jd@example.com"
    with pytest.raises(InvalidField) as caught:
        build(reply=ReplyContext(message_id="<x@y.z>", from_="garbage"), to=None)
    assert (caught.value.field, caught.value.reason) == ("to", "missing")


def test_reply_ids_are_sanitised_and_long_ids_not_encoded() -> None:
    long_id = "<" + "a" * 120 + "@mail.example.com>"
    reply = ReplyContext(message_id=long_id + "\r\nBcc: x@y.z", references="junk <r@x.y> junk", subject="s")
    built = build(reply=reply)
    assert b"Bcc:" not in built.mime
    assert long_id.encode() in built.mime  # not turned into RFC 2047 words
    msg = read_back(built)
    assert msg["In-Reply-To"] == long_id
    assert msg["References"] == "<r@x.y> " + long_id


def test_references_are_capped() -> None:
    refs = " ".join(f"<id{i}@x.y>" for i in range(200))
    msg = read_back(build(reply=ReplyContext(message_id="<last@x.y>", references=refs)))
    chain = msg["References"].split()
    assert len(chain) == compose.MAX_REFERENCES
    assert chain[0] == "<id0@x.y>" and chain[-1] == "<last@x.y>"
