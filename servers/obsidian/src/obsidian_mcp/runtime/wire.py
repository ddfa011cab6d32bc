"""The wire form of a tool result (interface.md §1)."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, ContentBlock, TextContent

from ..models import MCPError


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
