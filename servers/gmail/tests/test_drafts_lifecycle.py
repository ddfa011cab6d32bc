"""Drafts against the emulator: create (never twice), list, send (never twice), delete (404 on a retry is done)."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.errors import ApiNotFound, ApiUnavailable, RateLimited, SendFailed
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.drafts import Drafts
from gmail_mcp.guard.gate import Gate
from gmail_mcp.outgoing import Composer, Outgoing
from gmail_mcp.warnings import DELIVERY_CONFIRMED_AFTER_ERROR

Stored = Callable[[Emulator, str], EmailMessage]


@pytest.fixture
def box(mailbox: MailboxApi, delivery: Delivery, ungated: Gate) -> Drafts:
    return Drafts(mailbox, Composer(mailbox), delivery, ungated)


def draft_count(emu: Emulator) -> int:
    return len(emu.mailbox.message_ids("DRAFT"))


def routes(emu: Emulator, name: str) -> int:
    return sum(1 for record in emu.request_log() if record.route == name)


def test_create_list_send(emu: Emulator, box: Drafts, stored: Stored) -> None:
    original = emu.seeded["lunch_3"]
    created = box.create(
        Outgoing(
            to="Zoë <zoe@example.com>", subject="", body="draft reply", reply_to_message_id=original, signature=False
        )
    )
    assert created.warnings == []
    assert created.thread_id == emu.mailbox.thread_id(original)
    assert created.message_id in emu.mailbox.message_ids("DRAFT")

    emu.clear_requests()
    listed = box.list(20, None)
    assert listed.warnings == [] and listed.next_page_token is None
    assert sorted(r.route for r in emu.request_log()) == ["batch", "drafts.get", "drafts.get", "drafts.list"]
    mine = next(d for d in listed.drafts if d.draft_id == created.draft_id)
    assert mine.model_dump() == {
        "draft_id": created.draft_id,
        "message_id": created.message_id,
        "to": "Zoë <zoe@example.com>",
        "subject": "Re: Lunch tomorrow?",
        "snippet": "draft reply",
    }

    sent = box.send(created.draft_id)
    assert sent.warnings == [] and sent.thread_id == emu.mailbox.thread_id(original)
    assert "SENT" in emu.mailbox.label_ids(sent.id)
    assert stored(emu, sent.id)["In-Reply-To"] == "<lunch_3@seed.example.com>"
    with pytest.raises(ApiNotFound) as caught:
        box.send(created.draft_id)
    assert (caught.value.resource, caught.value.id) == ("draft", created.draft_id)


def test_list_pages_and_reports_drafts_it_could_not_read(emu: Emulator, box: Drafts) -> None:
    for n in range(3):
        box.create(Outgoing(to="bob@example.com", subject=f"d{n}", body="x"))
    first = box.list(2, None)
    assert len(first.drafts) == 2 and first.next_page_token
    rest = box.list(2, first.next_page_token)
    assert len(rest.drafts) == 2 and rest.next_page_token is None
    emu.add_fault(Fault("drafts.get", status=500, times=None))
    listed = box.list(2, None)
    [warning] = listed.warnings
    assert warning.code == "PARTIAL_RESULTS"
    assert warning.model_extra == {"draft_ids": [d.draft_id for d in listed.drafts]}
    assert all(d.subject == "" for d in listed.drafts)


def test_delete_and_unknown_drafts(emu: Emulator, box: Drafts) -> None:
    seeded = emu.seeded_drafts["draft_notes"]
    assert box.delete(seeded).deleted == seeded
    assert draft_count(emu) == 0
    for action in (box.delete, box.send):
        with pytest.raises(ApiNotFound) as caught:
            action(seeded)
        assert caught.value.resource == "draft"


def test_delete_whose_answer_was_lost_is_done_on_retry(emu: Emulator, box: Drafts) -> None:
    seeded = emu.seeded_drafts["draft_notes"]
    emu.add_fault(Fault("drafts.delete", status=500, after_commit=True))  # deleted, then "500"
    assert box.delete(seeded).deleted == seeded  # the retry's 404 means the first one worked
    assert [r.status for r in emu.request_log() if r.route == "drafts.delete"] == [500, 404]


@pytest.mark.parametrize(
    ("fault", "expected", "drafts_made", "creates"),
    [
        (Fault("drafts.create", status=500, after_commit=True), "confirmed", 1, 1),
        (Fault("drafts.create", drop_connection=True, after_commit=True), "confirmed", 1, 1),
        (Fault("drafts.create", status=500), "unavailable", 0, 1),
        (Fault("drafts.create", drop_connection=True), "unavailable", 0, 1),
        (Fault("drafts.create", status=503), "unavailable", 0, 1),
    ],
    ids=["500-after-commit", "drop-after-commit", "500-before-commit", "drop-before-commit", "503"],
)
def test_create_draft_never_twice(
    emu: Emulator, box: Drafts, fault: Fault, expected: str, drafts_made: int, creates: int
) -> None:
    before = draft_count(emu)
    emu.add_fault(fault)
    try:
        created = box.create(Outgoing(to="bob@example.com", subject="once", body="only once"))
    except ApiUnavailable as exc:
        assert "check list_drafts" in str(exc)
        got = "unavailable"
    else:
        got = "confirmed" if created.warnings else "created"
        codes = [w.code for w in created.warnings]
        assert codes == ([DELIVERY_CONFIRMED_AFTER_ERROR] if got == "confirmed" else [])
    assert got == expected
    assert draft_count(emu) - before == drafts_made
    assert routes(emu, "drafts.create") == creates


@pytest.mark.parametrize(
    ("fault", "expected", "copies", "sends"),
    [
        (Fault("drafts.send", drop_connection=True, after_commit=True), "confirmed", 1, 1),
        (Fault("drafts.send", status=500, after_commit=True), "confirmed", 1, 1),
        (Fault("drafts.send", status=503), ("failed", "unknown"), 0, 1),
        (Fault("drafts.send", status=500), ("failed", "unknown"), 0, 1),
        (Fault("drafts.send", status=429, retry_after=3), "rate_limited", 0, 1),
    ],
    ids=["drop-after-commit", "500-after-commit", "503", "500-before-commit", "429"],
)
def test_send_draft_never_twice(
    emu: Emulator,
    box: Drafts,
    sent_copies: Callable[[str], int],
    fault: Fault,
    expected: object,
    copies: int,
    sends: int,
) -> None:
    created = box.create(Outgoing(to="bob@example.com", subject="draft", body="send me once"))
    header = emu.mailbox.get_raw(created.message_id).split(b"Message-ID: ", 1)[1].split(b"\r\n", 1)[0].decode()
    emu.add_fault(fault)
    try:
        sent = box.send(created.draft_id)
    except SendFailed as exc:
        got: object = ("failed", exc.delivery)
    except RateLimited:
        got = "rate_limited"
    else:
        got = "confirmed" if sent.warnings else "sent"
    assert got == expected
    assert sent_copies(header) == copies
    assert routes(emu, "drafts.send") == sends


def test_send_draft_gone_after_a_lost_answer_and_not_in_sent_is_unknown(emu: Emulator, box: Drafts) -> None:
    created = box.create(Outgoing(to="bob@example.com", subject="draft", body="x"))
    emu.add_fault(Fault("drafts.send", drop_connection=True, after_commit=True))
    emu.add_fault(Fault("messages.list", status=200, malformed_body=True, times=None))  # Sent cannot be searched
    with pytest.raises(SendFailed) as caught:
        box.send(created.draft_id)
    assert caught.value.delivery == "unknown"
