"""What the link operations answer: the typed results of tags, backlinks, moves, link checks and
tag renames.

The same rules as `vault.results`: each is exactly its tool's JSON, warnings attached, and no
model has a docstring.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from obsidian_mcp.models import ToolWarning


class TagCount(BaseModel):
    tag: str = Field(description="the tag without '#', e.g. 'project/alpha'")
    count: int = Field(description="number of notes with this exact tag")


# tags.list_tags: most used first.
class TagsResult(BaseModel):
    tags: list[TagCount]


# A link to the note asked about, in backlinks.get_backlinks.
class Backlink(BaseModel):
    path: str = Field(description="the linking note")
    line: int = Field(description="1-based line of the link")
    context: str = Field(description="the link's line, trimmed to about 200 characters")
    embed: bool = Field(description="true for an embed (![[...]])")


class AmbiguousLink(Backlink):
    candidates: list[str] = Field(description="every note the link could mean")


# backlinks.get_backlinks: definite links, and apart from them links that might mean the note.
class BacklinksResult(BaseModel):
    path: str
    backlinks: list[Backlink]
    ambiguous: list[AmbiguousLink] = Field(
        description="links that could mean this note or another note of the same name"
    )


# move.move_note: where the note went and which notes had their links rewritten.
class MoveResult(BaseModel):
    path: str
    new_path: str
    updated_notes: list[str] = Field(description="notes whose links were rewritten (at their current paths)")
    warnings: list[ToolWarning] = Field(default_factory=list)


# An unresolved link in check.check_links: where it is and what it says.
class UnresolvedLink(BaseModel):
    path: str = Field(description="the linking note")
    line: int = Field(description="1-based line of the link")
    target: str = Field(description="the link's target as written (without #heading or |alias)")


class AmbiguousTarget(UnresolvedLink):
    candidates: list[str] = Field(description="every note the link could mean")


class LinkTotals(BaseModel):
    notes: int = Field(description="notes checked (those under the folder)")
    unresolved: int
    orphans: int
    ambiguous: int


# check.check_links: one page of each list, and the size of each over every page.
class CheckLinksResult(BaseModel):
    unresolved: list[UnresolvedLink] = Field(description="links whose target note does not exist")
    orphans: list[str] = Field(description="notes no other note links to or embeds")
    ambiguous: list[AmbiguousTarget] = Field(description="links that could mean several notes of the same name")
    totals: LinkTotals = Field(description="the length of each list over all pages")
    next_cursor: str | None = Field(description="pass as cursor for the next page; null when every list is complete")


# retag.rename_tag: the notes rewritten and how many tags were renamed in them.
class RenameTagResult(BaseModel):
    updated_notes: list[str] = Field(description="notes that were rewritten")
    occurrences: int = Field(description="tags renamed, inline and in frontmatter")
    warnings: list[ToolWarning] = Field(default_factory=list)
