"""Every Gmail 400 names the tool argument it blames (`details.field`), for every tool whose requests carry
the caller's input: the regression guard of the schema fuzzing that found 400s answered `parse_error`
without `field` (e.g. list_drafts with a bad page_token). Gmail's answer is a real 400 of the emulator
where the emulator draws one from the arguments (a bad page token), else an injected 400 on the request."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.runtime.server import ContractServer
from mcp import Client

pytestmark = pytest.mark.anyio
MODIFY = "https://www.googleapis.com/auth/gmail.modify"
SETTINGS = "https://www.googleapis.com/auth/gmail.settings.basic"
HEX = "abc123"
DRAFT = "<draft>"  # replaced by a draft made for the case
NEW = {"to": "bob@example.com", "subject": "s", "body": "b"}
STARRED = {"add": ["STARRED"]}

# (tool, arguments, routes answered 400 (none: the emulator's own 400), the field blamed)
CASES: list[tuple[str, dict[str, Any], tuple[str, ...], str]] = [
    ("search_emails", {"query": "from:(ann"}, ("messages.list",), "query"),
    ("search_emails", {"query": "ann", "page_token": "bogus"}, (), "page_token"),
    ("list_drafts", {"page_token": "bogus"}, (), "page_token"),
    ("get_email", {"message_id": HEX}, ("messages.get",), "message_id"),
    ("get_thread", {"thread_id": HEX}, ("threads.get",), "thread_id"),
    ("download_attachment", {"message_id": "<invoice>", "attachment_id": "A1"}, ("messages.attachments.get",),
     "attachment_id"),
    ("modify_labels", {"message_ids": [HEX], "add_labels": ["STARRED"]}, ("messages.batchModify", "messages.modify"),
     "add_labels"),
    ("modify_labels", {"query": "is:unread", "remove_labels": ["UNREAD"], "dry_run": False},
     ("messages.batchModify", "messages.modify"), "remove_labels"),
    ("trash_email", {"message_ids": [HEX]}, ("messages.trash",), "message_ids"),
    ("trash_email", {"query": "is:unread", "dry_run": False}, ("messages.batchModify", "messages.trash"), "query"),
    ("send_email", NEW, ("messages.send",), "to"),
    ("send_email", NEW | {"reply_to_message_id": HEX}, ("messages.get",), "reply_to_message_id"),
    ("forward_email", {"message_id": HEX, "to": "bob@example.com"}, ("messages.get",), "message_id"),
    ("create_draft", NEW, ("drafts.create",), "to"),
    ("update_draft", {"draft_id": DRAFT, "subject": "t"}, ("drafts.update",), "draft_id"),
    ("send_draft", {"draft_id": DRAFT}, ("drafts.send",), "draft_id"),
    ("delete_draft", {"draft_id": DRAFT}, ("drafts.delete",), "draft_id"),
    ("manage_label", {"action": "create", "label": "New one"}, ("labels.create",), "label"),
    ("manage_label", {"action": "rename", "label": "Receipts", "new_name": "Bills"}, ("labels.patch",), "new_name"),
    ("manage_label", {"action": "delete", "label": "Receipts"}, ("labels.delete",), "label"),
    ("manage_filter", {"action": "create", "criteria": {"from": "ann@example.com"}, "action_labels": STARRED},
     ("settings.filters.create",), "criteria"),
    ("manage_filter", {"action": "delete", "filter_id": "f1"}, ("settings.filters.delete",), "filter_id"),
    ("list_labels", {}, ("labels.list",), "arguments"),  # no argument of the caller's: the call as a whole
]  # fmt: skip


async def call(server: ContractServer, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    async with Client(server) as session:
        result = await session.call_tool(tool, arguments)
    return bool(result.is_error), json.loads(result.content[0].text)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("tool", "arguments", "refused", "field"), CASES, ids=lambda v: v if isinstance(v, str) else ""
)
async def test_a_gmail_400_names_the_argument_it_blames(
    tool: str, arguments: dict[str, Any], refused: tuple[str, ...], field: str, emu: Emulator, make_server: Any,
    tmp_path: Path,
) -> None:  # fmt: skip
    server = make_server()
    token = next(tmp_path.glob("token-*.json"))
    token.write_text(json.dumps(emu.issue_token((MODIFY, SETTINGS))))
    os.chmod(token, 0o600)
    arguments = dict(arguments)
    if arguments.get("draft_id") == DRAFT:
        failed, created = await call(server, "create_draft", NEW)
        assert not failed, created
        arguments["draft_id"] = created["draft_id"]
    if arguments.get("message_id") == "<invoice>":
        arguments["message_id"] = emu.seeded["invoice_pdf"]
    for route in refused:
        emu.add_fault(Fault(route=route, status=400, reason="invalidArgument", message="Invalid", times=None))
    failed, payload = await call(server, tool, arguments)
    assert failed and payload["error"] == "parse_error", payload
    assert payload["details"].get("field") == field, payload
