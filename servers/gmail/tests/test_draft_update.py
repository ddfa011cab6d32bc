"""update_draft against the emulator: the fields given change, everything else is kept (recipients, subject,
body, HTML, attachments byte for byte, threading), and sending it afterwards is an ordinary send_draft."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from gmail_emulator import Emulator
from gmail_mcp.api.errors import ApiNotFound
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.drafts import DraftChange, Drafts
from gmail_mcp.guard.gate import Gate
from gmail_mcp.mail.errors import InvalidField, NotSendAs
from gmail_mcp.outgoing import Composer, Outgoing

Stored = Callable[[Emulator, str], EmailMessage]


@pytest.fixture
def box(mailbox: MailboxApi, delivery: Delivery, ungated: Gate) -> Drafts:
    return Drafts(mailbox, Composer(mailbox), delivery, ungated)


def text(part: object) -> str:
    assert isinstance(part, EmailMessage)
    content = part.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def files(message: EmailMessage) -> dict[str, bytes]:
    return {str(p.get_filename()): p.get_payload(decode=True) for p in message.iter_attachments()}  # type: ignore[misc]


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "Bericht über Q3.pdf"
    path.write_bytes(bytes(range(256)) * 10)
    return path


def test_only_the_fields_given_change(emu: Emulator, box: Drafts, stored: Stored, report: Path) -> None:
    original = emu.seeded["lunch_3"]
    created = box.create(
        Outgoing(
            to="Bob <bob@example.com>",
            cc="carol@example.com",
            bcc="lee@example.net",
            subject="",
            body="first words",
            html_body="<p>first <b>words</b></p>",
            reply_to_message_id=original,
            attachments=[str(report)],
            signature=False,
        )
    )
    before = stored(emu, created.message_id)
    updated = box.update(created.draft_id, DraftChange(subject="Re: Lunch, updated"))
    assert updated.draft_id == created.draft_id and updated.warnings == []
    assert updated.message_id != created.message_id and updated.message_id in emu.mailbox.message_ids("DRAFT")
    after = stored(emu, updated.message_id)
    assert after["Subject"] == "Re: Lunch, updated"
    for name in ("To", "Cc", "Bcc", "In-Reply-To", "References"):
        assert after[name] == before[name], name
    assert updated.thread_id == created.thread_id == emu.mailbox.thread_id(original)
    assert text(after.get_body(("plain",))) == "first words\n"
    assert text(after.get_body(("html",))) == "<p>first <b>words</b></p>\n"
    assert files(after) == {"Bericht über Q3.pdf": report.read_bytes()}
    assert after["Message-ID"] != before["Message-ID"]


def test_a_new_body_gets_the_signature_and_loses_the_old_html(emu: Emulator, box: Drafts, stored: Stored) -> None:
    created = box.create(Outgoing(to="bob@example.com", subject="s", body="old", html_body="<p>old</p>"))
    updated = box.update(created.draft_id, DraftChange(body="new"))
    after = stored(emu, updated.message_id)
    assert text(after.get_body(("plain",))).startswith("new\n\n-- \nMia Example\n")
    html = text(after.get_body(("html",)))
    assert html.startswith('<div dir="ltr">new<div><br></div><span class="gmail_signature_prefix">')
    assert "old" not in html
    kept = box.update(created.draft_id, DraftChange(cc="carol@example.com"))
    assert text(stored(emu, kept.message_id).get_body(("plain",))).count("-- \n") == 1  # a kept body is kept as is


def test_attachments_are_added_once_and_kept(
    emu: Emulator, box: Drafts, stored: Stored, report: Path, tmp_path: Path
) -> None:
    created = box.create(Outgoing(to="bob@example.com", subject="s", body="b", attachments=[str(report)]))
    notes = tmp_path / "notes.txt"
    notes.write_text("ünïcödé\n", encoding="utf-8")
    expected = {"Bericht über Q3.pdf": report.read_bytes(), "notes.txt": notes.read_bytes()}
    first = box.update(created.draft_id, DraftChange(attachments=[str(notes), str(report)]))
    assert files(stored(emu, first.message_id)) == expected
    again = box.update(created.draft_id, DraftChange(attachments=[str(notes)]))  # idempotent: not added twice
    assert files(stored(emu, again.message_id)) == expected


def test_recipients_can_be_replaced_or_cleared(emu: Emulator, box: Drafts, stored: Stored) -> None:
    created = box.create(Outgoing(to="bob@example.com", cc="carol@example.com", subject="s", body="b"))
    updated = box.update(created.draft_id, DraftChange(to=["Zoë <zoe@example.de>"], cc=[]))
    after = stored(emu, updated.message_id)
    assert (after["To"], after["Cc"]) == ("Zoë <zoe@example.de>", None)


def test_re_threading_and_reply_all(emu: Emulator, box: Drafts, stored: Stored) -> None:
    created = box.create(Outgoing(to="bob@example.com", subject="", body="b", signature=False))
    original = emu.seeded["atlas_1"]  # from Alice, to me, cc Bob
    updated = box.update(created.draft_id, DraftChange(to=[], reply_to_message_id=original, reply_all=True))
    after = stored(emu, updated.message_id)
    assert (after["To"], after["Cc"]) == ("Alice Johnson <alice@example.com>", "Bob Lee <bob@example.com>")
    assert after["Subject"] == "Re: Project Atlas kickoff" and after["In-Reply-To"] == "<atlas_1@seed.example.com>"
    assert updated.thread_id == emu.mailbox.thread_id(original)


def test_from_address_is_checked_and_changed(emu: Emulator, box: Drafts, stored: Stored) -> None:
    created = box.create(Outgoing(to="bob@example.com", subject="s", body="b"))
    with pytest.raises(NotSendAs):
        box.update(created.draft_id, DraftChange(from_address="nobody@acme.example"))
    updated = box.update(created.draft_id, DraftChange(from_address="me@acme.example"))
    assert stored(emu, updated.message_id)["From"] == "Mia Example <me@acme.example>"


def test_failures_before_anything_changes(emu: Emulator, box: Drafts) -> None:
    with pytest.raises(ApiNotFound) as caught:
        box.update("r1234", DraftChange(subject="x"))
    assert (caught.value.resource, caught.value.id) == ("draft", "r1234")
    created = box.create(Outgoing(to="bob@example.com", subject="s", body="b"))
    emu.clear_requests()
    for change, field in (
        (DraftChange(reply_all=True), "reply_all"),
        (DraftChange(cc="not an address"), "cc"),
        (DraftChange(attachments="x"), "attachments"),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidField) as refused:
            box.update(created.draft_id, change)
        assert refused.value.field == field
    assert emu.request_log() == []


def test_an_updated_draft_sends_as_updated(emu: Emulator, box: Drafts, stored: Stored) -> None:
    created = box.create(Outgoing(to="bob@example.com", subject="s", body="b", signature=False))
    box.update(created.draft_id, DraftChange(body="final words", signature=False))
    sent = box.send(created.draft_id)
    assert sent.warnings == [] and "SENT" in emu.mailbox.label_ids(sent.id)
    assert text(stored(emu, sent.id)) == "final words\n"


def test_a_seeded_draft_without_our_headers_updates_too(emu: Emulator, box: Drafts, stored: Stored) -> None:
    draft_id = emu.seeded_drafts["draft_notes"]
    updated = box.update(draft_id, DraftChange(subject="Notes for Bob (v2)"))
    after = stored(emu, updated.message_id)
    assert after["Subject"] == "Notes for Bob (v2)" and after["To"] == "Bob Lee <bob@example.com>"
    assert text(after) == "Bob, some notes on the timeline before Monday:\n- M2 needs a buffer\n"
