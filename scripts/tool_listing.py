"""Write each server's tool listing (`<package>/tool_listing.json`) from its registered tools.

The servers answer tools/list from these files and register their tools only when a call first
needs one (`runtime/listing.py`). `tests/contract/test_tool_listing.py` fails while a file differs
from what the tools generate, so run this after changing a tool (its arguments, result model,
docstring or annotations), then `scripts/specs.py`, and review the diff:

    uv run python scripts/tool_listing.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gmail_mcp.runtime.listing import ToolListing as GmailListing
    from obsidian_mcp.runtime.listing import ToolListing as ObsidianListing


async def obsidian_listing() -> tuple[ObsidianListing, Path]:
    """obsidian-mcp's listing as its tools generate it, and the file it is kept in."""
    from obsidian_mcp.server import TOOL_LISTING, Config, build_server

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "vault").mkdir()
        server = build_server(Config.one_vault(Path(tmp) / "vault", index_dir=Path(tmp) / "index"))
        return await server.tool_listing(), TOOL_LISTING


async def gmail_listing() -> tuple[GmailListing, Path]:
    """gmail-mcp's listing as its tools generate it, and the file it is kept in."""
    from gmail_mcp.config import Settings
    from gmail_mcp.server import TOOL_LISTING, build_server

    return await build_server(Settings.from_env()).tool_listing(), TOOL_LISTING


def main() -> None:
    for generate in (obsidian_listing, gmail_listing):
        listing, path = asyncio.run(generate())
        text = listing.to_json()
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
