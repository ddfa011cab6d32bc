"""Task tools: `update_task`, a checkbox change written atomically under the note's lock.

The work itself, and the typed result returned as it is, is `obsidian_mcp.vault.tasks`.
"""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import Spaces
from obsidian_mcp.tools.common import NotePathArg, VaultArg
from obsidian_mcp.vault import tasks
from obsidian_mcp.vault.results import TaskUpdateResult

# A write, but asking again for the same status changes nothing more (the line already has it).
TASK_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.tool(annotations=TASK_WRITE)
    def update_task(
        path: NotePathArg,
        line: Annotated[int, Field(ge=1, description="1-based line of the task, as query_notes gives it")],
        expected_text: Annotated[
            str,
            Field(description="the line's current text: the whole line, or the task text query_notes returned"),
        ],
        status: Annotated[
            str,
            Field(min_length=1, max_length=1, description="' ' open, 'x' done, or another status character ('/', '-')"),
        ],
        vault: VaultArg = None,
    ) -> TaskUpdateResult:
        """Set a task's checkbox status; only that character changes, except that completing a
        Tasks-plugin task adds ' ✅ YYYY-MM-DD' (reopening removes it) and completing a recurring one
        (🔁) writes its next occurrence on a new line above. If the line is no longer expected_text,
        nothing is written: permission_denied, reason 'changed'."""
        space = spaces.get(vault)
        return tasks.update_task(space.vault, space.locks, path, line, expected_text, status)
