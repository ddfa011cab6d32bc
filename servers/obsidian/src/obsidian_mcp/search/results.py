"""What search answers: the typed results of `search_notes` (by words and by meaning) and
`similar_notes`.

The same rules as `vault.results`: each is exactly its tool's JSON, warnings attached, and no
model has a docstring.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

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
    vault: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="the note's vault, in a search of every vault (vault '*') only",
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
