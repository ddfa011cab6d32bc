"""The repository's .mcp.json starts both servers the way Claude Code does (env defaults expanded)."""

from __future__ import annotations

import json
import os
import re

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.contract.harness import REPO, UV, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.stdio_only(reason=".mcp.json starts both servers over stdio")]


def expand(value: str, environ: dict[str, str]) -> str:
    """Claude Code's expansion in .mcp.json: ${VAR} and ${VAR:-default}."""
    return re.sub(r"\$\{([A-Z0-9_]+)(?::-([^}]*))?\}", lambda m: environ.get(m[1]) or (m[2] or ""), value)


@pytest.mark.parametrize("name", ["obsidian", "gmail"])
async def test_each_registered_server_connects_and_lists_tools(name: str, tmp_path: object) -> None:
    config = json.loads((REPO / ".mcp.json").read_text())["mcpServers"][name]
    environ = server_env({"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)})
    environ.pop("OBSIDIAN_VAULT_PATH", None)  # the default must work out of the box
    env = {key: expand(value, environ) for key, value in config.get("env", {}).items()}
    command = UV if config["command"] == "uv" else config["command"]
    params = StdioServerParameters(
        command=command, args=[expand(a, environ) for a in config["args"]], env=environ | env, cwd=str(REPO)
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            info = await client.initialize()
            tools = (await client.list_tools()).tools
    assert info.server_info.name == f"{name}-mcp"
    assert len(tools) >= 6
