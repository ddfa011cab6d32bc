"""manage_label, list_filters and manage_filter in process through the SDK's client: what each change does to
the mailbox and to the label cache, what is refused, and that no filter ever forwards."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.runtime.server import ContractServer
from mcp import Client

pytestmark = pytest.mark.anyio
MODIFY = "https://www.googleapis.com/auth/gmail.modify"
SETTINGS = "https://www.googleapis.com/auth/gmail.settings.basic"


@pytest.fixture
def server(emu: Emulator, make_server: Callable[..., ContractServer], tmp_path: Path) -> ContractServer:
    """The server with a token that may also manage filters (as `gmail-mcp auth` asks for now)."""
    server = make_server()
    token = next(tmp_path.glob("token-*.json"))
    token.write_text(json.dumps(emu.issue_token((MODIFY, SETTINGS))))
    os.chmod(token, 0o600)
    return server


async def call(server: ContractServer, tool: str, arguments: dict[str, Any] | None = None) -> tuple[bool, Any]:
    async with Client(server) as session:
        result = await session.call_tool(tool, arguments or {})
    payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
    if not result.is_error:
        assert result.structured_content == payload
    return bool(result.is_error), payload


def routes(emu: Emulator) -> list[str]:
    return [r.route for r in emu.request_log() if not r.in_batch]


# -- labels ----------------------------------------------------------------------------------------------


async def test_create_rename_recolour_and_delete_a_label(server: ContractServer, emu: Emulator) -> None:
    colors = {"text": "#FFFFFF", "background": "#16a765"}
    failed, payload = await call(
        server, "manage_label", {"action": "create", "label": " Clients/ACME ", "colors": colors}
    )
    assert not failed, payload
    label_id = payload["label"]["id"]
    assert payload == {"label": {"id": label_id, "name": "Clients/ACME"}}
    assert emu.mailbox.get_label(label_id)["color"] == {"textColor": "#ffffff", "backgroundColor": "#16a765"}

    emu.clear_requests()
    status = emu.seeded["status"]
    failed, _ = await call(server, "modify_labels", {"message_ids": [status], "add_labels": ["clients/acme"]})
    assert not failed and routes(emu) == ["messages.batchModify"]  # the cache knew the new label

    failed, payload = await call(
        server, "manage_label", {"action": "rename", "label": "clients/acme", "new_name": "ACME"}
    )
    assert not failed and payload == {"label": {"id": label_id, "name": "ACME"}}
    emu.clear_requests()
    failed, _ = await call(server, "modify_labels", {"message_ids": [status], "remove_labels": ["acme"]})
    assert not failed and routes(emu) == ["messages.batchModify"]  # renamed in the cache too

    failed, payload = await call(server, "manage_label", {"action": "rename", "label": label_id, "colors": colors})
    assert not failed and payload["label"]["name"] == "ACME"

    await call(server, "modify_labels", {"message_ids": [status], "add_labels": ["ACME"]})
    before = len(emu.mailbox)
    failed, payload = await call(server, "manage_label", {"action": "delete", "label": "ACME"})
    assert not failed and payload == {"deleted": label_id}
    assert len(emu.mailbox) == before and emu.mailbox.get_raw(status)  # no message deleted
    assert label_id not in emu.label_ids(status)
    failed, payload = await call(server, "modify_labels", {"message_ids": [status], "add_labels": ["ACME"]})
    assert failed and payload["error"] == "not_found"  # gone from the cache as well


async def test_what_manage_label_refuses(server: ContractServer, emu: Emulator) -> None:
    projects = emu.label_id("Projects")
    cases: list[tuple[dict[str, Any], str, dict[str, Any]]] = [
        ({"action": "create", "label": "projects"}, "permission_denied", {"reason": "exists", "id": projects}),
        ({"action": "create", "label": "Inbox"}, "permission_denied", {"reason": "system_label", "id": "INBOX"}),
        ({"action": "rename", "label": "INBOX", "new_name": "Mine"}, "permission_denied", {"reason": "system_label"}),
        ({"action": "delete", "label": "sent"}, "permission_denied", {"reason": "system_label", "id": "SENT"}),
        ({"action": "rename", "label": "Receipts", "new_name": "PROJECTS"}, "permission_denied", {"reason": "exists"}),
        ({"action": "delete", "label": "No such"}, "not_found", {"resource": "label", "id": "No such"}),
        ({"action": "rename", "label": "Receipts"}, "parse_error", {"field": "new_name", "reason": "missing"}),
        ({"action": "create", "label": "X", "new_name": "Y"}, "parse_error", {"field": "new_name"}),
        (
            {"action": "delete", "label": "Receipts", "colors": {"text": "#000000", "background": "#ffffff"}},
            "parse_error",
            {"field": "colors"},
        ),
        ({"action": "create", "label": "Bad\tname"}, "parse_error", {"field": "label", "reason": "invalid_name"}),
        (
            {"action": "create", "label": "Odd", "colors": {"text": "#123456", "background": "#ffffff"}},
            "parse_error",
            {"field": "colors"},
        ),  # (not on Gmail's palette: Gmail answers 400)
        (
            {"action": "create", "label": "Odd", "colors": {"text": "red", "background": "#ffffff"}},
            "parse_error",
            {"field": "colors.text"},
        ),
        ({"action": "archive", "label": "Receipts"}, "parse_error", {"field": "action"}),
    ]
    for arguments, code, details in cases:
        failed, payload = await call(server, "manage_label", arguments)
        assert failed and payload["error"] == code, (arguments, payload)
        assert payload["details"] | details == payload["details"], (arguments, payload)
    assert {r.route for r in emu.request_log()} <= {"labels.list", "labels.create"}
    assert emu.label_id("Odd") is None and emu.label_id("Mine") is None


def _labels_named(emu: Emulator, name: str) -> int:
    return [label["name"] for label in emu.mailbox.list_labels()["labels"]].count(name)


def _filters_from(emu: Emulator, sender: str) -> int:
    return [f["criteria"].get("from") for f in emu.filters()].count(sender)


# A write whose answer is lost after Gmail made it (a 503 after the commit) is retried; the retry
# finds it made (a 409 or 400 for a create, a 404 for a delete) and the write is done, exactly once.
# (tool, arguments as a function of the emulator, the route that loses its answer, what is left)
LOST_ANSWERS: list[tuple[str, Callable[[Emulator], dict[str, Any]], str, Callable[[Emulator], bool]]] = [
    (
        "manage_label",
        lambda emu: {"action": "create", "label": "Once"},
        "labels.create",
        lambda emu: _labels_named(emu, "Once") == 1,
    ),
    (
        "manage_label",
        lambda emu: {"action": "delete", "label": "Receipts"},
        "labels.delete",
        lambda emu: emu.label_id("Receipts") is None,
    ),
    (
        "manage_filter",
        lambda emu: {"action": "create", "criteria": {"from": "once@example.com"}, "archive": True},
        "settings.filters.create",
        lambda emu: _filters_from(emu, "once@example.com") == 1,
    ),
    (
        "manage_filter",
        lambda emu: {
            "action": "delete",
            "filter_id": emu.add_filter({"from": "gone@example.com"}, {"addLabelIds": ["STARRED"]})["id"],
        },
        "settings.filters.delete",
        lambda emu: _filters_from(emu, "gone@example.com") == 0,
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "route", "done"), LOST_ANSWERS, ids=[case[2] for case in LOST_ANSWERS])
async def test_a_write_whose_answer_was_lost_is_done_once(
    server: ContractServer,
    emu: Emulator,
    tool: str,
    arguments: Callable[[Emulator], dict[str, Any]],
    route: str,
    done: Callable[[Emulator], bool],
) -> None:
    given = arguments(emu)
    emu.add_fault(Fault(route, status=503, after_commit=True))
    failed, payload = await call(server, tool, given)
    assert not failed, payload
    assert done(emu)
    retry = {"labels.create": 409, "settings.filters.create": 400}.get(route, 404)  # what says "made already"
    assert [r.status for r in emu.request_log() if r.route == route] == [503, retry]


# -- filters ---------------------------------------------------------------------------------------------


async def test_create_list_and_delete_a_filter(server: ContractServer, emu: Emulator) -> None:
    arguments = {
        "action": "create",
        "criteria": {"from": "news@shop.example", "subject": "weekly  deals", "size_larger": 1000},
        "action_labels": {"add": ["receipts"]},
        "mark_read": True,
        "archive": True,
    }
    failed, payload = await call(server, "manage_filter", arguments)
    assert not failed, payload
    made = payload["filter"]
    assert made == {
        "id": made["id"],
        "criteria": {"from": "news@shop.example", "subject": "weekly deals", "size_larger": 1000},
        "action": {"add": ["Receipts"], "remove": [], "mark_read": True, "archive": True},
    }
    [stored] = emu.filters()
    receipts = emu.label_id("Receipts")
    assert stored["action"] == {"addLabelIds": [receipts], "removeLabelIds": ["UNREAD", "INBOX"]}

    emu.add_filter({"query": "invoice"}, {"removeLabelIds": ["SPAM"]})  # one made elsewhere
    failed, payload = await call(server, "list_filters")
    assert not failed and payload["filters"][0] == made
    assert payload["filters"][1]["criteria"] == {"query": "invoice"}
    assert payload["filters"][1]["action"] == {"add": [], "remove": ["SPAM"], "mark_read": False, "archive": False}

    failed, payload = await call(server, "manage_filter", arguments)  # the same again
    assert failed and payload["error"] == "permission_denied"
    assert payload["details"]["reason"] == "exists" and payload["details"]["id"] == made["id"]

    failed, payload = await call(server, "manage_filter", {"action": "delete", "filter_id": made["id"]})
    assert not failed and payload == {"deleted": made["id"]}
    assert [f["id"] for f in emu.filters()] != [made["id"]] and len(emu.filters()) == 1
    failed, payload = await call(server, "manage_filter", {"action": "delete", "filter_id": made["id"]})
    assert failed and payload["error"] == "not_found" and payload["details"]["resource"] == "filter"


async def test_a_filter_never_forwards(server: ContractServer, emu: Emulator) -> None:
    emu.add_forwarding_address("elsewhere@example.net")
    emu.add_filter({"from": "boss@example.com"}, {"forward": "elsewhere@example.net"})  # set up in Gmail itself
    failed, payload = await call(server, "list_filters")
    assert not failed and payload["filters"][0]["action"]["forward"] == "elsewhere@example.net"
    for arguments, field in (
        ({"action": "create", "criteria": {"from": "a@example.com"}, "forward": "x@example.net"}, "forward"),
        ({"action": "create", "criteria": {"from": "a@example.com", "forward": "x@example.net"}}, "criteria.forward"),
        (
            {"action": "create", "criteria": {"from": "a@example.com"}, "action_labels": {"forward": "x@example.net"}},
            "action_labels.forward",
        ),
    ):
        failed, payload = await call(server, "manage_filter", arguments)
        assert failed and payload["error"] == "parse_error" and payload["details"]["field"] == field
    assert len(emu.filters()) == 1
    assert "settings.filters.create" not in {r.route for r in emu.request_log()}


async def test_what_manage_filter_refuses(server: ContractServer, emu: Emulator) -> None:
    base = {"action": "create", "criteria": {"from": "a@example.com"}}
    cases: list[tuple[dict[str, Any], str, dict[str, Any]]] = [
        ({"action": "create", "archive": True}, "parse_error", {"field": "criteria", "reason": "missing"}),
        (base, "parse_error", {"field": "action_labels", "reason": "missing"}),
        (base | {"action_labels": {"add": ["Projects", "Receipts"]}}, "parse_error", {"field": "action_labels.add"}),
        (base | {"action_labels": {"add": ["SPAM"]}}, "parse_error", {"field": "action_labels.add"}),
        (
            base | {"action_labels": {"add": ["STARRED"], "remove": ["starred"]}},
            "parse_error",
            {"field": "action_labels.remove"},
        ),
        (base | {"action_labels": {"add": ["Nope"]}}, "not_found", {"resource": "label", "id": "Nope"}),
        (
            {"action": "create", "criteria": {"size_larger": 5, "size_smaller": 9}, "archive": True},
            "parse_error",
            {"field": "criteria.size_smaller"},
        ),
        ({"action": "delete"}, "parse_error", {"field": "filter_id", "reason": "missing"}),
        ({"action": "delete", "filter_id": "a/b"}, "parse_error", {"field": "filter_id"}),
        (base | {"archive": True, "filter_id": "abc"}, "parse_error", {"field": "filter_id"}),
    ]
    for arguments, code, details in cases:
        failed, payload = await call(server, "manage_filter", arguments)
        assert failed and payload["error"] == code, (arguments, payload)
        assert payload["details"] | details == payload["details"], (arguments, payload)
    assert emu.filters() == []


async def test_filters_need_the_settings_scope(emu: Emulator, make_server: Callable[..., ContractServer]) -> None:
    server = make_server()  # a gmail.modify token, as version 1 asked for
    emu.add_filter({"from": "x@example.com"}, {"addLabelIds": ["STARRED"]})
    failed, payload = await call(server, "list_filters")  # reading filters needs no more
    assert not failed and len(payload["filters"]) == 1
    for arguments in (
        {"action": "create", "criteria": {"from": "a@example.com"}, "archive": True},
        {"action": "delete", "filter_id": payload["filters"][0]["id"]},
    ):
        failed, payload = await call(server, "manage_filter", arguments)
        assert failed and payload["error"] == "auth_required"
        assert payload["details"]["reason"] == "insufficient_scope"
        assert payload["details"]["reauth_command"] == "uv run gmail-mcp auth"
        assert "gmail.settings.basic" in payload["message"]
    assert len(emu.filters()) == 1
    assert not {"settings.filters.create", "settings.filters.delete"} & {r.route for r in emu.request_log()}
