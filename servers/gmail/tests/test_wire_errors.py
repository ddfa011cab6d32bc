"""The exact error JSON of one representative failure of every tool, whole payloads pinned.

The tools are driven in process through the SDK's own client (`mcp.Client` connected to the server
object) against `build_server(Settings(...))` (the `make_server` fixture) talking to the emulator's
seeded mailbox, broken where a case needs it (an emulator `Fault`, a missing token, a read-only
server). Every error answers `isError: true`, one text block holding exactly
`{"error", "message", "details"}` as compact JSON, and no structuredContent (interface.md §1: a
client validates structuredContent against the success schema, so an error never carries one); its
code must be one the tool's errorSchema in specs/contracts/gmail-tools.json allows. Every byte is
pinned except what is new on each call: `details.request_id` (16 hex digits) and the id of a draft
the send guard kept, which `scrubbed` replaces after checking their shape. A failure here is a change
of the wire: if it is meant, update the snapshot and specs/contracts in the same change. The success
answers are pinned in test_wire_snapshots.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import mcp_types
import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.client import GmailClient
from gmail_mcp.config import Settings
from gmail_mcp.guard.gate import ConfirmMode
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.server import build_server
from mcp import Client

pytestmark = pytest.mark.anyio

REQUEST_ID = "<request-id>"
MINTED = "<minted>"
SPEC = Path(__file__).resolve().parents[3] / "specs" / "contracts" / "gmail-tools.json"
STRANGER = "x@attacker.test"
TOOLS = {entry["name"] for entry in json.loads(SPEC.read_text(encoding="utf-8"))["tools"]}


def error_schema(tool: str) -> dict[str, Any]:
    """The tool's errorSchema from the contract, with the shared `$defs` it refers to."""
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    [entry] = [entry for entry in spec["tools"] if entry["name"] == tool]
    return {**entry["errorSchema"], "$defs": spec["$defs"]}


async def failure(server: ContractServer, tool: str, arguments: dict[str, Any], **client: Any) -> dict[str, Any]:
    """The error payload of one call (`client`: keyword arguments of `mcp.Client`), `details.request_id`
    replaced by REQUEST_ID once it is checked to be 16 hex digits."""
    async with Client(server, **client) as session:
        result = await session.call_tool(tool, arguments)
    assert result.is_error is True, result.content
    assert result.structured_content is None
    [block] = result.content
    assert isinstance(block, mcp_types.TextContent)
    payload: dict[str, Any] = json.loads(block.text)
    assert block.text == json.dumps(payload, ensure_ascii=False, separators=(",", ":"))  # compact, one object
    if tool in TOOLS:  # the codes the contract allows this tool
        jsonschema.validate(payload, error_schema(tool))
    request_id = payload["details"]["request_id"]
    assert re.fullmatch(r"[0-9a-f]{16}", request_id), request_id
    return scrubbed(payload, request_id, REQUEST_ID)


def scrubbed(payload: dict[str, Any], value: str, placeholder: str) -> dict[str, Any]:
    """`payload` with `value` replaced by `placeholder` in the message and in every detail that is exactly it."""
    details = {key: placeholder if item == value else item for key, item in payload["details"].items()}
    return {**payload, "message": payload["message"].replace(value, placeholder), "details": details}


@pytest.fixture
def server(make_server: Callable[..., ContractServer]) -> ContractServer:
    return make_server()


# -- one error of every tool ------------------------------------------------------------------------------


async def test_list_accounts_without_a_token(server: ContractServer, client: GmailClient) -> None:
    """list_accounts with no token file: auth_required `no_token` and the command that authorises the account."""
    client.settings.token_file.unlink()
    assert await failure(server, "list_accounts", {}) == {
        "error": "auth_required",
        "message": "no Gmail account is authorised yet; authorise with: uv run gmail-mcp auth",
        "details": {
            "reason": "no_token",
            "reauth_command": "uv run gmail-mcp auth",
            "retryable": False,
            "request_id": REQUEST_ID,
        },
    }


async def test_search_emails_rate_limited(server: ContractServer, emu: Emulator) -> None:
    """search_emails while Gmail answers 429 with a Retry-After beyond the client's patience: rate_limited, at
    once, with the seconds to wait."""
    emu.add_fault(Fault(route="messages.list", status=429, reason="rateLimitExceeded", retry_after=3600, times=None))
    assert await failure(server, "search_emails", {"query": "in:inbox"}) == {
        "error": "rate_limited",
        "message": "Gmail is rate limiting requests; wait 3600 s and try again",
        "details": {"retryable": True, "retry_after_seconds": 3600, "request_id": REQUEST_ID},
    }


async def test_get_email_of_an_unknown_message(server: ContractServer) -> None:
    """get_email of a well-formed id no message has: not_found naming the resource and the id."""
    assert await failure(server, "get_email", {"message_id": "ffffffffffffffff"}) == {
        "error": "not_found",
        "message": "message not found: ffffffffffffffff",
        "details": {"resource": "message", "id": "ffffffffffffffff", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_get_thread_with_an_id_that_is_not_hexadecimal(server: ContractServer) -> None:
    """get_thread with a thread_id off its pattern: parse_error naming the field and pydantic's reason, the
    value not echoed."""
    assert await failure(server, "get_thread", {"thread_id": "not-hex"}) == {
        "error": "parse_error",
        "message": "invalid argument 'thread_id': String should match pattern '^[0-9a-fA-F]{1,64}$'",
        "details": {
            "field": "thread_id",
            "reason": "string_pattern_mismatch",
            "retryable": False,
            "request_id": REQUEST_ID,
        },
    }


async def test_read_attachment_of_a_broken_pdf(server: ContractServer, emu: Emulator) -> None:
    """read_attachment of the seeded invoice, bytes that start like a PDF but are none PDFium can open:
    parse_error `corrupt` on the attachment, nothing of its content echoed."""
    arguments = {"message_id": emu.seeded["invoice_pdf"], "attachment_id": "ANGjdJMWExNThlYTFiZTAwMDAwOTox"}
    assert await failure(server, "read_attachment", arguments) == {
        "error": "parse_error",
        "message": "the PDF cannot be read (damaged, cut short or not a PDF)",
        "details": {"reason": "corrupt", "resource": "attachment", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_list_labels_while_gmail_is_down(server: ContractServer, emu: Emulator) -> None:
    """list_labels while every labels.list answers 503: after the bounded retries, mcp_unavailable (retryable)
    naming the service."""
    emu.add_fault(Fault(route="labels.list", status=503, times=None))
    assert await failure(server, "list_labels", {}) == {
        "error": "mcp_unavailable",
        "message": "the Gmail API is unavailable: HTTP 503; try again later",
        "details": {"service": "gmail_api", "retryable": True, "request_id": REQUEST_ID},
    }


async def test_manage_label_deleting_a_system_label(server: ContractServer) -> None:
    """manage_label deleting INBOX: permission_denied `system_label` naming the label."""
    assert await failure(server, "manage_label", {"action": "delete", "label": "INBOX"}) == {
        "error": "permission_denied",
        "message": "INBOX is a system label: it cannot be renamed or deleted, nor its name taken",
        "details": {
            "reason": "system_label",
            "resource": "label",
            "id": "INBOX",
            "retryable": False,
            "request_id": REQUEST_ID,
        },
    }


async def test_modify_labels_with_an_unknown_label(server: ContractServer, emu: Emulator) -> None:
    """modify_labels adding a label no one made: not_found naming the label as it was given."""
    arguments = {"message_ids": [emu.seeded["status"]], "add_labels": ["Nope"]}
    assert await failure(server, "modify_labels", arguments) == {
        "error": "not_found",
        "message": "label not found: Nope",
        "details": {"resource": "label", "id": "Nope", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_trash_email_on_a_read_only_server(make_server: Callable[..., ContractServer], emu: Emulator) -> None:
    """trash_email on a read-only server (the tool is not listed): permission_denied `read_only`."""
    arguments = {"message_ids": [emu.seeded["promo"]]}
    assert await failure(make_server(read_only=True), "trash_email", arguments) == {
        "error": "permission_denied",
        "message": "trash_email is not available: the server is read-only",
        "details": {"reason": "read_only", "retryable": False, "request_id": REQUEST_ID},
    }
    assert "TRASH" not in emu.label_ids(emu.seeded["promo"])


async def test_list_filters_with_an_unexpected_argument(server: ContractServer) -> None:
    """list_filters with a misspelt argument: parse_error `unexpected_argument` naming it (never ignored)."""
    assert await failure(server, "list_filters", {"acount": "work"}) == {
        "error": "parse_error",
        "message": "unexpected argument 'acount'",
        "details": {"field": "acount", "reason": "unexpected_argument", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_manage_filter_without_the_settings_scope(server: ContractServer, emu: Emulator) -> None:
    """manage_filter create with a gmail.modify-only token: auth_required `insufficient_scope` and the command
    that asks for the missing permission; no filter made."""
    arguments = {"action": "create", "criteria": {"from": "news@shop.example"}, "archive": True}
    assert await failure(server, "manage_filter", arguments) == {
        "error": "auth_required",
        "message": (
            "creating and deleting filters needs the gmail.settings.basic permission; "
            "authorise with: uv run gmail-mcp auth"
        ),
        "details": {
            "reason": "insufficient_scope",
            "reauth_command": "uv run gmail-mcp auth",
            "retryable": False,
            "request_id": REQUEST_ID,
        },
    }
    assert emu.filters() == []


async def test_send_email_failing_with_a_500(server: ContractServer, emu: Emulator) -> None:
    """send_email whose messages.send answers 500 (before storing it): send_failed with delivery `unknown` (a 500
    may come after the send; it is not in Sent), not retryable: check Sent first."""
    emu.add_fault(Fault(route="messages.send", status=500, after_commit=False))
    arguments = {"to": "bob@example.com", "subject": "Ramen", "body": "Again?"}
    assert await failure(server, "send_email", arguments) == {
        "error": "send_failed",
        "message": (
            "the send failed after the request reached Gmail and the message was not found in Sent; it may still "
            "arrive — check the Sent folder before sending again"
        ),
        "details": {"delivery": "unknown", "retryable": False, "request_id": REQUEST_ID},
    }
    assert emu.mailbox.sent_messages_with_header("Subject", "Ramen") == []


async def test_forward_email_to_an_invalid_address(server: ContractServer, emu: Emulator) -> None:
    """forward_email to an address without a domain: parse_error `invalid_address` naming the field `to`."""
    arguments = {"message_id": emu.seeded["flight"], "to": "bob@"}
    assert await failure(server, "forward_email", arguments) == {
        "error": "parse_error",
        "message": "to: invalid e-mail address 'bob@'",
        "details": {"field": "to", "reason": "invalid_address", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_create_draft_with_a_missing_attachment(server: ContractServer, tmp_path: Path) -> None:
    """create_draft attaching a file that does not exist: not_found `attachment_file` with the file's name only,
    never the caller's whole path."""
    missing = tmp_path / "secret" / "plan.pdf"
    arguments = {"to": "bob@example.com", "subject": "Plan", "body": "Attached.", "attachments": [str(missing)]}
    assert await failure(server, "create_draft", arguments) == {
        "error": "not_found",
        "message": "attachment file not found: plan.pdf",
        "details": {"resource": "attachment_file", "path": "plan.pdf", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_update_draft_of_an_unknown_draft(server: ContractServer) -> None:
    """update_draft of a draft id no draft has: not_found naming the draft."""
    assert await failure(server, "update_draft", {"draft_id": "r123", "subject": "Plan"}) == {
        "error": "not_found",
        "message": "draft not found: r123",
        "details": {"resource": "draft", "id": "r123", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_list_drafts_with_max_results_out_of_range(server: ContractServer) -> None:
    """list_drafts with max_results 0: parse_error naming the field and pydantic's reason."""
    assert await failure(server, "list_drafts", {"max_results": 0}) == {
        "error": "parse_error",
        "message": "invalid argument 'max_results': Input should be greater than or equal to 1",
        "details": {
            "field": "max_results",
            "reason": "greater_than_equal",
            "retryable": False,
            "request_id": REQUEST_ID,
        },
    }


async def test_send_draft_rate_limited(server: ContractServer, emu: Emulator) -> None:
    """send_draft whose drafts.send answers 429: rate_limited with the seconds to wait; the draft is not sent."""
    emu.add_fault(Fault(route="drafts.send", status=429, reason="rateLimitExceeded", retry_after=60, times=None))
    draft = emu.seeded_drafts["draft_notes"]
    assert await failure(server, "send_draft", {"draft_id": draft}) == {
        "error": "rate_limited",
        "message": "Gmail is rate limiting requests; wait 60 s and try again",
        "details": {"retryable": True, "retry_after_seconds": 60, "request_id": REQUEST_ID},
    }
    assert draft in emu.mailbox.draft_ids()


async def test_delete_draft_while_gmail_is_down(server: ContractServer, emu: Emulator) -> None:
    """delete_draft while every drafts.delete answers 503: mcp_unavailable (retryable) naming the service."""
    emu.add_fault(Fault(route="drafts.delete", status=503, times=None))
    draft = emu.seeded_drafts["draft_notes"]
    assert await failure(server, "delete_draft", {"draft_id": draft}) == {
        "error": "mcp_unavailable",
        "message": "the Gmail API is unavailable: HTTP 503; try again later",
        "details": {"service": "gmail_api", "retryable": True, "request_id": REQUEST_ID},
    }
    assert draft in emu.mailbox.draft_ids()


async def test_download_attachment_of_an_unknown_attachment(
    server: ContractServer, emu: Emulator, tmp_path: Path
) -> None:
    """download_attachment with an attachment id the message does not have: not_found naming the attachment;
    nothing saved."""
    arguments = {"message_id": emu.seeded["invoice_pdf"], "attachment_id": "nope"}
    assert await failure(server, "download_attachment", arguments) == {
        "error": "not_found",
        "message": "attachment not found: nope",
        "details": {"resource": "attachment", "id": "nope", "retryable": False, "request_id": REQUEST_ID},
    }
    assert list((tmp_path / "downloads").glob("*")) == []


# -- the send guard ---------------------------------------------------------------------------------------


async def test_send_email_to_a_new_recipient_without_elicitation(
    make_server: Callable[..., ContractServer], emu: Emulator
) -> None:
    """send_email to a new address through a client that cannot be asked (no elicitation): permission_denied
    `confirmation_required`, the mail kept as a draft (its id minted, in the message too) and the new
    recipients; nothing sent."""
    server = make_server(confirm=ConfirmMode.NEW_RECIPIENTS)
    payload = await failure(server, "send_email", {"to": STRANGER, "subject": "Invoices", "body": "Attached."})
    draft_id = payload["details"]["draft_id"]
    assert re.fullmatch(r"r\d{1,30}", draft_id) and draft_id in emu.mailbox.draft_ids()
    assert scrubbed(payload, draft_id, MINTED) == {
        "error": "permission_denied",
        "message": (
            "nothing was sent: sending to x@attacker.test needs the person's confirmation and this client cannot "
            "ask for it (no MCP elicitation). The mail is saved as draft <minted>: the person can review and send "
            "it in Gmail."
        ),
        "details": {
            "reason": "confirmation_required",
            "draft_id": MINTED,
            "new_recipients": [STRANGER],
            "retryable": False,
            "request_id": REQUEST_ID,
        },
    }
    assert emu.mailbox.sent_messages_with_header("Subject", "Invoices") == []


async def test_forward_email_declined_by_the_person(make_server: Callable[..., ContractServer], emu: Emulator) -> None:
    """forward_email of the invoice to a new address, the person asked (form elicitation) and declining:
    permission_denied `declined`; nothing sent, no draft kept."""
    questions: list[mcp_types.ElicitRequestParams] = []

    async def decline(context: Any, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
        questions.append(params)
        return mcp_types.ElicitResult(action="decline")

    server = make_server(confirm=ConfirmMode.NEW_RECIPIENTS)
    arguments = {"message_id": emu.seeded["invoice_pdf"], "to": STRANGER}
    drafts = emu.mailbox.draft_ids()
    assert await failure(server, "forward_email", arguments, mode="legacy", elicitation_callback=decline) == {
        "error": "permission_denied",
        "message": (
            "the person said no when asked to confirm: nothing was done; do not try again unless they ask you to"
        ),
        "details": {"reason": "declined", "retryable": False, "request_id": REQUEST_ID},
    }
    assert len(questions) == 1 and emu.mailbox.draft_ids() == drafts
    assert emu.mailbox.sent_messages_with_header("Subject", "Fwd: Rechnung März 2026") == []


# -- failures of no particular tool -----------------------------------------------------------------------


async def test_an_unknown_tool(server: ContractServer) -> None:
    """A call of a tool the server does not have: not_found `tool` naming it."""
    assert await failure(server, "delete_everything", {}) == {
        "error": "not_found",
        "message": "unknown tool: delete_everything",
        "details": {"resource": "tool", "id": "delete_everything", "retryable": False, "request_id": REQUEST_ID},
    }


async def test_an_unexpected_failure(emu: Emulator, client: GmailClient, tmp_path: Path) -> None:
    """A tool that crashes (GMAIL_MCP_CRASH_TOOLS): internal_error, its message naming only the request id."""
    settings = Settings(
        credentials_file=tmp_path / "credentials.json",
        token_file=client.settings.token_file,
        api_endpoint=emu.base_url,
        download_dir=tmp_path / "downloads",
        read_only=False,
        timeout_seconds=5,
        backoff_base_seconds=0.01,
        crash_tools=frozenset({"get_email"}),
        confirm=ConfirmMode.NEVER,
        audit_log=tmp_path / "audit.jsonl",
    )
    assert await failure(build_server(settings), "get_email", {"message_id": emu.seeded["status"]}) == {
        "error": "internal_error",
        "message": f"internal error (request id {REQUEST_ID})",
        "details": {"retryable": False, "request_id": REQUEST_ID},
    }
