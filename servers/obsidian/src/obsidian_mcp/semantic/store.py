"""The vector store: chunk vectors in SQLite, all of them in memory for brute-force cosine search.

`SemanticIndex` takes an open `sqlite3.Connection` (the index database, outside the vault) and
owns three tables of its own, created when missing:

* `semantic_meta(key, value)`: the schema version and the *model marker* (embedder id, chunker
  version, dimension). Opening with another marker empties the other two tables: every note is
  then reported missing (`indexed_hashes()` is empty) and the caller re-embeds the vault.
* `semantic_notes(path, hash, title)`: one row per embedded note; `hash` is what the caller gave
  as `source_hash` (e.g. the keyword index's content hash) or else `content_hash(text, title)`,
  so the caller can tell which notes changed without reading them (`stale`).
* `semantic_chunks(path, chunk_no, heading, line, text, vector)`: the chunks; `text` is the start
  of the chunk's cleaned text (what snippets show, `STORED_TEXT_CHARS`), `vector` the float16
  little-endian bytes of the unit vector (512 bytes at 256 dimensions).

In memory, every chunk vector of the vault sits in one float32 matrix (10,000 notes × ~3.4
chunks × 256 dims ≈ 35 MB), searched by one matrix-vector product. Updates append rows and mark
replaced rows dead; dead rows are compacted away once they are a quarter of the matrix.

Threads: one writer at a time (`upsert_*`, `remove_*`, `rename_note` serialise on a lock),
any number of concurrent readers (`query`, `search`, `similar` never wait on the writer). Each
write publishes a new immutable `_Snapshot`; a reader works on the snapshot it picked up. The
connection is used only by writers and by the first load, under `db_lock` (pass the lock that
guards the connection's other users if it is shared, or give this class a connection of its
own: recommended, see the package docstring).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from obsidian_mcp.semantic.chunking import CHUNKER_VERSION, chunk_note, snippet_of
from obsidian_mcp.semantic.model import Embedder, default_embedder

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
    Mask = npt.NDArray[np.bool_]
else:
    Matrix = Any
    Mask = Any

log = logging.getLogger("obsidian_mcp.semantic")

SEMANTIC_SCHEMA_VERSION = 1
STORED_TEXT_CHARS = 400  # of each chunk's text kept in the table: enough for a snippet
GROWTH = 1.25  # the matrix buffer grows by this factor when full
COMPACT_FRACTION = 0.25  # compact the matrix when this share of its rows is dead
COMPACT_MIN_ROWS = 1024
_CANDIDATES = 8  # chunk rows looked at per wanted note before falling back to a full sort
_LOAD_BATCH = 1024  # chunk rows read at a time when loading

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS semantic_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS semantic_notes(path TEXT PRIMARY KEY, hash TEXT NOT NULL, title TEXT NOT NULL)"
    " WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS semantic_chunks(path TEXT NOT NULL, chunk_no INTEGER NOT NULL, heading TEXT,"
    " line INTEGER NOT NULL, text TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (path, chunk_no))",
)


# -- what callers get back ---------------------------------------------------------------------


@dataclass(frozen=True)
class NoteText:
    """One note to embed: its vault path, full text, title as the caller knows it (None: from
    frontmatter or the file name), and optionally the caller's hash of it (see `stale`)."""

    path: str
    text: str
    title: str | None = None
    source_hash: str | None = None


@dataclass(frozen=True)
class ChunkHit:
    path: str
    chunk_no: int
    heading: str | None
    line: int
    snippet: str
    score: float  # cosine similarity, -1..1


@dataclass(frozen=True)
class NoteHit:
    """A note ranked by its best chunk: `score` is that chunk's cosine similarity, `line`,
    `heading` and `snippet` are that chunk's (for `similar`, the note vectors' similarity and the
    note's first chunk)."""

    path: str
    title: str
    score: float
    line: int
    heading: str | None
    snippet: str


def content_hash(text: str, title: str | None = None) -> str:
    """The hash stored for a note when the caller gives none: text, title and chunker version."""
    digest = hashlib.sha256(f"{CHUNKER_VERSION}\x00{title or ''}\x00".encode())
    digest.update(text.encode("utf-8", errors="surrogatepass"))
    return digest.hexdigest()[:32]


# -- the in-memory state ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Row:
    path: str
    chunk_no: int
    heading: str | None
    line: int
    packed: bytes  # the snippet as UTF-8 ("…" added when shown): half the memory of most str

    @classmethod
    def of(cls, path: str, chunk_no: int, heading: str | None, line: int, text: str) -> _Row:
        snippet = snippet_of(text)
        cut = snippet.endswith("…") and not text.endswith("…")
        return cls(path, chunk_no, heading, line, (snippet[:-1] if cut else snippet).encode() + (b"\0" if cut else b""))

    @property
    def snippet(self) -> str:
        if self.packed.endswith(b"\0"):
            return self.packed[:-1].decode() + "…"
        return self.packed.decode()


@dataclass(frozen=True)
class _Note:
    title: str
    hash: str
    start: int  # rows [start, stop) of the matrix
    stop: int


@dataclass(frozen=True, eq=False)
class _Snapshot:
    """What a reader sees. Never changed after publication: writers append rows past `size` in a
    shared buffer (invisible here) and publish a new snapshot with copies of what changed."""

    vectors: Matrix  # (size, dim) view of the buffer
    alive: Mask  # (size,)
    rows: list[_Row]  # append-only, shared with later snapshots: only [:size] is ours
    notes: dict[str, _Note] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return int(self.vectors.shape[0])

    @cached_property
    def note_matrix(self) -> tuple[list[str], Matrix]:
        """(paths, unit note vectors): each the normalised mean of its chunk vectors."""
        import numpy as np

        from obsidian_mcp.semantic.model import normalize_rows

        paths = sorted(self.notes, key=lambda p: self.notes[p].start)
        if not paths:
            return [], np.zeros((0, self.vectors.shape[1]), dtype=np.float32)
        bounds: list[int] = []
        for path in paths:
            note = self.notes[path]
            bounds += [note.start, note.stop]
        if bounds[-1] == self.size:
            bounds.pop()  # reduceat's last segment runs to the end anyway
        sums = np.add.reduceat(self.vectors, np.array(bounds, dtype=np.int64), axis=0)[::2]
        return paths, normalize_rows(np.ascontiguousarray(sums, dtype=np.float32))


@dataclass(frozen=True)
class _Prepared:
    path: str
    title: str
    hash: str
    rows: list[_Row]
    texts: list[str]
    vectors: Matrix


class SemanticIndex:
    """Chunk vectors of one vault (see the module docstring). All paths are vault-relative."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        embedder: Embedder | None = None,
        *,
        db_lock: threading.Lock | threading.RLock | None = None,
    ) -> None:
        self.conn = conn
        self.embedder: Embedder = embedder if embedder is not None else default_embedder()
        self._db_lock = db_lock if db_lock is not None else threading.RLock()
        self._write_lock = threading.RLock()
        self._snapshot: _Snapshot | None = None
        self._buffer: Matrix | None = None
        self.model_changed = False
        with self._db_lock:
            self._prepare_tables()

    # -- tables ---------------------------------------------------------------------------------

    @property
    def model_marker(self) -> str:
        return f"{self.embedder.model_id};chunker={CHUNKER_VERSION};dim={self.embedder.dim}"

    def _prepare_tables(self) -> None:
        with self._transaction():
            for statement in _SCHEMA:
                self.conn.execute(statement)
            meta = dict(self.conn.execute("SELECT key, value FROM semantic_meta").fetchall())
            if meta.get("schema") not in (None, str(SEMANTIC_SCHEMA_VERSION)):
                for table in ("semantic_notes", "semantic_chunks"):
                    self.conn.execute(f"DROP TABLE {table}")
                for statement in _SCHEMA[1:]:
                    self.conn.execute(statement)
                meta.pop("model", None)
            if meta.get("model") != self.model_marker:
                had = self.conn.execute("SELECT count(*) FROM semantic_notes").fetchone()[0]
                if had:
                    log.warning(
                        "the embedding model changed: semantic index to be rebuilt",
                        extra={"was": meta.get("model"), "now": self.model_marker, "notes": had},
                    )
                    self.model_changed = True
                self.conn.execute("DELETE FROM semantic_chunks")
                self.conn.execute("DELETE FROM semantic_notes")
            self.conn.executemany(
                "INSERT OR REPLACE INTO semantic_meta(key, value) VALUES (?, ?)",
                [("schema", str(SEMANTIC_SCHEMA_VERSION)), ("model", self.model_marker)],
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One transaction on the connection, whatever its isolation level (caller holds db_lock)."""
        if self.conn.isolation_level is None:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        else:
            with self.conn:
                yield

    # -- loading ----------------------------------------------------------------------------

    def _current(self) -> _Snapshot:
        snapshot = self._snapshot
        if snapshot is not None:
            return snapshot
        with self._write_lock:
            if self._snapshot is None:
                self._load()
            assert self._snapshot is not None
            return self._snapshot

    def _load(self) -> None:
        """Read every stored chunk into the matrix (caller holds the write lock). The chunks are
        streamed in batches straight into the matrix and the row list: reading them all first
        would hold a second copy (~35 MB at 10,000 notes) whose freed pieces the heap keeps."""
        import numpy as np

        dim = self.embedder.dim
        rows: list[_Row] = []
        with self._db_lock:
            known = {
                path: (title, digest)
                for path, title, digest in self.conn.execute("SELECT path, title, hash FROM semantic_notes")
            }
            stored = self.conn.execute("SELECT count(*) FROM semantic_chunks").fetchone()[0]
            buffer = np.zeros((max(stored, 64), dim), dtype=np.float32)
            cursor = self.conn.execute(
                "SELECT path, chunk_no, heading, line, text, vector FROM semantic_chunks ORDER BY path, chunk_no"
            )
            while batch := cursor.fetchmany(_LOAD_BATCH):
                kept = [row for row in batch if row[0] in known and len(row[5]) == 2 * dim]
                if kept:
                    at = len(rows)
                    blobs = b"".join(row[5] for row in kept)
                    buffer[at : at + len(kept)] = np.frombuffer(blobs, dtype="<f2").reshape(len(kept), dim)
                    rows.extend(
                        _Row.of(path, chunk_no, heading, line, text) for path, chunk_no, heading, line, text, _ in kept
                    )
        size = len(rows)
        notes: dict[str, _Note] = {}
        start = 0
        for at, row in enumerate(rows):
            if at + 1 == size or rows[at + 1].path != row.path:
                title, digest = known[row.path]
                notes[row.path] = _Note(title, digest, start, at + 1)
                start = at + 1
        self._buffer = buffer
        self._snapshot = _Snapshot(buffer[:size], np.ones(size, dtype=bool), rows, notes)

    # -- what is indexed --------------------------------------------------------------------

    def indexed_hashes(self) -> dict[str, str]:
        """{path: hash} of every embedded note (see `NoteText.source_hash`)."""
        return {path: note.hash for path, note in self._current().notes.items()}

    def indexed_paths(self) -> set[str]:
        return set(self._current().notes)

    def stale(self, current: Mapping[str, str]) -> tuple[list[str], list[str]]:
        """Given the vault's notes as {path: hash} (hashes as given when upserting), the paths to
        (re)embed and the paths to remove, each sorted."""
        notes = self._current().notes
        todo = sorted(path for path, digest in current.items() if path not in notes or notes[path].hash != digest)
        gone = sorted(path for path in notes if path not in current)
        return todo, gone

    def note_count(self) -> int:
        return len(self._current().notes)

    def chunk_count(self) -> int:
        snapshot = self._current()
        return int(snapshot.alive.sum())

    # -- writing ----------------------------------------------------------------------------

    def prepare(self, notes: Sequence[NoteText]) -> list[_Prepared]:
        """Chunk and embed `notes` (the slow part: no lock held, safe to run on any thread)."""
        import numpy as np

        chunked = [chunk_note(note.path, note.text, note.title) for note in notes]
        texts = [chunk.embed_text for item in chunked for chunk in item.chunks]
        vectors = self.embedder.embed(texts) if texts else np.zeros((0, self.embedder.dim), np.float32)
        # stored as float16: keep exactly what a later load will read back
        vectors = vectors.astype("<f2").astype(np.float32)
        prepared: list[_Prepared] = []
        at = 0
        for note, item in zip(notes, chunked, strict=True):
            count = len(item.chunks)
            rows = [_Row.of(note.path, c.chunk_no, c.heading, c.line, c.text) for c in item.chunks]
            digest = note.source_hash or content_hash(note.text, note.title)
            prepared.append(
                _Prepared(note.path, item.title, digest, rows, [c.text for c in item.chunks], vectors[at : at + count])
            )
            at += count
        return prepared

    def upsert_note(self, path: str, text: str, title: str | None = None, *, source_hash: str | None = None) -> bool:
        """Embed and store one note (replacing what was stored for `path`). Returns False, doing
        nothing, when the stored hash is already this one."""
        digest = source_hash or content_hash(text, title)
        known = self._current().notes.get(path)
        if known is not None and known.hash == digest:
            return False
        self.upsert_notes([NoteText(path, text, title, digest)])
        return True

    def upsert_notes(self, notes: Sequence[NoteText]) -> int:
        """Embed and store several notes in one transaction (a batch of a build). Returns how many."""
        self.apply(self.prepare(notes))
        return len(notes)

    def remove_note(self, path: str) -> bool:
        """Forget `path`. Returns whether it was indexed."""
        present = path in self._current().notes
        self.apply([], removed=[path])
        return present

    def remove_notes(self, paths: Iterable[str]) -> None:
        self.apply([], removed=list(paths))

    def rename_note(self, old: str, new: str) -> bool:
        """Move `old`'s chunks to `new` without embedding again (the title, derived from the path
        when the note has no other, is kept: re-upsert the note if it should change). Replaces
        whatever `new` had. Returns whether `old` was indexed."""
        with self._write_lock:
            snapshot = self._current()
            note = snapshot.notes.get(old)
            if note is None or old == new:
                return note is not None
            with self._db_lock, self._transaction():
                for table in ("semantic_chunks", "semantic_notes"):
                    self.conn.execute(f"DELETE FROM {table} WHERE path = ?", (new,))
                    self.conn.execute(f"UPDATE {table} SET path = ? WHERE path = ?", (new, old))
            moved = _Prepared(
                new,
                note.title,
                note.hash,
                [_Row(new, r.chunk_no, r.heading, r.line, r.packed) for r in snapshot.rows[note.start : note.stop]],
                [],
                snapshot.vectors[note.start : note.stop].copy(),
            )
            self._publish([moved], [old, new])
            return True

    def apply(self, prepared: Sequence[_Prepared], removed: Sequence[str] = ()) -> None:
        """Store prepared notes and drop `removed` paths: one transaction, then one new snapshot."""
        if not prepared and not removed:
            return
        with self._write_lock:
            self._current()
            with self._db_lock, self._transaction():
                for path in [*removed, *(p.path for p in prepared)]:
                    self.conn.execute("DELETE FROM semantic_chunks WHERE path = ?", (path,))
                    self.conn.execute("DELETE FROM semantic_notes WHERE path = ?", (path,))
                for note in prepared:
                    self.conn.execute(
                        "INSERT INTO semantic_notes(path, hash, title) VALUES (?, ?, ?)",
                        (note.path, note.hash, note.title),
                    )
                    self.conn.executemany(
                        "INSERT INTO semantic_chunks(path, chunk_no, heading, line, text, vector)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        [
                            (
                                row.path,
                                row.chunk_no,
                                row.heading,
                                row.line,
                                text[:STORED_TEXT_CHARS],
                                vector.astype("<f2").tobytes(),
                            )
                            for row, text, vector in zip(note.rows, note.texts, note.vectors, strict=True)
                        ],
                    )
            self._publish(prepared, [*removed, *(p.path for p in prepared)])

    def clear(self) -> None:
        """Forget every note (e.g. before a rebuild from scratch)."""
        with self._write_lock:
            with self._db_lock, self._transaction():
                self.conn.execute("DELETE FROM semantic_chunks")
                self.conn.execute("DELETE FROM semantic_notes")
            self._snapshot = None
            self._load()

    def _publish(self, prepared: Sequence[_Prepared], replaced: Iterable[str]) -> None:
        """New snapshot: rows of `replaced` paths dead, `prepared` appended (write lock held)."""
        import numpy as np

        old = self._current()
        notes = dict(old.notes)
        alive_size = old.size + sum(len(p.rows) for p in prepared)
        alive = np.ones(alive_size, dtype=bool)
        alive[: old.size] = old.alive
        for path in replaced:
            note = notes.pop(path, None)
            if note is not None:
                alive[note.start : note.stop] = False
        dead = alive_size - int(alive.sum())
        if dead >= COMPACT_MIN_ROWS and dead >= COMPACT_FRACTION * alive_size:
            self._compact(old, alive[: old.size], notes, prepared)
            return
        needed = alive_size
        buffer = self._buffer
        assert buffer is not None
        rows = old.rows
        if needed > buffer.shape[0] or len(rows) != old.size:
            # grow (amortised), or start a fresh row list if another writer's rows were
            # dropped: readers keep the old buffer and list through their snapshots
            grown = np.zeros((max(needed, int(GROWTH * buffer.shape[0])), buffer.shape[1]), dtype=np.float32)
            grown[: old.size] = old.vectors
            buffer = grown
            rows = rows[: old.size]
        at = old.size
        for item in prepared:
            count = len(item.rows)
            buffer[at : at + count] = item.vectors
            rows.extend(item.rows)
            notes[item.path] = _Note(item.title, item.hash, at, at + count)
            at += count
        self._buffer = buffer
        self._snapshot = _Snapshot(buffer[:needed], alive, rows, notes)

    def _compact(self, old: _Snapshot, alive: Mask, notes: dict[str, _Note], prepared: Sequence[_Prepared]) -> None:
        import numpy as np

        size = int(alive.sum()) + sum(len(p.rows) for p in prepared)
        buffer = np.zeros((max(64, size + size // 4), old.vectors.shape[1]), dtype=np.float32)
        rows: list[_Row] = []
        compacted: dict[str, _Note] = {}
        for path, note in sorted(notes.items(), key=lambda item: item[1].start):
            at = len(rows)
            count = note.stop - note.start
            buffer[at : at + count] = old.vectors[note.start : note.stop]
            rows.extend(old.rows[note.start : note.stop])
            compacted[path] = _Note(note.title, note.hash, at, at + count)
        for item in prepared:
            at = len(rows)
            count = len(item.rows)
            buffer[at : at + count] = item.vectors
            rows.extend(item.rows)
            compacted[item.path] = _Note(item.title, item.hash, at, at + count)
        self._buffer = buffer
        self._snapshot = _Snapshot(buffer[: len(rows)], np.ones(len(rows), dtype=bool), rows, compacted)

    # -- reading ----------------------------------------------------------------------------

    def _scores(self, snapshot: _Snapshot, text: str) -> Matrix:
        import numpy as np

        query = self.embedder.embed([text])[0]
        scores: Matrix = snapshot.vectors @ query
        scores[~snapshot.alive] = -np.inf
        return scores

    def query(self, text: str, k: int = 10) -> list[ChunkHit]:
        """The `k` chunks most similar to `text`, best first."""
        import numpy as np

        snapshot = self._current()
        if snapshot.size == 0 or k <= 0:
            return []
        scores = self._scores(snapshot, text)
        hits: list[ChunkHit] = []
        for i in _top(scores, min(k, snapshot.size)):
            if not np.isfinite(scores[i]):
                break
            row = snapshot.rows[i]
            hits.append(ChunkHit(row.path, row.chunk_no, row.heading, row.line, row.snippet, float(scores[i])))
        return hits

    def search(self, text: str, limit: int = 10, *, allow: Callable[[str], bool] | None = None) -> list[NoteHit]:
        """The `limit` notes whose best chunk is most similar to `text`, best first. `allow`: only
        notes for which it returns True (folder and tag filters)."""
        import numpy as np

        snapshot = self._current()
        if snapshot.size == 0 or limit <= 0:
            return []
        scores = self._scores(snapshot, text)
        wanted = min(limit * _CANDIDATES, snapshot.size)
        while True:
            hits: dict[str, NoteHit] = {}
            for i in _top(scores, wanted):
                if not np.isfinite(scores[i]):
                    break
                row = snapshot.rows[i]
                if row.path in hits or (allow is not None and not allow(row.path)):
                    continue
                note = snapshot.notes[row.path]
                hits[row.path] = NoteHit(row.path, note.title, float(scores[i]), row.line, row.heading, row.snippet)
                if len(hits) == limit:
                    return list(hits.values())
            if wanted >= snapshot.size:
                return list(hits.values())
            wanted = min(wanted * 4, snapshot.size)

    def similar(self, path: str, k: int = 10, *, allow: Callable[[str], bool] | None = None) -> list[NoteHit]:
        """The `k` notes most similar to the note `path` (itself excluded); [] when `path` is not
        indexed. Note vectors are the normalised means of their chunk vectors."""
        snapshot = self._current()
        if path not in snapshot.notes or k <= 0:
            return []
        paths, matrix = snapshot.note_matrix
        position = paths.index(path)
        scores = matrix @ matrix[position]
        hits: list[NoteHit] = []
        for i in _top(scores, len(paths)):
            other = paths[i]
            if other == path or (allow is not None and not allow(other)):
                continue
            note = snapshot.notes[other]
            first = snapshot.rows[note.start]
            hits.append(NoteHit(other, note.title, float(scores[i]), first.line, first.heading, first.snippet))
            if len(hits) == k:
                break
        return hits


def _top(scores: Matrix, k: int) -> list[int]:
    """Indices of the `k` highest scores, highest first (ties by index)."""
    import numpy as np

    if k >= len(scores):
        order = np.argsort(-scores, kind="stable")
    else:
        part = np.argpartition(-scores, k - 1)[:k]
        order = part[np.lexsort((part, -scores[part]))]
    return [int(i) for i in order]
