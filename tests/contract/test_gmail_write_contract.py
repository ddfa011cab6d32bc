"""gmail-mcp's write tools through real stdio against the emulator: the contract errors they answer,
never sending twice, read-only mode, and no permanent deletion whatever is called."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from pathlib import Path

import pytest
from gmail_emulator import Emulator, Fault

from tests.contract.checks import assert_error
from tests.contract.harness import running

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
LABELS_ONLY = "https://www.googleapis.com/auth/gmail.labels"
PERMANENT_DELETES = {"messages.delete", "messages.batchDelete", "threads.delete"}


def write_token(path: Path, token: dict[str, object]) -> None:
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.write_text(json.dumps(token))
    os.chmod(path, 0o600)


def copies(emulator: Emulator, message_id: str) -> int:
    return len(emulator.mailbox.sent_messages_with_header("Message-ID", message_id))


def sends_of(emulator: Emulator, subject: str) -> list[str]:
    """Sent messages with this subject (the server's own Message-ID is only known when it answers)."""
    return [
        i
        for i in emulator.mailbox.message_ids("SENT")
        if f"Subject: {subject}\r\n".encode() in emulator.mailbox.get_raw(i)
    ]


def send_requests(emulator: Emulator) -> int:
    return sum(1 for r in emulator.request_log() if r.route == "messages.send")


async def test_send_answers_the_truth_about_delivery(gmail_env: dict[str, str], emulator: Emulator) -> None:
    args = {"to": ["bob@example.com"], "body": "hello"}
    async with running(["gmail-mcp"], gmail_env) as session:
        # The answer was lost after Gmail stored it: confirmed from Sent, one copy, one request.
        emulator.clear_requests()
        emulator.add_fault(Fault("messages.send", drop_connection=True, after_commit=True))
        answer = await session.call("send_email", {**args, "subject": "dropped"})
        assert answer.error is None, answer.payload
        assert [w["code"] for w in answer.payload["warnings"]] == ["DELIVERY_CONFIRMED_AFTER_ERROR"]
        assert copies(emulator, answer.payload["message_id"]) == 1 and send_requests(emulator) == 1

        # 500 and nothing in Sent: cannot tell → unknown, never retried.
        emulator.clear_requests()
        emulator.add_fault(Fault("messages.send", status=500))
        answer = await session.call("send_email", {**args, "subject": "failed-500"})
        assert_error(session, answer, "send_failed", server=SERVER, tool="send_email", delivery="unknown",
                     retryable=False)  # fmt: skip
        assert "Sent" in answer.payload["message"]
        assert sends_of(emulator, "failed-500") == [] and send_requests(emulator) == 1

        # 503 proves nothing: looked for in Sent, not found → unknown, never retried.
        emulator.clear_requests()
        emulator.add_fault(Fault("messages.send", status=503))
        answer = await session.call("send_email", {**args, "subject": "failed-503"})
        assert_error(session, answer, "send_failed", server=SERVER, tool="send_email", delivery="unknown",
                     retryable=False)  # fmt: skip
        assert sends_of(emulator, "failed-503") == [] and send_requests(emulator) == 1

        # 429 is a refusal: rate_limited with the wait, nothing sent, no retry.
        emulator.clear_requests()
        emulator.add_fault(Fault("messages.send", status=429, reason="rateLimitExceeded", retry_after=42))
        answer = await session.call("send_email", {**args, "subject": "limited"})
        assert_error(session, answer, "rate_limited", server=SERVER, tool="send_email", retry_after_seconds=42,
                     retryable=True)  # fmt: skip
        assert sends_of(emulator, "limited") == [] and send_requests(emulator) == 1

        # A bad address is refused before anything is sent, naming its field.
        emulator.clear_requests()
        answer = await session.call("send_email", {**args, "cc": "ok@example.com, not-an-address", "subject": "x"})
        assert_error(session, answer, "parse_error", server=SERVER, tool="send_email", field="cc",
                     reason="invalid_address")  # fmt: skip
        assert emulator.request_log() == []


async def test_a_timed_out_send_is_unknown_and_lands_once(gmail_env: dict[str, str], emulator: Emulator) -> None:
    emulator.add_fault(Fault("messages.send", delay=1.5, after_commit=True))
    async with running(["gmail-mcp"], gmail_env | {"GMAIL_MCP_TIMEOUT_SECONDS": "1"}) as session:
        answer = await session.call("send_email", {"to": "bob@example.com", "subject": "slow", "body": "x"})
        assert_error(session, answer, "send_failed", server=SERVER, tool="send_email", delivery="unknown")
    deadline = time.monotonic() + 5
    while not sends_of(emulator, "slow") and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert len(sends_of(emulator, "slow")) == 1


async def test_insufficient_scope_on_send(gmail_env: dict[str, str], emulator: Emulator) -> None:
    # A gmail.readonly token makes its account read-only: a write is refused before anything is sent.
    write_token(Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]), emulator.issue_token(scopes=(READONLY,)))
    async with running(["gmail-mcp"], gmail_env) as session:
        answer = await session.call("send_email", {"to": "bob@example.com", "subject": "scoped", "body": "x"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="send_email", reason="read_only")
    # A token that cannot even read mail lacks the scope the server needs.
    write_token(Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]), emulator.issue_token(scopes=(LABELS_ONLY,)))
    async with running(["gmail-mcp"], gmail_env) as session:
        answer = await session.call("send_email", {"to": "bob@example.com", "subject": "scoped", "body": "x"})
        details = assert_error(session, answer, "auth_required", server=SERVER, tool="send_email",
                               reason="insufficient_scope")  # fmt: skip
        assert details["reauth_command"] in answer.payload["message"]
    assert sends_of(emulator, "scoped") == []


async def test_unknown_drafts_labels_and_messages(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        for tool in ("send_draft", "delete_draft"):
            answer = await session.call(tool, {"draft_id": "r0000000000000000001"})
            assert_error(session, answer, "not_found", server=SERVER, tool=tool, resource="draft",
                         id="r0000000000000000001")  # fmt: skip
        answer = await session.call(
            "modify_labels", {"message_ids": [emulator.seeded["status"]], "add_labels": ["No Such Label"]}
        )
        assert_error(session, answer, "not_found", server=SERVER, tool="modify_labels", resource="label",
                     id="No Such Label")  # fmt: skip
        answer = await session.call("trash_email", {"message_ids": ["ffffffffffffffff"]})
        assert_error(session, answer, "not_found", server=SERVER, tool="trash_email", resource="message")
        answer = await session.call(
            "send_email", {"to": "b@example.com", "subject": "", "body": "", "reply_to_message_id": "ffffffffffffffff"}
        )
        assert_error(session, answer, "not_found", server=SERVER, tool="send_email", resource="message")


# Every tool annotated readOnlyHint: false except download_attachment (it writes a local file only).
WRITE_TOOLS = ("send_email", "create_draft", "send_draft", "delete_draft", "modify_labels", "trash_email")


async def test_read_only_mode_lists_and_refuses_no_write_tool(gmail_env: dict[str, str], emulator: Emulator) -> None:
    write_token(Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]), emulator.issue_token(scopes=(READONLY,)))
    async with running(["gmail-mcp", "--read-only"], gmail_env) as session:
        names = await session.tool_names()
        assert "list_drafts" in names and not set(WRITE_TOOLS) & set(names)
        answer = await session.call("list_drafts", {})
        assert answer.error is None, answer.payload
        for tool in WRITE_TOOLS:
            answer = await session.call(tool, {"draft_id": "x"})
            assert_error(session, answer, "permission_denied", server=SERVER, tool=tool, reason="read_only")


async def test_every_write_tool_end_to_end_and_never_a_permanent_delete(
    gmail_env: dict[str, str], emulator: Emulator, tmp_path: Path
) -> None:
    attachment = tmp_path / "agenda.txt"
    attachment.write_text("1. hello\n")
    inbox = emulator.seeded["munich_1"]
    async with running(["gmail-mcp"], gmail_env) as session:
        sent = await session.call(
            "send_email",
            {"to": [], "subject": "", "body": "Sounds good", "reply_to_message_id": inbox,
             "attachments": [str(attachment)], "cc": "Zoë <zoe@example.com>"},
        )  # fmt: skip
        assert sent.error is None, sent.payload
        assert sent.payload["thread_id"] == emulator.mailbox.thread_id(inbox)
        draft = await session.call("create_draft", {"to": "bob@example.com", "subject": "Later", "body": "draft"})
        assert draft.error is None, draft.payload
        listed = await session.call("list_drafts", {"max_results": 10})
        assert draft.payload["draft_id"] in [d["draft_id"] for d in listed.payload["drafts"]]
        delivered = await session.call("send_draft", {"draft_id": draft.payload["draft_id"]})
        assert delivered.error is None and delivered.payload["id"] == draft.payload["message_id"]
        other = await session.call("create_draft", {"to": "bob@example.com", "subject": "Never", "body": "x"})
        deleted = await session.call("delete_draft", {"draft_id": other.payload["draft_id"]})
        assert deleted.payload == {"deleted": other.payload["draft_id"]}
        change = {"message_ids": [inbox, "ffffffffffffffff"], "add_labels": ["travel"], "remove_labels": ["UNREAD"]}
        marked = await session.call("modify_labels", change)
        assert marked.payload["modified"] == [inbox]
        assert [w["code"] for w in marked.payload["warnings"]] == ["PARTIAL_RESULTS"]
        trashed = await session.call("trash_email", {"message_ids": [emulator.seeded["promo"]]})
        assert trashed.payload == {"trashed": [emulator.seeded["promo"]], "warnings": []}
    assert "Label_3" in emulator.mailbox.label_ids(inbox) and "UNREAD" not in emulator.mailbox.label_ids(inbox)
    assert "TRASH" in emulator.mailbox.label_ids(emulator.seeded["promo"])
    assert emulator.mailbox.get_raw(emulator.seeded["promo"])  # trashed, still there
    assert not PERMANENT_DELETES & {r.route for r in emulator.request_log()}


async def test_send_that_cannot_connect_is_not_sent(gmail_env: dict[str, str]) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = gmail_env | {"GMAIL_MCP_API_ENDPOINT": f"http://127.0.0.1:{port}/"}
    async with running(["gmail-mcp"], env) as session:
        answer = await session.call("send_email", {"to": "bob@example.com", "subject": "s", "body": "b"})
        assert_error(session, answer, "send_failed", server=SERVER, tool="send_email", delivery="not_sent",
                     retryable=True)  # fmt: skip
