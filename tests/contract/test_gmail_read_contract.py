"""gmail-mcp read tools through stdio against the emulator's seeded mailbox (real client library)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gmail_emulator import Emulator, Fault

from tests.contract.checks import assert_error
from tests.contract.harness import Session, running

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"


def assert_no_secrets(session: Session, token_file: str) -> None:
    token = json.loads(Path(token_file).read_text())
    log = "\n".join(session.stderr_lines())
    for secret in (token["token"], token["refresh_token"], token["client_secret"]):
        assert secret not in log


async def test_search_is_two_round_trips_with_label_names(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.clear_requests()
        answer = await session.call("search_emails", {"query": "is:unread", "max_results": 20})
        http = [r for r in emulator.request_log() if not getattr(r, "in_batch", False)]
        assert [r.route for r in http] == ["messages.list", "batch"]
        messages = answer.payload["messages"]
        assert messages and all(m["unread"] for m in messages)
        assert any("Projects" in m["labels"] for m in messages), "user label ids must be shown as names"
        assert_no_secrets(session, gmail_env["GMAIL_MCP_TOKEN_FILE"])


async def test_search_pages_with_a_token(gmail_env: dict[str, str]) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        first = (await session.call("search_emails", {"query": "in:anywhere", "max_results": 5})).payload
        assert len(first["messages"]) == 5 and first["next_page_token"]
        second = (
            await session.call(
                "search_emails", {"query": "in:anywhere", "max_results": 5, "page_token": first["next_page_token"]}
            )
        ).payload
        assert not {m["id"] for m in first["messages"]} & {m["id"] for m in second["messages"]}


async def test_html_only_and_latin1_messages_read_as_text(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        html = (await session.call("get_email", {"message_id": emulator.seeded["receipt_html"]})).payload
        assert "6.30 EUR" in html["body"] and "https://northwind.example/orders/8812" in html["body"]
        assert "<td>" not in html["body"]
        latin = (await session.call("get_email", {"message_id": emulator.seeded["latin1"]})).payload
        assert latin["subject"] == "Café menu for Friday" and "crème brûlée" in latin["body"]
        assert latin["from"].startswith("François Dubois")


async def test_a_large_body_pages_with_content_truncated(gmail_env: dict[str, str], emulator: Emulator) -> None:
    message_id = emulator.seeded["logs_large"]
    async with running(["gmail-mcp"], gmail_env) as session:
        first = (await session.call("get_email", {"message_id": message_id, "max_body_chars": 40_000})).payload
        assert first["truncated"] and first["next_body_offset"] == 40_000
        assert first["warnings"][0]["code"] == "CONTENT_TRUNCATED"
        parts, offset = [first["body"]], first["next_body_offset"]
        while offset is not None:
            page = (
                await session.call(
                    "get_email", {"message_id": message_id, "max_body_chars": 40_000, "body_offset": offset}
                )
            ).payload
            parts.append(page["body"])
            offset = page["next_body_offset"]
    body = "".join(parts)
    assert len(body) > 100_000 and "CRITICAL" in body[-5000:]


async def test_thread_and_attachment_download_never_overwrite(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        first = (await session.call("get_email", {"message_id": emulator.seeded["atlas_1"]})).payload
        thread = (await session.call("get_thread", {"thread_id": first["thread_id"]})).payload
        assert len(thread["messages"]) == 4
        invoice = (await session.call("get_email", {"message_id": emulator.seeded["invoice_pdf"]})).payload
        attachment = invoice["attachments"][0]
        args = {"message_id": invoice["id"], "attachment_id": attachment["attachment_id"]}
        saved = [(await session.call("download_attachment", args)).payload for _ in range(2)]
    paths = [Path(s["path"]) for s in saved]
    assert paths[0] != paths[1] and all(p.parent == Path(gmail_env["GMAIL_MCP_DOWNLOAD_DIR"]) for p in paths)
    assert paths[0].read_bytes() == paths[1].read_bytes() and len(paths[0].read_bytes()) == attachment["size"]
    assert saved[0]["filename"] == attachment["filename"] and "(1)" in saved[1]["filename"]


async def test_unknown_ids_are_not_found(gmail_env: dict[str, str]) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        answer = await session.call("get_email", {"message_id": "ffffffffffffffff"})
        assert_error(
            session, answer, "not_found", server=SERVER, tool="get_email", resource="message", id="ffffffffffffffff"
        )
        answer = await session.call("get_thread", {"thread_id": "fffffffffffffffe"})
        assert_error(session, answer, "not_found", server=SERVER, tool="get_thread", resource="thread")
        answer = await session.call("get_email", {"message_id": ""})
        assert_error(session, answer, "parse_error", server=SERVER, tool="get_email", field="message_id")


async def test_ids_that_are_not_gmail_ids_are_refused_before_any_request(
    gmail_env: dict[str, str], emulator: Emulator
) -> None:
    # Regression guard (schema fuzzing): a caller's id was used as a batch part's Content-ID; an odd
    # one made googleapiclient raise BatchError with resp=None, and classify answered internal_error.
    odd = ["18c0ffee00000001", "a>b <c@d>", "+ 1", "\u00e9\u00e9", "ab\r\nX-Injected: 1"]
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.clear_requests()
        for tool in ("trash_email", "modify_labels"):
            answer = await session.call(
                tool,
                {"message_ids": odd, "add_labels": ["STARRED"]} if tool == "modify_labels" else {"message_ids": odd},
            )
            details = assert_error(session, answer, "parse_error", server=SERVER, tool=tool)
            assert details["field"] == "message_ids.1" and details["reason"] == "string_pattern_mismatch"
        for tool, argument in (("get_email", "message_id"), ("get_thread", "thread_id")):
            answer = await session.call(tool, {argument: "../labels"})
            assert_error(session, answer, "parse_error", server=SERVER, tool=tool, field=argument)
    assert emulator.request_log() == [], "a refused id must not reach Gmail"


async def test_a_gmail_400_on_search_names_the_argument(gmail_env: dict[str, str], emulator: Emulator) -> None:
    # Regression guard (schema fuzzing): a 400 for a bad query answered parse_error without `field`.
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.add_fault(Fault(route="messages.list", status=400, reason="invalidArgument", message="Invalid query"))
        answer = await session.call("search_emails", {"query": "from:(ann"})
        assert_error(session, answer, "parse_error", server=SERVER, tool="search_emails", field="query")
        answer = await session.call("search_emails", {"query": "ann", "page_token": "not-a-token"})
        assert_error(session, answer, "parse_error", server=SERVER, tool="search_emails", field="page_token")


async def test_a_part_that_keeps_failing_in_the_batch_is_a_warning(
    gmail_env: dict[str, str], emulator: Emulator
) -> None:
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.add_fault(Fault(route="messages.get", status=404, reason="notFound", times=1))
        answer = await session.call("search_emails", {"query": "is:unread", "max_results": 5})
    assert answer.error is None
    assert len(answer.payload["messages"]) == 4
    assert answer.payload["warnings"][0]["code"] == "PARTIAL_RESULTS"


async def test_list_labels_fills_the_label_cache(gmail_env: dict[str, str], emulator: Emulator) -> None:
    # Regression guard: list_labels fetched labels.list for itself, then get_email fetched it again.
    async with running(["gmail-mcp"], gmail_env) as session:
        emulator.clear_requests()
        assert (await session.call("list_labels")).error is None
        email = await session.call("get_email", {"message_id": emulator.seeded["status"]})
    assert "Projects" in email.payload["labels"]
    assert sum(1 for r in emulator.request_log() if r.route == "labels.list") == 1
