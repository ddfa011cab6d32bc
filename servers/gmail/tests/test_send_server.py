"""The write tools through the assembled server (in process): shapes of answers and errors, read-only mode."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.client import GmailClient
from gmail_mcp.runtime.server import ContractServer


def call(server: ContractServer, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = asyncio.run(server.call_tool(name, arguments))
    payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
    expected = None if result.is_error else payload  # type: ignore[union-attr]
    assert result.structured_content == expected  # type: ignore[union-attr]
    return bool(result.is_error), payload  # type: ignore[union-attr]


def test_send_email_answers_ids_and_our_message_id(emu: Emulator, make_server: Callable[..., ContractServer]) -> None:
    failed, payload = call(
        make_server(), "send_email", {"to": "Ann <ann@example.com>, bob@example.com", "subject": "Hi", "body": "Hello"}
    )
    assert not failed and set(payload) == {"id", "thread_id", "message_id", "warnings"}
    assert emu.mailbox.sent_messages_with_header("Message-ID", payload["message_id"]) == [payload["id"]]
    assert "bob@example.com" in emu.mailbox.get_raw(payload["id"]).decode()


def test_send_failed_names_the_delivery(emu: Emulator, make_server: Callable[..., ContractServer]) -> None:
    emu.add_fault(Fault("messages.send", status=500))
    failed, payload = call(make_server(), "send_email", {"to": ["bob@example.com"], "subject": "x", "body": "y"})
    assert failed and payload["error"] == "send_failed"
    assert payload["details"]["delivery"] == "unknown" and payload["details"]["retryable"] is False
    assert "Sent" in payload["message"]


def test_argument_failures(make_server: Callable[..., ContractServer], tmp_path: Path) -> None:
    server = make_server()
    failed, payload = call(server, "send_email", {"to": "bob@", "subject": "x", "body": "y"})
    assert failed and payload["error"] == "parse_error" and payload["details"]["field"] == "to"
    missing = str(tmp_path / "secret" / "plan.pdf")
    draft = {"to": "b@example.com", "subject": "", "body": "", "attachments": [missing]}
    failed, payload = call(server, "create_draft", draft)
    assert failed and payload["error"] == "not_found"
    assert payload["details"] == {**payload["details"], "resource": "attachment_file", "path": "plan.pdf"}
    assert str(tmp_path) not in json.dumps(payload)
    failed, payload = call(server, "modify_labels", {"message_ids": ["ffffffffffffffff"], "add_labels": ["Nope"]})
    assert failed and payload["error"] == "not_found" and payload["details"]["resource"] == "label"
    failed, payload = call(server, "send_draft", {"draft_id": "r123"})
    assert failed and payload["error"] == "not_found" and payload["details"]["resource"] == "draft"


def test_partial_failures_are_warnings(emu: Emulator, make_server: Callable[..., ContractServer]) -> None:
    failed, payload = call(make_server(), "trash_email", {"message_ids": [emu.seeded["promo"], "ffffffffffffffff"]})
    assert not failed and payload["trashed"] == [emu.seeded["promo"]]
    [warning] = payload["warnings"]
    assert warning["code"] == "PARTIAL_RESULTS"
    assert warning["failed"] == [
        {"id": "ffffffffffffffff", "error": "not_found", "reason": warning["failed"][0]["reason"]}
    ]


# What read-only mode must hide, pinned here; the server derives it from each tool's annotations.
WRITE_TOOLS = {
    "send_email",
    "create_draft",
    "send_draft",
    "delete_draft",
    "modify_labels",
    "trash_email",
    "forward_email",
    "update_draft",
    "manage_label",
    "manage_filter",
}


def test_read_only_lists_no_write_tool_and_refuses_calls(make_server: Callable[..., ContractServer]) -> None:
    server = make_server(read_only=True)
    assert server.write_tools == WRITE_TOOLS
    names = {tool.name for tool in asyncio.run(server.list_tools())}
    assert "list_drafts" in names and not names & set(WRITE_TOOLS)
    for tool in WRITE_TOOLS:
        failed, payload = call(server, tool, {})
        assert failed and payload["error"] == "permission_denied" and payload["details"]["reason"] == "read_only"
    writable = {tool.name for tool in asyncio.run(make_server().list_tools())}
    assert set(WRITE_TOOLS) | {"list_drafts"} <= writable
    assert "download_attachment" in names  # it writes a local file, never the mailbox


MODES = [(False, "uv run gmail-mcp auth"), (True, "uv run gmail-mcp auth --read-only")]


@pytest.mark.parametrize(("read_only", "command"), MODES, ids=["modify", "read-only"])
def test_the_reauth_command_follows_the_mode(
    make_server: Callable[..., ContractServer], client: GmailClient, read_only: bool, command: str
) -> None:
    client.settings.token_file.unlink()
    failed, payload = call(make_server(read_only=read_only), "list_labels", {})
    assert failed and payload["error"] == "auth_required" and payload["details"]["reason"] == "no_token"
    assert payload["details"]["reauth_command"] == command and command in payload["message"]
