"""The prebuilt tool listings are exactly what the registered tools generate.

Both servers answer tools/list from `<package>/tool_listing.json` and register their tools (the SDK's
pydantic models of arguments and results) only when a call first needs one (`runtime/listing.py`).
A tool changed without regenerating its server's file fails here: run `scripts/tool_listing.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from scripts.tool_listing import gmail_listing, obsidian_listing

pytestmark = pytest.mark.transport_independent(reason="compares generated schemas with a file, no server process")

GENERATORS: dict[str, Callable[[], Awaitable[tuple[Any, Path]]]] = {
    "obsidian-mcp": obsidian_listing,
    "gmail-mcp": gmail_listing,
}


@pytest.mark.parametrize("server", GENERATORS)
def test_the_prebuilt_listing_is_what_the_tools_generate(server: str) -> None:
    """Every tool, in order, with every field and schema keyword (the key order inside a schema says
    nothing and may differ with what the process imported before); and which tools write."""
    generated, path = asyncio.run(GENERATORS[server]())
    stored = type(generated).read(path)
    assert stored.tools == generated.tools, f"{path.name} of {server} is stale: run scripts/tool_listing.py"
    assert stored.write_tools == generated.write_tools, f"{path.name}: run scripts/tool_listing.py"


@pytest.mark.parametrize("server", GENERATORS)
@pytest.mark.parametrize("read_only", [False, True])
def test_tools_list_before_any_call_is_tools_list_after_one(server: str, read_only: bool) -> None:
    """Before its tools are registered a server lists them from the file; once registered, from the same file:
    what is listed depends on the mode alone, and every listed tool is registered."""
    generated, _ = asyncio.run(GENERATORS[server]())
    built = _build(server, read_only)
    before = [
        tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in asyncio.run(built.list_tools())
    ]
    expected = [tool for tool in generated.tools if not (read_only and tool["name"] in generated.write_tools)]
    assert before == expected
    assert built._tool_manager.list_tools() == []  # nothing registered by listing
    built._registered()
    assert {tool["name"] for tool in before} <= {tool.name for tool in built._tool_manager.list_tools()}


def _build(server: str, read_only: bool) -> Any:
    if server == "gmail-mcp":
        from gmail_mcp.config import Settings
        from gmail_mcp.server import build_server as build_gmail

        return build_gmail(Settings.from_env(read_only=read_only))
    import tempfile

    from obsidian_mcp.server import Config
    from obsidian_mcp.server import build_server as build_obsidian

    tmp = Path(tempfile.mkdtemp())
    return build_obsidian(Config.one_vault(tmp, index_dir=tmp.parent / f"{tmp.name}-index", read_only=read_only))


@pytest.mark.parametrize("server", GENERATORS)
def test_start_up_is_over_at_the_first_tools_list_once(server: str) -> None:
    """`after_start_up` work (obsidian: loading the vectors and the model) begins once, when the tools are listed."""
    built = _build(server, read_only=False)
    begun: list[str] = []
    built.after_start_up(lambda: begun.append("begun"))
    assert begun == []
    asyncio.run(built.list_tools())
    asyncio.run(built.list_tools())
    assert begun == ["begun"]
