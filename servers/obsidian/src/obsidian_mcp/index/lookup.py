"""Notes by age and by name, from the index: the most recently modified notes (what `resources/list`
offers), and the note paths matching what a person has typed so far (path completion).

Both run through `VaultIndex.run`, so they see the vault as it is now, like every search; while the
index is first built in the background they answer from the notes indexed so far (they are hints,
and a client should not wait seconds for a resource list or a completion). Matching
is case- and accent-insensitive (`cafe` finds `Café Recipes.md`) and ranks, best first: the path
starts with the text; a path component or word in it does; the text appears anywhere; its
characters appear in order within three times its length (a fuzzy match: `prjalp` finds
`Projects/Alpha.md`), tighter spans first. Ties go to the more recently modified note, then the
path. An empty text matches every note, most recent first.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from obsidian_mcp.index import notes_table
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex

FUZZY_SPREAD = 3  # a fuzzy match may spread over at most this many times the typed text's length
_WORD_START = re.compile(r"(?:^|(?<=[/\s_\-.]))")  # a component or a word begins here


@dataclass(frozen=True)
class RecentNote:
    path: str
    title: str
    size: int
    mtime: float


@dataclass(frozen=True)
class PathMatches:
    paths: list[str]  # best first, at most the limit
    total: int  # every matching note


def recent_notes(index: VaultIndex, limit: int) -> list[RecentNote]:
    """The `limit` most recently modified notes, newest first, with their titles."""
    return index.run(lambda snapshot: _recent(snapshot, limit), during="hint")


def matching_paths(index: VaultIndex, typed: str, limit: int) -> PathMatches:
    """The note paths matching `typed`, best first (see the module's docstring)."""
    return index.run(lambda snapshot: rank_paths(_ages(snapshot), typed, limit), during="hint")


def _recent(snapshot: Snapshot, limit: int) -> list[RecentNote]:
    return [
        RecentNote(path, title, size, mtime) for path, title, size, mtime in notes_table.recent(snapshot.conn, limit)
    ]


def _ages(snapshot: Snapshot) -> dict[str, float]:
    return notes_table.ages(snapshot.conn)


def rank_paths(ages: dict[str, float], typed: str, limit: int) -> PathMatches:
    """`ages` (path → mtime) narrowed to the paths matching `typed`, ranked; the best `limit` of them."""
    wanted = _folded(typed.replace("\\", "/").strip().lstrip("/"))
    if not wanted:
        newest = sorted(ages, key=lambda path: (-ages[path], path))
        return PathMatches(newest[:limit], len(newest))
    letters = [re.escape(ch) for ch in wanted if not ch.isspace()]  # a space may be any gap in a fuzzy match
    fuzzy = re.compile(".*?".join(letters))
    word = re.compile(_WORD_START.pattern + re.escape(wanted))
    scored: list[tuple[int, int, float, str]] = []
    for path, mtime in ages.items():
        folded = _folded(path)
        found = fuzzy.search(folded)
        if found is None:
            continue
        if folded.startswith(wanted):
            tier, span = 0, 0
        elif word.search(folded):
            tier, span = 1, 0
        elif wanted in folded:
            tier, span = 2, 0
        else:
            tier, span = 3, found.end() - found.start()
            if span > FUZZY_SPREAD * len(letters):  # scattered letters are noise, not a match
                continue
        scored.append((tier, span, -mtime, path))
    scored.sort()
    return PathMatches([path for *_, path in scored[:limit]], len(scored))


@functools.lru_cache(maxsize=65536)
def _folded(text: str) -> str:
    """Lower case without accents, for matching (`Café` → `cafe`)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
