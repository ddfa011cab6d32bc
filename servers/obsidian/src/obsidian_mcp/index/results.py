"""What the index's operations answer: the typed results of search (by words and by meaning), tags,
backlinks, moves, link checks, tag renames and Dataview queries.

The same rules as `vault.results`: each is exactly its tool's JSON, warnings attached, and no
model has a docstring.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from obsidian_mcp.models import ToolWarning


# One note found by search.search_notes.
class SearchHit(BaseModel):
    path: str
    title: str
    score: float = Field(
        description="relevance, higher is better, comparable within one search: BM25 (keyword), cosine similarity "
        "(semantic), fused rank (hybrid; above 1 for exact matches kept on top)"
    )
    line: int | None = Field(
        description="1-based line of the best match (of the closest passage when found by meaning); null if only "
        "the title, aliases or tags matched"
    )
    heading: str | None = Field(description="the heading the matching line is under, if any")
    snippet: str = Field(description="about 160 characters around the match, on one line")
    match: Literal["words", "meaning"] = Field(
        description="words: the note holds the query's words; meaning: found by meaning alone"
    )


# search.search_notes: the best `limit` notes, and how many matched in all.
class SearchResult(BaseModel):
    results: list[SearchHit]
    total: int = Field(
        description="number of matching notes before the limit (hybrid, semantic: of the notes ranked, every "
        "keyword match and the closest ones in meaning)"
    )
    warnings: list[ToolWarning] = Field(default_factory=list)


# A note found by search.similar_notes.
class SimilarHit(BaseModel):
    path: str
    title: str
    score: float = Field(description="similarity in meaning (cosine, at most 1); higher is closer")
    snippet: str = Field(description="the start of the note, on one line")


# search.similar_notes: the notes closest in meaning to one note, closest first (itself excluded).
class SimilarResult(BaseModel):
    path: str = Field(description="the note compared with")
    results: list[SimilarHit]
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


# One note's row in dql.query_notes (LIST, TABLE).
class QueryRow(BaseModel):
    path: str = Field(description="the note")
    values: list[JsonValue] = Field(
        description="one value per column (dates ISO 8601, durations ISO 8601, links as paths)"
    )


# One GROUP BY group's row in dql.query_notes: its key and the columns computed over its notes.
class QueryGroup(BaseModel):
    key: JsonValue = Field(description="the group's key")
    values: list[JsonValue] = Field(description="one value per column, computed over the group (e.g. length(rows))")


# One task in dql.query_notes (TASK); `line` and `text` are what update_task needs.
class QueryTask(BaseModel):
    path: str
    line: int = Field(description="1-based line of the task in the note")
    text: str = Field(description="the task's text after the checkbox")
    status: str = Field(description="the character in the checkbox: ' ' open, 'x' done, or another")
    completed: bool
    section: str | None = Field(description="the heading the task is under")
    tags: list[str]
    due: JsonValue
    scheduled: JsonValue
    start: JsonValue
    completion: JsonValue = Field(description="the done date")
    created: JsonValue
    priority: JsonValue = Field(description="highest, high, medium, low or lowest (Tasks emoji), or as written")
    recurrence: JsonValue = Field(description="the recurrence rule, e.g. 'every week'")
    parent: int | None = Field(description="line of the parent task or list item")
    children: list[QueryTask] = Field(description="its subtasks")


class QueryTaskGroup(BaseModel):
    key: JsonValue = Field(description="the group's key")
    tasks: list[QueryTask | QueryTaskGroup]


# dql.query_notes: rows (LIST, TABLE) or tasks (TASK), at most `limit` of them.
class QueryNotesResult(BaseModel):
    type: Literal["list", "table", "task"]
    columns: list[str] = Field(description="column names; with show_id the first is the note (File) or group key")
    show_id: bool = Field(description="false for WITHOUT ID")
    rows: list[QueryRow | QueryGroup] = Field(description="LIST and TABLE results; groups after GROUP BY")
    tasks: list[QueryTask | QueryTaskGroup] = Field(description="TASK results; groups after GROUP BY")
    total: int = Field(description="rows (or top-level tasks, or groups) before the limit")
    truncated: bool = Field(description="true when the limit cut some")
    warnings: list[ToolWarning] = Field(default_factory=list)
