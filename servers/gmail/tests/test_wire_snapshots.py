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
    """`payload` with the values minted on each run (`key=kind` of SHAPES) replaced by MINTED."""
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


async def test_list_accounts(server: ContractServer) -> None:
    """list_accounts with the one token of the default account: its address (asked of Gmail: the token records
    none), not read-only, and the default account's name."""
    assert await answer(server, "list_accounts", {}) == {
        "accounts": [{"name": "default", "email": "me@example.com", "read_only": False}],
        "default_account": "default",
        "warnings": [],
    }


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
                "readable": True,
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
    html = message.get_payload()[1]  # type: ignore[index]
    assert isinstance(html, EmailMessage)
    html.add_related(b"PNG", "image", "png", cid="<logo>", filename="logo.png")
    message.add_attachment(b"1. hello\n", maintype="text", subtype="plain", filename="agenda.txt")
    new = emu.add_message(message.as_bytes(), ["INBOX"], None, 1_795_000_000_000)
    payload = await answer(server, "get_email", {"message_id": new})
    assert [minted(a, attachment_id="attachment") for a in payload.pop("attachments")] == [
        {
            "attachment_id": MINTED,
            "filename": "logo.png",
            "mime_type": "image/png",
            "size": 3,
            "inline": True,
            "readable": False,
        },
        {
            "attachment_id": MINTED,
            "filename": "agenda.txt",
            "mime_type": "text/plain",
            "size": 9,
            "inline": False,
            "readable": True,
        },
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


async def test_get_thread(server: ContractServer, emu: Emulator) -> None:
    """get_thread of a conversation of three (Bob, my reply, Bob again): every message whole, oldest first,
    each as get_email shows it, under the thread's id."""
    ids = emu.seeded
    thread = ids["lunch_1"]

    def message(
        key: str, sender: str, to: str, subject: str, date: str, labels: list[str], body: str
    ) -> dict[str, Any]:
        return {
            "id": ids[key],
            "thread_id": thread,
            "from": sender,
            "to": to,
            "cc": "",
            "bcc": None,
            "reply_to": None,
            "subject": subject,
            "date": date,
            "labels": labels,
            "unread": "UNREAD" in labels,
            "message_id": f"<{key}@seed.example.com>",
            "body": body,
            "truncated": False,
            "next_body_offset": None,
            "attachments": [],
            "warnings": [],
        }

    bob, me = "Bob Lee <bob@example.com>", "Mia Example <me@example.com>"
    assert await answer(server, "get_thread", {"thread_id": thread}) == {
        "thread_id": thread,
        "messages": [
            message(
                "lunch_1",
                bob,
                me,
                "Lunch tomorrow?",
                "2026-11-12T11:30:00+00:00",
                ["INBOX", "CATEGORY_PERSONAL"],
                "Lunch tomorrow at noon? Ramen?\n\nBob",
            ),
            message(
                "lunch_2",
                me,
                bob,
                "Re: Lunch tomorrow?",
                "2026-11-12T12:05:00+00:00",
                ["SENT"],
                "Yes! Ramen it is.\n\nMia",
            ),
            message(
                "lunch_3",
                bob,
                me,
                "Re: Lunch tomorrow?",
                "2026-11-12T12:30:00+00:00",
                ["INBOX", "UNREAD", "CATEGORY_PERSONAL"],
                "Great, I'll book a table for two.\n\nBob",
            ),
        ],
    }


async def test_download_attachment(server: ContractServer, emu: Emulator, tmp_path: Path) -> None:
    """download_attachment of the seeded invoice PDF: the path it was saved under (the download folder, the
    attachment's own non-ASCII name), that name, its size and MIME type."""
    arguments = {"message_id": emu.seeded["invoice_pdf"], "attachment_id": "ANGjdJMWExNThlYTFiZTAwMDAwOTox"}
    saved = tmp_path / "downloads" / "Rechnung_März_2026.pdf"
    assert await answer(server, "download_attachment", arguments) == {
        "path": str(saved),
        "filename": "Rechnung_März_2026.pdf",
        "size": 379,
        "mime_type": "application/pdf",
    }
    assert saved.read_bytes().startswith(b"%PDF-1.4") and saved.stat().st_size == 379


async def test_read_attachment(server: ContractServer, emu: Emulator) -> None:
    """read_attachment of a real Google Docs PDF (tests/fixtures/documents), one page of 160 characters: the
    attachment's name, type and size, the text with its page marker, the PDF's page count, the whole text's
    length, where the next page starts, and the CONTENT_TRUNCATED warning saying so."""
    message = EmailMessage()
    message["From"] = "Ann <ann@example.org>"
    message["Subject"] = "The Zen of Python"
    message.set_content("Attached.\n")
    pdf = (Path(__file__).parent / "fixtures" / "documents" / "google-doc-document.pdf").read_bytes()
    message.add_attachment(pdf, maintype="application", subtype="pdf", filename="zen.pdf")
    new = emu.add_message(message.as_bytes(), ["INBOX"])
    [attachment] = (await answer(server, "get_email", {"message_id": new}))["attachments"]
    arguments = {"message_id": new, "attachment_id": attachment["attachment_id"], "max_chars": 160}
    assert await answer(server, "read_attachment", arguments) == {
        "filename": "zen.pdf",
        "mime_type": "application/pdf",
        "size": 80100,
        "text": "--- page 1 of 1 ---\nExample document\nBeautiful is better than ugly.\n"
        "Explicit is better than implicit.\nSimple is better than complex.\nComplex is better than comp",
        "pages": 1,
        "total_chars": 1108,
        "next_offset": 160,
        "warnings": [
            {
                "code": "CONTENT_TRUNCATED",
                "message": "text cut at 160 of 1108 characters; call read_attachment with offset=160 for more",
                "next_offset": 160,
            }
        ],
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


async def test_manage_label_create(server: ContractServer, emu: Emulator) -> None:
    """manage_label creating a nested label with colours: the new label's id (minted) and name, no warnings key."""
    arguments = {"action": "create", "label": "Clients/ACME", "colors": {"text": "#ffffff", "background": "#16a765"}}
    created = await answer(server, "manage_label", arguments)
    assert created["label"]["id"] == emu.mailbox.label_id("Clients/ACME")
    assert {"label": minted(created["label"], id="label")} == {"label": {"id": MINTED, "name": "Clients/ACME"}}


async def test_list_filters(server: ContractServer, emu: Emulator) -> None:
    """list_filters with one filter: its id, criteria in snake case, labels by name, and UNREAD/INBOX removed
    shown as mark_read/archive (no forward key: the filter forwards nothing)."""
    added = emu.add_filter(
        {"from": "billing@hosting.example", "hasAttachment": True},
        {"addLabelIds": ["Label_2"], "removeLabelIds": ["INBOX", "UNREAD"]},
    )
    assert await answer(server, "list_filters", {}) == {
        "filters": [
            {
                "id": added["id"],
                "criteria": {"from": "billing@hosting.example", "has_attachment": True},
                "action": {"add": ["Receipts"], "remove": [], "mark_read": True, "archive": True},
            }
        ],
        "warnings": [],
    }


async def test_manage_filter_create(filter_server: ContractServer, emu: Emulator) -> None:
    """manage_filter creating a filter that labels and archives: the filter as list_filters shows it, its id
    minted; no warnings key."""
    arguments = {
        "action": "create",
        "criteria": {"from": "news@shop.example"},
        "action_labels": {"add": ["receipts"]},
        "archive": True,
    }
    created = await answer(filter_server, "manage_filter", arguments)
    assert [f["id"] for f in emu.filters()] == [created["filter"]["id"]]
    assert {"filter": minted(created["filter"], id="filter")} == {
        "filter": {
            "id": MINTED,
            "criteria": {"from": "news@shop.example"},
            "action": {"add": ["Receipts"], "remove": [], "mark_read": False, "archive": True},
        }
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


async def test_update_draft(server: ContractServer, emu: Emulator) -> None:
    """update_draft changing only the subject of the seeded draft: the same draft id, its new message's id and
    thread (both minted: Gmail gives an updated draft a new message)."""
    draft = emu.seeded_drafts["draft_notes"]
    updated = await answer(server, "update_draft", {"draft_id": draft, "subject": "Timeline notes for Bob"})
    assert updated["message_id"] != emu.seeded["draft_notes"]
    assert minted(updated, message_id="message", thread_id="message") == {
        "draft_id": draft,
        "message_id": MINTED,
        "thread_id": MINTED,
        "warnings": [],
    }


async def test_send_draft(server: ContractServer, emu: Emulator) -> None:
    """send_draft of the seeded draft to Bob: the sent message is the draft's own message, in its own thread."""
    draft_message = emu.seeded["draft_notes"]
    assert await answer(server, "send_draft", {"draft_id": emu.seeded_drafts["draft_notes"]}) == {
        "id": draft_message,
        "thread_id": draft_message,
        "warnings": [],
    }
    assert "SENT" in emu.label_ids(draft_message)


async def test_delete_draft(server: ContractServer, emu: Emulator) -> None:
    """delete_draft of the seeded draft: the deleted draft's id, nothing else (no warnings key)."""
    draft = emu.seeded_drafts["draft_notes"]
    assert await answer(server, "delete_draft", {"draft_id": draft}) == {"deleted": draft}
    assert draft not in emu.mailbox.draft_ids()


async def test_send_email(server: ContractServer, emu: Emulator) -> None:
    """send_email to a known recipient: the sent message's id and thread (a new one: minted) and the Message-ID
    header the server wrote (minted)."""
    sent = await answer(server, "send_email", {"to": "Bob Lee <bob@example.com>", "subject": "Ramen", "body": "Again?"})
    assert sent["thread_id"] == sent["id"]
    assert emu.mailbox.sent_messages_with_header("Message-ID", sent["message_id"]) == [sent["id"]]
    assert minted(sent, id="message", thread_id="message", message_id="rfc822") == {
        "id": MINTED,
        "thread_id": MINTED,
        "message_id": MINTED,
        "warnings": [],
    }


async def test_forward_email(server: ContractServer, emu: Emulator) -> None:
    """forward_email of the flight confirmation to Bob: the forward's id and Message-ID (minted), in the
    original's thread."""
    flight = emu.seeded["flight"]
    arguments = {"message_id": flight, "to": "bob@example.com", "body": "FYI, my flight."}
    sent = await answer(server, "forward_email", arguments)
    assert emu.mailbox.sent_messages_with_header("Message-ID", sent["message_id"]) == [sent["id"]]
    assert minted(sent, id="message", message_id="rfc822") == {
        "id": MINTED,
        "thread_id": flight,
        "message_id": MINTED,
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


async def test_trash_email_by_query_is_a_dry_run(server: ContractServer, emu: Emulator) -> None:
    """trash_email by query without dry_run: nothing trashed (the count 0), how many match, and a sample of
    them newest first; the messages stay where they were."""
    ids = emu.seeded
    assert await answer(server, "trash_email", {"query": "from:bob@example.com"}) == {
        "trashed": 0,
        "matched": 3,
        "dry_run": True,
        "truncated": False,
        "sample": [
            {
                "id": ids["lunch_3"],
                "from": "Bob Lee <bob@example.com>",
                "subject": "Re: Lunch tomorrow?",
                "date": "2026-11-12T12:30:00+00:00",
            },
            {
                "id": ids["lunch_1"],
                "from": "Bob Lee <bob@example.com>",
                "subject": "Lunch tomorrow?",
                "date": "2026-11-12T11:30:00+00:00",
            },
            {
                "id": ids["atlas_4"],
                "from": "Bob Lee <bob@example.com>",
                "subject": "Re: Project Atlas kickoff",
                "date": "2026-10-04T16:30:00+00:00",
            },
        ],
        "warnings": [],
    }
    assert "TRASH" not in emu.label_ids(ids["lunch_3"])
