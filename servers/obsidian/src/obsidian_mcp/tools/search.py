"""Search tools: full-text search and tag counts, answered from the vault's index.

Both are async so that a first index build can report MCP progress while it runs on a worker
thread (see `tools.progress`); the work itself is `obsidian_mcp.index`.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from obsidian_mcp.index import search, tags
from obsidian_mcp.index.query import MAX_QUERY_CHARS
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.tools.notes import READ
from obsidian_mcp.tools.progress import in_worker

FolderArg = Annotated[str, Field(description="vault-relative folder to search in; '' for the whole vault")]


class SearchHit(BaseModel):
    path: str
    title: str
    score: float = Field(description="relevance (BM25); higher is better, comparable within one search")
    line: int | None = Field(
        description="1-based line of the best match; null if only the title, aliases or tags matched"
    )
    heading: str | None = Field(description="the heading the matching line is under, if any")
    snippet: str = Field(description="about 160 characters around the match, on one line")


class SearchResult(BaseModel):
    results: list[SearchHit]
    total: int = Field(description="number of matching notes before the limit")
    warnings: list[ToolWarning] = Field(default_factory=list)


class TagCount(BaseModel):
    tag: str = Field(description="the tag without '#', e.g. 'project/alpha'")
    count: int = Field(description="number of notes with this exact tag")


class TagsResult(BaseModel):
    tags: list[TagCount]


def register(server: ContractServer, index: VaultIndex) -> None:
    @server.tool(annotations=READ)
    async def search_notes(
        ctx: Context[Any, Any],
        query: Annotated[
            str,
            Field(
                max_length=MAX_QUERY_CHARS,
                description='words (all must match), "exact phrase", prefix*, -excluded, a OR b',
            ),
        ],
        folder: FolderArg = "",
        tags: Annotated[
            list[str] | None,
            Field(description="only notes having all these tags ('#' optional; 'a' also matches 'a/b')"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=search.MAX_LIMIT, description="results to return at most")] = 20,
    ) -> SearchResult:
        """Full-text search of the vault's notes, best match first (titles and aliases weigh most,
        then headings and tags, then text; code least). Case and accents are ignored. Each result
        has the best matching line, its heading and a snippet. A first search of a large vault
        builds the index and reports progress."""
        return SearchResult.model_validate(
            await in_worker(ctx, lambda report: search.search_notes(index, query, folder, tags or [], limit, report))
        )

    @server.tool(annotations=READ)
    async def list_tags(ctx: Context[Any, Any], folder: FolderArg = "") -> TagsResult:
        """Tags used in the vault (or under a folder) with the number of notes carrying each, most
        used first. Nested tags count under their full name ('project/alpha'); tags in code are
        not tags."""
        return TagsResult.model_validate(await in_worker(ctx, lambda report: tags.list_tags(index, folder, report)))
