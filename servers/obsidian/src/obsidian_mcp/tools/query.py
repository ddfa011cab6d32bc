"""Dataview queries: `query_notes`, answered from the index's pages with the freshness of search.

Async so that the first build of the pages can report MCP progress while it runs on a worker
thread (see `tools.worker`); during the index's first build the query waits for it, with progress,
unless it cannot end in time (`INDEX_BUILDING` then: see `dataview.pages.dql`). The work itself, and the
typed result returned as it is, is `obsidian_mcp.dataview.pages.dql`.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from obsidian_mcp.dataview.pages.query_limits import MAX_LIMIT, MAX_QUERY_CHARS
from obsidian_mcp.dataview.pages.results import QueryNotesResult
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import Spaces
from obsidian_mcp.tools.common import READ, VaultArg
from obsidian_mcp.tools.worker import in_worker


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.tool(annotations=READ)
    async def query_notes(
        ctx: Context[Any, Any],
        query: Annotated[
            str,
            Field(
                max_length=MAX_QUERY_CHARS,
                description='a Dataview (DQL) query, e.g. TABLE status, due FROM #project WHERE status != "done" '
                "SORT due; or TASK WHERE !completed AND due <= date(today)",
            ),
        ],
        limit: Annotated[
            int, Field(ge=1, le=MAX_LIMIT, description="rows (or top-level tasks, or groups) to return at most")
        ] = 100,
        vault: VaultArg = None,
    ) -> QueryNotesResult:
        """Query notes with Dataview's language: LIST [expr] | TABLE [WITHOUT ID] expr [AS "name"], ...
        | TASK; FROM #tag, "folder", [[note]], outgoing([[note]]) with and/or/-; WHERE, SORT, GROUP BY,
        FLATTEN, LIMIT. Fields: frontmatter, inline key:: value, file.* (name, path, folder, tags,
        inlinks, outlinks, mtime, ...); tasks: status, text, completed, due, scheduled, priority.
        date(today), dur(1 week), functions. Rows: path + one value per column; tasks carry the
        path and line update_task needs."""
        from obsidian_mcp.dataview.pages import dql  # the Dataview engine loads on the first query

        return await in_worker(
            ctx, lambda report: dql.query_notes(spaces.get(vault).pages, query, limit, progress=report)
        )
