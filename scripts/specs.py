"""Keep specs/contracts/*.json in step with the servers.

`uv run python scripts/specs.py` rewrites, for every tool a server registers, its
entry's description, inputSchema, outputSchema and annotations from the live
server and marks it implemented; planned tools and every tool's errorSchema
(the codes it may return) are maintained by hand. The contract suite fails when
the files and the servers disagree, so run this after changing a tool and review
the diff.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CONTRACTS = REPO / "specs" / "contracts"


def error_schema(codes: list[str]) -> dict[str, Any]:
    return {"allOf": [{"$ref": "#/$defs/MCPError"}, {"properties": {"error": {"enum": codes}}}]}


def codes_of(entry: dict[str, Any]) -> list[str]:
    return list(entry["errorSchema"]["allOf"][1]["properties"]["error"]["enum"])


async def live_tools(server: Any) -> list[dict[str, Any]]:
    """Every tool as its registration generates it (`ContractServer.tool_listing`), not the prebuilt listing."""
    return list((await server.tool_listing()).tools)


async def obsidian_tools() -> list[dict[str, Any]]:
    from obsidian_mcp.server import Config, build_server

    with tempfile.TemporaryDirectory() as vault:
        return await live_tools(build_server(Config.one_vault(Path(vault))))


async def gmail_tools() -> list[dict[str, Any]]:
    from gmail_mcp.config import Settings
    from gmail_mcp.server import build_server

    return await live_tools(build_server(Settings.from_env()))


def update(path: Path, live: list[dict[str, Any]], mcp_error_schema: dict[str, Any]) -> None:
    spec = json.loads(path.read_text(encoding="utf-8"))
    entries = {entry["name"]: entry for entry in spec["tools"]}
    for tool in live:
        entry = entries.get(tool["name"])
        if entry is None:
            sys.exit(f"{path.name}: {tool['name']} is not in the spec; add an entry with its errorSchema codes first")
        entry.update(
            status="implemented",
            description=tool.get("description"),
            inputSchema=tool.get("inputSchema"),
            outputSchema=tool.get("outputSchema"),
            annotations=tool.get("annotations"),
        )
    spec["$defs"] = {"MCPError": mcp_error_schema}
    path.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    from obsidian_mcp.models import MCPError

    schema = MCPError.model_json_schema()
    update(CONTRACTS / "obsidian-tools.json", asyncio.run(obsidian_tools()), schema)
    update(CONTRACTS / "gmail-tools.json", asyncio.run(gmail_tools()), schema)


if __name__ == "__main__":
    main()
