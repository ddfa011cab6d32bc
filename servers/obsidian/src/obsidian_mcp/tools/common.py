"""What the tool modules share: the annotation sets that say whether a tool writes, and argument types."""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
OVERWRITE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

NotePathArg = Annotated[
    str, Field(description="Vault-relative note path with '/', '.md' optional, e.g. 'Projects/Plan'")
]
EtagArg = Annotated[
    str | None, Field(description="etag from an earlier read; the write is refused if the note changed since")
]
VaultArg = Annotated[str | None, Field(description="vault name (list_vaults); default: the default vault")]
