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
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Literal, get_args

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
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


class Warning(BaseModel):
    """A problem that did not stop the work (graceful-degradation seed): CONTENT_TRUNCATED, PARTIAL_RESULTS, ..."""

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
    """An error: the MCPError JSON as text, `isError: true`, and the same object as structuredContent."""
    payload = err.model_dump(mode="json")
    return CallToolResult(content=_text(payload), structured_content=payload, is_error=True)


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

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        request_id = uuid.uuid4().hex[:16]  # ctx.request_id is the JSON-RPC id: not unique, not ours
        token = REQUEST_ID.set(request_id)
        started = time.perf_counter()
        error: MCPError | None = None
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
        assert error is not None  # every path that did not return a success set one
        return error_result(error)

    def _refuse(self, name: str, arguments: dict[str, Any], request_id: str) -> MCPError | None:
        """Checks made before the SDK sees the call: unknown tool, read-only mode, unexpected arguments."""
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
