"""The packaged embedding table, read from its safetensors file: a few rows, or all of it.

Why not keep it in memory: a query needs the rows of its dozen tokens; `os.pread` reads them
from the file (~1 µs a row: the file stays in the system's page cache, shared and reclaimable,
and costs this process nothing). A build reads the whole table once (16 MB of float16) and the
embedder drops it when the build is done (`WordLlamaEmbedder.clear_cache`).

A safetensors file is an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range, then the data: reading its rows needs no library.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float16]
    Ids = npt.NDArray[np.int64]
else:
    Matrix = Any
    Ids = Any

_HEADER_LIMIT = 1 << 20  # bytes: a safetensors header larger than this is not the packaged table


class TableFile:
    """The packaged float16 table, read from its file: a few rows with `os.pread`, or all of it.

    A safetensors file is an 8-byte little-endian header length, a JSON header naming each
    tensor's dtype, shape and byte range, then the data; `open` checks that the tensor is a
    row-major float16 (vocabulary, dim) matrix that the file really holds, else returns None."""

    def __init__(self, path: Path, offset: int, vocabulary: int, dim: int) -> None:
        self.path = path
        self.offset = offset  # of row 0 in the file
        self.vocabulary = vocabulary
        self.dim = dim

    @classmethod
    def open(cls, path: Path, tensor: str, dim: int) -> TableFile | None:
        try:
            with path.open("rb") as handle:
                length = int.from_bytes(handle.read(8), "little")
                if not 0 < length <= _HEADER_LIMIT:
                    return None
                header = json.loads(handle.read(length))
            entry = header.get(tensor) if isinstance(header, dict) else None
            if not isinstance(entry, dict) or entry.get("dtype") != "F16":
                return None
            shape, offsets = entry.get("shape"), entry.get("data_offsets")
            if not (isinstance(shape, list) and len(shape) == 2 and shape[1] == dim and shape[0] > 0):
                return None
            if not (isinstance(offsets, list) and len(offsets) == 2):
                return None
            begin, end = offsets
            vocabulary = int(shape[0])
            offset = 8 + length + int(begin)
            if int(end) - int(begin) != vocabulary * dim * 2 or path.stat().st_size < offset + vocabulary * dim * 2:
                return None
        except (OSError, ValueError, TypeError, AttributeError):
            return None
        return cls(path, offset, vocabulary, dim)

    def rows(self, ids: Ids) -> Matrix:
        """float16 rows `ids` (sorted, distinct, each < vocabulary): one read per run of
        consecutive ids."""
        import numpy as np

        out = np.empty((len(ids), self.dim), dtype="<f2")
        if not len(ids):
            return out
        row_bytes = 2 * self.dim
        breaks = np.flatnonzero(np.diff(ids) != 1) + 1
        starts = np.concatenate(([0], breaks))
        stops = np.concatenate((breaks, [len(ids)]))
        view = out.data.cast("B")
        with self.path.open("rb", buffering=0) as handle:
            fd = handle.fileno()
            for first, last in zip(starts.tolist(), stops.tolist(), strict=True):
                size = (last - first) * row_bytes
                data = os.pread(fd, size, self.offset + int(ids[first]) * row_bytes)
                if len(data) != size:
                    raise OSError(f"{self.path} is shorter than its header says")
                view[first * row_bytes : first * row_bytes + size] = data
        return out

    def whole(self) -> Matrix:
        """The whole table, float16, plus one zero row at the end (the padding row)."""
        import numpy as np

        table = np.zeros((self.vocabulary + 1, self.dim), dtype="<f2")
        view = table[: self.vocabulary].data.cast("B")
        with self.path.open("rb", buffering=0) as handle:
            handle.seek(self.offset)
            done = 0
            while done < len(view):
                read = handle.readinto(view[done:])
                if not read:
                    raise OSError(f"{self.path} is shorter than its header says")
                done += read
        return table
