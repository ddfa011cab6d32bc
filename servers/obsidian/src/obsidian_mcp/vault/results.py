"""What the vault's operations answer: one typed result per operation, its warnings attached.

Each is exactly the JSON a tool returns (the outputSchemas of specs/contracts/obsidian-tools.json
are generated from these models), so the tools hand them on unchanged. The models carry no
docstrings on purpose: pydantic would copy them into every tool's outputSchema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault.markdown import Link


# notes.read_note: a slice of the text, and what the whole note contains.
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


# One note in notes.list_notes: its size in bytes, `modified` in ISO 8601 UTC.
class NoteEntry(BaseModel):
    path: str
    size: int
    modified: str


# notes.list_notes: one page, sorted by path.
class ListNotesResult(BaseModel):
    notes: list[NoteEntry]
    next_cursor: str | None


# notes.append_to_note (`created` when the note was made) and replace_section (never).
class WriteResult(BaseModel):
    path: str
    etag: str
    created: bool = False


# notes.write_note: as WriteResult, with what filling a template ran into.
class WriteNoteResult(WriteResult):
    warnings: list[ToolWarning] = Field(default_factory=list)


# notes.update_frontmatter: the frontmatter as the note now holds it.
class FrontmatterResult(BaseModel):
    path: str
    etag: str
    frontmatter: dict[str, Any]


# notes.delete_note: where in `.trash/` the note went.
class DeleteResult(BaseModel):
    path: str
    trashed_to: str


# daily.daily_note: the note of a date, found or created.
class DailyNoteResult(BaseModel):
    path: str
    created: bool
    content: str
    warnings: list[ToolWarning] = Field(default_factory=list)


# tasks.update_task: the task's line as it now is; `next_created` when a recurring task got its next occurrence.
class TaskUpdateResult(BaseModel):
    path: str
    line: int = Field(description="1-based line of the task now (one lower when a next occurrence was inserted above)")
    text: str = Field(description="the task's whole line as it now is; pass it as expected_text to change it again")
    etag: str
    next_created: bool = Field(description="a recurring task was completed and its next occurrence written above it")
    next_text: str | None = Field(description="the next occurrence's line (just above), if one was written")
    warnings: list[ToolWarning] = Field(default_factory=list)
