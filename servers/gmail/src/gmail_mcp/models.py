"""The contract both servers keep, as code: the ADR-0008 error taxonomy, its wire form,
the log line of interface.md §2, and the one call path that enforces them.

This file is duplicated on purpose, byte for byte, in gmail-mcp and obsidian-mcp
(see specs/data-model.md): the servers are independent packages that share no
code, and a contract test checks that both copies agree. Everything specific to
a server (which exceptions mean what) is passed in as a `FailureMapper`.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, Literal, get_args

import anyio
import mcp_types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, ContentBlock, InputRequiredResult, TextContent
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pythonjsonlogger.json import JsonFormatter

# --- the taxonomy (ADR-0008) ----------------------------------------------------------------------

MCPErrorCode = Literal[
    "auth_required",
    "not_found",
    "rate_limited",
    "send_failed",
    "permission_denied",
    "parse_error",
    "mcp_unavailable",
    "internal_error",
]
ERROR_CODES: tuple[str, ...] = get_args(MCPErrorCode)

# Codes a caller may simply try again (possibly after waiting); the others need a change
# of input or of the environment first. A mapper may override per error.
RETRYABLE_CODES: frozenset[str] = frozenset({"rate_limited", "mcp_unavailable"})

# details keys every error carries, and the extra keys each code promises (interface.md §1).
BASE_DETAIL_KEYS: frozenset[str] = frozenset({"retryable", "request_id"})
REQUIRED_DETAIL_KEYS: dict[str, frozenset[str]] = {
    "auth_required": frozenset({"reauth_command", "reason"}),
    "not_found": frozenset({"resource"}),
    "rate_limited": frozenset({"retry_after_seconds"}),
    "send_failed": frozenset({"delivery"}),
    "permission_denied": frozenset({"reason"}),
    "parse_error": frozenset({"reason"}),  # plus field (arguments) or path+line (documents)
    "mcp_unavailable": frozenset({"service"}),
    "internal_error": frozenset(),
}


class MCPError(BaseModel):
    """Every failed tool call answers with exactly this object."""

    model_config = ConfigDict(extra="forbid")

    error: MCPErrorCode
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


# A problem that did not stop the work (graceful-degradation seed): CONTENT_TRUNCATED, PARTIAL_RESULTS, ...
# No docstring on purpose: pydantic would copy it into every tool's outputSchema.
class Warning(BaseModel):
    model_config = ConfigDict(extra="allow")

    code: str
    message: str


def contract_error(code: MCPErrorCode, message: str, request_id: str, **details: Any) -> MCPError:
    """An MCPError with the details every error carries (`retryable`, `request_id`)."""
    details.setdefault("retryable", code in RETRYABLE_CODES)
    details["request_id"] = request_id
    return MCPError(error=code, message=message, details=details)


def argument_error(exc: ValidationError, request_id: str) -> MCPError:
    """A pydantic validation failure of tool arguments as `parse_error` naming the field.

    Only the field and the kind of failure are reported: the rejected value is the
    caller's data and may be huge or hostile.
    """
    errors = exc.errors()
    loc = errors[0]["loc"] if errors else ()
    field = (".".join(str(part) for part in loc) or "arguments")[:100]
    reason = str(errors[0]["type"]) if errors else "invalid"
    detail = str(errors[0]["msg"])[:200] if errors else "invalid arguments"
    return contract_error(
        "parse_error", f"invalid argument '{field}': {detail}", request_id, field=field, reason=reason
    )


# --- the wire form --------------------------------------------------------------------------------


def _text(payload: dict[str, Any]) -> list[ContentBlock]:
    return [TextContent(type="text", text=json.dumps(payload, ensure_ascii=False, separators=(",", ":")))]


def error_result(err: MCPError) -> CallToolResult:
    """An error: the MCPError JSON as text and `isError: true`, deliberately without structuredContent.

    The TypeScript SDK's Client.callTool (the Inspector, most TS clients) validates any
    structuredContent against the tool's outputSchema even when isError is set, and replaces
    the whole answer with -32602 (typescript-sdk#1943). An error object never matches a
    success schema, so it travels in the text only (interface.md §1).
    """
    return CallToolResult(content=_text(err.model_dump(mode="json")), is_error=True)


def success_result(payload: dict[str, Any]) -> CallToolResult:
    """A success: compact JSON text plus the same object as structuredContent."""
    return CallToolResult(content=_text(payload), structured_content=payload)


# --- the log line (interface.md §2) ---------------------------------------------------------------

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)


class _CallContext(logging.Filter):
    """Stamps every record with the service name and the request id of the call being served."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def filter(self, record: logging.LogRecord) -> bool:
        record.service = self.service
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        return True


def configure_logging(service: str, level: str) -> None:
    """JSON lines on stderr from the root logger. Call before MCPServer() so its own basicConfig is a no-op."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_CallContext(service))
    handler.setFormatter(
        JsonFormatter(
            "{asctime}{levelname}{message}{service}{request_id}",
            style="{",
            rename_fields={"asctime": "timestamp", "levelname": "level", "exc_info": "exception"},
            datefmt="%Y-%m-%dT%H:%M:%S%z",
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Nothing else may write free text to stderr: Python warnings and crashes become JSON lines too.
    logging.captureWarnings(True)
    fatal = logging.getLogger("mcp_contract.fatal")
    sys.excepthook = lambda kind, exc, tb: fatal.critical("unhandled exception", exc_info=(kind, exc, tb))
    threading.excepthook = lambda args: fatal.critical("unhandled exception in a thread", exc_info=args.exc_value)


# --- the call path --------------------------------------------------------------------------------

FailureMapper = Callable[[BaseException, str], "MCPError | None"]
"""Maps an anticipated domain failure (and the request id) to its MCPError; None means unexpected."""

log = logging.getLogger("mcp_contract.calls")


class InjectedCrash(RuntimeError):
    """Raised for tools named in the test-only *_MCP_CRASH_TOOLS variable, to exercise internal_error."""


class ContractServer(MCPServer[Any]):
    """MCPServer whose every tool call answers in the contract and leaves one log line.

    Tool bodies raise domain exceptions and never catch them. This is the one place
    that turns any failure, the framework's own included (unknown tool, argument
    validation, a crash), into an MCPError.
    """

    def __init__(
        self,
        *,
        mapper: FailureMapper,
        read_only: bool = False,
        write_tools: Iterable[str] = (),
        crash_tools: Iterable[str] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.mapper = mapper
        self.read_only = read_only
        self.write_tools = frozenset(write_tools)
        self.crash_tools = frozenset(crash_tools)
        self.calls = InFlight()

    async def run_stdio_async(self) -> None:
        """Serve stdio behind `guarded_stdio`; on SIGTERM, end once the calls in flight are done."""
        signal.signal(signal.SIGTERM, self.calls.terminate)
        async with guarded_stdio() as (stdin, stdout), stdio_server(stdin, stdout) as (read, write):
            lowlevel = self._lowlevel_server
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    async def list_tools(self) -> list[mcp_types.Tool]:
        """The tools with pydantic's generated `title`s dropped from their schemas: they repeat the
        property names and cost agents ~15% of tools/list for nothing."""
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema = _without_titles(tool.input_schema)
            if tool.output_schema is not None:
                tool.output_schema = _without_titles(tool.output_schema)
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        request_id = uuid.uuid4().hex[:16]  # ctx.request_id is the JSON-RPC id: not unique, not ours
        token = REQUEST_ID.set(request_id)
        started = time.perf_counter()
        error: MCPError | None = None
        self.calls.enter()
        try:
            error = self._refuse(name, arguments, request_id)
            if error is None:
                if name in self.crash_tools:
                    raise InjectedCrash(f"crash injected into {name}")
                result = await super().call_tool(name, arguments, context)
                if isinstance(result, CallToolResult) and result.structured_content is not None:
                    return success_result(result.structured_content)
                return result
        except ToolError as exc:
            error = self._from_tool_error(exc, request_id)
        except Exception as exc:
            error = self._unexpected(exc, request_id)
        finally:
            log.info(
                "tool call",
                extra={
                    "tool": name[:100],
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    "error_code": error.error if error else None,
                },
            )
            REQUEST_ID.reset(token)
            self.calls.leave()
        assert error is not None  # every path that did not return a success set one
        return error_result(error)

    def _refuse(self, name: str, arguments: dict[str, Any], request_id: str) -> MCPError | None:
        """Checks made before the SDK sees the call: unknown tool, read-only mode, unexpected arguments."""
        if self.calls.stopping:
            return contract_error(
                "mcp_unavailable", "the server is shutting down; start it again", request_id, service="server"
            )
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            if self.read_only and name in self.write_tools:
                return contract_error(
                    "permission_denied",
                    f"{name} is not available: the server is read-only",
                    request_id,
                    reason="read_only",
                )
            return contract_error(
                "not_found", f"unknown tool: {name[:100]}", request_id, resource="tool", id=name[:100]
            )
        unexpected = sorted(set(arguments) - set(tool.parameters.get("properties", {})))
        if unexpected:
            return contract_error(
                "parse_error",
                f"unexpected argument '{unexpected[0][:100]}'",
                request_id,
                field=unexpected[0][:100],
                reason="unexpected_argument",
            )
        return None

    def _from_tool_error(self, exc: ToolError, request_id: str) -> MCPError:
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            return argument_error(cause, request_id)
        if cause is None:
            return self._unexpected(exc, request_id)
        return self.mapper(cause, request_id) or self._unexpected(cause, request_id)

    @staticmethod
    def _unexpected(exc: BaseException, request_id: str) -> MCPError:
        log.error("unexpected failure", exc_info=(type(exc), exc, exc.__traceback__))
        return contract_error("internal_error", f"internal error (request id {request_id})", request_id)


def _without_titles(schema: Any) -> Any:
    """A JSON schema minus its `title` keywords (a property *named* title maps to a schema, so it stays)."""
    if isinstance(schema, dict):
        return {k: _without_titles(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    return schema


# --- process lifecycle ----------------------------------------------------------------------------


class InFlight:
    """Counts running tool calls so SIGTERM can let a write in progress finish before the process ends.

    The SDK's stdin reader thread blocks interpreter shutdown (a handler calling sys.exit() hangs),
    so the handler waits on a helper thread for the calls to finish (at most GRACE seconds), then
    ends the process with os._exit(0). Calls arriving meanwhile are refused as mcp_unavailable.
    """

    GRACE = 10.0

    def __init__(self) -> None:
        self._count = 0
        self._idle = threading.Condition()
        self.stopping = False

    def enter(self) -> None:
        with self._idle:
            self._count += 1

    def leave(self) -> None:
        with self._idle:
            self._count -= 1
            self._idle.notify_all()

    def terminate(self, signum: int, frame: object) -> None:
        self.stopping = True
        threading.Thread(target=self._exit_when_idle, name="sigterm", daemon=True).start()

    def _exit_when_idle(self) -> None:
        with self._idle:
            finished = self._idle.wait_for(lambda: self._count == 0, timeout=self.GRACE)
        logging.getLogger("mcp_contract.lifecycle").info("terminating on SIGTERM", extra={"calls_finished": finished})
        time.sleep(0.05)  # let the answers of the calls that just finished reach stdout
        os._exit(0)


# --- stdio in front of the SDK (JSON-RPC errors the SDK would not send) ---------------------------

JSONRPC_PARSE_ERROR, JSONRPC_INVALID_REQUEST, JSONRPC_INVALID_PARAMS = -32700, -32600, -32602


def wire_problem(line: str) -> dict[str, Any] | None:
    """The JSON-RPC error answer for a line the SDK would drop or leave unanswered; None if the line is fine.

    The SDK's stdio transport drops unparseable lines and does not answer malformed requests that
    carry an id, so a client would wait forever. Requests the SDK can route (even to an unknown
    method, which it answers with -32601) pass through untouched.
    """
    try:
        message = json.loads(line)
    except ValueError:
        return _rpc_error(None, JSONRPC_PARSE_ERROR, "Parse error: the line is not valid JSON")
    if not isinstance(message, dict):
        return _rpc_error(None, JSONRPC_INVALID_REQUEST, "Invalid Request: expected a JSON-RPC object")
    ident = message.get("id")
    ident = ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None
    if message.get("jsonrpc") != "2.0" or not isinstance(message.get("method", ""), str):
        return _rpc_error(ident, JSONRPC_INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    params = message.get("params")
    if "method" in message and params is not None and not isinstance(params, dict):
        return _rpc_error(ident, JSONRPC_INVALID_PARAMS, "Invalid params: params must be an object")
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        if "method" in message:
            return _rpc_error(ident, JSONRPC_INVALID_PARAMS, "Invalid params: the request does not match the schema")
        return _rpc_error(ident, JSONRPC_INVALID_REQUEST, "Invalid Request: not a valid JSON-RPC 2.0 message")
    return None


def _rpc_error(ident: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


class _WireOut:
    """The protocol's stdout: whole lines, one writer at a time, so error answers never tear a frame."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        data = text.encode("utf-8")
        async with self._lock:
            await anyio.to_thread.run_sync(self._write_all, data)

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def flush(self) -> None:
        return None


class _GuardedLines:
    """stdin lines for the SDK, minus those `wire_problem` answers itself."""

    def __init__(self, source: Any, out: _WireOut) -> None:
        self._source = source
        self._out = out

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._source:
            if not line.strip():
                continue
            problem = wire_problem(line)
            if problem is None:
                yield line
            else:
                log.warning("malformed JSON-RPC line answered", extra={"rpc_error": problem["error"]["code"]})
                await self._out.write(json.dumps(problem) + "\n")


@asynccontextmanager
async def guarded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The process's stdin/stdout for the SDK, with fd 0 and fd 1 diverted while serving.

    Stray reads get EOF and stray prints go to stderr, so nothing but protocol reaches stdout.
    """
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    reader = os.fdopen(wire_in, "r", encoding="utf-8", errors="replace", newline="\n")
    out = _WireOut(wire_out)
    try:
        yield _GuardedLines(anyio.wrap_file(reader), out), out
    finally:
        os.dup2(wire_out, 1)
