"""The notes a running build has not written yet, searchable at once, so that searches are complete.

A first build of a large vault takes seconds (parsing every note is most of it: ~0.6 ms a note). A
search must not miss the notes still to come, so before it writes the first batch the build puts
the raw text of every note it is to read into `PendingNotes`: an in-memory FTS5 table with the
index's own tokenizer, no parsing (10,000 notes, 21 MB: about a second, a tenth of the build). A
search during the build then looks in both (`Unindexed.catch_up`, under the index's lock):

1. the pending notes matching the query (the same MATCH expression), ranked by BM25 over the file
   name and the raw text, are found;
2. the best of them (as many as the search may show, or up to `PROMOTE_MAX` when a tag filter
   needs each note's real tags) are read, parsed and written into the index now, exactly as the
   build would write them (and marked touched, so the build's older read never overwrites them),
   and leave the pending table;
3. the search runs on the index as usual, so every result has the same fields and score a complete
   index gives it, and the pending notes still matching are added to its `total`.

The raw text differs from the indexed columns in small ways: YAML keys are dropped here too (the
values stay), but `%%comments%%` are kept, so while the build runs `total` may count a note whose
only match is in a comment; the results themselves are always from the index. Each batch the
build writes leaves the pending table, as does every note a call re-indexes or finds gone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Container, Iterable, Sequence
from typing import TYPE_CHECKING

from obsidian_mcp.index import sync
from obsidian_mcp.index.extract import MAX_INDEXED_CHARS, frontmatter_column
from obsidian_mcp.index.filters import folder_clause
from obsidian_mcp.index.text import Term, tokens
from obsidian_mcp.vault.errors import VaultError
from obsidian_mcp.vault.links import stem
from obsidian_mcp.vault.markdown import split_frontmatter
from obsidian_mcp.vault.paths import NoteInfo, Vault
from obsidian_mcp.vault.storage import read_bytes

if TYPE_CHECKING:
    from obsidian_mcp.index.build import Build
    from obsidian_mcp.index.sync import SyncListener

FILL_CHUNK = 500  # notes read, then written into the pending table under the index's lock, at a time
PROMOTE_MAX = 200  # pending notes indexed at most by one search with a tag filter
NAME_WEIGHT = 10.0  # the file name weighs as the index's title column does (`store.WEIGHTS`)


def pending_text(text: str) -> str:
    """What of a note's raw text is searched before it is indexed: the frontmatter's values without
    their keys (as the index's frontmatter column), then the rest of the note as written."""
    text = text[:MAX_INDEXED_CHARS]
    span = split_frontmatter(text)
    if span is None:
        return text
    return frontmatter_column(text) + "\n" + text[span.end :]


class PendingNotes:
    """The raw text of the notes a build is still to write (see the module docstring). Used under
    the index's lock only, but for `read`, which touches no shared state."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._conn.execute(
            "CREATE VIRTUAL TABLE pending USING fts5(path UNINDEXED, name, text, "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        self._infos: dict[str, tuple[int, NoteInfo]] = {}  # path -> (rowid, the note as listed)
        self.filled = 0  # notes put in so far
        self.ready = False  # every note the build is to read was put in (or written already)

    @staticmethod
    def read(vault: Vault, infos: Sequence[NoteInfo]) -> list[tuple[NoteInfo, str]]:
        """The searchable text of each note (without the lock); a note gone or refused is left out."""
        out = []
        for info in infos:
            try:
                data = read_bytes(vault.listed_location(info.rel))
            except (OSError, VaultError):
                continue
            out.append((info, pending_text(data.decode("utf-8", errors="replace").removeprefix("\ufeff"))))
        return out

    def add(self, read: Sequence[tuple[NoteInfo, str]], written: Container[str]) -> None:
        """Put in notes `read` returned, but those in `written` (indexed since they were read)."""
        self._conn.execute("BEGIN")
        for info, text in read:
            if info.rel in written or info.rel in self._infos:
                continue
            cursor = self._conn.execute(
                "INSERT INTO pending(path, name, text) VALUES (?, ?, ?)", (info.rel, stem(info.rel), text)
            )
            assert cursor.lastrowid is not None
            self._infos[info.rel] = (cursor.lastrowid, info)
        self._conn.execute("COMMIT")
        self.filled += len(read)

    def discard(self, rels: Iterable[str]) -> None:
        """These notes were written into the index (or are gone): they are no longer pending."""
        rowids = [entry[0] for entry in (self._infos.pop(rel, None) for rel in rels) if entry is not None]
        if rowids:
            self._conn.executemany("DELETE FROM pending WHERE rowid = ?", [(rowid,) for rowid in rowids])

    def changed(self, info: NoteInfo) -> bool:
        """Whether a pending note is listed now with another mtime or size than when it was put in."""
        entry = self._infos.get(info.rel)
        return entry is not None and (entry[1].mtime != info.mtime or entry[1].size != info.size)

    def matches(self, match: str, folder_rel: str, limit: int) -> list[NoteInfo]:
        """The best `limit` pending notes matching the FTS5 expression `match` under `folder_rel`."""
        where, params = folder_clause(folder_rel, "path")
        rows = self._conn.execute(
            f"SELECT path FROM pending WHERE pending MATCH ? AND {where} "
            f"ORDER BY bm25(pending, 0.0, {NAME_WEIGHT}, 1.0) LIMIT ?",
            [match, *params, limit],
        )
        return [self._infos[row[0]][1] for row in rows]

    def count(self, match: str, folder_rel: str) -> int:
        where, params = folder_clause(folder_rel, "path")
        row = self._conn.execute(f"SELECT count(*) FROM pending WHERE pending MATCH ? AND {where}", [match, *params])
        return int(row.fetchone()[0])

    def __len__(self) -> int:
        return len(self._infos)

    def close(self) -> None:
        self._infos.clear()
        self._conn.close()


def with_tags(match: str, keys: Sequence[str]) -> str:
    """`match` narrowed to the notes whose text holds the words of every tag in `keys` (a note
    having the tag holds them, as `#tag` or in its frontmatter; a note holding them may not)."""
    for key in keys:
        words = tuple(tokens(key))
        if words:
            match = f"({match}) AND {Term(words).fts()}"
    return match


class Unindexed:
    """The pending notes of the build a call answers during, as that call sees them (under the lock)."""

    def __init__(
        self,
        pending: PendingNotes,
        conn: sqlite3.Connection,
        vault: Vault,
        build: Build,
        listeners: Sequence[SyncListener],
    ) -> None:
        self._pending = pending
        self._conn = conn
        self._vault = vault
        self._build = build
        self._listeners = listeners

    def catch_up(self, match: str, folder_rel: str, keys: Sequence[str], best: int) -> int:
        """Index now the best `best` pending notes matching `match` (every one up to `PROMOTE_MAX`
        with tag filters, whose real tags only the index knows); returns how many other pending
        notes match, to add to the search's total."""
        narrowed = with_tags(match, keys)
        found = self._pending.matches(narrowed, folder_rel, max(best, PROMOTE_MAX) if keys else best)
        if found:
            rels = [info.rel for info in found]
            self._build.touch(rels)
            self._pending.discard(rels)
            sync.apply(self._conn, self._vault, found, [], None, self._listeners)
        return self._pending.count(narrowed, folder_rel)
