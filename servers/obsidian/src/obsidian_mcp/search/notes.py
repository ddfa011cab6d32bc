"""`search_notes`: the arguments checked, then a search by words (`by_words`) or by meaning and
words fused (`hybrid`), run on the index brought up to date (`VaultIndex.run(during="search")`).

While the keyword index is first built in the background, `search_notes` still answers
completely: the notes not yet indexed are searched in `index.pending` and the best of them indexed
within the call (`by_words.catch_up`). Only when those notes could not be read in time
(`vault_index.SEARCH_WAIT`: a vault far beyond 10,000 notes, in its first seconds) does the answer
carry `INDEX_BUILDING` with how far it got.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from obsidian_mcp.index.filters import tag_keys
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.search.by_words import search_by_words
from obsidian_mcp.search.hybrid import Asked, search_by_meaning
from obsidian_mcp.search.limits import MAX_LIMIT, check_limit
from obsidian_mcp.search.query import parse_query
from obsidian_mcp.search.results import SearchResult
from obsidian_mcp.vault.errors import InvalidArgument

__all__ = ["MAX_LIMIT", "MODES", "Mode", "search_notes"]

Mode = Literal["hybrid", "keyword", "semantic"]
MODES: tuple[str, ...] = get_args(Mode)


def search_notes(
    index: VaultIndex,
    query: str,
    folder: str = "",
    tags: Sequence[str] = (),
    limit: int = 20,
    progress: ProgressFn | None = None,
    mode: Mode = "keyword",
) -> SearchResult:
    """Notes matching `query` (see `search.query`), best first; a `SEARCH_DEGRADED` warning when
    FTS5 refused the query and the stored text was scanned instead. `mode`: "keyword" (the
    default here; the tool's default is "hybrid"), "hybrid" or "semantic" (see `search.hybrid`)."""
    parsed = parse_query(query)
    check_limit(limit)
    if mode not in MODES:
        raise InvalidArgument("mode", "invalid", f"'mode' must be one of {', '.join(MODES)}")
    keys = tag_keys(tags)
    folder_rel, _ = index.vault.resolve_folder(folder)
    if mode == "keyword":
        return index.run(
            lambda snapshot: search_by_words(snapshot, parsed, folder_rel, keys, limit), progress, during="search"
        )
    asked = Asked(query, parsed, folder_rel, keys, limit, mode == "semantic")
    return index.run(lambda snapshot: search_by_meaning(snapshot, index.vectors, asked), progress, during="search")
