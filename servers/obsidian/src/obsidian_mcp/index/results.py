"""What the index's operations answer: the typed results of search, tags, backlinks and moves.

The same rules as `vault.results`: each is exactly its tool's JSON, warnings attached, and no
model has a docstring.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from obsidian_mcp.models import ToolWarning


# One note found by search.search_notes.
class SearchHit(BaseModel):
    path: str
    title: str
    score: float = Field(description="relevance (BM25); higher is better, comparable within one search")
    line: int | None = Field(
        description="1-based line of the best match; null if only the title, aliases or tags matched"
    )
    heading: str | None = Field(description="the heading the matching line is under, if any")
    snippet: str = Field(description="about 160 characters around the match, on one line")


# search.search_notes: the best `limit` notes, and how many matched in all.
class SearchResult(BaseModel):
    results: list[SearchHit]
    total: int = Field(description="number of matching notes before the limit")
    warnings: list[ToolWarning] = Field(default_factory=list)


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
