"""Note tools: read, list, write, append, replace a section, edit frontmatter, delete.

Each function validates nothing itself beyond its typed arguments, calls the vault domain
(`obsidian_mcp.vault.notes`) and returns its typed result as it is; failures propagate to the
middleware.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import Spaces
from obsidian_mcp.tools.common import OVERWRITE, READ, WRITE, EtagArg, NotePathArg, VaultArg
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.results import (
    DeleteResult,
    FrontmatterResult,
    ListNotesResult,
    ReadNoteResult,
    WriteNoteResult,
    WriteResult,
)


def register(server: ContractServer, spaces: Spaces) -> None:
    @server.tool(annotations=READ)
    def read_note(
        path: NotePathArg,
        offset: Annotated[int, Field(ge=0, description="character offset to start from (next_offset)")] = 0,
        max_chars: Annotated[int, Field(ge=1, le=200_000, description="characters to return at most")] = 20_000,
        vault: VaultArg = None,
    ) -> ReadNoteResult:
        """Read a note: its text (paged for large notes), parsed frontmatter, tags, outgoing links and etag."""
        return notes.read_note(
            spaces.get(vault).vault, path, offset=offset, max_chars=max_chars, strict_frontmatter=False
        )

    @server.tool(annotations=READ)
    def list_notes(
        folder: Annotated[str, Field(description="vault-relative folder; '' for the whole vault")] = "",
        recursive: bool = True,
        limit: Annotated[int, Field(ge=1, le=1000)] = 200,
        cursor: Annotated[str | None, Field(description="next_cursor of the previous page")] = None,
        vault: VaultArg = None,
    ) -> ListNotesResult:
        """List notes (path, size, modified) sorted by path, paged with a cursor. Hidden folders are never listed."""
        return notes.list_notes(spaces.get(vault).vault, folder, recursive=recursive, limit=limit, cursor=cursor)

    @server.tool(annotations=OVERWRITE)
    def write_note(
        path: NotePathArg,
        content: Annotated[
            str | None, Field(description="the note's text; with a template, written after the template's text")
        ] = None,
        mode: Annotated[
            Literal["create", "overwrite"],
            Field(description="'create' refuses an existing note; 'overwrite' replaces it"),
        ] = "create",
        expected_etag: EtagArg = None,
        template: Annotated[
            str | None,
            Field(
                description="a note in the templates folder (.obsidian/templates.json), '.md' optional, e.g. "
                "'Meeting'; {{title}}, {{date}}, {{time}}, {{date:FORMAT}}, {{time:FORMAT}} are filled in"
            ),
        ] = None,
        vault: VaultArg = None,
    ) -> WriteNoteResult:
        """Create a note, or replace one (mode='overwrite'), from content, a template, or both.
        Atomic; folders are created as needed. Templater syntax (<% %>) is copied as written, with
        a warning."""
        space = spaces.get(vault)
        return notes.write_note(
            space.vault, space.locks, path, content, mode=mode, expected_etag=expected_etag, template=template
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
        vault: VaultArg = None,
    ) -> WriteResult:
        """Append text to the end of a note or of one heading's section; the rest stays byte-identical."""
        space = spaces.get(vault)
        return notes.append_to_note(
            space.vault, space.locks, path, content, heading=heading, create_if_missing=create_if_missing
        )

    @server.tool(annotations=OVERWRITE)
    def replace_section(
        path: NotePathArg,
        heading: Annotated[str, Field(description="heading text, optionally with its level: 'Tasks' or '## Tasks'")],
        content: str,
        expected_etag: EtagArg = None,
        vault: VaultArg = None,
    ) -> WriteResult:
        """Replace the body under one heading (up to the next heading of the same or higher level)."""
        space = spaces.get(vault)
        return notes.replace_section(space.vault, space.locks, path, heading, content, expected_etag=expected_etag)

    @server.tool(annotations=WRITE)
    def update_frontmatter(
        path: NotePathArg,
        set: Annotated[dict[str, Any] | None, Field(description="keys to set (created if absent)")] = None,
        remove: Annotated[list[str] | None, Field(description="keys to remove")] = None,
        expected_etag: EtagArg = None,
        vault: VaultArg = None,
    ) -> FrontmatterResult:
        """Set or remove frontmatter keys; other keys keep their order and comments, the body is untouched."""
        space = spaces.get(vault)
        return notes.update_frontmatter(
            space.vault, space.locks, path, set or {}, remove or [], expected_etag=expected_etag
        )

    @server.tool(annotations=OVERWRITE)
    def delete_note(path: NotePathArg, vault: VaultArg = None) -> DeleteResult:
        """Move a note to the vault's .trash/ folder (as Obsidian does); nothing is deleted permanently."""
        space = spaces.get(vault)
        return notes.delete_note(space.vault, space.locks, path)
