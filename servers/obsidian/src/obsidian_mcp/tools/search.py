"""Search tools: search by words and by meaning, similar notes and tag counts, from the vault's index.

All are async so that a call waiting for the index's first build can report MCP progress from
its worker thread (see `tools.worker`); `search_notes` answers completely during that build, from
the notes indexed and those still to index (`index.pending`). The work itself, and the typed
result each returns as it is, is `obsidian_mcp.search` (and `obsidian_mcp.links.tags`).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from obsidian_mcp import search
from obsidian_mcp.links import tags
from obsidian_mcp.links.results import TagsResult
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.search.query import MAX_QUERY_CHARS
from obsidian_mcp.search.results import SearchResult, SimilarResult
from obsidian_mcp.spaces import EVERY_VAULT, Spaces, VaultsResult
from obsidian_mcp.spaces import list_vaults as vault_list
from obsidian_mcp.tools.common import READ, NotePathArg, VaultArg
from obsidian_mcp.tools.worker import in_worker

FolderArg = Annotated[str, Field(description="vault-relative folder to search in; '' for the whole vault")]


SearchedVaultArg = Annotated[
    str | None,
    Field(description="vault name (list_vaults), or '*': every vault, one ranking; default: the default vault"),
]


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.tool(annotations=READ)
    async def search_notes(
        ctx: Context[Any, Any],
        query: Annotated[
            str,
            Field(
                max_length=MAX_QUERY_CHARS,
                description='a question or words; "exact phrase", prefix*, -excluded, a OR b (keyword mode: every '
                "word must match)",
            ),
        ],
        folder: FolderArg = "",
        tags: Annotated[
            list[str] | None,
            Field(description="only notes having all these tags ('#' optional; 'a' also matches 'a/b')"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=search.MAX_LIMIT, description="results to return at most")] = 20,
        mode: Annotated[
            search.Mode,
            Field(
                description="hybrid: words and meaning, exact matches first (questions, topics); keyword: only "
                "notes with every word (exact lists, counts via total); semantic: meaning only"
            ),
        ] = "hybrid",
        vault: SearchedVaultArg = None,
    ) -> SearchResult:
        """Search the vault's notes, best first. By default (hybrid) notes saying it in other words
        are found too, so ask in plain language; exact phrases, rare words and titles stay first.
        Each result has the matching line (or closest passage), heading, snippet and match: words,
        or meaning (found by meaning alone). No result: no note has the words or is close in
        meaning. SEMANTIC_NOT_READY: meanings loading; notes with the words are all there.
        INDEX_BUILDING (huge vault, just started): may miss notes."""
        return await in_worker(
            ctx,
            lambda report: search.search_every_vault(
                [(space.name, space.index) for space in spaces.searched(vault)],
                query,
                folder,
                tags or [],
                limit,
                report,
                mode,
                name_vaults=vault == EVERY_VAULT,
            ),
        )

    @server.tool(annotations=READ)
    async def similar_notes(
        ctx: Context[Any, Any],
        path: NotePathArg,
        limit: Annotated[int, Field(ge=1, le=search.MAX_LIMIT, description="results to return at most")] = 10,
        vault: VaultArg = None,
    ) -> SimilarResult:
        """Notes closest in meaning to a note (the note itself excluded), closest first: related
        notes to link, read or merge, whatever words they use."""
        return await in_worker(ctx, lambda report: search.similar_notes(spaces.get(vault).index, path, limit, report))

    @server.tool(annotations=READ)
    async def list_tags(ctx: Context[Any, Any], folder: FolderArg = "", vault: VaultArg = None) -> TagsResult:
        """Tags used in the vault (or under a folder) with the number of notes carrying each, most
        used first. Nested tags count under their full name ('project/alpha'); tags in code are
        not tags."""
        return await in_worker(ctx, lambda report: tags.list_tags(spaces.get(vault).index, folder, report))

    @server.tool(annotations=READ)
    def list_vaults() -> VaultsResult:
        """The vaults this server serves, in order: name (the `vault` argument of every tool), default
        (used without `vault`), notes (count) and indexed (its index is built; a vault's first call
        builds it)."""
        return vault_list(spaces)
