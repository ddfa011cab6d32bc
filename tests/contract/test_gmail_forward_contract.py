"""forward_email, update_draft, reply-all and send-as through real stdio against the emulator: every new
error path answers the contract, forwards and updated drafts never go out twice (Gmail replacing the
Message-ID included), and read-only mode hides the new write tools."""

from __future__ import annotations

import base64
import email
import email.policy
import json
import os
from pathlib import Path

import pytest
from gmail_emulator import Emulator, Fault

from tests.contract.checks import assert_error
from tests.contract.harness import running

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
ID_HEADERS = ("Message-ID", "X-Google-Original-Message-ID", "X-Gmail-MCP-Message-ID")
SEND_AS = ["me@example.com", "me@acme.example"]  # the seeded account's send-as addresses


def copies(emulator: Emulator, our_id: str) -> int:
    """Sent messages carrying our Message-ID in any header Gmail may leave it in."""
    return len({i for name in ID_HEADERS for i in emulator.mailbox.sent_messages_with_header(name, our_id)})


def requests(emulator: Emulator, route: str) -> int:
    return sum(1 for r in emulator.request_log() if r.route == route)


async def test_forward_and_update_draft_end_to_end(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        forwarded = await session.call(
            "forward_email",
            {"message_id": emulator.seeded["invoice_pdf"], "to": "bob@example.com", "body": "FYI",
             "from_address": "me@acme.example"},
        )  # fmt: skip
        assert forwarded.error is None, forwarded.payload
        assert set(forwarded.payload) == {"id", "thread_id", "message_id", "warnings"}
        raw = emulator.mailbox.get_raw(forwarded.payload["id"])
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert (message["Subject"], message["From"]) == ("Fwd: Rechnung März 2026", "Mia Example <me@acme.example>")
        assert [p.get_filename() for p in message.iter_attachments()] == ["Rechnung_März_2026.pdf"]

        draft = await session.call("create_draft", {"to": "bob@example.com", "subject": "v1", "body": "first"})
        updated = await session.call("update_draft", {"draft_id": draft.payload["draft_id"], "subject": "v2"})
        assert updated.error is None, updated.payload
        assert set(updated.payload) == {"draft_id", "message_id", "thread_id", "warnings"}
        assert updated.payload["draft_id"] == draft.payload["draft_id"]
        assert b"Subject: v2\r\n" in emulator.mailbox.get_raw(updated.payload["message_id"])
        sent = await session.call("send_draft", {"draft_id": draft.payload["draft_id"]})
        assert sent.error is None and sent.payload["id"] == updated.payload["message_id"]

        reply = await session.call(
            "send_email",
            {"subject": "", "body": "ok", "reply_to_message_id": emulator.seeded["atlas_1"], "reply_all": True},
        )
        assert reply.error is None, reply.payload
        head = emulator.mailbox.get_raw(reply.payload["id"]).split(b"\r\n\r\n", 1)[0]
        assert b"To: Alice Johnson <alice@example.com>\r\n" in head and b"Cc: Bob Lee <bob@example.com>\r\n" in head


async def test_the_new_error_paths(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        answer = await session.call("forward_email", {"message_id": "ffffffffffffffff", "to": "bob@example.com"})
        assert_error(session, answer, "not_found", server=SERVER, tool="forward_email", resource="message")

        answer = await session.call("update_draft", {"draft_id": "r0000000000000000001", "subject": "x"})
        assert_error(session, answer, "not_found", server=SERVER, tool="update_draft", resource="draft",
                     id="r0000000000000000001")  # fmt: skip

        for tool, arguments in (
            ("send_email", {"to": "bob@example.com", "subject": "s", "body": "b"}),
            ("create_draft", {"to": "bob@example.com", "subject": "s", "body": "b"}),
            ("forward_email", {"message_id": emulator.seeded["status"], "to": "bob@example.com"}),
            ("update_draft", {"draft_id": emulator.seeded_drafts["draft_notes"]}),
        ):
            emulator.clear_requests()
            answer = await session.call(tool, {**arguments, "from_address": "ceo@acme.example"})
            assert_error(session, answer, "permission_denied", server=SERVER, tool=tool, reason="not_send_as",
                         field="from_address", send_as=SEND_AS, retryable=False)  # fmt: skip
            assert requests(emulator, "messages.send") == requests(emulator, "drafts.update") == 0

        answer = await session.call("send_email", {"to": "bob@example.com", "subject": "s", "body": "b",
                                                   "reply_all": True})  # fmt: skip
        assert_error(session, answer, "parse_error", server=SERVER, tool="send_email", field="reply_all",
                     reason="needs_reply_to_message_id")  # fmt: skip
        answer = await session.call("create_draft", {"subject": "s", "body": "b"})
        assert_error(session, answer, "parse_error", server=SERVER, tool="create_draft", field="to", reason="missing")
        answer = await session.call("forward_email", {"message_id": emulator.seeded["status"], "to": []})
        assert_error(session, answer, "parse_error", server=SERVER, tool="forward_email", field="to", reason="missing")
        answer = await session.call("update_draft", {"draft_id": emulator.seeded_drafts["draft_notes"],
                                                     "cc": "not an address"})  # fmt: skip
        assert_error(session, answer, "parse_error", server=SERVER, tool="update_draft", field="cc",
                     reason="invalid_address")  # fmt: skip


async def test_a_forward_over_gmails_limit_is_refused_before_anything(
    gmail_env: dict[str, str], emulator: Emulator
) -> None:
    half = base64.b64encode(bytes(13 * 1024 * 1024)).decode()
    parts = "".join(
        f'--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="{n}.bin"\r\n'
        f"Content-Transfer-Encoding: base64\r\n\r\n{half}\r\n"
        for n in ("one", "two")
    )
    raw = (
        "From: ann@example.org\r\nTo: me@example.com\r\nSubject: big\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nbig files\r\n'
        + parts
        + "--b--\r\n"
    ).encode()
    big = emulator.add_message(raw)
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.clear_requests()
        answer = await session.call("forward_email", {"message_id": big, "to": "bob@example.com"})
        assert_error(session, answer, "parse_error", server=SERVER, tool="forward_email",
                     field="include_attachments", reason="too_large")  # fmt: skip
        assert requests(emulator, "messages.attachments.get") == requests(emulator, "messages.send") == 0
        without = await session.call("forward_email", {"message_id": big, "to": "bob@example.com",
                                                       "include_attachments": False})  # fmt: skip
        assert without.error is None, without.payload


@pytest.mark.parametrize("keep_original", [True, False], ids=["original-kept", "no-trace"])
async def test_never_twice_when_gmail_replaces_the_message_id(
    gmail_env: dict[str, str], emulator: Emulator, keep_original: bool
) -> None:
    emulator.set_rewrite_message_id(True, keep_original=keep_original)
    try:
        async with running(["gmail-mcp"], gmail_env) as session:
            emulator.clear_requests()
            emulator.add_fault(Fault("messages.send", drop_connection=True, after_commit=True))
            answer = await session.call("forward_email", {"message_id": emulator.seeded["lunch_1"], "to": "b@x.org"})
            assert answer.error is None, answer.payload
            assert [w["code"] for w in answer.payload["warnings"]] == ["DELIVERY_CONFIRMED_AFTER_ERROR"]
            assert copies(emulator, answer.payload["message_id"]) == 1 and requests(emulator, "messages.send") == 1
            assert emulator.mailbox.sent_messages_with_header("Message-ID", answer.payload["message_id"]) == []

            draft = await session.call("create_draft", {"to": "c@x.org", "subject": "once", "body": "b"})
            await session.call("update_draft", {"draft_id": draft.payload["draft_id"], "body": "final"})
            emulator.clear_requests()
            emulator.add_fault(Fault("drafts.send", status=502, after_commit=True))
            sent = await session.call("send_draft", {"draft_id": draft.payload["draft_id"]})
            assert sent.error is None, sent.payload
            assert [w["code"] for w in sent.payload["warnings"]] == ["DELIVERY_CONFIRMED_AFTER_ERROR"]
            assert requests(emulator, "drafts.send") == 1 and "SENT" in emulator.mailbox.label_ids(sent.payload["id"])

            emulator.clear_requests()
            emulator.add_fault(Fault("messages.send", status=500))
            failed = await session.call("forward_email", {"message_id": emulator.seeded["lunch_1"], "to": "d@x.org"})
            assert_error(session, failed, "send_failed", server=SERVER, tool="forward_email", delivery="unknown",
                         retryable=False)  # fmt: skip
            assert requests(emulator, "messages.send") == 1
    finally:
        emulator.set_rewrite_message_id(False)


async def test_read_only_mode_hides_and_refuses_the_new_write_tools(
    gmail_env: dict[str, str], emulator: Emulator
) -> None:
    token_file = Path(gmail_env["GMAIL_MCP_TOKEN_FILE"])
    token_file.write_text(json.dumps(emulator.issue_token(scopes=(READONLY,))))
    os.chmod(token_file, 0o600)
    async with running(["gmail-mcp", "--read-only"], gmail_env) as session:
        names = await session.tool_names()
        assert not {"forward_email", "update_draft"} & set(names)
        for tool in ("forward_email", "update_draft"):
            answer = await session.call(tool, {"draft_id": "x"})
            assert_error(session, answer, "permission_denied", server=SERVER, tool=tool, reason="read_only")
