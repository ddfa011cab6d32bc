"""``Emulator.set_rewrite_message_id``: Gmail's new Message-ID on send, the client's one kept in
X-Google-Original-Message-ID; together with drop-after-commit faults."""

from __future__ import annotations

import base64
import email
import re
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault

GMAIL_ID = re.compile(r"^<CA[A-Za-z0-9_-]+@mail\.gmail\.com>$")


def raw_message(msgid: str | None, subject: str = "rewrite test") -> bytes:
    head = f"From: Mia Example <me@example.com>\r\nTo: bob@example.com\r\nSubject: {subject}\r\n"
    if msgid:
        head += f"Message-ID: {msgid}\r\n"
    return (head + "MIME-Version: 1.0\r\n\r\nBody stays byte for byte.\r\n").encode()


def b64(raw: bytes) -> dict[str, str]:
    return {"raw": base64.urlsafe_b64encode(raw).decode()}


def headers_of(raw: bytes) -> email.message.Message:
    return email.message_from_bytes(raw)


def test_off_by_default(emu: Emulator, svc: Any) -> None:
    raw = raw_message("<keep-1@client.example>")
    sent = svc.users().messages().send(userId="me", body=b64(raw)).execute()
    assert emu.get_raw(sent["id"]).endswith(raw)  # Gmail only adds the missing Date


def test_send_rewrites_and_keeps_the_original(emu: Emulator, svc: Any) -> None:
    emu.set_rewrite_message_id(True)
    raw = raw_message("<orig-1@client.example>")
    sent = svc.users().messages().send(userId="me", body=b64(raw)).execute()
    stored = emu.get_raw(sent["id"])
    head = headers_of(stored)
    assert GMAIL_ID.match(head["Message-ID"]) and len(head.get_all("Message-ID")) == 1
    assert head["X-Google-Original-Message-ID"] == "<orig-1@client.example>"
    assert b"\r\nTo: bob@example.com\r\nSubject: rewrite test\r\n" in stored
    assert stored.endswith(b"\r\nMIME-Version: 1.0\r\n\r\nBody stays byte for byte.\r\n")  # body untouched
    # search and lookups know only the new id; the old one is findable by its own header
    messages = svc.users().messages()
    assert messages.list(userId="me", q="rfc822msgid:orig-1@client.example").execute() == {"resultSizeEstimate": 0}
    found = messages.list(userId="me", q=f"rfc822msgid:{head['Message-ID']}").execute()
    assert [m["id"] for m in found["messages"]] == [sent["id"]]
    assert emu.sent_messages_with_header("Message-ID", "<orig-1@client.example>") == []
    assert emu.sent_messages_with_header("X-Google-Original-Message-ID", "<orig-1@client.example>") == [sent["id"]]
    # a message without Message-ID just gets Gmail's (no X-Google-Original-Message-ID)
    bare = svc.users().messages().send(userId="me", body=b64(raw_message(None))).execute()
    bare_head = headers_of(emu.get_raw(bare["id"]))
    assert bare_head["Message-ID"] and "X-Google-Original-Message-ID" not in bare_head


def test_original_can_be_dropped_too(emu: Emulator, svc: Any) -> None:
    emu.set_rewrite_message_id(True, keep_original=False)
    sent = svc.users().messages().send(userId="me", body=b64(raw_message("<gone@client.example>"))).execute()
    head = headers_of(emu.get_raw(sent["id"]))
    assert GMAIL_ID.match(head["Message-ID"]) and "X-Google-Original-Message-ID" not in head
    emu.set_rewrite_message_id(False)
    again = svc.users().messages().send(userId="me", body=b64(raw_message("<kept@client.example>"))).execute()
    assert headers_of(emu.get_raw(again["id"]))["Message-ID"] == "<kept@client.example>"


def test_drafts_send_rewrites(emu: Emulator, svc: Any) -> None:
    emu.set_rewrite_message_id()
    drafts = svc.users().drafts()
    draft = drafts.create(userId="me", body={"message": b64(raw_message("<draft-9@client.example>"))}).execute()
    sent = drafts.send(userId="me", body={"id": draft["id"]}).execute()
    head = headers_of(emu.get_raw(sent["id"]))
    assert GMAIL_ID.match(head["Message-ID"])
    assert head["X-Google-Original-Message-ID"] == "<draft-9@client.example>"
    assert sent["labelIds"] == ["SENT"]
    found = svc.users().messages().list(userId="me", q=f"rfc822msgid:{head['Message-ID']} in:sent").execute()
    assert [m["id"] for m in found["messages"]] == [sent["id"]]


def test_replies_thread_on_the_new_id_only(emu: Emulator, svc: Any) -> None:
    emu.set_rewrite_message_id()
    sent = svc.users().messages().send(userId="me", body=b64(raw_message("<chain-1@client.example>"))).execute()
    new_id = headers_of(emu.get_raw(sent["id"]))["Message-ID"]
    unrelated = emu.add_message(raw_message("<r1@bob.example>", "Re: rewrite test"), ["INBOX"])
    assert emu.thread_id(unrelated) != sent["threadId"]  # no In-Reply-To at all: its own thread
    answer = (
        f"From: bob@example.com\r\nTo: me@example.com\r\nSubject: Re: rewrite test\r\n"
        f"In-Reply-To: {new_id}\r\nMessage-ID: <r2@bob.example>\r\n\r\nok\r\n"
    ).encode()
    assert emu.thread_id(emu.add_message(answer)) == sent["threadId"]
    follow_up = (
        svc.users()
        .messages()
        .send(
            userId="me",
            body=b64(
                b"To: bob@example.com\r\nSubject: Re: rewrite test\r\nIn-Reply-To: <chain-1@client.example>\r\n"
                b"Message-ID: <chain-2@client.example>\r\n\r\nmore\r\n"
            ),
        )
    )
    assert follow_up.execute()["threadId"] != sent["threadId"]  # chaining on the client's id breaks


@pytest.mark.parametrize("keep_original", [True, False])
def test_drop_after_commit_still_stores_once(emu: Emulator, svc: Any, keep_original: bool) -> None:
    emu.set_rewrite_message_id(True, keep_original=keep_original)
    emu.add_fault(Fault(route="messages.send", drop_connection=True, after_commit=True))
    with pytest.raises(ConnectionError):
        svc.users().messages().send(userId="me", body=b64(raw_message("<drop-7@client.example>"))).execute()
    sent = [mid for mid in emu.message_ids("SENT") if mid not in emu.seeded.values()]
    assert len(sent) == 1 and [r.route for r in emu.request_log()] == ["messages.send"]
    head = headers_of(emu.get_raw(sent[0]))
    assert GMAIL_ID.match(head["Message-ID"])
    assert (head["X-Google-Original-Message-ID"] == "<drop-7@client.example>") is keep_original
    # what a client can do to find out: the client's id is not searchable, the subject is
    messages = svc.users().messages()
    assert messages.list(userId="me", q="rfc822msgid:drop-7@client.example").execute()["resultSizeEstimate"] == 0
    by_subject = messages.list(userId="me", q='in:sent subject:"rewrite test"').execute()
    assert [m["id"] for m in by_subject["messages"]] == sent
