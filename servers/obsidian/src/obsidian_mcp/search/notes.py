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
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, get_args

from obsidian_mcp.index.filters import tag_keys
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.search.by_words import search_by_words
from obsidian_mcp.search.hybrid import Asked, search_by_meaning
from obsidian_mcp.search.limits import MAX_LIMIT, check_limit
from obsidian_mcp.search.query import parse_query
from obsidian_mcp.search.results import SearchHit, SearchResult
from obsidian_mcp.vault.errors import InvalidArgument, NoteNotFound
from obsidian_mcp.warnings import in_vault

__all__ = ["MAX_LIMIT", "MODES", "Mode", "search_every_vault", "search_notes"]

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


def search_every_vault(
    indexes: Sequence[tuple[str, VaultIndex]],
    query: str,
    folder: str = "",
    tags: Sequence[str] = (),
    limit: int = 20,
    progress: ProgressFn | None = None,
    mode: Mode = "keyword",
    *,
    name_vaults: bool = True,
) -> SearchResult:
    """`search_notes` in each vault of `indexes` ((name, index) pairs), merged into one ranking by
    the scores the hits carry, each hit naming its vault. The scores are comparable across vaults:
    hybrid's fused score is reciprocal-rank fusion of each vault's own rankings (only ranks count, so
    each vault's first hit weighs the same; exact matches kept on top carry 1 + that score in every
    vault); semantic's is the cosine similarity of one model; keyword's is BM25 with each vault's
    own word statistics (a word rare in one vault weighs more there, as it would in a search of that
    vault alone). Equal scores keep the vaults' configured order. `total` adds up the vaults'
    totals; a vault's warnings name it. A `folder` missing from some vaults leaves them out; missing
    from all of them, it is `not_found`. With `name_vaults` False and one vault (a call that named
    one vault, or none), that vault's answer as it is."""
    if not name_vaults and len(indexes) == 1:
        return search_notes(indexes[0][1], query, folder, tags, limit, progress, mode)

    def one(index: VaultIndex, report: ProgressFn | None) -> SearchResult | NoteNotFound:
        try:
            return search_notes(index, query, folder, tags, limit, report, mode)
        except NoteNotFound as exc:
            if exc.resource != "folder":
                raise
            return exc

    # The vaults are searched at once, one thread each (each index has its own lock; SQLite and numpy
    # let go of the GIL): `*` costs about the slowest vault's search, not the sum. Progress is
    # reported from this thread's own search only.
    with ThreadPoolExecutor(max_workers=max(1, len(indexes)), thread_name_prefix="search-vault") as pool:
        others = [pool.submit(one, index, None) for _, index in indexes[1:]]
        answers = [one(indexes[0][1], progress), *(future.result() for future in others)] if indexes else []
    hits: list[tuple[float, int, int, SearchHit]] = []
    total = 0
    found: list[ToolWarning] = []
    missing: NoteNotFound | None = None
    searched = 0
    for order, ((name, _), result) in enumerate(zip(indexes, answers, strict=True)):
        if isinstance(result, NoteNotFound):
            missing = missing or result
            continue
        searched += 1
        total += result.total
        found.extend(in_vault(warning, name) for warning in result.warnings)
        hits.extend(
            (hit.score, order, rank, hit.model_copy(update={"vault": name})) for rank, hit in enumerate(result.results)
        )
    if not searched and missing is not None:
        raise missing
    hits.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
    return SearchResult(results=[hit for *_, hit in hits[:limit]], total=total, warnings=found)
