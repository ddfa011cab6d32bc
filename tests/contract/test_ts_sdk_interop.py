"""Typed contract errors reach the official TypeScript SDK client as results, not as -32602 exceptions.

typescript-sdk#1943: once `listTools()` has run, `Client.callTool` of `@modelcontextprotocol/sdk` validates any
structuredContent against the tool's outputSchema, even on `isError: true`, and throws McpError -32602
"Structured content does not match the tool's output schema" instead of returning the error. Our servers
therefore send errors as text only. These tests start both servers exactly as `.mcp.json` does, drive them
with tests/contract/ts_client/driver.mjs (the SDK's Client + StdioClientTransport, version pinned in
package-lock.json) and assert on what that client returned. The same sessions read resources and get prompts
through `Client.readResource` / `Client.getPrompt`: a failure arrives as the SDK's McpError whose `data` is the
contract object (interface.md §5).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from gmail_emulator import Emulator, Fault
from gmail_emulator.payload import attachment_id
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from obsidian_mcp.models import REQUIRED_DETAIL_KEYS

from tests.contract.checks import assert_no_leak, spec
from tests.contract.harness import REPO, UV, server_env
from tests.contract.test_mcp_json import expand

pytestmark = pytest.mark.stdio_only(reason="the TypeScript driver starts the servers over stdio")

TS_CLIENT = Path(__file__).resolve().parent / "ts_client"
NODE_MODULES = TS_CLIENT / "node_modules"
STAMP = NODE_MODULES / ".contract-install-stamp"
SDK = "@modelcontextprotocol/sdk"

# The detail keys each code must carry besides retryable and request_id (parse_error of an argument: field).
CODE_DETAILS: dict[str, frozenset[str]] = {
    "auth_required": frozenset({"reason", "reauth_command"}),
    "not_found": frozenset({"resource"}),
    "parse_error": frozenset({"field", "reason"}),
    "permission_denied": frozenset({"reason"}),
    "rate_limited": frozenset({"retry_after_seconds"}),
    "mcp_unavailable": frozenset({"service"}),
    "internal_error": frozenset(),
}


@dataclass(frozen=True)
class Call:
    """One callTool the driver makes, and what it must return: a success (error None) or that contract error."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Fetch:
    """One readResource (`target` is the URI) or getPrompt (`target` is the prompt's name) the driver makes, and
    what it must return: a text holding `contains`, or the JSON-RPC error `rpc_code` whose data is that contract
    error (interface.md §5)."""

    target: str
    arguments: dict[str, str] = field(default_factory=dict)
    contains: str | None = None
    rpc_code: int | None = None
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Start:
    """One server start by the driver: the environment on top of the test's, the calls in order, then the
    resource reads and the prompts."""

    label: str
    server: str  # the key in .mcp.json
    environ: dict[str, str]
    calls: list[Call]
    reads: list[Fetch] = field(default_factory=list)
    prompts: list[Fetch] = field(default_factory=list)


# --- the Node side ---------------------------------------------------------------------------------


def _lock_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((TS_CLIENT / name).read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def driver() -> list[str]:
    """`node driver.mjs`, after `npm ci` when node_modules does not match package-lock.json (stamped by hash)."""
    tools = {name: shutil.which(name) for name in ("node", "npm")}
    missing = sorted(name for name, path in tools.items() if path is None)
    if missing:
        pytest.skip(
            f"!!! TypeScript SDK interop NOT TESTED: {' and '.join(missing)} not found on PATH. "
            "Install Node.js >= 18 with npm to check that typed errors reach @modelcontextprotocol/sdk clients "
            "(typescript-sdk#1943) !!!"
        )
    node, npm = tools["node"], tools["npm"]
    assert node is not None and npm is not None
    wanted = _lock_digest()
    # pytest-xdist may run both tests at once in two processes: one `npm ci` at a time in this folder.
    with open(Path(tempfile.gettempdir()) / "mcp-contract-ts-client.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        installed = STAMP.read_text().strip() if STAMP.is_file() else None
        if installed != wanted or not (NODE_MODULES / SDK / "package.json").is_file():
            proc = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"], cwd=TS_CLIENT, capture_output=True, text=True, timeout=600
            )
            if proc.returncode != 0:
                pytest.fail(f"`npm ci` in {TS_CLIENT} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
            STAMP.write_text(wanted + "\n")
    return [node, str(TS_CLIENT / "driver.mjs")]


def mcp_json_launch(server: str, environ: dict[str, str]) -> dict[str, Any]:
    """command/args/env/cwd exactly as .mcp.json starts `server` (with Claude Code's ${VAR:-default} expansion)."""
    config = json.loads((REPO / ".mcp.json").read_text())["mcpServers"][server]
    env = {key: expand(value, environ) for key, value in config.get("env", {}).items()}
    return {
        "command": UV if config["command"] == "uv" else config["command"],
        "args": [expand(arg, environ) for arg in config["args"]],
        "env": environ | env,
        "cwd": str(REPO),
    }


def run_driver(driver: list[str], starts: list[Start]) -> dict[str, dict[str, Any]]:
    """Run every start in one driver process; return what the TS client got, per start label."""
    scenario = {
        "sessions": [
            {
                "label": start.label,
                **mcp_json_launch(start.server, server_env(start.environ)),
                "calls": [{"name": call.tool, "arguments": call.arguments} for call in start.calls],
                "reads": [{"uri": read.target} for read in start.reads],
                "prompts": [{"name": prompt.target, "arguments": prompt.arguments} for prompt in start.prompts],
            }
            for start in starts
        ]
    }
    proc = subprocess.run(
        driver, input=json.dumps(scenario), cwd=TS_CLIENT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"the TypeScript driver failed ({proc.returncode}):\n{proc.stderr}"
    document: dict[str, Any] = json.loads(proc.stdout)
    pinned = json.loads((TS_CLIENT / "package.json").read_text())["dependencies"][SDK]
    assert document["sdk_version"] == pinned, f"{SDK} {document['sdk_version']} is installed, {pinned} is pinned"
    sessions: dict[str, dict[str, Any]] = document["sessions"]
    assert set(sessions) == {start.label for start in starts}
    for label, got in sessions.items():  # pytest shows this only when the test fails
        print(f"--- stderr of the {label} server ---\n{got['stderr']}")
    return sessions


# --- assertions on what the TS client returned -----------------------------------------------------


def _text_payload(result: Mapping[str, Any]) -> dict[str, Any]:
    content = result["content"]
    assert len(content) == 1 and content[0]["type"] == "text", result
    payload = json.loads(content[0]["text"])
    assert isinstance(payload, dict), payload
    return payload


def assert_success(got: Mapping[str, Any]) -> dict[str, Any]:
    assert "exception" not in got, f"{got['name']}: the TypeScript client threw {got['exception']}"
    result = got["result"]
    assert not result.get("isError"), result
    payload = _text_payload(result)
    assert result.get("structuredContent") == payload, "structuredContent must equal the JSON of content[0].text"
    return payload


def assert_contract_error(server: str, got: Mapping[str, Any], call: Call) -> dict[str, Any]:
    assert call.error is not None
    assert "exception" not in got, (
        f"{call.tool}: the TypeScript client threw {got['exception']} instead of returning the {call.error} "
        "error (typescript-sdk#1943: an error must not carry structuredContent)"
    )
    result = got["result"]
    assert result.get("isError") is True, result
    assert "structuredContent" not in result, f"an error result must not carry structuredContent: {result}"
    payload = _text_payload(result)
    assert set(payload) == {"error", "message", "details"}, payload
    assert payload["error"] == call.error, payload
    assert isinstance(payload["message"], str) and payload["message"], payload
    details = payload["details"]
    assert isinstance(details, dict), payload
    assert isinstance(details.get("request_id"), str) and details["request_id"], payload
    assert isinstance(details.get("retryable"), bool), payload
    missing = CODE_DETAILS[call.error] - set(details)
    assert not missing, f"{call.error} lacks details {sorted(missing)}: {details}"
    for key, value in call.details.items():
        assert details.get(key) == value, f"details[{key!r}] = {details.get(key)!r}, expected {value!r}"
    assert_no_leak(payload["message"])
    assert_no_leak(json.dumps(details, ensure_ascii=False))
    tools = {entry["name"]: entry for entry in spec(server)["tools"]}
    if call.tool in tools:
        schema = dict(tools[call.tool]["errorSchema"])
        schema["$defs"] = spec(server)["$defs"]
        jsonschema.validate(payload, schema)
    return dict(details)


def assert_fetched(server: str, fetch: Fetch, got: Mapping[str, Any], kind: str) -> None:
    """What readResource (`kind` "read") or getPrompt ("prompt") returned is what `fetch` expects."""
    if fetch.error is None:
        assert "exception" not in got, f"{fetch.target}: the TypeScript client threw {got['exception']}"
        if kind == "read":
            texts = [content["text"] for content in got["result"]["contents"]]
        else:
            texts = [message["content"]["text"] for message in got["result"]["messages"]]
        assert len(texts) == 1 and fetch.contains is not None and fetch.contains in texts[0], (fetch, got)
        return
    exception = got.get("exception")
    assert exception is not None, f"{fetch.target}: expected the JSON-RPC error {fetch.rpc_code}, got {got}"
    assert (exception["class"], exception["code"]) == ("McpError", fetch.rpc_code), exception
    payload = exception["data"]
    assert isinstance(payload, dict) and set(payload) == {"error", "message", "details"}, exception
    assert payload["error"] == fetch.error and payload["message"] in exception["message"], exception
    details = payload["details"]
    assert isinstance(details.get("request_id"), str) and isinstance(details.get("retryable"), bool), payload
    missing = REQUIRED_DETAIL_KEYS[fetch.error] - set(details)
    assert not missing, f"{fetch.error} lacks details {sorted(missing)}: {details}"
    for key, value in fetch.details.items():
        assert details.get(key) == value, f"details[{key!r}] = {details.get(key)!r}, expected {value!r}"
    assert_no_leak(payload["message"])
    assert_no_leak(json.dumps(details, ensure_ascii=False))
    jsonschema.validate(payload, {"$ref": "#/$defs/MCPError", "$defs": spec(server)["$defs"]})


def check_session(server: str, start: Start, got: Mapping[str, Any]) -> set[str]:
    """Every call returned what `start` expects; answers the error codes of tools the client had validators for."""
    for kind, fetches, answers in (("read", start.reads, got["reads"]), ("prompt", start.prompts, got["prompts"])):
        assert len(answers) == len(fetches)
        for fetch, answer in zip(fetches, answers, strict=True):
            assert_fetched(server, fetch, answer, kind)
    calls = got["calls"]
    assert [c["name"] for c in calls] == [c.tool for c in start.calls]
    assert got["server"]["name"] == server, got["server"]
    armed: set[str] = set()  # codes from listed tools: their outputSchema validator was armed in the TS client
    request_ids: list[str] = []
    for call, answer in zip(start.calls, calls, strict=True):
        if call.error is None:
            assert_success(answer)
            continue
        details = assert_contract_error(server, answer, call)
        request_ids.append(details["request_id"])
        if call.tool in got["tools"]:
            armed.add(call.error)
    assert len(set(request_ids)) == len(request_ids), f"request ids repeat: {request_ids}"
    return armed


def implemented_tools(server: str, *, read_only: bool = False) -> set[str]:
    return {
        entry["name"]
        for entry in spec(server)["tools"]
        if entry["status"] == "implemented" and (entry["annotations"].get("readOnlyHint", False) or not read_only)
    }


# --- obsidian-mcp ----------------------------------------------------------------------------------


def test_obsidian_typed_errors_reach_the_typescript_sdk_client(driver: list[str], tmp_path: Path) -> None:
    """obsidian-mcp's contract errors arrive through the TS SDK's Client.callTool as isError results.

    Guards typescript-sdk#1943: errors carrying structuredContent reached TS clients as McpError -32602
    ("Structured content does not match the tool's output schema") instead of the typed error.
    """
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault, symlinks=True)
    before = {p.relative_to(vault): p.read_bytes() for p in sorted(vault.rglob("*")) if p.is_file()}
    base = {"OBSIDIAN_VAULT_PATH": str(vault)}
    main = Start(
        "main",
        "obsidian",
        base | {"OBSIDIAN_MCP_INDEX_DIR": str(tmp_path / "index"), "OBSIDIAN_MCP_CRASH_TOOLS": "list_tags"},
        [
            Call("list_notes"),
            Call("read_note", {"path": "Home"}),
            Call("read_note", {"path": "../etc/passwd"}, "permission_denied", {"reason": "outside_vault"}),
            Call("read_note", {"path": "Projects/No Such Note"}, "not_found", {"resource": "note"}),
            Call("list_notes", {"limit": "abc"}, "parse_error", {"field": "limit"}),
            Call("list_notes", {"colour": "blue"}, "parse_error", {"field": "colour"}),
            Call("no_such_tool", {"x": 1}, "not_found", {"resource": "tool"}),
            Call("list_tags", {}, "internal_error"),
            Call("read_note", {"path": "Home"}),  # the session survives all of the above
            # Every reading tool once: the TS client validates each success against its (lean) outputSchema.
            Call("search_notes", {"query": "how do I undo a purchase", "limit": 3}),
            Call("search_notes", {"query": "launch criteria", "mode": "keyword"}),
            # several vaults (interface.md §6): the vault is named after its folder; '*' results carry `vault`,
            # which the TS client validates against the outputSchema
            Call("list_vaults"),
            Call("read_note", {"path": "Home", "vault": "vault"}),
            Call("search_notes", {"query": "launch criteria", "mode": "keyword", "vault": "*"}),
            Call("list_notes", {"vault": "office"}, "not_found", {"resource": "vault", "vaults": ["vault"]}),
            Call("similar_notes", {"path": "Projects/Alpha", "limit": 3}),
            Call("get_backlinks", {"path": "Projects/Alpha"}),
            Call("check_links", {"limit": 5}),
            Call("query_notes", {"query": 'TABLE status, file.mtime FROM "Projects" SORT file.name'}),
            Call("query_notes", {"query": "TASK WHERE !completed LIMIT 5"}),
            Call("query_notes", {"query": 'LIST FROM "Projects" GROUP BY status'}),
            Call("daily_note", {"date": "2026-11-20", "create": False}),
        ],
        reads=[
            Fetch("obsidian://note/Projects/Alpha.md", contains="title: Project Alpha"),
            Fetch("obsidian://note/Projects/No Such Note.md", rpc_code=-32002, error="not_found",
                  details={"resource": "note"}),
            Fetch("obsidian://note/.obsidian/app.json", rpc_code=-32002, error="not_found"),
        ],
        prompts=[
            Fetch("summarize_note", {"path": "Projects/Alpha"}, contains='read_note(path="Projects/Alpha.md")'),
            Fetch("daily_review", {"date": "someday"}, rpc_code=INVALID_PARAMS, error="parse_error",
                  details={"field": "date"}),
        ],
    )  # fmt: skip
    read_only = Start(
        "read_only",
        "obsidian",
        base | {"OBSIDIAN_MCP_INDEX_DIR": str(tmp_path / "index-ro"), "OBSIDIAN_MCP_READ_ONLY": "1"},
        [
            Call("list_notes", {"limit": 2}),
            Call("write_note", {"path": "New", "content": "x"}, "permission_denied", {"reason": "read_only"}),
        ],
    )
    got = run_driver(driver, [main, read_only])

    assert set(got["main"]["tools"]) == implemented_tools("obsidian-mcp")
    assert "write_note" not in got["read_only"]["tools"]
    assert set(got["read_only"]["tools"]) <= set(got["main"]["tools"])
    armed = check_session("obsidian-mcp", main, got["main"])
    check_session("obsidian-mcp", read_only, got["read_only"])
    codes = {c.error for s in (main, read_only) for c in s.calls if c.error}
    assert len(codes) >= 4 and len(armed) >= 4, (codes, armed)
    after = {p.relative_to(vault): p.read_bytes() for p in sorted(vault.rglob("*")) if p.is_file()}
    assert after == before, "the read-only refusal must not change the vault"


# --- gmail-mcp -------------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:  # a port that was free a moment ago: connection refused
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_gmail_typed_errors_reach_the_typescript_sdk_client(
    driver: list[str], gmail_env: dict[str, str], emulator: Emulator, tmp_path: Path
) -> None:
    """gmail-mcp's contract errors arrive through the TS SDK's Client.callTool as isError results.

    Guards typescript-sdk#1943: errors carrying structuredContent reached TS clients as McpError -32602
    ("Structured content does not match the tool's output schema") instead of the typed error.
    """
    empty_home = tmp_path / "empty-home"
    empty_home.mkdir()
    no_token = Start(
        "no_token",
        "gmail",
        {
            "HOME": str(empty_home),
            "XDG_CONFIG_HOME": str(empty_home / ".config"),
            "XDG_CACHE_HOME": str(empty_home / ".cache"),
            "XDG_DATA_HOME": str(empty_home / ".local" / "share"),
            "XDG_STATE_HOME": str(empty_home / ".local" / "state"),
            "GMAIL_MCP_TOKEN_FILE": str(empty_home / "absent" / "token.json"),
        },
        [Call("list_labels", {}, "auth_required", {"reason": "no_token"})],
        reads=[Fetch("gmail://message/abc123", rpc_code=INTERNAL_ERROR, error="auth_required",
                     details={"reason": "no_token"})],
    )  # fmt: skip
    # One 429 on labels.list: the first list_labels is rate limited, the second succeeds.
    emulator.add_fault(Fault(route="labels.list", status=429, reason="rateLimitExceeded", retry_after=120))
    served = Start(
        "emulator",
        "gmail",
        gmail_env | {"GMAIL_MCP_CRASH_TOOLS": "list_drafts"},
        [
            Call("list_labels", {}, "rate_limited", {"retry_after_seconds": 120, "retryable": True}),
            Call("list_labels"),
            Call("search_emails", {"query": "in:inbox", "max_results": 3}),
            Call("list_accounts"),
            Call("list_filters"),
            Call("get_email", {"message_id": emulator.seeded["invoice_pdf"]}),
            Call("get_thread", {"thread_id": emulator.seeded["atlas_1"]}),
            Call("read_attachment", {"message_id": emulator.seeded["notes_attachment"],
                                     "attachment_id": attachment_id(emulator.seeded["notes_attachment"], "1")}),
            Call("modify_labels", {"query": "from:newsletter", "remove_labels": ["INBOX"]}),  # a dry run
            Call("get_email", {"message_id": "ffffffffffffffff"}, "not_found", {"resource": "message"}),
            Call("get_email", {"message_id": ""}, "parse_error", {"field": "message_id"}),
            Call("list_labels", {"unexpected": True}, "parse_error", {"field": "unexpected"}),
            Call("send_all_my_secrets", {}, "not_found", {"resource": "tool"}),
            Call("list_drafts", {}, "internal_error"),
        ],
        reads=[
            Fetch(f"gmail://message/{emulator.seeded['atlas_1']}", contains="Subject: Project Atlas kickoff"),
            Fetch("gmail://message/not-hex", rpc_code=-32002, error="not_found", details={"resource": "message"}),
        ],
        prompts=[
            Fetch("triage_inbox", contains='search_emails(query="in:inbox is:unread"'),
            Fetch("draft_reply", {"message_id": "xyz", "intent": "yes"}, rpc_code=INVALID_PARAMS,
                  error="parse_error", details={"field": "message_id"}),
        ],
    )  # fmt: skip
    unreachable = Start(
        "unreachable",
        "gmail",
        gmail_env | {"GMAIL_MCP_API_ENDPOINT": f"http://127.0.0.1:{_closed_port()}/"},
        [Call("list_labels", {}, "mcp_unavailable", {"service": "gmail_api"})],
    )
    got = run_driver(driver, [no_token, served, unreachable])

    for label in got:
        assert set(got[label]["tools"]) == implemented_tools("gmail-mcp"), label
    armed = set().union(*(check_session("gmail-mcp", s, got[s.label]) for s in (no_token, served, unreachable)))
    assert len(armed) >= 4, armed
    assert not emulator.faults(), "the injected 429 was never consumed"
