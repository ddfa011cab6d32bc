"""The vector store: chunk vectors in SQLite, all of them in memory for brute-force cosine search.

`SemanticIndex` takes an open `sqlite3.Connection` (the index database, outside the vault) and
owns three tables of its own, created when missing (their queries are `index.vector_table`'s):

* `semantic_meta(key, value)`: the schema version and the *model marker* (embedder id, chunker
  version, dimension). Opening with another marker empties the other two tables: every note is
  then reported missing (`indexed_hashes()` is empty) and the caller re-embeds the vault.
* `semantic_notes(path, hash, title)`: one row per embedded note; `hash` is what the caller gave
  as `source_hash` (e.g. the keyword index's content hash) or else `content_hash(text, title)`,
  so the caller can tell which notes changed without reading them (`stale`).
* `semantic_chunks(path, chunk_no, heading, line, text, vector)`: the chunks; `text` is the start
  of the chunk's cleaned text (what snippets show, `STORED_TEXT_CHARS`), `vector` the float16
  little-endian bytes of the unit vector (512 bytes at 256 dimensions).

In memory there are only the vectors (`matrix`: int8 codes with a scale per row, 8.7 MB for
10,000 notes' 33,866 chunks), each row's note and chunk number, and each note's rows: a search
is one pass over the matrix. What a hit shows (title, heading, line, snippet) and the hashes are
read from the tables when asked for, through a read-only connection of this class's own when the
database is a file (WAL lets it read while the writer writes; an in-memory database is read
through the writer's connection, under `db_lock`). Updates append rows and mark replaced rows
dead; dead rows are compacted away once they are a quarter of the matrix.

Threads: one writer at a time (`upsert_*`, `remove_*`, `rename_note` serialise on a lock),
any number of concurrent readers (`query`, `search`, `similar` never wait on the writer's lock).
Each write commits, then publishes a new immutable `matrix.Snapshot`; a reader scores the
snapshot it picked up, then reads its hits' texts as stored at that moment: should a note have
been replaced in between, its hit shows the new text of the same chunk number, or is left out if
there is no such chunk any more (the next search sees the new vectors). The writer's connection is used only by writers,
the first load and `indexed_hashes`/`stale`, under `db_lock` (pass the lock that guards the
connection's other users if it is shared, or give this class a connection of its own:
recommended, see the package docstring). `close()` closes the reading connection.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from obsidian_mcp.index import vector_table
from obsidian_mcp.index.vector_table import ChunkRow
from obsidian_mcp.semantic.chunking import CHUNKER_VERSION, chunk_note, snippet_of
from obsidian_mcp.semantic.matrix import Buffers, NoteSpan, Quantized, Snapshot, quantize, row_sum, span_norms
from obsidian_mcp.semantic.model import Embedder, default_embedder, trim_heap
from obsidian_mcp.semantic.notes import ChunkHit, NoteHit, NoteText, content_hash

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float32]
    Mask = npt.NDArray[np.bool_]
else:
    Floats = Any
    Mask = Any

log = logging.getLogger("obsidian_mcp.semantic")

SEMANTIC_SCHEMA_VERSION = 1
STORED_TEXT_CHARS = 400  # of each chunk's text kept in the table: enough for a snippet
COMPACT_FRACTION = 0.25  # compact the matrix when this share of its rows is dead
COMPACT_MIN_ROWS = 1024
READ_TIMEOUT_SECONDS = 10.0
READ_CACHE_KIB = 512  # the reading connection's page cache: the tables' inner pages, for key lookups
TRIM_AFTER_ROWS = 1024  # chunks loaded or stored since the last `release_memory` from which it trims
_CANDIDATES = 8  # chunk rows looked at per wanted note before falling back to a full sort
_LOAD_BATCH = 1024  # chunk rows read at a time when loading
_LOOKUP_BATCH = 200  # chunks whose texts are read in one statement
T = TypeVar("T")


# -- in memory --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Prepared:
    """A note chunked and embedded, ready to be stored (`rows` empty: a rename, nothing to insert)."""

    path: str
    title: str
    hash: str
    rows: list[ChunkRow]
    chunk_nos: list[int]
    vectors: Quantized
    norm: float


@dataclass(frozen=True)
class _Shown:
    """What a hit shows of its chunk, read from the tables."""

    title: str
    heading: str | None
    line: int
    snippet: str


def _quantized_from_float16(blobs: bytes, count: int, dim: int) -> Quantized:
    import numpy as np

    return quantize(np.frombuffer(blobs, dtype="<f2").reshape(count, dim).astype(np.float32))


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
        self._snapshot: Snapshot | None = None
        self._buffers: Buffers | None = None
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()
        self._closed = False
        self._churn = 0  # chunk rows loaded or stored since the last `release_memory`
        self.model_changed = False
        with self._db_lock:
            self._prepare_tables()
            self._file = vector_table.database_file(conn)

    def release_memory(self) -> None:
        """Give back what only pays while embedding or loading: the embedder's caches (if it has
        any), and after a load, a large batch of notes or an embedder that let go of something
        large, the connections' page caches (`PRAGMA shrink_memory`) and freed heap pages
        (`malloc_trim`: 2-8 ms, not worth it after a note or two, whose memory is reused). The
        builder calls this whenever it has nothing left to do."""
        clear = getattr(self.embedder, "clear_cache", None)
        large = bool(clear()) if callable(clear) else False
        with self._write_lock:
            churn, self._churn = self._churn, 0
        if not large and churn < TRIM_AFTER_ROWS:
            return
        with self._db_lock:
            vector_table.shrink_memory(self.conn)
        with self._reader_lock:
            if self._reader is not None:
                vector_table.shrink_memory(self._reader)
        trim_heap()

    def close(self) -> None:
        """Close the reading connection (the writer's belongs to the caller). Reads after this
        go through the writer's connection."""
        with self._reader_lock:
            self._closed = True
            reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()

    # -- tables ---------------------------------------------------------------------------------

    @property
    def model_marker(self) -> str:
        return f"{self.embedder.model_id};chunker={CHUNKER_VERSION};dim={self.embedder.dim}"

    def _prepare_tables(self) -> None:
        with vector_table.transaction(self.conn):
            vector_table.create(self.conn)
            meta = vector_table.meta(self.conn)
            if meta.get("schema") not in (None, str(SEMANTIC_SCHEMA_VERSION)):
                vector_table.recreate_note_tables(self.conn)
                meta.pop("model", None)
            if meta.get("model") != self.model_marker:
                had = vector_table.note_count(self.conn)
                if had:
                    log.warning(
                        "the embedding model changed: semantic index to be rebuilt",
                        extra={"was": meta.get("model"), "now": self.model_marker, "notes": had},
                    )
                    self.model_changed = True
                vector_table.clear(self.conn)
            vector_table.set_meta(self.conn, {"schema": str(SEMANTIC_SCHEMA_VERSION), "model": self.model_marker})

    def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """`query` run for a reader: on the reading connection (opened on first use) when the
        database is a file, else on the writer's under `db_lock`."""
        with self._reader_lock:
            if self._reader is None and self._file and not self._closed:
                self._reader = vector_table.open_reader(self._file, READ_TIMEOUT_SECONDS, READ_CACHE_KIB)
            if self._reader is not None:
                return query(self._reader)
        with self._db_lock:
            return query(self.conn)

    # -- loading ----------------------------------------------------------------------------

    def _current(self) -> Snapshot:
        snapshot = self._snapshot
        if snapshot is not None:
            return snapshot
        with self._write_lock:
            if self._snapshot is None:
                self._load()
            assert self._snapshot is not None
            return self._snapshot

    def _load(self) -> None:
        """Read every stored chunk vector into the matrix (caller holds the write lock), streamed
        in batches: reading them all first would hold a second copy whose freed pieces the heap
        keeps. Only the vectors and their keys are read; texts stay in the table."""
        import numpy as np

        dim = self.embedder.dim
        with self._db_lock:
            # {path: path}: the kept paths are these strings, allocated together, not one string
            # picked out of each batch of rows (whose neighbours are freed: a fragmented heap)
            known = {path: path for path in vector_table.note_paths(self.conn)}
            stored = vector_table.chunk_count(self.conn)
            buffers = Buffers(max(stored, 64), max(len(known), 16), dim)
            spans: list[tuple[int, int]] = []
            size = 0
            for batch in vector_table.chunk_vectors(self.conn, _LOAD_BATCH):
                kept = [row for row in batch if row[0] in known and len(row[2]) == 2 * dim]
                if not kept:
                    continue
                vectors = _quantized_from_float16(b"".join(row[2] for row in kept), len(kept), dim)
                buffers.codes[size : size + len(kept)] = vectors.codes
                buffers.scales[size : size + len(kept)] = vectors.scales
                for at, (path, chunk_no, _) in enumerate(kept, size):
                    if not buffers.paths or buffers.paths[-1] != path:
                        if spans:
                            spans[-1] = (spans[-1][0], at)
                        spans.append((at, at))
                        buffers.paths.append(known[path])
                    buffers.owners[at] = len(buffers.paths) - 1
                    buffers.chunk_nos[at] = chunk_no
                size += len(kept)
        if spans:
            spans[-1] = (spans[-1][0], size)
        buffers.norms[: len(spans)] = span_norms(buffers.codes, buffers.scales, spans)
        notes = {path: NoteSpan(slot, *spans[slot]) for slot, path in enumerate(buffers.paths)}
        self._buffers = buffers
        self._snapshot = buffers.snapshot(size, np.ones(size, dtype=bool), notes)
        self._churn += max(size, TRIM_AFTER_ROWS)  # a load always leaves freed pages behind

    # -- what is indexed --------------------------------------------------------------------

    def indexed_hashes(self) -> dict[str, str]:
        """{path: hash} of every embedded note (see `NoteText.source_hash`)."""
        notes = self._current().notes
        with self._db_lock:
            rows = vector_table.note_hashes(self.conn)
        return {path: digest for path, digest in rows if path in notes}

    def indexed_paths(self) -> set[str]:
        return set(self._current().notes)

    def stale(self, current: Mapping[str, str]) -> tuple[list[str], list[str]]:
        """Given the vault's notes as {path: hash} (hashes as given when upserting), the paths to
        (re)embed and the paths to remove, each sorted."""
        known = self.indexed_hashes()
        todo = sorted(path for path, digest in current.items() if known.get(path) != digest)
        gone = sorted(path for path in known if path not in current)
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
        # stored as float16, and in memory as what a later load makes of that: the same either way
        stored = vectors.astype("<f2")
        quantized = quantize(stored.astype(np.float32))
        prepared: list[_Prepared] = []
        at = 0
        for note, item in zip(notes, chunked, strict=True):
            count = len(item.chunks)
            codes, scales = quantized.codes[at : at + count], quantized.scales[at : at + count]
            rows = [
                ChunkRow(c.chunk_no, c.heading, c.line, c.text[:STORED_TEXT_CHARS], stored[at + n].tobytes())
                for n, c in enumerate(item.chunks)
            ]
            prepared.append(
                _Prepared(
                    note.path,
                    item.title,
                    note.source_hash or content_hash(note.text, note.title),
                    rows,
                    [c.chunk_no for c in item.chunks],
                    Quantized(codes, scales),
                    float(np.linalg.norm(row_sum(codes, scales))),
                )
            )
            at += count
        return prepared

    def upsert_note(self, path: str, text: str, title: str | None = None, *, source_hash: str | None = None) -> bool:
        """Embed and store one note (replacing what was stored for `path`). Returns False, doing
        nothing, when the stored hash is already this one."""
        digest = source_hash or content_hash(text, title)
        if path in self._current().notes:
            with self._db_lock:
                stored = vector_table.note_hash(self.conn, path)
            if stored == digest:
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
            with self._db_lock, vector_table.transaction(self.conn):
                vector_table.rename(self.conn, old, new)
            rows = slice(note.start, note.stop)
            moved = _Prepared(
                new,
                "",
                "",
                [],
                [int(n) for n in snapshot.chunk_nos[rows]],
                Quantized(snapshot.codes[rows].copy(), snapshot.scales[rows].copy()),
                float(snapshot.norms[note.slot]),
            )
            self._publish([moved], [old, new])
            return True

    def apply(self, prepared: Sequence[_Prepared], removed: Sequence[str] = ()) -> None:
        """Store prepared notes and drop `removed` paths: one transaction, then one new snapshot."""
        if not prepared and not removed:
            return
        with self._write_lock:
            self._current()
            with self._db_lock, vector_table.transaction(self.conn):
                vector_table.delete(self.conn, [*removed, *(p.path for p in prepared)])
                for note in prepared:
                    vector_table.insert(self.conn, note.path, note.hash, note.title, note.rows)
            self._publish(prepared, [*removed, *(p.path for p in prepared)])
            self._churn += sum(len(p.chunk_nos) for p in prepared)

    def clear(self) -> None:
        """Forget every note (e.g. before a rebuild from scratch)."""
        with self._write_lock:
            with self._db_lock, vector_table.transaction(self.conn):
                vector_table.clear(self.conn)
            self._snapshot = None
            self._load()

    def _publish(self, prepared: Sequence[_Prepared], replaced: Iterable[str]) -> None:
        """New snapshot: rows of `replaced` paths dead, `prepared` appended (write lock held)."""
        import numpy as np

        old = self._current()
        notes = dict(old.notes)
        size = old.size + sum(len(p.chunk_nos) for p in prepared)
        alive = np.ones(size, dtype=bool)
        alive[: old.size] = old.alive
        for path in replaced:
            note = notes.pop(path, None)
            if note is not None:
                alive[note.start : note.stop] = False
        dead = size - int(alive.sum())
        if dead >= COMPACT_MIN_ROWS and dead >= COMPACT_FRACTION * size:
            self._compact(old, notes, prepared)
            return
        assert self._buffers is not None
        buffers = self._buffers.with_room(size, old.slots + len(prepared), old.size, old.slots)
        at = old.size
        for item in prepared:
            notes[item.path] = buffers.append(item.path, item.vectors, item.chunk_nos, item.norm, at)
            at += len(item.chunk_nos)
        self._buffers = buffers
        self._snapshot = buffers.snapshot(size, alive, notes)

    def _compact(self, old: Snapshot, notes: dict[str, NoteSpan], prepared: Sequence[_Prepared]) -> None:
        import numpy as np

        size = sum(note.stop - note.start for note in notes.values()) + sum(len(p.chunk_nos) for p in prepared)
        slots = len(notes) + len(prepared)
        buffers = Buffers(max(64, size + size // 4), max(16, slots + slots // 4), old.codes.shape[1])
        compacted: dict[str, NoteSpan] = {}
        at = 0
        for path, note in sorted(notes.items(), key=lambda item: item[1].start):
            rows = slice(note.start, note.stop)
            vectors = Quantized(old.codes[rows], old.scales[rows])
            compacted[path] = buffers.append(path, vectors, old.chunk_nos[rows], float(old.norms[note.slot]), at)
            at += note.stop - note.start
        for item in prepared:
            compacted[item.path] = buffers.append(item.path, item.vectors, item.chunk_nos, item.norm, at)
            at += len(item.chunk_nos)
        self._buffers = buffers
        self._snapshot = buffers.snapshot(at, np.ones(at, dtype=bool), compacted)

    # -- reading ----------------------------------------------------------------------------

    def _shown(self, snapshot: Snapshot, rows: Sequence[int]) -> dict[int, _Shown]:
        """What each of `rows` shows, read from the tables; a row whose chunk is no longer
        stored (its note was replaced or removed since `snapshot`) is missing."""
        keys = {(snapshot.path_of(row), int(snapshot.chunk_nos[row])): row for row in rows}
        shown: dict[int, _Shown] = {}
        pairs = list(keys)
        for start in range(0, len(pairs), _LOOKUP_BATCH):
            batch = pairs[start : start + _LOOKUP_BATCH]
            found = self._read(partial(vector_table.shown_chunks, keys=batch))
            for path, chunk_no, title, heading, line, text in found:
                shown[keys[(path, chunk_no)]] = _Shown(title, heading, line, snippet_of(text))
        return shown

    def _query_vector(self, text: str) -> Floats:
        vector: Floats = self.embedder.embed([text])[0]
        return vector

    def query(self, text: str, k: int = 10) -> list[ChunkHit]:
        """The `k` chunks most similar to `text`, best first."""
        import numpy as np

        snapshot = self._current()
        if snapshot.size == 0 or k <= 0:
            return []
        scores = snapshot.scores(self._query_vector(text))
        rows = [i for i in _top(scores, min(k, snapshot.size)) if np.isfinite(scores[i])]
        shown = self._shown(snapshot, rows)
        return [
            ChunkHit(snapshot.path_of(i), int(snapshot.chunk_nos[i]), s.heading, s.line, s.snippet, float(scores[i]))
            for i in rows
            if (s := shown.get(i)) is not None
        ]

    def search(self, text: str, limit: int = 10, *, allow: Callable[[str], bool] | None = None) -> list[NoteHit]:
        """The `limit` notes whose best chunk is most similar to `text`, best first. `allow`: only
        notes for which it returns True (folder and tag filters)."""
        import numpy as np

        snapshot = self._current()
        if snapshot.size == 0 or limit <= 0:
            return []
        scores = snapshot.scores(self._query_vector(text))
        wanted = min(limit * _CANDIDATES, snapshot.size)
        while True:
            best: dict[str, int] = {}  # path -> its best row, best first
            for i in _top(scores, wanted):
                if not np.isfinite(scores[i]):
                    break
                path = snapshot.path_of(i)
                if path in best or (allow is not None and not allow(path)):
                    continue
                best[path] = i
                if len(best) == limit:
                    break
            if len(best) == limit or wanted >= snapshot.size:
                break
            wanted = min(wanted * 4, snapshot.size)
        shown = self._shown(snapshot, list(best.values()))
        return [
            NoteHit(path, s.title, float(scores[i]), s.line, s.heading, s.snippet)
            for path, i in best.items()
            if (s := shown.get(i)) is not None
        ]

    def similar(self, path: str, k: int = 10, *, allow: Callable[[str], bool] | None = None) -> list[NoteHit]:
        """The `k` notes most similar to the note `path` (itself excluded); [] when `path` is not
        indexed. Note vectors are the normalised means of their chunk vectors."""
        import numpy as np

        snapshot = self._current()
        note = snapshot.notes.get(path)
        if note is None or k <= 0:
            return []
        scores = snapshot.note_scores(snapshot.note_vector(note))
        chosen: list[tuple[str, NoteSpan, float]] = []
        for slot in _top(scores, snapshot.slots):
            if not np.isfinite(scores[slot]):
                break
            other = snapshot.paths[slot]
            if other == path or (allow is not None and not allow(other)):
                continue
            chosen.append((other, snapshot.notes[other], float(scores[slot])))
            if len(chosen) == k:
                break
        shown = self._shown(snapshot, [span.start for _, span, _ in chosen])
        return [
            NoteHit(other, s.title, score, s.line, s.heading, s.snippet)
            for other, span, score in chosen
            if (s := shown.get(span.start)) is not None
        ]


def _top(scores: Floats, k: int) -> list[int]:
    """Indices of the `k` highest scores, highest first (ties by index)."""
    import numpy as np

    if k >= len(scores):
        order = np.argsort(-scores, kind="stable")
    else:
        part = np.argpartition(-scores, k - 1)[:k]
        order = part[np.lexsort((part, -scores[part]))]
    return [int(i) for i in order]
