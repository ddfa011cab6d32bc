"""gmail-mcp through real stdio against the in-repo Gmail emulator: every error code of the taxonomy."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import anyio
import pytest
from gmail_emulator import Emulator, Fault

from tests.contract.checks import assert_error, assert_json_stderr, spec
from tests.contract.harness import running

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"


def gmail(*flags: str) -> list[str]:
    return ["gmail-mcp", *flags]


async def test_tools_list_matches_the_spec_for_every_implemented_tool(gmail_env: dict[str, str]) -> None:
    async with running(gmail(), gmail_env) as session:
        live = {
            tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True)
            for tool in (await session.client.list_tools()).tools
        }
    entries = {entry["name"]: entry for entry in spec(SERVER)["tools"]}
    assert set(live) <= set(entries), f"tools missing from the spec: {set(live) - set(entries)}"
    assert {n for n, e in entries.items() if e["status"] == "implemented"} == set(live)
    for name, tool in live.items():
        for key in ("description", "inputSchema", "outputSchema", "annotations"):
            assert tool.get(key) == entries[name][key], f"{name}.{key} differs from the spec"


async def test_list_labels_succeeds_with_unread_counts(gmail_env: dict[str, str], emulator: Emulator) -> None:
    async with running(gmail(), gmail_env) as session:
        answer = await session.call("list_labels")
    assert answer.error is None, answer.payload
    labels = {label["name"]: label for label in answer.payload["labels"]}
    assert {"INBOX", "SENT", "TRASH"} <= set(labels)
    assert labels["INBOX"]["type"] == "system" and labels["INBOX"]["messages_unread"] >= 1
    assert any(label["type"] == "user" for label in labels.values())
    assert "warnings" not in answer.payload or answer.payload["warnings"] == []


async def test_auth_required_without_a_token(tmp_path: Path) -> None:
    env = {"GMAIL_MCP_TOKEN_FILE": str(tmp_path / "missing.json"), "GMAIL_MCP_API_ENDPOINT": "http://127.0.0.1:9/"}
    async with running(gmail(), env) as session:
        answer = await session.call("list_labels")
        details = assert_error(
            session,
            answer,
            "auth_required",
            server=SERVER,
            tool="list_labels",
            reason="no_token",
            reauth_command="uv run gmail-mcp auth",
        )
        assert details["reauth_command"] in answer.payload["message"]
        assert_json_stderr(session, SERVER)


async def test_auth_required_when_the_refresh_token_was_revoked(gmail_env: dict[str, str], emulator: Emulator) -> None:
    token = json.loads(Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]).read_text())
    token["expiry"] = "2000-01-01T00:00:00.000000Z"  # forces a refresh on first use
    emulator.revoke_refresh_token(token["refresh_token"])
    Path(gmail_env["GMAIL_MCP_TOKEN_FILE"]).write_text(json.dumps(token))
    async with running(gmail(), gmail_env) as session:
        answer = await session.call("list_labels")
        assert_error(session, answer, "auth_required", server=SERVER, tool="list_labels", reason="revoked")


@pytest.mark.parametrize(
    ("fault", "code", "details"),
    [
        (
            Fault(route="labels.list", status=429, reason="rateLimitExceeded", retry_after=120),
            "rate_limited",
            {"retry_after_seconds": 120, "retryable": True},
        ),
        (
            Fault(route="labels.list", status=403, reason="userRateLimitExceeded", retry_after=90),
            "rate_limited",
            {"retry_after_seconds": 90},
        ),
        (
            Fault(route="labels.list", status=401, reason="authError", times=None),
            "auth_required",
            {"reason": "expired"},
        ),
        (
            Fault(route="labels.list", status=403, reason="insufficientPermissions"),
            "auth_required",
            {"reason": "insufficient_scope"},
        ),
        (Fault(route="labels.list", status=403, reason="domainPolicy"), "permission_denied", {"reason": "forbidden"}),
        (Fault(route="labels.list", status=400, reason="invalidArgument"), "parse_error", {}),
        (
            Fault(route="labels.list", status=503, reason="backendError", times=None),
            "mcp_unavailable",
            {"service": "gmail_api", "retryable": True},
        ),
        (
            Fault(route="labels.list", status=200, malformed_body=True, times=None),
            "mcp_unavailable",
            {"service": "gmail_api"},
        ),
    ],
    ids=["429", "403-user-rate", "401", "403-scope", "403-forbidden", "400", "503", "malformed-200"],
)
async def test_gmail_failures_map_to_the_contract(
    gmail_env: dict[str, str], emulator: Emulator, fault: Fault, code: str, details: dict[str, Any]
) -> None:
    emulator.add_fault(fault)
    async with running(gmail(), gmail_env) as session:
        answer = await session.call("list_labels")
        assert_error(session, answer, code, server=SERVER, tool="list_labels", **details)


async def test_mcp_unavailable_when_the_api_cannot_be_reached(gmail_env: dict[str, str]) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = gmail_env | {"GMAIL_MCP_API_ENDPOINT": f"http://127.0.0.1:{port}/"}
    async with running(gmail(), env) as session:
        answer = await session.call("list_labels")
        assert_error(session, answer, "mcp_unavailable", server=SERVER, tool="list_labels", service="gmail_api")


async def test_transient_failures_are_retried_then_succeed(gmail_env: dict[str, str], emulator: Emulator) -> None:
    emulator.add_fault(Fault(route="labels.list", status=500, reason="backendError", times=2))
    emulator.clear_requests()
    async with running(gmail(), gmail_env) as session:
        answer = await session.call("list_labels")
    assert answer.error is None, answer.payload
    assert sum(1 for r in emulator.request_log() if r.route == "labels.list") == 3


async def test_framework_failures_are_contract_errors(gmail_env: dict[str, str]) -> None:
    async with running(gmail(), gmail_env) as session:
        answer = await session.call("send_all_my_secrets", {})
        assert_error(session, answer, "not_found", server=SERVER, tool=None, resource="tool")
        answer = await session.call("list_labels", {"unexpected": True})
        assert_error(session, answer, "parse_error", server=SERVER, tool="list_labels", field="unexpected")


async def test_internal_error_hides_the_crash(gmail_env: dict[str, str]) -> None:
    async with running(gmail(), gmail_env | {"GMAIL_MCP_CRASH_TOOLS": "list_labels"}) as session:
        answer = await session.call("list_labels")
        details = assert_error(session, answer, "internal_error", server=SERVER, tool="list_labels")
        assert answer.payload["message"] == f"internal error (request id {details['request_id']})"


@pytest.mark.transport_independent(reason="reads the taxonomy, no server")
def test_send_failed_is_in_the_taxonomy() -> None:
    # send_email / send_draft return it: test_gmail_write_contract.py exercises both delivery values.
    from gmail_mcp.models import ERROR_CODES

    assert "send_failed" in ERROR_CODES


async def test_a_read_that_times_out_is_mcp_unavailable(gmail_env: dict[str, str], emulator: Emulator) -> None:
    emulator.add_fault(Fault(route="labels.list", delay=2.0, times=None))
    emulator.clear_requests()
    async with running(gmail(), gmail_env | {"GMAIL_MCP_TIMEOUT_SECONDS": "0.5"}) as session:
        answer = await session.call("list_labels")
        assert_error(session, answer, "mcp_unavailable", server=SERVER, tool="list_labels", service="gmail_api")
    # The emulator logs a delayed request once it has answered it (2 s after it came): wait for the retry's
    # record, not for a fixed time.
    with anyio.move_on_after(10):
        while sum(1 for r in emulator.request_log() if r.route == "labels.list") < 2:
            await anyio.sleep(0.05)
    assert sum(1 for r in emulator.request_log() if r.route == "labels.list") >= 2, "reads are retried"
