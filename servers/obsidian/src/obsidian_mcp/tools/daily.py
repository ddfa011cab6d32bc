"""The daily note tool: find or create the daily or periodic note of a date the way Obsidian's plugins do."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp_types import ToolAnnotations
from pydantic import Field

from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import Spaces
from obsidian_mcp.tools.common import VaultArg
from obsidian_mcp.vault import daily
from obsidian_mcp.vault.results import DailyNoteResult

# Creates a missing note, but calling again changes nothing more: idempotent, not destructive.
DAILY = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.tool(annotations=DAILY, kept_read_only=True)  # read-only mode: finds, never creates
    def daily_note(
        date: Annotated[
            str | None,
            Field(description="ISO date YYYY-MM-DD; the note of the period holding it. Default today (local time)"),
        ] = None,
        create: Annotated[bool, Field(description="create the note from the template if it does not exist")] = True,
        period: Annotated[
            Literal["day", "week", "month", "quarter", "year"],
            Field(description="which periodic note: the daily note, or the weekly, monthly, ... one"),
        ] = "day",
        vault: VaultArg = None,
    ) -> DailyNoteResult:
        """The daily (or weekly, monthly, quarterly, yearly) note of a date, where Obsidian keeps it
        (Periodic Notes plugin settings, else .obsidian/daily-notes.json, else the plugin's defaults):
        returned if it exists, else created from its template. In read-only mode, or with
        create=false, a missing note is not_found."""
        space = spaces.get(vault)
        return daily.daily_note(space.vault, space.locks, date, create, period=period, may_write=not server.read_only)
