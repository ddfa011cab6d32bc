"""The embedding model: WordLlama's static token embeddings, shipped inside its PyPI wheel.

WordLlama (`l2_supercat`, 256 dimensions) is a table of one vector per token of Llama 2's
32,000-token vocabulary; a text's vector is the mean of its tokens' vectors, normalised. The
weights (16 MB of float16) and the tokenizer come inside the `wordllama` wheel: nothing is
downloaded at run time, ever.

Loading reads the packaged tokenizer (`tokenizers/l2_supercat_tokenizer_config.json`) and the
layout of the packaged weights (`weights/l2_supercat_256.safetensors`, tensor `embedding.weight`),
found through the installed package's location without importing it. `import wordllama` would
configure the root logger (`logging.basicConfig(level=INFO)` in its modules), import requests,
pydantic and toml, and `WordLlama.load` keeps a float32 copy of the table. Should a future wheel
move those files, the loader falls back to `WordLlama.load(cache_dir=<package folder>,
disable_download=True)` (the package folder is where its `tokenizers/…` lookup succeeds;
`disable_download` turns a missing file into an error instead of a request to Hugging Face),
with the logging left as it was, and then keeps its table in memory.

Memory (a server holds the model for as long as it runs). The table is not kept in memory: a
query needs the rows of its dozen tokens, read from the wheel's file (`table.TableFile`); a large
batch or one with many distinct tokens (a build) reads the whole table once and keeps it until
`clear_cache()`, which the builder calls when it has nothing left to do. Likewise pieces are
tokenised by compact tables of the packaged tokenizer, and only large batches load the
`tokenizers` library, until `clear_cache()` (`tokenizer.PieceTokenizer`).

Nothing here imports numpy, `tokenizers`, `safetensors` or `wordllama` at import time: the model
loads on the first `embed` (or `load`) call, once, under a lock; concurrent callers wait for it.

The pooling is done here rather than by `WordLlamaInference.embed`, with the same result (the
mean of the token vectors) several times faster on notes: see `WordLlamaEmbedder.embed`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import importlib.util
import logging
import sys
import threading
import time
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from obsidian_mcp.semantic.bpe import CompactBpe
from obsidian_mcp.semantic.table import TableFile
from obsidian_mcp.semantic.tokenizer import PieceTokenizer, prepared_library

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
    Table = npt.NDArray[np.float16]
    Ids = npt.NDArray[np.int64]
else:
    Matrix = Any
    Table = Any
    Ids = Any

log = logging.getLogger("obsidian_mcp.semantic")

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256
WORDLLAMA_MIN_SIMILARITY = 0.05  # calibrated by bench/search_quality.py (its "floor" section)
KNOWN_TOKENS = 2  # a word cut into more tokens than this is one the model does not know (ditto)
MAX_WORDS = 400  # space-separated pieces per text; chunks are capped below this, queries too
TOKENIZE_TEXTS = 4096  # texts whose distinct words are tokenised together
POOL_ROWS = 256  # runs of ids of similar length summed together
CACHE_PIECES = 50_000  # words whose token ids are remembered between calls (~10 MB, cleared after a build)
KEEP_PIECES = 4096  # a word cache up to this size (~0.8 MB) is kept when the builder runs out of work
WHOLE_TABLE_AT = 2048  # distinct tokens in one batch from which the whole table is read (~4 ms) rather than rows
WHOLE_TABLE_TEXTS = 256  # texts in one batch from which it is read too (a build's batch: ~75 notes or more)


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors (one row per text; an empty text gives a row of
    zeros). `model_id` names the model and its pooling: stored vectors made under another id are
    rebuilt. Implementations must be safe to call from several threads."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def min_similarity(self) -> float:
        """The cosine similarity below which a note found by meaning alone counts as unrelated."""
        ...

    def meaningful(self, text: str) -> bool:
        """Whether the model has a meaning for some content word of `text`: a query of words it
        does not know (made-up words, private codes) is close in meaning to nothing."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix: ...


def _package_version(name: str) -> str:
    from importlib import metadata  # ~20 ms: not at import time

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def _import_wordllama() -> Any:
    """Import `wordllama` without letting it reconfigure logging: its modules call
    `logging.basicConfig(level=INFO)` at import time, which would add a root handler and level."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        # through importlib: wordllama ships no type information (no py.typed), and its API is
        # used through `Any` here anyway, so mypy needs no per-module override
        wordllama = importlib.import_module("wordllama")
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    return wordllama


def _packaged_files(config: str, dim: int) -> tuple[TableFile | Table, PieceTokenizer] | None:
    """(table, tokenizer) from the installed wheel, or None if not laid out so. The table is a
    `TableFile` (rows read when needed), the tokenizer the compact tables with the library behind
    them (see `tokenizer`)."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    weights = package / "weights" / f"{config}_{dim}.safetensors"
    tokenizer = package / "tokenizers" / f"{config}_tokenizer_config.json"
    if not (weights.is_file() and tokenizer.is_file()):
        return None
    table = TableFile.open(weights, "embedding.weight", dim)
    if table is None:
        return None

    def library() -> Any:
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(tokenizer))

    return table, PieceTokenizer(CompactBpe.open(tokenizer), library)


def _through_wordllama(config: str, dim: int) -> tuple[TableFile | Table, PieceTokenizer]:
    wordllama = _import_wordllama()
    package = Path(wordllama.__file__).parent
    model = wordllama.WordLlama.load(config=config, dim=dim, cache_dir=package, disable_download=True)
    return model.embedding, PieceTokenizer(None, lambda: model.tokenizer, prepared_library(model.tokenizer))


def trim_heap() -> None:
    """Hand freed heap pages back to the system. glibc keeps them otherwise (in every thread's
    arena): after loading the tokenizer (its JSON parse, ~4 MB) or embedding a vault (~30 MB).
    Best effort, Linux only."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        log.debug("malloc_trim is not available", exc_info=True)


def normalize_rows(matrix: Matrix) -> Matrix:
    """Rows scaled to unit length in place (zero rows stay zero); returns `matrix`."""
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


def pooled_sums(table: Matrix | Table, ids: Ids, lengths: Ids) -> Matrix:
    """Row sums of `table` for consecutive runs of `ids`: run i is the next `lengths[i]` ids, and
    its sum is `table[run].sum(axis=0)`. The last row of `table` must be zeros: it pads. Runs of
    similar length are summed together one position at a time into a small accumulator, so no
    temporary array holds one vector per id."""
    import numpy as np

    pad = table.shape[0] - 1
    sums = np.zeros((len(lengths), table.shape[1]), dtype=np.float32)
    if not len(ids):
        return sums
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    order = np.argsort(lengths, kind="stable")
    for group in range(0, len(order), POOL_ROWS):
        members = order[group : group + POOL_ROWS]
        longest = int(lengths[members[-1]])
        if longest == 0:
            continue
        columns = np.arange(longest)
        at = np.minimum(offsets[members, None] + columns, len(ids) - 1)
        grid = np.where(columns < lengths[members, None], ids[at], pad).T.copy()  # (position, run)
        accumulator = np.zeros((len(members), table.shape[1]), dtype=np.float32)
        for position in range(longest):
            accumulator += table[grid[position]]
        sums[members] = accumulator
    return sums


class WordLlamaEmbedder:
    """The default embedder (see the module docstring). Loads lazily and thread-safely."""

    def __init__(self, config: str = WORDLLAMA_CONFIG, dim: int = WORDLLAMA_DIM) -> None:
        self._config = config
        self._dim = dim
        self._lock = threading.Lock()
        self._file: TableFile | None = None  # where rows are read from when `_table` is None
        self._table: Any = None  # float16 (vocabulary + 1 zero row for padding, dim), while held
        self._vocabulary = 0
        self._tokenizer: PieceTokenizer | None = None
        self._cache: dict[str, tuple[int, ...]] = {}
        self.load_seconds: float | None = None
        self.floor = WORDLLAMA_MIN_SIMILARITY  # see `min_similarity`; the quality bench tries others

    @property
    def model_id(self) -> str:
        return f"wordllama-{_package_version('wordllama')}/{self._config}-{self._dim}/mean-v1"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def min_similarity(self) -> float:
        return self.floor

    def meaningful(self, text: str) -> bool:
        """A word the model knows is one its tokenizer keeps whole or cuts in two (`KNOWN_TOKENS`):
        every made-up word of the quality bench is cut in three to six pieces, whose mean vector
        lands near unrelated notes (calibrated by bench/search_quality.py)."""
        from obsidian_mcp.semantic.fusion import content_words

        words = content_words(text)
        if not words:
            return False
        self.load()
        return any(len(ids) <= KNOWN_TOKENS for ids in self._token_ids(words))

    @property
    def loaded(self) -> bool:
        return self._tokenizer is not None

    @property
    def holds_table(self) -> bool:
        """Whether the whole table is in memory now (during a build; see `clear_cache`)."""
        return self._table is not None

    def load(self) -> None:
        """Load the model now (a no-op once loaded). Raises if the packaged files are missing."""
        if self._tokenizer is not None:
            return
        with self._lock:
            if self._tokenizer is not None:
                return
            import numpy as np

            started = time.perf_counter()
            table, tokenizer = _packaged_files(self._config, self._dim) or _through_wordllama(self._config, self._dim)
            if isinstance(table, TableFile):
                self._file, self._vocabulary = table, table.vocabulary
            else:  # the fallback's table is in memory anyway: keep it as float16 (+ the padding row)
                pad = np.zeros((1, self._dim), dtype=np.float16)
                self._table = np.vstack([np.asarray(table, dtype=np.float16), pad])
                self._vocabulary = int(self._table.shape[0]) - 1
            self._tokenizer = tokenizer
            trim_heap()
            self.load_seconds = time.perf_counter() - started
            log.info("embedding model loaded", extra={"model": self.model_id, "seconds": round(self.load_seconds, 3)})

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Mean token vector of each text, normalised.

        The tokenizer has no pre-tokenizer: its normaliser turns every space into "▁" (and
        prepends one), and its merges never reach across a "▁". So a text's tokens are those of
        its space-separated pieces, each tokenised on its own. Every distinct piece of a batch is
        therefore tokenised and summed once, however often it occurs (and remembered across
        calls, up to `CACHE_PIECES` words), and a text's sum is the sum of its pieces' sums: the
        same vectors as `WordLlamaInference.embed(norm=True)` without tokenising the same words
        again and again. (Runs of spaces differ slightly: the tokenizer may give "▁▁" where the
        empty piece between two spaces gives nothing. Texts are capped at `MAX_WORDS` pieces.)
        """
        import numpy as np

        self.load()
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for start in range(0, len(texts), TOKENIZE_TEXTS):
            batch = texts[start : start + TOKENIZE_TEXTS]
            split = [text.split(" ")[:MAX_WORDS] for text in batch]
            flat = list(chain.from_iterable(split))
            distinct = list(dict.fromkeys(flat))
            number = {piece: i for i, piece in enumerate(distinct)}
            piece_runs = np.fromiter(map(number.__getitem__, flat), dtype=np.int64, count=len(flat))
            piece_lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
            tokens = self._token_ids(distinct)
            token_lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
            token_runs = np.fromiter(chain.from_iterable(tokens), dtype=np.int64, count=int(token_lengths.sum()))
            table, token_runs = self._rows_for(token_runs, whole=len(texts) >= WHOLE_TABLE_TEXTS)
            # One row per distinct piece: its token vectors' sum, then its token count; summing
            # these rows per text gives the text's sum and count in one pass.
            pieces = np.zeros((len(distinct) + 1, self._dim + 1), dtype=np.float32)
            pieces[:-1, :-1] = pooled_sums(table, token_runs, token_lengths)
            pieces[:-1, -1] = token_lengths
            sums = pooled_sums(pieces, piece_runs, piece_lengths)
            counts = sums[:, -1]
            present = counts > 0
            out[start : start + len(batch)][present] = sums[present, :-1] / counts[present, None]
        return normalize_rows(out)

    def _rows_for(self, ids: Ids, *, whole: bool) -> tuple[Table, Ids]:
        """A table holding the rows of `ids` and its last row zero (ids outside the vocabulary
        map to it), and `ids` renumbered into it: the whole table when held, or `whole` (a
        build's batch), or when `ids` has so many distinct tokens that reading all of it is
        cheaper; else just those rows."""
        import numpy as np

        np.clip(ids, 0, self._vocabulary, out=ids)  # self._vocabulary: the zero row
        table = self._table
        if table is not None:
            return table, ids
        if whole:
            return self._whole_table(), ids
        ordered = np.sort(ids)  # distinct ids; np.unique would import numpy.ma (~5 MB) on first use
        known = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1])) & (ordered < self._vocabulary)]
        if len(known) >= WHOLE_TABLE_AT:
            return self._whole_table(), ids
        assert self._file is not None
        local = np.zeros((len(known) + 1, self._dim), dtype="<f2")
        local[:-1] = self._file.rows(known)
        return local, np.searchsorted(known, ids)

    def _whole_table(self) -> Table:
        with self._lock:
            table: Table | None = self._table
            if table is None:
                assert self._file is not None
                table = self._table = self._file.whole()
            return table

    def _token_ids(self, pieces: list[str]) -> list[tuple[int, ...]]:
        """Token ids of each piece, through a bounded cache (most words recur across batches)."""
        cache = self._cache
        if len(cache) > CACHE_PIECES:
            cache = self._cache = {}
        missing = [piece for piece in pieces if piece not in cache]
        if missing:
            assert self._tokenizer is not None
            for piece, ids in zip(missing, self._tokenizer.encode(missing), strict=True):
                cache[piece] = ids
        return [cache[piece] for piece in pieces]

    def clear_cache(self) -> bool:
        """Drop what only pays during a build: the word → tokens cache when it outgrew
        `KEEP_PIECES` (a smaller one spares the next edited note ~2 ms of tokenising), the whole
        table when it was read from the file (queries read their rows again) and the `tokenizers`
        library when the compact tables can stand in for it. Returns whether the table or the
        library went."""
        if len(self._cache) > KEEP_PIECES:
            self._cache = {}
        large = False
        if self._file is not None and self._table is not None:
            self._table, large = None, True
        if self._tokenizer is not None:
            large = self._tokenizer.release() or large
        return large


class HashingEmbedder:
    """A tiny deterministic bag-of-words embedder: each folded word adds ±1 to a dimension
    chosen by its hash. No model and no meaning (synonyms do not meet), but stable and instant:
    for tests of the store and the builder, and a stand-in wherever a model is not wanted."""

    def __init__(self, dim: int = 64, model_id: str = "hashing-v1", min_similarity: float = 0.2) -> None:
        self._dim = dim
        self._model_id = model_id
        self._min_similarity = min_similarity

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def min_similarity(self) -> float:
        return self._min_similarity

    def meaningful(self, text: str) -> bool:
        import re

        return re.search(r"[^\W_]", text) is not None

    def embed(self, texts: Sequence[str]) -> Matrix:
        import hashlib
        import re

        import numpy as np

        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[^\W_]+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self._dim] += 1.0 if value >> 63 else -1.0
        return normalize_rows(out)


_default: WordLlamaEmbedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> WordLlamaEmbedder:
    """The process-wide embedder (created on first call, loaded on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = WordLlamaEmbedder()
        return _default
