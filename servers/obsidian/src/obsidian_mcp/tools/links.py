"""Link tools: backlinks, link hygiene, and moving a note with the links to it.

All are async so that a first index build can report MCP progress (see `tools.worker`); the
work itself, and the typed result each returns as it is, is `obsidian_mcp.links`.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from obsidian_mcp.links import backlinks, check, move
from obsidian_mcp.links.results import BacklinksResult, CheckLinksResult, MoveResult
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import Spaces
from obsidian_mcp.tools.common import READ, WRITE, NotePathArg, VaultArg
from obsidian_mcp.tools.worker import in_worker


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.tool(annotations=READ)
    async def get_backlinks(ctx: Context[Any, Any], path: NotePathArg, vault: VaultArg = None) -> BacklinksResult:
        """Notes linking to a note (wikilinks, Markdown links and embeds, resolved like Obsidian),
        with the line and its text. Links that could also mean another note of the same name are
        listed under 'ambiguous' instead of being guessed."""
        return await in_worker(ctx, lambda report: backlinks.get_backlinks(spaces.get(vault).index, path, report))

    @server.tool(annotations=READ)
    async def check_links(
        ctx: Context[Any, Any],
        folder: Annotated[str, Field(description="vault-relative folder whose notes are checked; '' for all")] = "",
        limit: Annotated[
            int, Field(ge=1, le=check.MAX_LIMIT, description="entries per list at most on this page")
        ] = check.DEFAULT_LIMIT,
        cursor: Annotated[str | None, Field(description="next_cursor of the previous page")] = None,
        vault: VaultArg = None,
    ) -> CheckLinksResult:
        """Link hygiene of the notes under a folder: unresolved links (no such note) with note,
        line and target; orphans (no other note links to or embeds them); ambiguous links (a name
        several notes share) with their candidates. Resolved like Obsidian; links in code are not
        links. Each list is paged by `limit`; totals count everything; pass next_cursor for more."""
        return await in_worker(
            ctx, lambda report: check.check_links(spaces.get(vault).index, folder, limit, cursor, report)
        )

    @server.tool(annotations=WRITE)
    async def move_note(
        ctx: Context[Any, Any],
        path: NotePathArg,
        new_path: Annotated[str, Field(description="where the note goes; folders are created as needed")],
        update_links: Annotated[
            bool, Field(description="rewrite links in other notes (and the note's own relative links)")
        ] = True,
        vault: VaultArg = None,
    ) -> MoveResult:
        """Move or rename a note, updating links to it in their own style (names, paths, aliases,
        headings and embeds kept). Never replaces an existing note. The move happens first: a note
        whose links could not be rewritten is reported in warnings, not rolled back."""
        space = spaces.get(vault)
        return await in_worker(
            ctx, lambda report: move.move_note(space.index, space.locks, path, new_path, update_links, report)
        )
