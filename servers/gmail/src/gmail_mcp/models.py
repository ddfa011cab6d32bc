"""The ADR-0008 error taxonomy as code: the eight codes, the `MCPError` shape, the details each
code promises, and the warning a success may carry.

This file is duplicated on purpose, byte for byte, in gmail-mcp and obsidian-mcp (see
specs/data-model.md): the servers are independent packages that share no code, and a contract
test checks that both copies agree. The machinery that enforces the contract on every call lives
in `runtime/`, duplicated the same way.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
# Each server builds them in its own `warnings` module, with the codes of specs/.
# No docstring on purpose: pydantic would copy it into every tool's outputSchema.
class ToolWarning(BaseModel):
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
