"""modify_labels and trash_email by query, in process through the SDK's client: the dry run, paging and
chunking, the limit, and what a failure halfway answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.runtime.server import ContractServer
from mcp import Client

pytestmark = pytest.mark.anyio
QUERY = "subject:newsletter"


def plant(emu: Emulator, count: int) -> list[str]:
    """`count` inbox messages matching QUERY, newest last (so the listing gives them newest first)."""
    ids = []
    for i in range(count):
        raw = (
            f"From: News {i} <news{i}@example.com>\r\nTo: me@example.com\r\nSubject: newsletter {i}\r\n"
            f"Date: Mon, 2 Nov 2026 10:{i // 60 % 60:02d}:{i % 60:02d} +0000\r\n"
            f"Message-ID: <news-{i}@example.com>\r\n\r\nissue {i}\r\n"
        ).encode()
        ids.append(emu.add_message(raw, label_ids=["INBOX", "UNREAD"], internal_date_ms=1_790_000_000_000 + i * 1000))
    return ids


@pytest.fixture
def server(make_server: Callable[..., ContractServer]) -> ContractServer:
    return make_server()


async def call(server: ContractServer, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    async with Client(server) as session:
        result = await session.call_tool(tool, arguments)
    payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
    if not result.is_error:
        assert result.structured_content == payload
    return bool(result.is_error), payload


def routes(emu: Emulator) -> list[str]:
    """The HTTP round trips (batch parts left out)."""
    return [r.route for r in emu.request_log() if not r.in_batch]


async def test_a_query_is_a_dry_run_unless_told_otherwise(server: ContractServer, emu: Emulator) -> None:
    ids = plant(emu, 12)
    emu.clear_requests()
    failed, payload = await call(server, "modify_labels", {"query": QUERY, "remove_labels": ["INBOX"]})
    assert not failed, payload
    assert payload == {
        "modified": 0,
        "matched": 12,
        "dry_run": True,
        "truncated": False,
        "sample": [
            {
                "id": ids[11 - n],
                "from": f"News {11 - n} <news{11 - n}@example.com>",
                "subject": f"newsletter {11 - n}",
                "date": f"2026-11-02T10:00:{11 - n:02d}+00:00",
            }
            for n in range(10)
        ],
        "warnings": [],
    }
    assert routes(emu) == ["messages.list", "batch"]  # no labels.list: INBOX is a system label
    assert all("INBOX" in emu.label_ids(i) for i in ids)
    failed, payload = await call(server, "trash_email", {"query": QUERY})
    assert not failed and payload["trashed"] == 0 and payload["dry_run"] is True and payload["matched"] == 12
    assert not {"messages.batchModify", "messages.trash", "messages.modify"} & {r.route for r in emu.request_log()}


async def test_archive_by_query_pages_and_chunks(server: ContractServer, emu: Emulator) -> None:
    ids = plant(emu, 1203)
    emu.clear_requests()
    arguments = {"query": QUERY, "remove_labels": ["INBOX"], "dry_run": False, "max_messages": 5000}
    failed, payload = await call(server, "modify_labels", arguments)
    assert not failed, payload
    assert (payload["modified"], payload["matched"], payload["truncated"], payload["dry_run"]) == (
        1203,
        1203,
        False,
        False,
    )
    assert len(payload["sample"]) == 10 and payload["warnings"] == []
    assert routes(emu) == ["messages.list"] * 3 + ["batch"] + ["messages.batchModify"] * 2
    batch_sizes = [r.body_bytes for r in emu.request_log() if r.route == "messages.batchModify"]
    assert len(batch_sizes) == 2 and batch_sizes[0] > batch_sizes[1]  # 1000 ids, then 203
    assert not any("INBOX" in emu.label_ids(i) for i in ids)
    assert "INBOX" in emu.label_ids(emu.seeded["status"])  # not matched, not touched


async def test_max_messages_truncates(server: ContractServer, emu: Emulator) -> None:
    ids = plant(emu, 30)
    failed, payload = await call(
        server, "modify_labels", {"query": QUERY, "add_labels": ["STARRED"], "dry_run": False, "max_messages": 25}
    )
    assert not failed and (payload["matched"], payload["modified"], payload["truncated"]) == (25, 25, True)
    starred = [i for i in ids if "STARRED" in emu.label_ids(i)]
    assert sorted(starred) == sorted(ids[5:])  # the 25 newest


async def test_trash_by_query_adds_trash_and_removes_inbox(server: ContractServer, emu: Emulator) -> None:
    ids = plant(emu, 3)
    emu.clear_requests()
    failed, payload = await call(server, "trash_email", {"query": QUERY, "dry_run": False})
    assert not failed and payload["trashed"] == 3
    for i in ids:
        assert "TRASH" in emu.label_ids(i) and "INBOX" not in emu.label_ids(i)
        assert emu.get_raw(i)  # in Trash, not deleted
    assert routes(emu) == ["messages.list", "batch", "messages.batchModify"]
    failed, payload = await call(server, "trash_email", {"query": QUERY, "dry_run": False})
    assert not failed and payload["matched"] == 0 and payload["trashed"] == 0  # Trash is not searched


async def test_a_failure_halfway_says_what_was_done(server: ContractServer, emu: Emulator) -> None:
    ids = plant(emu, 1100)
    # The first chunk goes through (a delay-only fault serves it), every attempt at the second fails.
    emu.add_fault(Fault("messages.batchModify", delay=0.01, times=1))
    emu.add_fault(Fault("messages.batchModify", status=503, times=None))
    failed, payload = await call(
        server, "modify_labels", {"query": QUERY, "remove_labels": ["UNREAD"], "dry_run": False, "max_messages": 5000}
    )
    assert not failed, payload
    assert (payload["modified"], payload["matched"]) == (1000, 1100)
    [warning] = payload["warnings"]
    assert warning["code"] == "PARTIAL_RESULTS"
    assert (warning["done"], warning["not_done"], warning["error"]) == (1000, 100, "mcp_unavailable")
    assert "100 of 1100" in warning["message"]
    read = [i for i in ids if "UNREAD" not in emu.label_ids(i)]
    assert len(read) == 1000


async def test_nothing_done_is_an_error_not_a_success(server: ContractServer, emu: Emulator) -> None:
    ids = plant(emu, 5)
    emu.add_fault(Fault("messages.batchModify", status=503, times=None))
    failed, payload = await call(server, "trash_email", {"query": QUERY, "dry_run": False})
    assert failed and payload["error"] == "mcp_unavailable"
    assert all("TRASH" not in emu.label_ids(i) for i in ids)


async def test_a_message_gone_since_listed_is_reported_the_rest_changed(server: ContractServer, emu: Emulator) -> None:
    ids = plant(emu, 4)
    emu.add_fault(Fault("messages.batchModify", status=404))  # as Gmail answers when one id is gone
    emu.add_fault(Fault("messages.modify", status=404))  # that one, on its own
    failed, payload = await call(server, "modify_labels", {"query": QUERY, "add_labels": ["STARRED"], "dry_run": False})
    assert not failed and payload["modified"] == 3
    [warning] = payload["warnings"]
    assert (warning["done"], warning["not_done"]) == (3, 1) and warning["failed"][0]["error"] == "not_found"
    assert len([i for i in ids if "STARRED" in emu.label_ids(i)]) == 3


@pytest.mark.parametrize(
    ("arguments", "field", "reason"),
    [
        ({"message_ids": ["18c0ffee00000000"], "query": QUERY}, "query", "conflict"),
        ({}, "message_ids", "missing"),
        ({"query": "  "}, "query", "missing"),
        ({"message_ids": ["18c0ffee00000000"], "dry_run": True}, "dry_run", "query_only"),
        ({"query": QUERY, "max_messages": 5001}, "max_messages", "less_than_equal"),
        ({"message_ids": []}, "message_ids", "too_short"),
    ],
)
async def test_exactly_one_of_ids_and_query(
    server: ContractServer, emu: Emulator, arguments: dict[str, Any], field: str, reason: str
) -> None:
    for tool, extra in (("modify_labels", {"add_labels": ["STARRED"]}), ("trash_email", {})):
        failed, payload = await call(server, tool, arguments | extra)
        assert failed and payload["error"] == "parse_error", payload
        assert (payload["details"]["field"], payload["details"]["reason"]) == (field, reason)
    assert emu.request_log() == []


async def test_label_rules_are_checked_before_asking(server: ContractServer, emu: Emulator) -> None:
    for change, field in (
        ({"add_labels": ["INBOX", "TRASH"]}, "add_labels"),
        ({"remove_labels": ["SENT"]}, "remove_labels"),
        ({"add_labels": ["STARRED"], "remove_labels": ["starred"]}, "remove_labels"),
    ):
        failed, payload = await call(server, "modify_labels", {"query": QUERY, "dry_run": False} | change)
        assert failed and payload["error"] == "parse_error" and payload["details"]["field"] == field
    assert emu.request_log() == []
