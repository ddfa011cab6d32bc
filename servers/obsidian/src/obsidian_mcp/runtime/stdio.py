"""stdio in front of the SDK: JSON-RPC errors the SDK would not send, and a stdout only the protocol uses."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types

log = logging.getLogger("mcp_contract.stdio")

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
