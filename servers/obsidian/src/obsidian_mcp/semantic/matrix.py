"""The chunk vectors in memory: int8 codes with one scale per row, scored in blocks.

Why int8: a unit vector's components are rounded to 1/127 of its largest one, so 33,866 chunks
of 256 dimensions take 8.7 MB instead of 35 MB of float32, and a cosine computed from the codes
is within ~0.002 of the float32 one: far below the gaps that order the results (the stored
float16 vectors, the source, are kept as they were). Scoring converts 1,024 rows at a time to
float32 (a 1 MB buffer) and multiplies them with the query through BLAS, which is faster than one
float32 product over the whole matrix: it reads a quarter of the memory.

What else a row costs is kept in arrays, not Python objects: the note it belongs to (a *slot*,
an index into `Snapshot.paths`) and its chunk number (the key of its text in the table, read
only for the hits shown). A note is a `NoteSpan`: its slot and its rows, which are contiguous.
For `similar`, each slot also has the length of the sum of its rows (`norms`), so the cosine of
two notes' mean vectors needs one pass over the rows and no matrix of note vectors.

`Buffers` are shared by successive snapshots: rows and slots are only ever appended past what
the newest snapshot shows, so an older snapshot's views never change under a reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float32]
    Codes = npt.NDArray[np.int8]
    Ints = npt.NDArray[np.int32]
    Mask = npt.NDArray[np.bool_]
else:
    Floats = Codes = Ints = Mask = Any

BLOCK_ROWS = 1024  # rows converted to float32 at a time when scoring (1 MB at 256 dimensions)
GROWTH = 1.25  # buffers grow by this factor when full


@dataclass(frozen=True)
class Quantized:
    """Rows as int8 codes and a float32 scale each: row ≈ codes * scale."""

    codes: Codes
    scales: Floats


def quantize(vectors: Floats) -> Quantized:
    """Each row scaled so that its largest component is ±127, then rounded (zero rows stay zero)."""
    import numpy as np

    scales = (np.abs(vectors).max(axis=1) / 127).astype(np.float32) if len(vectors) else np.zeros(0, np.float32)
    safe = np.where(scales > 0, scales, np.float32(1))
    codes = np.rint(vectors / safe[:, None]).astype(np.int8)
    return Quantized(codes, scales)


def row_scores(codes: Codes, scales: Floats, query: Floats) -> Floats:
    """`dequantized rows @ query`, a block of rows at a time."""
    import numpy as np

    out = np.empty(len(codes), dtype=np.float32)
    block = np.empty((min(BLOCK_ROWS, len(codes)), codes.shape[1]), dtype=np.float32)
    query = np.ascontiguousarray(query, dtype=np.float32)
    for start in range(0, len(codes), BLOCK_ROWS):
        part = codes[start : start + BLOCK_ROWS]
        rows = block[: len(part)]
        np.copyto(rows, part, casting="unsafe")
        np.matmul(rows, query, out=out[start : start + len(part)])
    out *= scales
    return out


def row_sum(codes: Codes, scales: Floats) -> Floats:
    """The sum of the dequantized rows (a note's vector, before normalising)."""
    import numpy as np

    return np.asarray(scales @ codes.astype(np.float32), dtype=np.float32)


def span_norms(codes: Codes, scales: Floats, spans: Sequence[tuple[int, int]]) -> Floats:
    """The length of the sum of the dequantized rows [start, stop) of each span (0 for an empty
    one), working on about `BLOCK_ROWS` rows at a time. The spans must follow one another
    without gaps (as a freshly loaded matrix's notes do)."""
    import numpy as np

    norms = np.zeros(len(spans), dtype=np.float32)
    at = 0
    while at < len(spans):
        first = at
        while at < len(spans) and (at == first or spans[at][1] - spans[first][0] <= BLOCK_ROWS):
            at += 1
        group = [(n, spans[n]) for n in range(first, at) if spans[n][1] > spans[n][0]]
        if not group:
            continue
        low, high = group[0][1][0], group[-1][1][1]
        rows = codes[low:high].astype(np.float32)
        rows *= scales[low:high, None]
        bounds = np.array([span[0] - low for _, span in group], dtype=np.int64)
        sums = np.add.reduceat(rows, bounds, axis=0)  # each segment runs to the next bound
        norms[[n for n, _ in group]] = np.linalg.norm(sums, axis=1)
    return norms


@dataclass(frozen=True, slots=True)
class NoteSpan:
    slot: int  # index into `Snapshot.paths` and `Snapshot.norms`
    start: int  # rows [start, stop)
    stop: int


class Buffers:
    """Row and slot storage with room to grow (see the module docstring). Untouched capacity
    costs no memory: numpy's large zeroed arrays are pages the system has not handed out yet."""

    def __init__(self, rows: int, slots: int, dim: int) -> None:
        import numpy as np

        self.dim = dim
        self.codes: Codes = np.zeros((rows, dim), dtype=np.int8)
        self.scales: Floats = np.zeros(rows, dtype=np.float32)
        self.owners: Ints = np.zeros(rows, dtype=np.int32)
        self.chunk_nos: Ints = np.zeros(rows, dtype=np.int32)
        self.norms: Floats = np.zeros(slots, dtype=np.float32)
        self.paths: list[str] = []

    @property
    def row_capacity(self) -> int:
        return int(self.codes.shape[0])

    @property
    def slot_capacity(self) -> int:
        return int(self.norms.shape[0])

    def with_room(self, rows: int, slots: int, kept_rows: int, kept_slots: int) -> Buffers:
        """Self if `rows` rows and `slots` slots fit and nothing past the kept ones was written
        (by a write whose snapshot was dropped), else new buffers holding a copy of the kept."""
        if rows <= self.row_capacity and slots <= self.slot_capacity and len(self.paths) == kept_slots:
            return self
        grown = Buffers(
            max(rows, int(GROWTH * self.row_capacity)), max(slots, int(GROWTH * self.slot_capacity)), self.dim
        )
        grown.codes[:kept_rows] = self.codes[:kept_rows]
        grown.scales[:kept_rows] = self.scales[:kept_rows]
        grown.owners[:kept_rows] = self.owners[:kept_rows]
        grown.chunk_nos[:kept_rows] = self.chunk_nos[:kept_rows]
        grown.norms[:kept_slots] = self.norms[:kept_slots]
        grown.paths = self.paths[:kept_slots]
        return grown

    def append(self, path: str, vectors: Quantized, chunk_nos: Sequence[int] | Ints, norm: float, at: int) -> NoteSpan:
        """Write one note's rows at row `at` and give it the next slot (room is there)."""
        count = len(chunk_nos)
        slot = len(self.paths)
        self.paths.append(path)
        self.norms[slot] = norm
        self.codes[at : at + count] = vectors.codes
        self.scales[at : at + count] = vectors.scales
        self.owners[at : at + count] = slot
        self.chunk_nos[at : at + count] = chunk_nos
        return NoteSpan(slot, at, at + count)

    def snapshot(self, size: int, alive: Mask, notes: dict[str, NoteSpan]) -> Snapshot:
        slots = len(self.paths)
        return Snapshot(
            self.codes[:size],
            self.scales[:size],
            self.owners[:size],
            self.chunk_nos[:size],
            alive,
            self.paths,
            slots,
            self.norms[:slots],
            notes,
        )


@dataclass(frozen=True, eq=False)
class Snapshot:
    """What a reader sees; never changed after publication. `paths` is shared with later
    snapshots (append-only): only its first `slots` entries are this snapshot's."""

    codes: Codes  # (size, dim)
    scales: Floats  # (size,)
    owners: Ints  # (size,) the slot of each row's note
    chunk_nos: Ints  # (size,)
    alive: Mask  # (size,) False: the row's note was replaced or removed
    paths: list[str]
    slots: int
    norms: Floats  # (slots,)
    notes: dict[str, NoteSpan]

    @property
    def size(self) -> int:
        return int(self.codes.shape[0])

    def path_of(self, row: int) -> str:
        return self.paths[int(self.owners[row])]

    def scores(self, query: Floats) -> Floats:
        """Cosine of every row with the unit vector `query`; dead rows -inf."""
        import numpy as np

        scores = row_scores(self.codes, self.scales, query)
        scores[~self.alive] = -np.inf
        return scores

    def note_vector(self, note: NoteSpan) -> Floats:
        """The note's unit mean vector (zeros for a note whose rows sum to nothing)."""
        total = row_sum(self.codes[note.start : note.stop], self.scales[note.start : note.stop])
        norm = float(self.norms[note.slot])
        return total / norm if norm > 0 else total * 0

    def note_scores(self, query: Floats) -> Floats:
        """Per slot, the cosine of the note's mean vector with the unit vector `query`: the sum
        of its rows' dot products over the length of its rows' sum. Slots of notes no longer in
        this snapshot, and notes without a direction, score -inf."""
        import numpy as np

        rows = row_scores(self.codes, self.scales, query)
        owners = self.owners[self.alive]
        dots = np.bincount(owners, weights=rows[self.alive], minlength=self.slots)
        live = (np.bincount(owners, minlength=self.slots) > 0) & (self.norms > 0)  # a note's rows all live or dead
        scores = np.full(self.slots, -np.inf, dtype=np.float32)
        scores[live] = dots[live] / self.norms[live]
        return scores
