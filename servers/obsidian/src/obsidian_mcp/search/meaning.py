"""Search by meaning: whether the vectors can answer, and the no-noise rule.

The vectors are `index.vectors`' (the index of meanings, `semantic`). While they are not ready
(being built, or loading after a restart) an answer by meaning says so with `SEMANTIC_NOT_READY`
(`INDEX_BUILDING` for `similar_notes`, which has no words to fall back on); should they fail, the
answer says `SEARCH_DEGRADED` and keywords alone answer.

The no-noise rule: a note found by meaning alone is left out when its similarity is below the
model's floor (`Embedder.min_similarity`), or when the model knows none of the query's words
(`Embedder.meaningful`: made-up words, private codes). So a query whose words occur in no note and
that is close in meaning to none answers no results, in every mode, rather than the nearest
unrelated notes (both calibrated by `bench/search_quality.py` on half its questions and checked on
the other half).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from obsidian_mcp import warnings
from obsidian_mcp.index.vectors import VaultVectors
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.search.results import SearchHit

if TYPE_CHECKING:  # imported with the vectors, on first use: see index.vectors
    from obsidian_mcp.semantic import NoteHit

log = logging.getLogger("obsidian_mcp.index")


@dataclass(frozen=True)
class VectorState:
    usable: bool  # there are vectors to search (maybe not every note's yet)
    ready: bool  # every note is embedded: an answer by meaning alone is complete


def vector_state(vectors: VaultVectors, found: list[ToolWarning], *, similar: bool = False) -> VectorState:
    """Whether the vectors can be searched: brings them up to date when little changed, and adds
    `SEMANTIC_NOT_READY` while they are being built or loaded (`INDEX_BUILDING` for `similar`,
    which has no words to fall back on; `SEARCH_DEGRADED` when there are none, or some failed) to
    `found`."""
    progress = vectors.catch_up()
    if progress is None:
        found.append(warnings.semantic_unavailable())
        return VectorState(usable=False, ready=False)
    if progress.error is not None:  # a batch failed (logged): its notes are missing from the vectors
        degraded(found)
    if not progress.complete:
        if similar:
            found.append(warnings.index_building(progress.done, progress.total, meanings=True))
        else:
            found.append(warnings.semantic_not_ready(progress.done, progress.total))
    return VectorState(usable=True, ready=progress.complete)


def degraded(found: list[ToolWarning]) -> None:
    """Add `SEARCH_DEGRADED` to `found`, once."""
    if all(warning.code != warnings.SEARCH_DEGRADED for warning in found):
        found.append(warnings.semantic_unavailable())


def closest(
    vectors: VaultVectors, text: str, depth: int, allow: Callable[[str], bool] | None, found: list[ToolWarning]
) -> list[NoteHit]:
    """The `depth` notes closest in meaning to `text`; [] (with `SEARCH_DEGRADED`) when the model or
    the vectors fail, so that keywords alone answer."""
    try:
        return vectors.search(text, depth, allow)
    except Exception:
        log.exception("search by meaning failed")
        degraded(found)
        return []


def without_noise(
    vectors: VaultVectors, meaning: str, hits: Sequence[NoteHit], worded: Container[str], known: Container[str]
) -> list[NoteHit]:
    """The no-noise rule (see the module docstring): of `hits`, found by meaning for `meaning`, those
    the keyword index `known`s that hold the query's words (`worded`) or are close enough."""
    floor = vectors.min_similarity if hits and vectors.meaningful(meaning) else math.inf
    return [hit for hit in hits if hit.path in known and (hit.score >= floor or hit.path in worded)]


def meaning_hit(hit: NoteHit, title: str, score: float, worded: bool) -> SearchHit:
    """A note found by meaning, at its closest passage; `worded` when it holds the query's words too."""
    return SearchHit(
        path=hit.path,
        title=title,
        score=rounded(score),
        line=hit.line,
        heading=hit.heading,
        snippet=hit.snippet,
        match="words" if worded else "meaning",
    )


def rounded(score: float) -> float:
    return float(f"{score:.6g}")
