"""The exact success JSON of representative tool calls, whole payloads pinned.

The tools are driven in process through the SDK's own client (`mcp.Client` connected to the
server object, so the client validates each answer against the tool's outputSchema as any client
would) against `build_server(Settings(...))` (the `make_server` fixture) talking to the emulator's
seeded mailbox. Every tool has at least one snapshot here (their errors: test_wire_errors.py). Every
byte of an answer is pinned except the ids minted anew for what a test creates (drafts, messages and
their RFC 822 Message-IDs, labels, filters, attachments of an added message), which `minted` replaces
after checking their shape. A failure here is a change of the wire: if it is meant, update the
snapshot and specs/contracts in the same change.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator
from gmail_mcp.api.client import GmailClient
from gmail_mcp.runtime.server import ContractServer
from mcp import Client

pytestmark = pytest.mark.anyio

MINTED = "<minted>"
SHAPES = {
    "message": r"[0-9a-f]{16}",
    "draft": r"r\d{1,30}",
    "attachment": r"[A-Za-z0-9_-]{1,4096}",
    "rfc822": r"<[0-9a-f]{32}@gmail-mcp\.local>",  # the Message-ID header the server writes into what it sends
    "label": r"Label_\d{1,30}",
    "filter": r"[A-Za-z0-9_-]{1,256}",
}
MODIFY = "https://www.googleapis.com/auth/gmail.modify"
SETTINGS = "https://www.googleapis.com/auth/gmail.settings.basic"


def minted(payload: dict[str, Any], **kinds: str) -> dict[str, Any]:
    """`payload` with the values the emulator mints on each run (`key=kind` of SHAPES) replaced by MINTED."""
    out = dict(payload)
    for key, kind in kinds.items():
        assert re.fullmatch(SHAPES[kind], out[key]), (key, out[key])
        out[key] = MINTED
    return out


@pytest.fixture
def server(make_server: Callable[..., ContractServer]) -> ContractServer:
    return make_server()


@pytest.fixture
def filter_server(make_server: Callable[..., ContractServer], emu: Emulator, client: GmailClient) -> ContractServer:
    """The server with a token that may also manage filters (gmail.settings.basic, as `gmail-mcp auth` asks now)."""
    server = make_server()
    client.settings.token_file.write_text(json.dumps(emu.issue_token((MODIFY, SETTINGS))))
    os.chmod(client.settings.token_file, 0o600)
    return server


async def answer(server: ContractServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The success payload of one call; its text and its structuredContent must be the same object."""
    async with Client(server) as session:
        result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert result.structured_content == payload
    return payload  # type: ignore[no-any-return]


async def test_search_emails(server: ContractServer, emu: Emulator) -> None:
    ids = emu.seeded
    assert await answer(server, "search_emails", {"query": "in:inbox", "max_results": 3}) == {
        "messages": [
            {
                "id": ids["status"],
                "thread_id": ids["status"],
                "from": "Alice Johnson <alice@example.com>",
                "to": "Mia Example <me@example.com>",
                "subject": "Atlas status update - week 47",
                "date": "2026-11-20T16:00:00+00:00",
                "snippet": "Status: M1 done, M2 at risk because of the vendor delay. Let's discuss Monday. Alice",
                "labels": ["INBOX", "UNREAD", "IMPORTANT", "CATEGORY_PERSONAL", "Projects"],
                "unread": True,
                "has_attachments": False,
            },
            {
                "id": ids["promo"],
                "thread_id": ids["promo"],
                "from": "Shop Deals <deals@shop.example>",
                "to": "me@example.com",
                "subject": "50% off everything this weekend",
                "date": "2026-11-18T15:00:00+00:00",
                "snippet": "Use code WEEKEND50 at checkout. Offer ends Sunday.",
                "labels": ["INBOX", "UNREAD", "CATEGORY_PROMOTIONS"],
                "unread": True,
                "has_attachments": False,
            },
            {
                "id": ids["security"],
                "thread_id": ids["security"],
                "from": "Example Accounts <no-reply@accounts.example.com>",
                "to": "me@example.com",
                "subject": "Security alert: new sign-in",
                "date": "2026-11-15T10:45:00+00:00",
                "snippet": "A new sign-in to your account was detected from Firefox on Linux.",
                "labels": ["INBOX", "UNREAD", "CATEGORY_UPDATES"],
                "unread": True,
                "has_attachments": False,
            },
        ],
        "next_page_token": "00000000000000000003",
        "result_size_estimate": 18,
        "warnings": [],
    }


async def test_get_email_with_an_attachment(server: ContractServer, emu: Emulator) -> None:
    invoice = emu.seeded["invoice_pdf"]
    assert await answer(server, "get_email", {"message_id": invoice}) == {
        "id": invoice,
        "thread_id": invoice,
        "from": "Zoë Ünal <zoe@example.de>",
        "to": "Mia Example <me@example.com>",
        "cc": "",
        "bcc": None,
        "reply_to": None,
        "subject": "Rechnung März 2026",
        "date": "2026-10-20T10:45:00+00:00",
        "labels": ["INBOX", "CATEGORY_PERSONAL", "Receipts"],
        "unread": False,
        "message_id": "<invoice_pdf@seed.example.com>",
        "body": "Hallo Mia,\n\nanbei die Rechnung für März.\n\nViele Grüße\nZoë",
        "truncated": False,
        "next_body_offset": None,
        "attachments": [
            {
                "attachment_id": "ANGjdJMWExNThlYTFiZTAwMDAwOTox",
                "filename": "Rechnung_März_2026.pdf",
                "mime_type": "application/pdf",
                "size": 379,
                "inline": False,
            }
        ],
        "warnings": [],
    }


async def test_get_email_shows_reply_to_and_inline_parts(server: ContractServer, emu: Emulator) -> None:
    message = EmailMessage()
    message["From"] = "Newsletter <news@shop.example>"
    message["Reply-To"] = "Support <support@shop.example>"
    message["To"] = "me@example.com"
    message["Subject"] = "Our new logo"
    message["Date"] = "Fri, 20 Nov 2026 09:00:00 +0000"
    message["Message-ID"] = "<logo@shop.example>"
    message.set_content("Plain text version.\n")
    message.add_alternative('<p>Hello <img src="cid:logo"></p>', subtype="html")
    message.get_payload()[1].add_related(b"PNG", "image", "png", cid="<logo>", filename="logo.png")
    message.add_attachment(b"1. hello\n", maintype="text", subtype="plain", filename="agenda.txt")
    new = emu.add_message(message.as_bytes(), ["INBOX"], None, 1_795_000_000_000)
    payload = await answer(server, "get_email", {"message_id": new})
    assert [minted(a, attachment_id="attachment") for a in payload.pop("attachments")] == [
        {"attachment_id": MINTED, "filename": "logo.png", "mime_type": "image/png", "size": 3, "inline": True},
        {"attachment_id": MINTED, "filename": "agenda.txt", "mime_type": "text/plain", "size": 9, "inline": False},
    ]
    assert payload == {
        "id": new,
        "thread_id": new,
        "from": "Newsletter <news@shop.example>",
        "to": "me@example.com",
        "cc": "",
        "bcc": None,
        "reply_to": "Support <support@shop.example>",
        "subject": "Our new logo",
        "date": "2026-11-20T09:00:00+00:00",
        "labels": ["INBOX"],
        "unread": False,
        "message_id": "<logo@shop.example>",
        "body": "Plain text version.",
        "truncated": False,
        "next_body_offset": None,
        "warnings": [],
    }


async def test_get_email_of_a_message_sent_with_bcc(server: ContractServer, emu: Emulator) -> None:
    dinner = emu.seeded["dinner_1"]
    assert await answer(server, "get_email", {"message_id": dinner}) == {
        "id": dinner,
        "thread_id": dinner,
        "from": "Mia Example <me@example.com>",
        "to": "Sam Rivera <sam@example.net>",
        "cc": "",
        "bcc": "Lee Example <lee@example.net>",
        "reply_to": None,
        "subject": "Dinner on Saturday?",
        "date": "2026-11-02T18:00:00+00:00",
        "labels": ["SENT"],
        "unread": False,
        "message_id": "<dinner_1@seed.example.com>",
        "body": "Hi Sam, dinner on Saturday at 7? I'm thinking the Italian place.\n\nMia",
        "truncated": False,
        "next_body_offset": None,
        "attachments": [],
        "warnings": [],
    }


async def test_list_labels(server: ContractServer) -> None:
    def label(id: str, unread: int, total: int, name: str = "", kind: str = "system") -> dict[str, Any]:
        return {"id": id, "name": name or id, "type": kind, "messages_unread": unread, "messages_total": total}

    assert await answer(server, "list_labels", {}) == {
        "labels": [
            label("CATEGORY_FORUMS", 0, 0),
            label("CATEGORY_PERSONAL", 4, 12),
            label("CATEGORY_PROMOTIONS", 1, 2),
            label("CATEGORY_SOCIAL", 0, 0),
            label("CATEGORY_UPDATES", 3, 6),
            label("CHAT", 0, 0),
            label("DRAFT", 0, 1),
            label("IMPORTANT", 2, 3),
            label("INBOX", 8, 18),
            label("SENT", 0, 4),
            label("SPAM", 1, 1),
            label("STARRED", 0, 2),
            label("TRASH", 0, 1),
            label("UNREAD", 9, 9),
            label("Label_1", 2, 6, "Projects", "user"),
            label("Label_2", 1, 3, "Receipts", "user"),
            label("Label_3", 0, 0, "Travel", "user"),
            label("Label_4", 1, 3, "Travel/2026", "user"),
        ],
        "warnings": [],
    }


async def test_list_drafts(server: ContractServer, emu: Emulator) -> None:
    assert await answer(server, "list_drafts", {}) == {
        "drafts": [
            {
                "draft_id": emu.seeded_drafts["draft_notes"],
                "message_id": emu.seeded["draft_notes"],
                "to": "Bob Lee <bob@example.com>",
                "subject": "Notes for Bob",
                "snippet": "Bob, some notes on the timeline before Monday: - M2 needs a buffer",
            }
        ],
        "next_page_token": None,
        "warnings": [],
    }


async def test_create_draft(server: ContractServer) -> None:
    created = await answer(
        server, "create_draft", {"to": "Bob <bob@example.com>", "subject": "Plan", "body": "See you"}
    )
    assert minted(created, draft_id="draft", message_id="message", thread_id="message") == {
        "draft_id": MINTED,
        "message_id": MINTED,
        "thread_id": MINTED,
        "warnings": [],
    }


async def test_modify_labels_with_a_message_that_fails_on_its_own(server: ContractServer, emu: Emulator) -> None:
    arguments = {"message_ids": [emu.seeded["status"], "ffffffffffffffff"], "add_labels": ["starred"]}
    assert await answer(server, "modify_labels", arguments) == {
        "modified": [emu.seeded["status"]],
        "warnings": [
            {
                "code": "PARTIAL_RESULTS",
                "message": "1 messages could not be changed; the others were",
                "failed": [
                    {"id": "ffffffffffffffff", "error": "not_found", "reason": "message not found: ffffffffffffffff"}
                ],
            }
        ],
    }
