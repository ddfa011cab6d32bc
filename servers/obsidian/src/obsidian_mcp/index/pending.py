"""The notes a running build has not written yet, searchable at once, so that searches are complete.

A first build of a large vault takes seconds (parsing every note is most of it: ~0.6 ms a note). A
search must not miss the notes still to come, so before it writes the first batch the build puts
the raw text of every note it is to read into `PendingNotes`: a contentless in-memory FTS5 table
with the index's own tokenizer, no parsing (10,000 notes, 21 MB: about a second, a tenth of the
build). A search during the build then looks in both (`Unindexed.catch_up`, under the index's lock):

1. the pending notes matching the query (the same MATCH expression), ranked by BM25 over the file
   name and the raw text, are found;
2. the best of them (as many as the search may show; with a tag filter, whose real tags only the
   index knows, more rounds of as many until that many have the tags, `ROUND_MAX` notes at most)
   are read, parsed and written into the index now, exactly as the build would write them (and
   marked touched, so the build's older read never overwrites them), and leave the pending notes;
3. the search runs on the index as usual, so every result has the same fields and score a complete
   index gives it, and the pending notes still matching are added to its `total`.

The raw text differs from the indexed columns in small ways: YAML keys are dropped here too (the
values stay), but `%%comments%%` are kept, and a tag filter counts the pending notes whose text
holds the tag's words; so while the build runs `total` may count a few notes too many. The results
themselves always come from the index. Each batch the build writes leaves the pending notes, as
does every note a call re-indexes or finds gone.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import stat
from collections.abc import Callable, Container, Iterable, Sequence
from typing import TYPE_CHECKING

from obsidian_mcp.index import sync, tags_table
from obsidian_mcp.index.extract import MAX_INDEXED_CHARS, frontmatter_column
from obsidian_mcp.index.text import Term, tokens
from obsidian_mcp.vault.errors import VaultError
from obsidian_mcp.vault.links import stem
from obsidian_mcp.vault.markdown import split_frontmatter
from obsidian_mcp.vault.paths import NoteInfo, Vault
from obsidian_mcp.vault.storage import read_bytes

if TYPE_CHECKING:
    from obsidian_mcp.index.sync import SyncListener

PARTIAL_MIN = 1000  # a build with fewer notes to read (well under a second) is waited for by every call,
# so its notes are not put in a pending table (`build`, `early`)
FILL_CHUNK = 500  # notes read, then written into the pending table under the index's lock, at a time
ROUND_MAX = 100  # pending notes indexed at most by one search (rounds of its limit, for tag filters)
NAME_WEIGHT = 10.0  # the file name weighs as the index's title column does (`store.WEIGHTS`)
_NOT_FOLLOWED = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)

log = logging.getLogger("obsidian_mcp.index")


def pending_text(text: str) -> str:
    """What of a note's raw text is searched before it is indexed: the frontmatter's values without
    their keys (as the index's frontmatter column), then the rest of the note as written."""
    text = text[:MAX_INDEXED_CHARS]
    span = split_frontmatter(text)
    if span is None:
        return text
    return frontmatter_column(text, span) + "\n" + text[span.end :]


def _raw(vault: Vault, info: NoteInfo) -> bytes | None:
    """The bytes of a listed note, None when gone or refused. The plain path is opened without
    following a last symlink (the listing already left out the folders leading outside); a note
    that is a symlink is checked as the build checks it (`Vault.listed_location`). The text is only
    matched, never shown: a hit is indexed, through the build's checks, before it is returned."""
    try:
        fd = os.open(os.path.join(vault.root, info.rel), _NOT_FOLLOWED)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            return None
        try:
            return read_bytes(vault.listed_location(info.rel))
        except (OSError, VaultError):
            return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        return handle.read()


class PendingNotes:
    """The raw text of the notes a build is still to write (see the module docstring), in a
    contentless FTS5 table: the paths are kept here, a note written since is only forgotten here
    (FTS5 3.40 cannot delete from a contentless table; its rows stay until the build ends). Used
    under the index's lock only, but for `read`, which touches no shared state."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._conn.execute(
            "CREATE VIRTUAL TABLE pending USING fts5(name, text, content='', tokenize='unicode61 remove_diacritics 2')"
        )
        # no merging of segments while filling: twice as fast, and a few dozen segments search fast
        self._conn.execute("INSERT INTO pending(pending, rank) VALUES ('automerge', 0)")
        self._rows: dict[int, NoteInfo] = {}  # rowid -> the note as listed, while pending
        self._rowids: dict[str, int] = {}  # path -> rowid, while pending
        self._next = 1  # the next rowid: never reused, forgotten rows stay in the table
        self.caught_up: set[tuple[str, str, int]] = set()  # (expression, folder, best) searched so far
        self.filled = 0  # notes put in so far
        self.ready = False  # every note the build is to read was put in (or written already)

    @staticmethod
    def read(vault: Vault, infos: Sequence[NoteInfo]) -> list[tuple[NoteInfo, str]]:
        """The searchable text of each note (without the lock); a note gone or refused is left out."""
        out = []
        for info in infos:
            data = _raw(vault, info)
            if data is not None:
                out.append((info, pending_text(data.decode("utf-8", errors="replace").removeprefix("\ufeff"))))
        return out

    def add(self, read: Sequence[tuple[NoteInfo, str]], written: Container[str]) -> None:
        """Put in notes `read` returned, but those in `written` (indexed since they were read)."""
        fresh = [(info, text) for info, text in read if info.rel not in written and info.rel not in self._rowids]
        rows = [(self._next + at, stem(info.rel), text) for at, (info, text) in enumerate(fresh)]
        self._conn.execute("BEGIN")
        try:
            self._conn.executemany("INSERT INTO pending(rowid, name, text) VALUES (?, ?, ?)", rows)
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        for (rowid, _, _), (info, _) in zip(rows, fresh, strict=True):
            self._rows[rowid] = info
            self._rowids[info.rel] = rowid
        self._next += len(rows)
        self.filled += len(read)

    def discard(self, rels: Iterable[str]) -> None:
        """These notes were written into the index (or are gone): they are no longer pending."""
        for rel in rels:
            rowid = self._rowids.pop(rel, None)
            if rowid is not None:
                del self._rows[rowid]

    def keep(self, todo: Sequence[NoteInfo]) -> list[NoteInfo]:
        """Filled ahead (`early`): keep the notes of `todo` put in as they are listed now, forget
        the others, and return the notes of `todo` still to put in (new, or changed since)."""
        listed = {info.rel for info in todo}
        self.discard([rel for rel in self._rowids if rel not in listed])
        stale = [info.rel for info in todo if self.changed(info)]
        self.discard(stale)
        self.filled = len(self._rows)
        return [info for info in todo if info.rel not in self._rowids]

    def changed(self, info: NoteInfo) -> bool:
        """Whether a pending note is listed now with another mtime or size than when it was put in."""
        rowid = self._rowids.get(info.rel)
        if rowid is None:
            return False
        known = self._rows[rowid]
        return known.mtime != info.mtime or known.size != info.size

    def best(self, match: str, folder_rel: str, limit: int) -> list[NoteInfo]:
        """The best `limit` pending notes matching the FTS5 expression `match` under `folder_rel`
        (BM25 over the file name and the raw text); forgotten rows are skipped, asking for more."""
        prefix = folder_rel + "/" if folder_rel else ""
        wanted = 2 * limit + 16
        while True:
            rows = self._conn.execute(
                f"SELECT rowid FROM pending WHERE pending MATCH ? ORDER BY bm25(pending, {NAME_WEIGHT}, 1.0) LIMIT ?",
                (match, wanted),
            ).fetchall()
            live = [self._rows[rowid] for (rowid,) in rows if rowid in self._rows]
            chosen = [info for info in live if info.rel.startswith(prefix)][:limit]
            if len(chosen) == limit or len(rows) < wanted:
                return chosen
            wanted *= 4

    def count(self, match: str, folder_rel: str) -> int:
        """How many pending notes under `folder_rel` match `match`."""
        prefix = folder_rel + "/" if folder_rel else ""
        rows = self._conn.execute("SELECT rowid FROM pending WHERE pending MATCH ?", (match,))
        known = self._rows
        if not prefix:
            return sum(1 for (rowid,) in rows if rowid in known)
        return sum(1 for (rowid,) in rows if (info := known.get(rowid)) is not None and info.rel.startswith(prefix))

    def __len__(self) -> int:
        return len(self._rows)

    def close(self) -> None:
        self._rows.clear()
        self._rowids.clear()
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
        touch: Callable[[Iterable[str]], None],
        listeners: Sequence[SyncListener],
    ) -> None:
        """`touch`: the build's `Build.touch`, told of every note indexed here, so that its older
        read never overwrites them."""
        self._pending = pending
        self._conn = conn
        self._vault = vault
        self._touch = touch
        self._listeners = listeners

    def catch_up(self, match: str, folder_rel: str, keys: Sequence[str], best: int) -> int:
        """Index now the best `best` pending notes matching `match`, and with tag filters, whose
        real tags only the index knows, more rounds of them until `best` of those indexed have the
        tags (at most `ROUND_MAX` notes). Once per build and search: asked again, the search
        answers as it did, from the notes indexed then. Returns how many other pending notes match,
        to add to the search's total (with tag filters: those whose text holds the tags' words)."""
        narrowed = with_tags(match, keys)
        pending = self._pending
        try:
            if (narrowed, folder_rel, best) not in pending.caught_up:
                pending.caught_up.add((narrowed, folder_rel, best))
                self._index_best(narrowed, folder_rel, keys, best)
            return pending.count(narrowed, folder_rel)
        except sqlite3.OperationalError as exc:  # an expression FTS5 refuses: the index's search says so
            log.warning("the pending notes could not be searched", extra={"sqlite_error": str(exc)[:200]})
            return 0

    def _index_best(self, match: str, folder_rel: str, keys: Sequence[str], best: int) -> None:
        indexed = tagged = 0
        while indexed < ROUND_MAX:
            found = self._pending.best(match, folder_rel, min(best, ROUND_MAX - indexed))
            if not found:
                return
            rels = [info.rel for info in found]
            self._touch(rels)
            self._pending.discard(rels)
            sync.apply(self._conn, self._vault, found, [], None, self._listeners)
            indexed += len(found)
            if not keys:
                return
            tagged += tags_table.count_having(self._conn, rels, keys)
            if tagged >= best:
                return
