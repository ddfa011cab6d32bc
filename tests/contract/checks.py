"""Assertions every contract error must pass, whatever the server and the tool."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
from mcp.shared.exceptions import MCPError as McpProtocolError

from tests.contract.harness import LEAK_PATTERNS, REPO, SPECS, Answer, Session

# Absolute locations that must never appear in a message or detail.
_PRIVATE_ROOTS = sorted({str(REPO), tempfile.gettempdir(), str(Path.home()), "/etc/", "/root", "/proc"}, key=len)


def spec(server: str) -> dict[str, Any]:
    name = {"obsidian-mcp": "obsidian-tools.json", "gmail-mcp": "gmail-tools.json"}[server]
    loaded: dict[str, Any] = json.loads((SPECS / name).read_text(encoding="utf-8"))
    return loaded


def tool_spec(server: str, tool: str) -> dict[str, Any]:
    for entry in spec(server)["tools"]:
        if entry["name"] == tool:
            return dict(entry)
    raise AssertionError(f"{tool} is not in the {server} spec")


def assert_no_leak(text: str) -> None:
    assert not LEAK_PATTERNS.search(text), f"leaks internals: {text!r}"
    for root in _PRIVATE_ROOTS:
        assert root not in text, f"leaks the absolute path {root!r}: {text!r}"
    assert not re.search(r"(^|[\s'\"(])/(home|usr|var|tmp|work)/", text), f"leaks an absolute path: {text!r}"


def assert_error(
    session: Session, answer: Answer, code: str, *, server: str, tool: str | None, **expected: Any
) -> dict[str, Any]:
    """The answer is exactly the contract error `code`, valid against the tool's errorSchema, and logged."""
    assert answer.result.is_error is True
    schema = None
    if tool is not None:
        full = spec(server)
        schema = dict(tool_spec(server, tool)["errorSchema"])
        schema["$defs"] = full["$defs"]
    return assert_contract_object(session, answer.payload, code, schema, **expected)


def assert_protocol_error(
    session: Session, raised: McpProtocolError, rpc_code: int, code: str, *, server: str, **expected: Any
) -> dict[str, Any]:
    """A failed resources/read, resources/list, prompts/get or completion/complete (interface.md §5): the
    JSON-RPC error `rpc_code` whose message is the contract message and whose `data` is exactly the contract
    error `code`, valid against the spec's `$defs.MCPError`, and logged."""
    assert raised.error.code == rpc_code, raised.error
    payload = raised.error.data
    assert isinstance(payload, dict), raised.error
    assert raised.error.message == payload.get("message"), raised.error
    schema = {"$ref": "#/$defs/MCPError", "$defs": spec(server)["$defs"]}
    return assert_contract_object(session, payload, code, schema, **expected)


async def read_error(
    session: Session, uri: str, rpc_code: int, code: str, *, server: str, **expected: Any
) -> dict[str, Any]:
    """resources/read of `uri` fails with the contract error `code` (`assert_protocol_error`)."""
    try:
        await session.client.read_resource(uri)
    except McpProtocolError as raised:
        return assert_protocol_error(session, raised, rpc_code, code, server=server, **expected)
    raise AssertionError(f"resources/read {uri} answered")


async def prompt_error(
    session: Session, name: str, arguments: dict[str, str], rpc_code: int, code: str, *, server: str, **expected: Any
) -> dict[str, Any]:
    """prompts/get of `name` fails with the contract error `code` (`assert_protocol_error`)."""
    try:
        await session.client.get_prompt(name, arguments)
    except McpProtocolError as raised:
        return assert_protocol_error(session, raised, rpc_code, code, server=server, **expected)
    raise AssertionError(f"prompts/get {name} answered")


def assert_contract_object(
    session: Session, payload: dict[str, Any], code: str, schema: dict[str, Any] | None, **expected: Any
) -> dict[str, Any]:
    """`payload` is exactly the contract error `code` (valid against `schema` when given), and logged."""
    from obsidian_mcp.models import BASE_DETAIL_KEYS, REQUIRED_DETAIL_KEYS

    assert set(payload) == {"error", "message", "details"}, payload
    assert payload["error"] == code, payload
    details = payload["details"]
    assert isinstance(details, dict)
    assert isinstance(details["retryable"], bool)
    assert isinstance(details["request_id"], str) and len(details["request_id"]) >= 8
    missing = (BASE_DETAIL_KEYS | REQUIRED_DETAIL_KEYS[code]) - set(details)
    assert not missing, f"{code} lacks details {missing}: {details}"
    for key, value in expected.items():
        assert details.get(key) == value, f"details[{key!r}] = {details.get(key)!r}, expected {value!r}"
    assert_no_leak(payload["message"])
    assert_no_leak(json.dumps(details, ensure_ascii=False))
    if schema is not None:
        jsonschema.validate(payload, schema)
    logged = [r for r in session.log_records() if r.get("request_id") == details["request_id"]]
    assert any(r.get("error_code") == code for r in logged), f"no log line for request {details['request_id']}"
    return dict(details)


def assert_json_stderr(session: Session, service: str) -> None:
    lines = session.stderr_lines()
    assert lines, "the server logged nothing"
    for line in lines:
        record = json.loads(line)  # raises on any non-JSON line
        assert record["service"] == service
        assert {"timestamp", "level", "message"} <= set(record)


def env_without_home_config() -> dict[str, str]:
    """Defaults must not read the developer's real config: point every file somewhere empty."""
    empty = tempfile.mkdtemp(prefix="contract-")
    return {"HOME": empty, "XDG_CACHE_HOME": os.path.join(empty, "cache")}
