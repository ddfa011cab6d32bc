"""Note tools: read, list, write, append, replace a section, edit frontmatter, delete.

Each function validates nothing itself beyond its typed arguments and calls the
vault domain (`obsidian_mcp.vault.notes`); failures propagate to the middleware.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from obsidian_mcp.models import ToolWarning
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks

NotePathArg = Annotated[
    str, Field(description="Vault-relative note path with '/', '.md' optional, e.g. 'Projects/Plan'")
]
EtagArg = Annotated[
    str | None, Field(description="etag from an earlier read; the write is refused if the note changed since")
]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
OVERWRITE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


class Link(BaseModel):
    target: str
    alias: str | None = None
    heading: str | None = None
    block: str | None = None
    embed: bool = False
    kind: Literal["wikilink", "markdown"]
    line: int


class ReadNoteResult(BaseModel):
    path: str
    content: str
    frontmatter: dict[str, Any]
    tags: list[str]
    links: list[Link]
    etag: str
    size: int = Field(description="length of the whole note in characters")
    truncated: bool
    next_offset: int | None
    warnings: list[ToolWarning] = Field(default_factory=list)


class NoteEntry(BaseModel):
    path: str
    size: int
    modified: str


class ListNotesResult(BaseModel):
    notes: list[NoteEntry]
    next_cursor: str | None


class WriteResult(BaseModel):
    path: str
    etag: str
    created: bool = False


class FrontmatterResult(BaseModel):
    path: str
    etag: str
    frontmatter: dict[str, Any]


class DeleteResult(BaseModel):
    path: str
    trashed_to: str


def register(server: ContractServer, vault: Vault, locks: PathLocks) -> None:
    @server.tool(annotations=READ)
    def read_note(
        path: NotePathArg,
        offset: Annotated[int, Field(ge=0, description="character offset to start from (next_offset)")] = 0,
        max_chars: Annotated[int, Field(ge=1, le=200_000, description="characters to return at most")] = 20_000,
    ) -> ReadNoteResult:
        """Read a note: its text (paged for large notes), parsed frontmatter, tags, outgoing links and etag."""
        raw = notes.read_note(vault, path, offset=offset, max_chars=max_chars, strict_frontmatter=False)
        problem = raw.pop("frontmatter_error", None)
        result = ReadNoteResult.model_validate(raw)
        if problem is not None:
            result.warnings.append(
                ToolWarning(
                    code="FRONTMATTER_INVALID",
                    message="the frontmatter is not valid YAML; it is returned "
                    "as text in content and as {} in frontmatter",
                    line=problem["line"],
                )
            )
        if result.truncated:
            result.warnings.append(
                ToolWarning(
                    code="CONTENT_TRUNCATED",
                    message=f"returned {len(result.content)} of {result.size} characters; "
                    f"call again with offset={result.next_offset} for more",
                    next_offset=result.next_offset,
                )
            )
        return result

    @server.tool(annotations=READ)
    def list_notes(
        folder: Annotated[str, Field(description="vault-relative folder; '' for the whole vault")] = "",
        recursive: bool = True,
        limit: Annotated[int, Field(ge=1, le=1000)] = 200,
        cursor: Annotated[str | None, Field(description="next_cursor of the previous page")] = None,
    ) -> ListNotesResult:
        """List notes (path, size, modified) sorted by path, paged with a cursor. Hidden folders are never listed."""
        return ListNotesResult.model_validate(
            notes.list_notes(vault, folder, recursive=recursive, limit=limit, cursor=cursor)
        )

    @server.tool(annotations=OVERWRITE)
    def write_note(
        path: NotePathArg,
        content: str,
        mode: Annotated[
            Literal["create", "overwrite"],
            Field(description="'create' refuses an existing note; 'overwrite' replaces it"),
        ] = "create",
        expected_etag: EtagArg = None,
    ) -> WriteResult:
        """Create a note, or replace one (mode='overwrite'). Atomic; folders are created as needed."""
        return WriteResult.model_validate(
            notes.write_note(vault, locks, path, content, mode=mode, expected_etag=expected_etag)
        )

    @server.tool(annotations=WRITE)
    def append_to_note(
        path: NotePathArg,
        content: str,
        heading: Annotated[
            str | None,
            Field(description="append at the end of this heading's section instead of the end of the note"),
        ] = None,
        create_if_missing: bool = False,
    ) -> WriteResult:
        """Append text to the end of a note or of one heading's section; the rest stays byte-identical."""
        return WriteResult.model_validate(
            notes.append_to_note(vault, locks, path, content, heading=heading, create_if_missing=create_if_missing)
        )

    @server.tool(annotations=OVERWRITE)
    def replace_section(
        path: NotePathArg,
        heading: Annotated[str, Field(description="heading text, optionally with its level: 'Tasks' or '## Tasks'")],
        content: str,
        expected_etag: EtagArg = None,
    ) -> WriteResult:
        """Replace the body under one heading (up to the next heading of the same or higher level)."""
        return WriteResult.model_validate(
            notes.replace_section(vault, locks, path, heading, content, expected_etag=expected_etag)
        )

    @server.tool(annotations=WRITE)
    def update_frontmatter(
        path: NotePathArg,
        set: Annotated[dict[str, Any] | None, Field(description="keys to set (created if absent)")] = None,
        remove: Annotated[list[str] | None, Field(description="keys to remove")] = None,
        expected_etag: EtagArg = None,
    ) -> FrontmatterResult:
        """Set or remove frontmatter keys; other keys keep their order and comments, the body is untouched."""
        return FrontmatterResult.model_validate(
            notes.update_frontmatter(vault, locks, path, set or {}, remove or [], expected_etag=expected_etag)
        )

    @server.tool(annotations=OVERWRITE)
    def delete_note(path: NotePathArg) -> DeleteResult:
        """Move a note to the vault's .trash/ folder (as Obsidian does); nothing is deleted permanently."""
        return DeleteResult.model_validate(notes.delete_note(vault, locks, path))
