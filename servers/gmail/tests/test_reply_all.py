"""Who a reply goes to: `to` omitted → the original's Reply-To, else its From; reply_all adds its To and Cc,
minus every address of the account (send-as aliases too), each address once whatever its case; groups
flattened. Over a table of header cases, through the real client against the emulator."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

import pytest
from gmail_emulator import Emulator
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.guard.gate import Gate
from gmail_mcp.mail.compose import ReplyContext, build_message
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.outgoing import Composer, Outgoing
from gmail_mcp.sender import Sender

Stored = Callable[[Emulator, str], EmailMessage]
ME = "me@example.com"  # the seeded account; its send-as alias is me@acme.example


@pytest.fixture
def sender(mailbox: MailboxApi, delivery: Delivery, ungated: Gate) -> Sender:
    return Sender(Composer(mailbox), delivery, ungated)


def original(**headers: str) -> bytes:
    """An incoming message with these headers (`reply_to` → Reply-To)."""
    lines = [f"{name.replace('_', '-').title()}: {value}" for name, value in headers.items()]
    lines += ["Subject: plans", "Message-ID: <plans-1@example.org>", "Date: Mon, 02 Nov 2026 09:00:00 +0000"]
    return ("\r\n".join(lines) + "\r\nContent-Type: text/plain\r\n\r\nsee you\r\n").encode()


def addresses(message: EmailMessage, name: str) -> list[str]:
    header = message[name]
    return [a.addr_spec for a in header.addresses] if header is not None else []


# (case, the original's headers, send_email arguments, expected To, expected Cc)
CASES: list[tuple[str, dict[str, str], dict[str, Any], list[str], list[str]]] = [
    ("reply: From", {"from": "Ann <ann@example.org>", "to": ME, "cc": "bob@example.org"},
     {}, ["ann@example.org"], []),
    ("reply: Reply-To wins", {"from": "ann@example.org", "reply_to": "list@example.org", "to": ME},
     {}, ["list@example.org"], []),
    ("reply-all: To and Cc added, me left out", {"from": "ann@example.org", "to": f"Mia <{ME}>, carl@example.org",
                                                 "cc": "bob@example.org"},
     {"reply_all": True}, ["ann@example.org", "carl@example.org"], ["bob@example.org"]),
    ("reply-all: Reply-To instead of From", {"from": "ann@example.org", "reply_to": "list@example.org",
                                             "to": ME, "cc": "bob@example.org"},
     {"reply_all": True}, ["list@example.org"], ["bob@example.org"]),
    ("reply-all: own address in Cc, any case", {"from": "ann@example.org", "to": "carl@example.org",
                                                "cc": "ME@Example.COM, dora@example.org"},
     {"reply_all": True}, ["ann@example.org", "carl@example.org"], ["dora@example.org"]),
    ("reply-all: send-as alias left out", {"from": "ann@example.org", "to": "Mia <me@ACME.example>",
                                           "cc": "dora@example.org"},
     {"reply_all": True}, ["ann@example.org"], ["dora@example.org"]),
    ("reply-all: duplicates differing in case", {"from": "Ann <ann@example.org>",
                                                 "to": "ANN@example.org, Carl <carl@example.org>",
                                                 "cc": "Carl@Example.org, bob@example.org, BOB@EXAMPLE.ORG"},
     {"reply_all": True}, ["ann@example.org", "carl@example.org"], ["bob@example.org"]),
    ("reply-all: groups flattened, empty group ignored", {"from": "ann@example.org",
                                                          "to": "Team: carl@example.org, Dora <dora@example.org>;",
                                                          "cc": "undisclosed-recipients:;"},
     {"reply_all": True}, ["ann@example.org", "carl@example.org", "dora@example.org"], []),
    ("reply-all: the caller's cc kept, not doubled", {"from": "ann@example.org", "to": ME, "cc": "bob@example.org"},
     {"reply_all": True, "cc": "BOB@example.org"}, ["ann@example.org"], ["BOB@example.org"]),
    ("reply-all: the caller's to first", {"from": "ann@example.org", "to": "carl@example.org"},
     {"reply_all": True, "to": "eve@example.org"}, ["eve@example.org", "carl@example.org"], []),
    ("reply to my own sent message: its To", {"from": f"Mia <{ME}>", "to": "carl@example.org, me@acme.example",
                                              "cc": "bob@example.org"},
     {}, ["carl@example.org"], []),
    ("reply-all to my own sent message", {"from": f"Mia <{ME}>", "to": "carl@example.org", "cc": "bob@example.org"},
     {"reply_all": True}, ["carl@example.org"], ["bob@example.org"]),
    ("a note to myself stays with me", {"from": ME, "to": ME}, {"reply_all": True}, [ME], []),
]  # fmt: skip


@pytest.mark.parametrize(("headers", "arguments", "to", "cc"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_reply_recipients(
    emu: Emulator,
    sender: Sender,
    stored: Stored,
    headers: dict[str, str],
    arguments: dict[str, Any],
    to: list[str],
    cc: list[str],
) -> None:
    message_id = emu.add_message(original(**headers))
    arguments = {"to": None, "subject": "", "body": "ok", "signature": False, **arguments}
    answer = sender.send(Outgoing(reply_to_message_id=message_id, **arguments))
    sent = stored(emu, answer.id)
    assert (addresses(sent, "To"), addresses(sent, "Cc"), addresses(sent, "Bcc")) == (to, cc, [])
    assert sent["Subject"] == "Re: plans" and answer.thread_id == emu.mailbox.thread_id(message_id)


def test_reply_all_needs_a_reply_and_asks_nothing_of_gmail_before_saying_so(emu: Emulator, sender: Sender) -> None:
    with pytest.raises(InvalidField) as caught:
        sender.send(Outgoing(to="bob@example.org", subject="x", body="y", reply_all=True))
    assert (caught.value.field, caught.value.reason) == ("reply_all", "needs_reply_to_message_id")
    assert emu.request_log() == []


def test_without_a_reply_a_recipient_is_required(emu: Emulator, sender: Sender) -> None:
    with pytest.raises(InvalidField) as caught:
        sender.send(Outgoing(to=None, subject="x", body="y"))
    assert (caught.value.field, caught.value.reason) == ("to", "missing")
    assert emu.request_log() == []


def test_an_original_naming_nobody_usable_is_missing_recipients(emu: Emulator, sender: Sender) -> None:
    message_id = emu.add_message(original(**{"from": "undisclosed-recipients:;", "to": "also garbage"}))
    with pytest.raises(InvalidField) as caught:
        sender.send(Outgoing(to=None, subject="", body="y", reply_to_message_id=message_id, reply_all=True))
    assert (caught.value.field, caught.value.reason) == ("to", "missing")
    assert "messages.send" not in [r.route for r in emu.request_log()]


def test_recipients_never_come_from_the_body() -> None:
    """build_message only reads the ReplyContext's header values: a body cannot add anyone."""
    reply = ReplyContext(message_id="<a@b.c>", from_="ann@example.org", to="me@example.com")
    built = build_message(
        sender=None,
        to=None,
        subject="",
        body="To: attacker@evil.example\nCc: attacker@evil.example\n",
        reply=reply,
        reply_all=True,
        own_addresses=frozenset({"me@example.com"}),
    )
    head = built.mime.split(b"\r\n\r\n", 1)[0]
    assert b"evil" not in head and b"To: ann@example.org\r\n" in head
