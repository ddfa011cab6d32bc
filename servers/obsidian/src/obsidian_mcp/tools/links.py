"""Link tools: backlinks, moving a note with its links, and daily notes."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from obsidian_mcp.index import backlinks, move
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.tools.notes import READ, WRITE, NotePathArg
from obsidian_mcp.tools.progress import in_worker
from obsidian_mcp.vault import daily
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks

DAILY = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


class Backlink(BaseModel):
    path: str = Field(description="the linking note")
    line: int = Field(description="1-based line of the link")
    context: str = Field(description="the link's line, trimmed to about 200 characters")
    embed: bool = Field(description="true for an embed (![[...]])")


class AmbiguousLink(Backlink):
    candidates: list[str] = Field(description="every note the link could mean")


class BacklinksResult(BaseModel):
    path: str
    backlinks: list[Backlink]
    ambiguous: list[AmbiguousLink] = Field(
        description="links that could mean this note or another note of the same name"
    )


class MoveResult(BaseModel):
    path: str
    new_path: str
    updated_notes: list[str] = Field(description="notes whose links were rewritten (at their current paths)")
    warnings: list[ToolWarning] = Field(default_factory=list)


class DailyNoteResult(BaseModel):
    path: str
    created: bool
    content: str
    warnings: list[ToolWarning] = Field(default_factory=list)


def register(server: ContractServer, vault: Vault, index: VaultIndex, locks: PathLocks) -> None:
    @server.tool(annotations=READ)
    async def get_backlinks(ctx: Context[Any, Any], path: NotePathArg) -> BacklinksResult:
        """Notes linking to a note (wikilinks, Markdown links and embeds, resolved like Obsidian),
        with the line and its text. Links that could also mean another note of the same name are
        listed under 'ambiguous' instead of being guessed."""
        return BacklinksResult.model_validate(
            await in_worker(ctx, lambda report: backlinks.get_backlinks(index, path, report))
        )

    @server.tool(annotations=DAILY, kept_read_only=True)  # read-only mode: finds, never creates
    def daily_note(
        date: Annotated[
            str | None, Field(description="ISO date YYYY-MM-DD; default today (server's local time)")
        ] = None,
        create: Annotated[bool, Field(description="create the note from the template if it does not exist")] = True,
    ) -> DailyNoteResult:
        """The daily note of a date, following .obsidian/daily-notes.json (folder, date format,
        template) like Obsidian: returned if it exists, else created from the template. In
        read-only mode, or with create=false, a missing note is not_found."""
        return DailyNoteResult.model_validate(
            daily.daily_note(vault, locks, date, create, may_write=not server.read_only)
        )

    @server.tool(annotations=WRITE)
    async def move_note(
        ctx: Context[Any, Any],
        path: NotePathArg,
        new_path: Annotated[str, Field(description="where the note goes; folders are created as needed")],
        update_links: Annotated[
            bool, Field(description="rewrite links in other notes (and the note's own relative links)")
        ] = True,
    ) -> MoveResult:
        """Move or rename a note, updating links to it in their own style (names, paths, aliases,
        headings and embeds kept). Never replaces an existing note. The move happens first: a note
        whose links could not be rewritten is reported in warnings, not rolled back."""
        return MoveResult.model_validate(
            await in_worker(ctx, lambda report: move.move_note(index, locks, path, new_path, update_links, report))
        )
