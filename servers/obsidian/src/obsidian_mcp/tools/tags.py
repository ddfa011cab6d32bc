"""Tag tools that write: renaming a tag across the vault (counting tags is `search.list_tags`).

Async so that the index sync it starts with can report MCP progress (see `tools.worker`); the
work itself, and the typed result returned as it is, is `obsidian_mcp.links.retag`.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from obsidian_mcp.links import retag
from obsidian_mcp.links.results import RenameTagResult
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import Spaces
from obsidian_mcp.tools.common import VaultArg
from obsidian_mcp.tools.worker import in_worker

# Rewrites every note carrying the tag; asking again finds nothing left to rename.
RETAG = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

TagArg = Annotated[str, Field(description="a tag, '#' optional, e.g. 'project' or '#project/alpha'")]


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.tool(annotations=RETAG)
    async def rename_tag(
        ctx: Context[Any, Any],
        tag: TagArg,
        new_tag: Annotated[str, Field(description="the new name; nested tags keep their rest ('a/x' → 'b/x')")],
        vault: VaultArg = None,
    ) -> RenameTagResult:
        """Rename a tag and the tags nested under it in every note: inline #tags and frontmatter
        tags/tag (list or string), not in code, never longer tags (#tagged for #tag). Case is
        ignored when matching; each note is rewritten atomically with only the tag text changed.
        Renaming into a tag a frontmatter list already has merges them without duplicates."""
        space = spaces.get(vault)
        return await in_worker(ctx, lambda report: retag.rename_tag(space.index, space.locks, tag, new_tag, report))
