"""What send_email puts on the wire, read back from the emulator's store: threading, encodings, attachments,
and the argument failures that stop a send before any request."""

from __future__ import annotations

import os
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from gmail_emulator import Emulator
from gmail_mcp.api.access import Access
from gmail_mcp.api.errors import ApiNotFound
from gmail_mcp.api.mailbox import RAW_LIMIT_BYTES, MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.errors import to_contract
from gmail_mcp.guard.gate import Gate
from gmail_mcp.mail.compose import ATTACHMENT_LIMIT_BYTES
from gmail_mcp.mail.errors import AttachmentNotFound, InvalidField
from gmail_mcp.outgoing import Composer, Outgoing
from gmail_mcp.sender import Sender

Stored = Callable[[Emulator, str], EmailMessage]


@pytest.fixture
def sender(mailbox: MailboxApi, delivery: Delivery, ungated: Gate) -> Sender:
    return Sender(Composer(mailbox), delivery, ungated)


def test_a_reply_is_threaded_and_keeps_one_re(emu: Emulator, sender: Sender, stored: Stored) -> None:
    original = emu.seeded["lunch_3"]  # "Re: Lunch tomorrow?", third of its thread
    answer = sender.send(Outgoing(to=[], subject="", body="Works for me.", reply_to_message_id=original))
    assert answer.thread_id == emu.mailbox.thread_id(original)
    assert emu.mailbox.thread_id(answer.id) == emu.mailbox.thread_id(original)
    sent = stored(emu, answer.id)
    assert sent["Subject"] == "Re: Lunch tomorrow?"
    assert sent["In-Reply-To"] == "<lunch_3@seed.example.com>"
    assert sent["References"].split() == [
        "<lunch_1@seed.example.com>",
        "<lunch_2@seed.example.com>",
        "<lunch_3@seed.example.com>",
    ]
    assert sent["Message-ID"] == answer.message_id
    assert sent["To"]  # went back to the original's sender


def test_a_reply_to_a_first_message_gets_re_once(emu: Emulator, sender: Sender, stored: Stored) -> None:
    original = emu.seeded["dinner_1"]
    answer = sender.send(Outgoing(to="bob@example.com", subject="", body="Yes!", reply_to_message_id=original))
    sent = stored(emu, answer.id)
    assert sent["Subject"].startswith("Re: ") and not sent["Subject"].startswith("Re: Re:")
    assert answer.thread_id == emu.mailbox.thread_id(original)


def test_a_reply_to_an_unknown_message_is_not_found_and_sends_nothing(emu: Emulator, sender: Sender) -> None:
    with pytest.raises(ApiNotFound) as caught:
        sender.send(Outgoing(to="bob@example.com", subject="x", body="y", reply_to_message_id="ffffffffffffffff"))
    assert caught.value.resource == "message"
    assert "messages.send" not in [r.route for r in emu.request_log()]


def test_non_ascii_headers_and_body_round_trip(emu: Emulator, sender: Sender, stored: Stored) -> None:
    answer = sender.send(
        Outgoing(
            to=["Zoë Müller <zoe@example.com>", "bob@example.com"],
            cc="Łukasz <lukasz@example.com>",
            subject="Grüße aus München — 東京",
            body="Schöne Grüße!\n",
            html_body="<p>Schöne <b>Grüße</b>!</p>",
            signature=False,  # (the signature: test_send_as)
        )
    )
    raw = emu.mailbox.get_raw(answer.id)
    assert raw.isascii()  # 7-bit on the wire: RFC 2047 headers, encoded bodies
    sent = stored(emu, answer.id)
    assert sent["Subject"] == "Grüße aus München — 東京"
    assert [a.display_name for a in sent["To"].addresses] == ["Zoë Müller", ""]
    assert sent["Cc"].addresses[0].display_name == "Łukasz"
    body = sent.get_body(("plain",))
    html = sent.get_body(("html",))
    assert body is not None and body.get_content().replace("\r\n", "\n") == "Schöne Grüße!\n"
    assert html is not None and "<b>Grüße</b>" in html.get_content()


@pytest.mark.parametrize("size", [3_000, RAW_LIMIT_BYTES + 1], ids=["raw", "media-upload"])
def test_attachments_round_trip(emu: Emulator, sender: Sender, stored: Stored, tmp_path: Path, size: int) -> None:
    report = tmp_path / "Bericht über Q3.pdf"
    report.write_bytes(os.urandom(size))
    notes = tmp_path / "notes.txt"
    notes.write_text("ünïcödé notes\n", encoding="utf-8")
    answer = sender.send(
        Outgoing(to="bob@example.com", subject="files", body="two files", attachments=[str(report), str(notes)])
    )
    sent = stored(emu, answer.id)
    parts = {part.get_filename(): part for part in sent.iter_attachments()}
    assert set(parts) == {"Bericht über Q3.pdf", "notes.txt"}
    assert parts["Bericht über Q3.pdf"].get_content_type() == "application/pdf"
    assert parts["Bericht über Q3.pdf"].get_content() == report.read_bytes()
    assert parts["notes.txt"].get_payload(decode=True) == notes.read_bytes()
    assert parts["notes.txt"].get_content_charset() == "utf-8"
    record = next(r for r in emu.request_log() if r.route == "messages.send")
    assert record.path.startswith("/upload/") == (size > RAW_LIMIT_BYTES)
    if size > RAW_LIMIT_BYTES:
        assert record.query["uploadType"] == "media"


@pytest.mark.parametrize("field", ["to", "cc", "bcc"])
def test_a_bad_address_names_its_field_and_sends_nothing(emu: Emulator, sender: Sender, field: str) -> None:
    args = {"to": "bob@example.com", field: ["ok@example.com", "not an address"]}
    with pytest.raises(InvalidField) as caught:
        sender.send(Outgoing(subject="x", body="y", **args))  # type: ignore[arg-type]
    assert caught.value.field == field and caught.value.reason == "invalid_address"
    assert emu.request_log() == []


def test_a_missing_attachment_is_not_found_by_its_name_only(emu: Emulator, sender: Sender, tmp_path: Path) -> None:
    missing = tmp_path / "private" / "plan.pdf"
    with pytest.raises(AttachmentNotFound) as caught:
        sender.send(Outgoing(to="bob@example.com", subject="x", body="y", attachments=[str(missing)]))
    error = to_contract(caught.value, "req-1", Access(read_only=False))
    assert error is not None and error.error == "not_found"
    assert error.details["resource"] == "attachment_file" and error.details["path"] == "plan.pdf"
    assert str(tmp_path) not in error.message + str(error.details)
    assert emu.request_log() == []


def test_too_large_attachments_fail_before_any_request(emu: Emulator, sender: Sender, tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    with big.open("wb") as handle:  # sparse: no 25 MB written to disk
        handle.truncate(ATTACHMENT_LIMIT_BYTES + 1)
    with pytest.raises(InvalidField) as caught:
        sender.send(Outgoing(to="bob@example.com", subject="x", body="y", attachments=[str(big)]))
    assert (caught.value.field, caught.value.reason) == ("attachments", "too_large")
    assert emu.request_log() == []
