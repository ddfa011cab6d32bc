"""Several accounts, in process through the SDK's client: which account a call means, what each knows about
itself, that nothing of one reaches another, and that a read-only token makes its account read-only."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator
from gmail_mcp.config import Settings
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.server import build_server
from mcp import Client

pytestmark = pytest.mark.anyio
MODIFY = "https://www.googleapis.com/auth/gmail.modify"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
SETTINGS = "https://www.googleapis.com/auth/gmail.settings.basic"

Build = Callable[..., ContractServer]


@pytest.fixture
def build(emu: Emulator, tmp_path: Path) -> Build:
    """`build(accounts, chosen=None, read_only=False)`: a server whose token files are `accounts`:
    {name: (emulator mailbox, scopes, recorded address or None)}; `default` goes to the token file."""
    emu.add_mailbox("work", "work@example.com", seed=True)

    def make(accounts: dict[str, tuple[str, tuple[str, ...], str | None]], chosen: str | None = None,
             read_only: bool = False) -> ContractServer:  # fmt: skip
        for name, (mailbox, scopes, email) in accounts.items():
            path = tmp_path / ("token.json" if name == "default" else f"tokens/{name}.json")
            path.parent.mkdir(mode=0o700, exist_ok=True)
            token = emu.issue_token(scopes, mailbox=mailbox) | ({"email": email} if email else {})
            path.write_text(json.dumps(token))
            os.chmod(path, 0o600)
        settings = Settings(
            credentials_file=tmp_path / "credentials.json",
            token_file=tmp_path / "token.json",
            token_dir=tmp_path / "tokens",
            account=chosen,
            api_endpoint=emu.base_url,
            download_dir=tmp_path / "downloads",
            read_only=read_only,
            timeout_seconds=5,
            backoff_base_seconds=0.01,
            audit_log=tmp_path / "audit.jsonl",
        )
        return build_server(settings)

    return make


async def call(server: ContractServer, tool: str, arguments: dict[str, Any] | None = None) -> tuple[bool, Any]:
    """(is it an error, the payload); a success is validated by the client against the tool's outputSchema."""
    async with Client(server) as session:
        result = await session.call_tool(tool, arguments or {})
    payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
    if not result.is_error:
        assert result.structured_content == payload
    return bool(result.is_error), payload


TWO = {"default": ("default", (MODIFY, SETTINGS), "me@example.com"), "work": ("work", (MODIFY,), None)}


async def test_list_accounts_names_addresses_and_the_default(build: Build, emu: Emulator) -> None:
    server = build(TWO | {"archive": ("archive", (READONLY,), "archive@example.com")})
    failed, payload = await call(server, "list_accounts")
    assert not failed, payload
    assert payload == {
        "accounts": [
            {"name": "default", "email": "me@example.com", "read_only": False},
            {"name": "archive", "email": "archive@example.com", "read_only": True},  # its token: gmail.readonly
            {"name": "work", "email": "work@example.com", "read_only": False},  # none recorded: asked of Gmail
        ],
        "default_account": "default",
        "warnings": [],
    }
    assert [r.route for r in emu.requests_for("work")] == ["profile"]
    assert emu.requests_for("default") == [] and emu.requests_for("archive") == []
    await call(server, "list_accounts")
    assert [r.route for r in emu.requests_for("work")] == ["profile"]  # asked once


async def test_an_account_by_name_any_case_or_address_and_only_that_mailbox(build: Build, emu: Emulator) -> None:
    server = build(TWO)
    for account in ("work", "WORK", "work@example.com", "Work@Example.com"):
        emu.clear_requests()
        failed, payload = await call(
            server, "search_emails", {"query": "in:inbox", "max_results": 2, "account": account}
        )
        assert not failed, payload
        assert {m["id"] for m in payload["messages"]} <= set(emu.seeded_ids("work").values())
        assert emu.requests_for("default") == [], account
        assert emu.requests_for("work")
    emu.clear_requests()
    failed, _ = await call(server, "list_labels")  # no account: the default
    assert not failed and emu.requests_for("work") == [] and emu.requests_for("default")


async def test_a_write_to_account_b_never_touches_mailbox_a(build: Build, emu: Emulator) -> None:
    server = build(TWO)
    work = emu.seeded_ids("work")["status"]
    before = {key: emu.label_ids(i) for key, i in emu.seeded.items()}
    failed, payload = await call(
        server, "modify_labels", {"message_ids": [work], "remove_labels": ["UNREAD"], "account": "work"}
    )
    assert not failed and payload["modified"] == [work]
    assert "UNREAD" not in emu.label_ids(work, mailbox="work")
    assert {key: emu.label_ids(i) for key, i in emu.seeded.items()} == before
    assert emu.requests_for("default") == []
    failed, payload = await call(server, "manage_label", {"action": "create", "label": "Work only", "account": "work"})
    assert not failed and emu.label_id("Work only", mailbox="work") == payload["label"]["id"]
    assert emu.label_id("Work only") is None
    # Each account has its own label cache: the default account does not know the new label.
    failed, payload = await call(
        server, "modify_labels", {"message_ids": [emu.seeded["status"]], "add_labels": ["Work only"]}
    )
    assert failed and payload["error"] == "not_found" and payload["details"]["resource"] == "label"


async def test_a_broken_account_never_breaks_another(build: Build, emu: Emulator, tmp_path: Path) -> None:
    server = build(TWO)
    token = json.loads((tmp_path / "tokens" / "work.json").read_text())
    token["expiry"] = "2000-01-01T00:00:00.000000Z"  # a refresh on first use, which Google refuses
    emu.revoke_refresh_token(token["refresh_token"])
    (tmp_path / "tokens" / "work.json").write_text(json.dumps(token))
    failed, payload = await call(server, "list_labels", {"account": "work"})
    assert failed and payload["error"] == "auth_required" and payload["details"]["reason"] == "revoked"
    assert payload["details"]["reauth_command"] == "uv run gmail-mcp auth --account work"
    assert "uv run gmail-mcp auth --account work" in payload["message"]
    failed, payload = await call(server, "list_labels")
    assert not failed, payload
    failed, payload = await call(server, "list_accounts")  # the broken one is listed, its address unknown
    assert not failed and payload["accounts"][1] == {"name": "work", "email": None, "read_only": False}
    [warning] = payload["warnings"]
    assert warning["code"] == "PARTIAL_RESULTS" and warning["failed"][0]["id"] == "work"
    assert warning["failed"][0]["error"] == "auth_required"


async def test_an_unknown_account_names_the_known_ones(build: Build, emu: Emulator) -> None:
    server = build(TWO)
    failed, payload = await call(server, "search_emails", {"query": "x", "account": "personal"})
    assert failed and payload["error"] == "auth_required"
    assert payload["details"] | {"request_id": ""} == {
        "reason": "unknown_account",
        "reauth_command": "uv run gmail-mcp auth --account personal",
        "accounts": ["default", "work"],
        "retryable": False,
        "request_id": "",
    }
    failed, payload = await call(server, "search_emails", {"query": "x", "account": "nobody@example.com"})
    assert failed and payload["details"]["reason"] == "unknown_account"
    failed, payload = await call(server, "search_emails", {"query": "x", "account": "../../etc/passwd"})
    assert failed and payload["error"] == "parse_error" and payload["details"]["field"] == "account"
    assert "passwd" not in json.dumps(payload)
    assert [r.route for r in emu.request_log()] == ["profile"]  # only the address search asked Gmail


async def test_a_read_only_token_makes_its_account_read_only(build: Build, emu: Emulator) -> None:
    server = build({"default": ("default", (MODIFY,), None), "archive": ("work", (READONLY,), None)})
    failed, payload = await call(server, "search_emails", {"query": "in:inbox", "account": "archive"})
    assert not failed, payload
    emu.clear_requests()
    status = emu.seeded_ids("work")["status"]
    writes: dict[str, dict[str, Any]] = {
        "modify_labels": {"message_ids": [status], "add_labels": ["STARRED"]},
        "trash_email": {"message_ids": [status]},
        "send_email": {"to": "bob@example.com", "subject": "s", "body": "b"},
        "create_draft": {"to": "bob@example.com", "subject": "s", "body": "b"},
        "manage_label": {"action": "create", "label": "X"},
        "manage_filter": {"action": "delete", "filter_id": "abc"},
    }
    for tool, arguments in writes.items():
        failed, payload = await call(server, tool, arguments | {"account": "archive"})
        assert failed and payload["error"] == "permission_denied", (tool, payload)
        assert payload["details"]["reason"] == "read_only" and payload["details"]["account"] == "archive"
    assert emu.request_log() == []  # refused before anything was asked of Gmail
    failed, _ = await call(server, "modify_labels", {"message_ids": [emu.seeded["status"]], "add_labels": ["STARRED"]})
    assert not failed  # the other account writes as before


async def test_the_default_is_the_chosen_then_the_only_account(build: Build, emu: Emulator) -> None:
    only_work = build({"work": ("work", (MODIFY,), "work@example.com")})
    failed, payload = await call(only_work, "list_accounts")
    assert payload["default_account"] == "work"
    failed, _ = await call(only_work, "list_labels")
    assert not failed and emu.requests_for("work") and emu.requests_for("default") == []
    chosen = build(TWO, chosen="work@example.com")  # GMAIL_MCP_ACCOUNT may be an address too
    emu.clear_requests()
    failed, payload = await call(chosen, "list_accounts")
    assert payload["default_account"] == "work"
    emu.clear_requests()
    failed, _ = await call(chosen, "list_drafts")
    assert not failed and emu.requests_for("default") == []
    missing = build(TWO, chosen="personal")
    failed, payload = await call(missing, "list_labels")
    assert failed and payload["details"]["reason"] == "unknown_account"


async def test_no_account_at_all_is_the_default_without_a_token(build: Build) -> None:
    server = build({})
    for tool in ("list_accounts", "list_labels"):  # like every tool: the command to run
        failed, payload = await call(server, tool)
        assert failed and payload["details"]["reason"] == "no_token"
        assert payload["details"]["reauth_command"] == "uv run gmail-mcp auth"


async def test_an_account_authorised_while_serving_is_there_at_the_next_call(
    build: Build, emu: Emulator, tmp_path: Path
) -> None:
    server = build({"default": TWO["default"]})
    failed, payload = await call(server, "list_labels", {"account": "work"})
    assert failed and payload["details"]["accounts"] == ["default"]
    (tmp_path / "tokens").mkdir(mode=0o700, exist_ok=True)
    (tmp_path / "tokens" / "work.json").write_text(json.dumps(emu.issue_token((MODIFY,), mailbox="work")))
    os.chmod(tmp_path / "tokens" / "work.json", 0o600)
    failed, payload = await call(server, "list_labels", {"account": "work"})
    assert not failed, payload
