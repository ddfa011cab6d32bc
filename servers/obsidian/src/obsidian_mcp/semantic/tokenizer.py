"""Token ids of space-free pieces of text: the compact tables, or the `tokenizers` library.

`PieceTokenizer.encode` gives each piece's ids as the packaged tokenizer would. Small batches
(a query, a note or two: most pieces already in the embedder's cache) go through `CompactBpe`;
a batch with at least `LIBRARY_AT` pieces to tokenise (a build) through the `tokenizers`
library, loaded then (~0.1 s), used for every batch while it is loaded, and dropped by `release()`
once the build is done, since it costs ~16 MB. Where the compact tables are not available
(another tokenizer, or the model loaded through `wordllama` itself), the library does everything
and stays.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from obsidian_mcp.semantic.bpe import CompactBpe

log = logging.getLogger("obsidian_mcp.semantic")

LIBRARY_AT = 1024  # pieces to tokenise in one batch from which the library does it (~5x faster, 2 cores)


def prepared_library(tokenizer: Any) -> Any:
    """The library's tokenizer set up for pieces: no padding, no truncation, and no word cache
    (the embedder's cache does its work; the library's grows to ~12 MB that freeing does not
    give back — `_resize_cache` is private API of `tokenizers` >= 0.20, skipped where missing)."""
    tokenizer.no_padding()
    tokenizer.no_truncation()
    resize = getattr(getattr(tokenizer, "model", None), "_resize_cache", None)
    if callable(resize):
        try:
            resize(0)
        except Exception:  # a model without a cache
            log.debug("the tokenizer's word cache stays on", exc_info=True)
    return tokenizer


class PieceTokenizer:
    """See the module docstring. Thread-safe."""

    def __init__(self, compact: CompactBpe | None, load_library: Callable[[], Any], library: Any = None) -> None:
        self._compact = compact
        self._load_library = load_library
        self._library = library
        self._lock = threading.Lock()

    @property
    def holds_library(self) -> bool:
        return self._library is not None

    def encode(self, pieces: Sequence[str]) -> list[tuple[int, ...]]:
        compact = self._compact
        if compact is None or self._library is not None or len(pieces) >= LIBRARY_AT:
            return self._through_library(pieces)  # (once loaded for a build, it does the rest of it)
        out = [compact.encode(piece) for piece in pieces]
        declined = [n for n, ids in enumerate(out) if ids is None]
        if declined:
            for n, ids in zip(declined, self._through_library([pieces[n] for n in declined]), strict=True):
                out[n] = ids
        return [ids if ids is not None else () for ids in out]

    def release(self) -> bool:
        """Drop the library's tokenizer if it can be loaded again (the compact tables remain).
        Returns whether it was dropped."""
        if self._compact is None:
            return False
        with self._lock:
            dropped, self._library = self._library is not None, None
        return dropped

    def _through_library(self, pieces: Sequence[str]) -> list[tuple[int, ...]]:
        library = self._library
        if library is None:
            with self._lock:
                if self._library is None:
                    self._library = prepared_library(self._load_library())
                library = self._library
        fast = getattr(library, "encode_batch_fast", None)  # tokenizers >= 0.20: no offsets
        encode = fast if fast is not None else library.encode_batch
        return [tuple(encoding.ids) for encoding in encode(list(pieces), add_special_tokens=False)]
