"""gmail-mcp's accounts, bulk changes by query, label management and filters through `uv run gmail-mcp`
against the emulator: every error code each new tool can answer, annotations, read-only mode, and that an
action on one account never touches another's mailbox."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault

from tests.contract.checks import assert_error, tool_spec
from tests.contract.harness import Session, running

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"
MODIFY = "https://www.googleapis.com/auth/gmail.modify"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
SETTINGS = "https://www.googleapis.com/auth/gmail.settings.basic"
NEW_TOOLS = ("list_accounts", "manage_label", "list_filters", "manage_filter")


def add_account(env: dict[str, str], emulator: Emulator, name: str, scopes: tuple[str, ...] = (MODIFY,)) -> None:
    """A token for account `name` as `gmail-mcp auth --account NAME` stores it (with the address), bound to the
    emulator's mailbox of the same name (`<name>@example.com`)."""
    emulator.add_mailbox(name, f"{name}@example.com", seed=True)
    folder = Path(env["GMAIL_MCP_TOKEN_DIR"])
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = emulator.issue_token(scopes, mailbox=name) | {"email": f"{name}@example.com"}
    (folder / f"{name}.json").write_text(json.dumps(token))
    os.chmod(folder / f"{name}.json", 0o600)


def with_settings_scope(env: dict[str, str], emulator: Emulator) -> None:
    """The default account's token as `gmail-mcp auth` makes it now: gmail.modify with gmail.settings.basic."""
    Path(env["GMAIL_MCP_TOKEN_FILE"]).write_text(json.dumps(emulator.issue_token((MODIFY, SETTINGS))))


async def expect(session: Session, tool: str, arguments: dict[str, Any], code: str, **details: Any) -> dict[str, Any]:
    return assert_error(session, await session.call(tool, arguments), code, server=SERVER, tool=tool, **details)


async def test_annotations_of_the_new_tools(gmail_env: dict[str, str]) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        listed = {tool.name: tool for tool in (await session.client.list_tools()).tools}
    hints = {name: listed[name].annotations for name in NEW_TOOLS}
    assert all(hints[name] is not None for name in NEW_TOOLS)
    assert hints["list_accounts"].read_only_hint is True and hints["list_filters"].read_only_hint is True  # type: ignore[union-attr]
    for name in ("manage_label", "manage_filter"):  # both can delete: destructive, and never idempotent
        # Hints equal to the MCP defaults (readOnly false, destructive true, idempotent false) are left out.
        assert hints[name].read_only_hint in (None, False) and hints[name].destructive_hint in (None, True)  # type: ignore[union-attr]
        assert hints[name].idempotent_hint in (None, False)  # type: ignore[union-attr]
    for name in listed:  # every tool takes an account
        assert "account" in (listed[name].input_schema.get("properties") or {}) or name == "list_accounts", name
    for name in NEW_TOOLS:
        assert tool_spec(SERVER, name)["status"] == "implemented"


async def test_list_accounts(gmail_env: dict[str, str], emulator: Emulator) -> None:
    add_account(gmail_env, emulator, "work")
    add_account(gmail_env, emulator, "archive", (READONLY,))
    async with running(["gmail-mcp"], gmail_env) as session:
        answer = await session.call("list_accounts")
        assert answer.error is None, answer.payload
        assert answer.payload == {
            "accounts": [
                {"name": "default", "email": "me@example.com", "read_only": False},
                {"name": "archive", "email": "archive@example.com", "read_only": True},
                {"name": "work", "email": "work@example.com", "read_only": False},
            ],
            "default_account": "default",
            "warnings": [],
        }
        await expect(session, "list_accounts", {"account": "work"}, "parse_error", reason="unexpected_argument")
    crashing = {"list_accounts": {}, "list_filters": {}, "manage_label": {"action": "delete", "label": "x"},
                "manage_filter": {"action": "delete", "filter_id": "x"}}  # fmt: skip
    async with running(["gmail-mcp"], gmail_env | {"GMAIL_MCP_CRASH_TOOLS": ",".join(crashing)}) as session:
        for tool, arguments in crashing.items():
            await expect(session, tool, arguments, "internal_error")


async def test_unknown_and_invalid_accounts(gmail_env: dict[str, str], emulator: Emulator) -> None:
    add_account(gmail_env, emulator, "work")
    emulator.clear_requests()
    async with running(["gmail-mcp"], gmail_env) as session:
        for tool, arguments in (
            ("search_emails", {"query": "x"}),
            ("list_filters", {}),
            ("manage_label", {"action": "create", "label": "New"}),
            ("send_email", {"to": "bob@example.com", "subject": "s", "body": "b"}),
        ):
            details = await expect(session, tool, arguments | {"account": "personal"}, "auth_required",
                                   reason="unknown_account", accounts=["default", "work"],
                                   reauth_command="uv run gmail-mcp auth --account personal")  # fmt: skip
            assert (
                details["reauth_command"]
                in (await session.call(tool, arguments | {"account": "personal"})).payload["message"]
            )
            await expect(session, tool, arguments | {"account": "a b;rm"}, "parse_error", field="account")
    assert emulator.request_log() == []


async def test_an_action_on_one_account_never_touches_another(gmail_env: dict[str, str], emulator: Emulator) -> None:
    add_account(gmail_env, emulator, "work")
    home = {key: emulator.label_ids(i) for key, i in emulator.seeded_ids().items()}
    emulator.clear_requests()
    async with running(["gmail-mcp"], gmail_env) as session:
        archived = await session.call(
            "modify_labels", {"query": "in:inbox", "remove_labels": ["INBOX"], "dry_run": False, "account": "work"}
        )
        assert archived.error is None and archived.payload["modified"] == archived.payload["matched"] > 0
        made = await session.call("manage_label", {"action": "create", "label": "Work stuff", "account": "work"})
        assert made.error is None, made.payload
        trashed = await session.call(
            "trash_email", {"query": "from:alice", "dry_run": False, "account": "work@example.com"}
        )
        assert trashed.error is None and trashed.payload["trashed"] > 0
    assert emulator.requests_for("default") == []
    assert all(record.mailbox == "work" for record in emulator.request_log() if record.route != "token")
    assert {key: emulator.label_ids(i) for key, i in emulator.seeded_ids().items()} == home
    assert emulator.label_id("Work stuff") is None and emulator.label_id("Work stuff", mailbox="work")
    assert emulator.message_ids("INBOX", mailbox="work") == []


async def test_read_only_mode_hides_the_new_write_tools(gmail_env: dict[str, str], emulator: Emulator) -> None:
    Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]).write_text(json.dumps(emulator.issue_token((READONLY,))))
    async with running(["gmail-mcp", "--read-only"], gmail_env) as session:
        names = await session.tool_names()
        assert {"list_accounts", "list_filters"} <= set(names)
        assert not {"manage_label", "manage_filter", "modify_labels", "trash_email"} & set(names)
        for tool in ("manage_label", "manage_filter"):
            await expect(session, tool, {"action": "delete"}, "permission_denied", reason="read_only")
        listed = await session.call("list_accounts")
        assert listed.payload["accounts"] == [{"name": "default", "email": "me@example.com", "read_only": True}]


async def test_a_read_only_account_refuses_writes(gmail_env: dict[str, str], emulator: Emulator) -> None:
    add_account(gmail_env, emulator, "archive", (READONLY,))
    emulator.clear_requests()
    async with running(["gmail-mcp"], gmail_env) as session:
        for tool, arguments in (
            ("manage_label", {"action": "create", "label": "X"}),
            ("manage_filter", {"action": "delete", "filter_id": "abc"}),
            ("trash_email", {"query": "in:inbox", "dry_run": False}),
            ("modify_labels", {"query": "in:inbox", "add_labels": ["STARRED"]}),
        ):
            await expect(session, tool, arguments | {"account": "archive"}, "permission_denied", reason="read_only",
                         account="archive")  # fmt: skip
        answer = await session.call("search_emails", {"query": "in:inbox", "account": "archive"})
        assert answer.error is None, answer.payload
    assert "messages.batchModify" not in {r.route for r in emulator.request_log()}


async def test_bulk_changes_by_query(gmail_env: dict[str, str], emulator: Emulator) -> None:
    add_account(gmail_env, emulator, "bulk")
    inbox = set(emulator.message_ids("INBOX", mailbox="bulk"))
    async with running(["gmail-mcp"], gmail_env) as session:
        dry = await session.call("trash_email", {"query": "in:inbox", "account": "bulk"})
        assert dry.error is None and dry.payload["dry_run"] is True and dry.payload["trashed"] == 0
        assert dry.payload["matched"] == len(inbox) and len(dry.payload["sample"]) == min(10, len(inbox))
        assert set(emulator.message_ids("INBOX", mailbox="bulk")) == inbox
        for arguments, field in (({}, "message_ids"), ({"query": "x", "message_ids": ["18c0ffee00000000"]}, "query")):
            await expect(session, "trash_email", arguments | {"account": "bulk"}, "parse_error", field=field)
        await expect(session, "modify_labels", {"query": "in:inbox", "add_labels": ["Nope"], "account": "bulk"},
                     "not_found", resource="label")  # fmt: skip
        emulator.add_fault(Fault("messages.list", status=429, retry_after=120))
        await expect(session, "trash_email", {"query": "in:inbox", "account": "bulk"}, "rate_limited",
                     retry_after_seconds=120)  # fmt: skip
        emulator.add_fault(Fault("messages.batchModify", status=503, times=None))
        await expect(session, "trash_email", {"query": "in:inbox", "dry_run": False, "account": "bulk"},
                     "mcp_unavailable", service="gmail_api")  # fmt: skip
        emulator.clear_faults()
        assert set(emulator.message_ids("INBOX", mailbox="bulk")) == inbox  # nothing changed by the failures
        done = await session.call("trash_email", {"query": "in:inbox", "dry_run": False, "account": "bulk"})
        assert done.error is None and done.payload["trashed"] == len(inbox) and done.payload["warnings"] == []
    assert emulator.message_ids("INBOX", mailbox="bulk") == []
    assert all("TRASH" in emulator.label_ids(i, mailbox="bulk") for i in inbox)


async def test_manage_label_answers_each_code(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        made = await session.call("manage_label", {"action": "create", "label": "Contract label"})
        assert made.error is None and made.payload["label"]["name"] == "Contract label"
        renamed = await session.call(
            "manage_label", {"action": "rename", "label": "contract label", "new_name": "Contract label 2"}
        )
        assert renamed.payload == {"label": {"id": made.payload["label"]["id"], "name": "Contract label 2"}}
        await expect(session, "manage_label", {"action": "delete", "label": "No such label"}, "not_found",
                     resource="label", id="No such label")  # fmt: skip
        await expect(session, "manage_label", {"action": "delete", "label": "INBOX"}, "permission_denied",
                     reason="system_label")  # fmt: skip
        await expect(session, "manage_label", {"action": "create", "label": "contract label 2"}, "permission_denied",
                     reason="exists", id=made.payload["label"]["id"])  # fmt: skip
        off_palette = {
            "action": "create",
            "label": "Off palette",
            "colors": {"text": "#123456", "background": "#654321"},
        }
        await expect(session, "manage_label", off_palette, "parse_error", field="colors")
        await expect(session, "manage_label", {"action": "explode", "label": "x"}, "parse_error", field="action")
        emulator.add_fault(Fault("labels.create", status=429, retry_after=90))
        await expect(session, "manage_label", {"action": "create", "label": "Limited"}, "rate_limited",
                     retry_after_seconds=90)  # fmt: skip
        emulator.add_fault(Fault("labels.delete", status=503, times=None))
        await expect(session, "manage_label", {"action": "delete", "label": "Contract label 2"}, "mcp_unavailable",
                     service="gmail_api")  # fmt: skip
        emulator.clear_faults()
        deleted = await session.call("manage_label", {"action": "delete", "label": "Contract label 2"})
        assert deleted.payload == {"deleted": made.payload["label"]["id"]}
    Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]).unlink()
    async with running(["gmail-mcp"], gmail_env) as session:
        await expect(session, "manage_label", {"action": "create", "label": "X"}, "auth_required", reason="no_token",
                     reauth_command="uv run gmail-mcp auth")  # fmt: skip
        await expect(session, "list_accounts", {}, "auth_required", reason="no_token",
                     reauth_command="uv run gmail-mcp auth")  # fmt: skip


async def test_filters_answer_each_code(gmail_env: dict[str, str], emulator: Emulator) -> None:
    create = {"action": "create", "criteria": {"from": "contract@example.com"}, "action_labels": {"add": ["Receipts"]}}
    async with running(["gmail-mcp"], gmail_env) as session:  # a gmail.modify token: filters can be read only
        listed = await session.call("list_filters")
        assert listed.error is None, listed.payload
        await expect(session, "manage_filter", create, "auth_required", reason="insufficient_scope",
                     reauth_command="uv run gmail-mcp auth")  # fmt: skip
    with_settings_scope(gmail_env, emulator)
    async with running(["gmail-mcp"], gmail_env) as session:
        made = await session.call("manage_filter", create)
        assert made.error is None, made.payload
        assert made.payload["filter"]["action"] == {
            "add": ["Receipts"],
            "remove": [],
            "mark_read": False,
            "archive": False,
        }
        listed = await session.call("list_filters")
        assert made.payload["filter"] in listed.payload["filters"]
        await expect(
            session, "manage_filter", create, "permission_denied", reason="exists", id=made.payload["filter"]["id"]
        )
        await expect(session, "manage_filter", {"action": "delete", "filter_id": "nosuchfilter"}, "not_found",
                     resource="filter")  # fmt: skip
        await expect(session, "manage_filter", create | {"forward": "x@example.net"}, "parse_error", field="forward")
        await expect(session, "manage_filter", {"action": "create", "archive": True}, "parse_error", field="criteria")
        emulator.add_fault(Fault("settings.filters.list", status=429, retry_after=60))
        await expect(session, "list_filters", {}, "rate_limited", retry_after_seconds=60)
        emulator.add_fault(Fault("settings.filters.list", status=403, reason="domainPolicy"))
        await expect(session, "list_filters", {}, "permission_denied", reason="forbidden")
        emulator.add_fault(Fault("settings.filters.delete", status=503, times=None))
        await expect(session, "manage_filter", {"action": "delete", "filter_id": made.payload["filter"]["id"]},
                     "mcp_unavailable", service="gmail_api")  # fmt: skip
        emulator.add_fault(Fault("settings.filters.list", status=503, times=None))
        await expect(session, "list_filters", {}, "mcp_unavailable", service="gmail_api")
        emulator.clear_faults()
        deleted = await session.call("manage_filter", {"action": "delete", "filter_id": made.payload["filter"]["id"]})
        assert deleted.payload == {"deleted": made.payload["filter"]["id"]}
        await expect(session, "list_filters", {"account": "nobody"}, "auth_required", reason="unknown_account")
    assert all("forward" not in f["action"] for f in emulator.filters())
