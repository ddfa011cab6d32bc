"""Drive a real server subprocess over stdio with the official MCP client, exactly as users start it."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent

UV = os.environ.get("UV") or shutil.which("uv") or "uv"
REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs" / "contracts"

# Words that must never reach a client: tracebacks and exception class names.
LEAK_PATTERNS = re.compile(
    r"Traceback|File \"|\b[A-Z][A-Za-z]*(Error|Exception)\b|HttpError|RefreshError|googleapis\.com"
)


@dataclass
class Answer:
    result: CallToolResult
    payload: dict[str, Any]

    @property
    def error(self) -> str | None:
        code = self.payload.get("error")
        return str(code) if code is not None else None


class Session:
    def __init__(self, client: ClientSession, errlog: Any) -> None:
        self.client = client
        self._errlog = errlog

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> Answer:
        result = await self.client.call_tool(name, arguments or {})
        assert len(result.content) == 1 and isinstance(result.content[0], TextContent), result
        payload = json.loads(result.content[0].text)
        assert isinstance(payload, dict)
        assert bool(result.is_error) == ("error" in payload), "isError must be set exactly for errors"
        if result.is_error:
            # interface.md §1: TS SDK clients reject an error whose structuredContent misses the outputSchema.
            assert result.structured_content is None, "an error result must not carry structuredContent"
        else:
            assert result.structured_content == payload, "structuredContent must equal the text's JSON"
        return Answer(result, payload)

    async def tool_names(self) -> list[str]:
        return sorted(tool.name for tool in (await self.client.list_tools()).tools)

    def stderr_lines(self) -> list[str]:
        self._errlog.flush()
        self._errlog.seek(0)
        return [line for line in self._errlog.read().splitlines() if line.strip()]

    def log_records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stderr_lines()]


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(extra or {})
    return env


@asynccontextmanager
async def running(command: list[str], env: dict[str, str] | None = None) -> AsyncIterator[Session]:
    """Start `uv run <command>` from the repo root, initialise, and yield a Session."""
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        params = StdioServerParameters(
            command=UV, args=["run", "--quiet", "--locked", *command], env=server_env(env), cwd=str(REPO)
        )
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            yield Session(client, errlog)
