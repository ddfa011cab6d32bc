"""gmail-mcp's resources and prompts through `uv run gmail-mcp` against the emulator (stdio, or HTTP with
CONTRACT_TRANSPORT=http): messages and threads as `gmail://message/{id}` / `gmail://thread/{id}` (and with an
account), the unread inbox as the resource list, the `triage_inbox` and `draft_reply` prompts, and every
failure as a JSON-RPC error carrying the contract object (interface.md §5)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from mcp.shared.exceptions import MCPError as McpProtocolError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from tests.contract import checks
from tests.contract.checks import assert_protocol_error
from tests.contract.harness import Session, running
from tests.contract.test_gmail_accounts_contract import add_account

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"
NOT_FOUND = -32002


async def read_text(session: Session, uri: str) -> str:
    result = await session.client.read_resource(uri)
    assert len(result.contents) == 1
    content = result.contents[0]
    assert content.uri == uri and content.mime_type == "text/plain"
    text = getattr(content, "text", None)
    assert isinstance(text, str), content
    return text


read_error = functools.partial(checks.read_error, server=SERVER)
prompt_error = functools.partial(checks.prompt_error, server=SERVER)


async def tool(session: Session, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = await session.call(name, arguments)
    assert answer.error is None, answer.payload
    return answer.payload


def prompt_text(result: Any) -> str:
    assert len(result.messages) == 1 and result.messages[0].role == "user"
    text = result.messages[0].content.text
    assert isinstance(text, str) and text
    return text


# --- resources -------------------------------------------------------------------------------------------


async def test_templates_and_the_unread_inbox(gmail_env: dict[str, str]) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        templates = (await session.client.list_resource_templates()).resource_templates
        assert [(t.uri_template, t.mime_type) for t in templates] == [
            ("gmail://message/{id}", "text/plain"),
            ("gmail://thread/{id}", "text/plain"),
            ("gmail://{account}/message/{id}", "text/plain"),
            ("gmail://{account}/thread/{id}", "text/plain"),
            ("gmail://message/{id}/attachment/{attachment_id}", "text/plain"),
            ("gmail://{account}/message/{id}/attachment/{attachment_id}", "text/plain"),
        ]
        listed = (await session.client.list_resources()).resources
        unread = (await tool(session, "search_emails", {"query": "in:inbox is:unread", "max_results": 20}))["messages"]
        assert unread and [r.uri for r in listed] == [f"gmail://message/{m['id']}" for m in unread]
        assert [r.name for r in listed] == [m["subject"] or "(no subject)" for m in unread]
        assert all(r.mime_type == "text/plain" and r.description and "unread, from" in r.description for r in listed)
        text = await read_text(session, listed[0].uri)  # a listed URI reads
        assert text.startswith(f"Subject: {unread[0]['subject']}\nFrom: {unread[0]['from']}\n")
        records = [r for r in session.log_records() if r.get("message") == "resource list"]
        assert records and records[-1]["error_code"] is None


async def test_a_message_reads_as_headers_then_the_get_email_body(
    gmail_env: dict[str, str], emulator: Emulator
) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        for key in ("atlas_1", "receipt_html", "latin1", "invoice_pdf"):
            message_id = emulator.seeded[key]
            email = await tool(session, "get_email", {"message_id": message_id, "max_body_chars": 200_000})
            text = await read_text(session, f"gmail://message/{message_id}")
            head, _, body = text.partition("\n\n")
            assert f"Subject: {email['subject']}" in head.splitlines()
            assert f"From: {email['from']}" in head.splitlines() and f"To: {email['to']}" in head.splitlines()
            assert f"Gmail-Id: {message_id} (thread {email['thread_id']})" in head.splitlines()
            assert body.startswith(email["body"].rstrip("\n")), key
            for attachment in email["attachments"]:
                assert attachment["filename"] in head
        html = await read_text(session, f"gmail://message/{emulator.seeded['receipt_html']}")
        assert "6.30 EUR" in html and "<td>" not in html
        large = await read_text(session, f"gmail://message/{emulator.seeded['logs_large']}")
        assert len(large) > 100_000 and "CRITICAL" in large[-5000:]


async def test_a_thread_reads_as_its_messages_oldest_first(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        first = await tool(session, "get_email", {"message_id": emulator.seeded["atlas_1"]})
        thread = await tool(session, "get_thread", {"thread_id": first["thread_id"]})
        text = await read_text(session, f"gmail://thread/{first['thread_id']}")
        count = len(thread["messages"])
        assert count >= 2 and text.startswith(f"Gmail thread {first['thread_id']}: {count} messages, oldest first\n")
        positions = [text.index(f"===== message {n} of {count} =====") for n in range(1, count + 1)]
        assert positions == sorted(positions)
        ids = [text.index(f"Gmail-Id: {m['id']} ") for m in thread["messages"]]
        assert ids == sorted(ids) and all(a < b for a, b in zip(positions, ids, strict=True))


async def test_an_account_in_the_uri_reads_that_mailbox_only(gmail_env: dict[str, str], emulator: Emulator) -> None:
    add_account(gmail_env, emulator, "work")
    work_id = emulator.seeded_ids("work")["atlas_1"]
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.clear_requests()
        by_name = await read_text(session, f"gmail://work/message/{work_id}")
        by_address = await read_text(session, f"gmail://work@example.com/message/{work_id}")
        assert by_name == by_address and "Subject: Project Atlas kickoff" in by_name
        assert {r.mailbox for r in emulator.request_log() if r.mailbox} == {"work"}
        thread = await read_text(session, f"gmail://WORK/thread/{work_id}")  # a name in any case
        assert thread.startswith(f"Gmail thread {work_id}:")
        # Without an account, the default account: the work mailbox's id is not there.
        await read_error(session, f"gmail://message/{work_id}", NOT_FOUND, "not_found", resource="message")
        details = await read_error(
            session, f"gmail://nobody/message/{work_id}", INTERNAL_ERROR, "auth_required", reason="unknown_account"
        )
        assert details["accounts"] == ["default", "work"]
        await read_error(session, "gmail://no%20such/message/abc", INTERNAL_ERROR, "parse_error", field="account")


async def test_read_failures_are_json_rpc_errors_carrying_the_contract_object(
    gmail_env: dict[str, str], emulator: Emulator
) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.clear_requests()
        for uri, resource in (("gmail://message/not-hex", "message"), ("gmail://thread/0x12", "thread")):
            details = await read_error(session, uri, NOT_FOUND, "not_found", resource=resource)
            assert details["id"] == uri.rsplit("/", 1)[1]
        assert emulator.request_log() == [], "an id that is not hexadecimal must not reach Gmail"
        await read_error(session, "gmail://message/ffffffffffffffff", NOT_FOUND, "not_found", resource="message")
        await read_error(session, "gmail://thread/ffffffffffffffff", NOT_FOUND, "not_found", resource="thread")
        await read_error(session, "obsidian://note/Home.md", NOT_FOUND, "not_found", resource="resource")
        message = f"gmail://message/{emulator.seeded['atlas_1']}"
        emulator.add_fault(Fault("messages.get", status=429, retry_after=120))
        await read_error(session, message, INTERNAL_ERROR, "rate_limited", retry_after_seconds=120)
        emulator.add_fault(Fault("messages.get", status=503, times=None))
        try:
            await read_error(session, message, INTERNAL_ERROR, "mcp_unavailable", service="gmail_api")
        finally:
            emulator.clear_faults()
        assert await read_text(session, message)
        records = [r for r in session.log_records() if r.get("message") == "resource read"]
        assert (
            len(records) == 8 and records[-1]["error_code"] is None and records[0]["uri"] == "gmail://message/not-hex"
        )


async def test_without_a_token_every_read_names_the_reauth_command(tmp_path: Path) -> None:
    env = {"GMAIL_MCP_TOKEN_FILE": str(tmp_path / "missing.json"), "GMAIL_MCP_API_ENDPOINT": "http://127.0.0.1:9/"}
    async with running(["gmail-mcp"], env) as session:
        with pytest.raises(McpProtocolError) as raised:
            await session.client.list_resources()
        details = assert_protocol_error(
            session, raised.value, INTERNAL_ERROR, "auth_required", server=SERVER, reason="no_token"
        )
        assert details["reauth_command"] in raised.value.error.message
        await read_error(session, "gmail://message/abc123", INTERNAL_ERROR, "auth_required", reason="no_token")
        # The prompts need no token: they read nothing.
        assert prompt_text(await session.client.get_prompt("triage_inbox", {}))


async def test_read_only_mode_changes_nothing_here(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env | {"GMAIL_MCP_READ_ONLY": "1"}) as session:
        assert await read_text(session, f"gmail://message/{emulator.seeded['atlas_1']}")
        assert (await session.client.list_resources()).resources
        assert {p.name for p in (await session.client.list_prompts()).prompts} == {"triage_inbox", "draft_reply"}


# --- prompts ---------------------------------------------------------------------------------------------


async def test_the_prompts_and_their_arguments(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        prompts = {p.name: p for p in (await session.client.list_prompts()).prompts}
        shapes = {name: [(a.name, a.required) for a in p.arguments or []] for name, p in prompts.items()}
        assert shapes == {"triage_inbox": [("query", False)], "draft_reply": [("message_id", True), ("intent", False)]}
        assert all(p.description and p.title for p in prompts.values())

        triage = prompt_text(await session.client.get_prompt("triage_inbox", {}))
        assert 'search_emails(query="in:inbox is:unread"' in triage and "modify_labels" in triage
        custom = prompt_text(await session.client.get_prompt("triage_inbox", {"query": 'from:"Ann" label:x'}))
        assert 'search_emails(query="from:\\"Ann\\" label:x"' in custom
        await prompt_error(session, "triage_inbox", {"query": "x" * 2001}, INVALID_PARAMS, "parse_error", field="query")

        message_id = emulator.seeded["atlas_1"]
        reply = prompt_text(
            await session.client.get_prompt("draft_reply", {"message_id": message_id, "intent": "Yes, Monday works."})
        )
        for expected in (f'get_email(message_id="{message_id}")', f'create_draft(reply_to_message_id="{message_id}"',
                         "Yes, Monday works.", "never call send_email or send_draft"):  # fmt: skip
            assert expected in reply
        # Claude Code passes one word per argument: without an intent the model is told to ask for it.
        asking = prompt_text(await session.client.get_prompt("draft_reply", {"message_id": message_id}))
        assert "ask me what the reply should say" in asking and "never call send_email" in asking


async def test_bad_prompt_arguments_are_invalid_params_with_the_contract_object(gmail_env: dict[str, str]) -> None:
    async with running(["gmail-mcp"], gmail_env | {"GMAIL_MCP_CRASH_TOOLS": "triage_inbox"}) as session:
        await prompt_error(
            session, "draft_reply", {"message_id": "xyz!", "intent": "ok"}, INVALID_PARAMS, "parse_error",
            field="message_id",
        )  # fmt: skip
        await prompt_error(
            session, "draft_reply", {"intent": "yes"}, INVALID_PARAMS, "parse_error", field="message_id",
            reason="missing",
        )  # fmt: skip
        await prompt_error(
            session, "draft_reply", {"message_id": "abc", "intent": "x", "account": "work"}, INVALID_PARAMS,
            "parse_error", field="account", reason="unexpected_argument",
        )  # fmt: skip
        await prompt_error(
            session, "draft_reply", {"message_id": "abc", "intent": ""}, INVALID_PARAMS, "parse_error",
            field="intent",
        )  # fmt: skip
        await prompt_error(session, "send_everything", {}, INVALID_PARAMS, "not_found", resource="prompt")
        await prompt_error(session, "triage_inbox", {}, INTERNAL_ERROR, "internal_error")  # the crash switch
        records = [r for r in session.log_records() if r.get("message") == "prompt"]
        assert [r["error_code"] for r in records] == ["parse_error"] * 4 + ["not_found", "internal_error"]
        crash = [r for r in session.log_records() if r.get("request_id") == records[-1]["request_id"]]
        assert any("crash injected" in r.get("exception", "") for r in crash), "the traceback goes to the log"
