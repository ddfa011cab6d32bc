"""The embedding model: WordLlama's static token embeddings, shipped inside its PyPI wheel.

WordLlama (`l2_supercat`, 256 dimensions) is a table of one vector per token of Llama 2's
32,000-token vocabulary; a text's vector is the mean of its tokens' vectors, normalised. The
weights (16 MB of float16) and the tokenizer come inside the `wordllama` wheel: nothing is
downloaded at run time, ever.

Loading reads the two packaged files directly (`weights/l2_supercat_256.safetensors`, tensor
`embedding.weight`, and `tokenizers/l2_supercat_tokenizer_config.json`), found through the
installed package's location without importing it. `import wordllama` would configure the root
logger (`logging.basicConfig(level=INFO)` in its modules), import requests, pydantic and toml,
and `WordLlama.load` keeps a float32 copy of the table: the direct read loads in ~0.1 s instead
of ~0.45 s and costs ~36 MB instead of ~80 MB. Should a future wheel move those files, the
loader falls back to `WordLlama.load(cache_dir=<package folder>, disable_download=True)` (the
package folder is where its `tokenizers/…` lookup succeeds; `disable_download` turns a missing
file into an error instead of a request to Hugging Face), with the logging left as it was.

Nothing here imports numpy, `tokenizers`, `safetensors` or `wordllama` at import time: the model
loads on the first `embed` (or `load`) call, once, under a lock; concurrent callers wait for it.

The pooling is done here rather than by `WordLlamaInference.embed`, with the same result (the
mean of the token vectors) several times faster on notes: see `WordLlamaEmbedder.embed`.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
import time
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
    Ids = npt.NDArray[np.int64]
else:
    Matrix = Any
    Ids = Any

log = logging.getLogger("obsidian_mcp.semantic")

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256
MAX_WORDS = 400  # space-separated pieces per text; chunks are capped below this, queries too
TOKENIZE_TEXTS = 4096  # texts whose distinct words are tokenised together
POOL_ROWS = 256  # runs of ids of similar length summed together
CACHE_PIECES = 50_000  # words whose token ids are remembered between calls (~10 MB)


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors (one row per text; an empty text gives a row of
    zeros). `model_id` names the model and its pooling: stored vectors made under another id are
    rebuilt. Implementations must be safe to call from several threads."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

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


def _packaged_files(config: str, dim: int) -> tuple[Any, Any] | None:
    """(weights, tokenizer) read straight from the installed wheel, or None if not laid out so."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    weights = package / "weights" / f"{config}_{dim}.safetensors"
    tokenizer = package / "tokenizers" / f"{config}_tokenizer_config.json"
    if not (weights.is_file() and tokenizer.is_file()):
        return None
    from safetensors import safe_open
    from tokenizers import Tokenizer

    with safe_open(str(weights), framework="np") as handle:
        if "embedding.weight" not in handle.keys():  # noqa: SIM118 (a safetensors handle, not a dict)
            return None
        table = handle.get_tensor("embedding.weight")
    if table.ndim != 2 or table.shape[1] != dim:
        return None
    return table, Tokenizer.from_file(str(tokenizer))


def _through_wordllama(config: str, dim: int) -> tuple[Any, Any]:
    wordllama = _import_wordllama()
    package = Path(wordllama.__file__).parent
    model = wordllama.WordLlama.load(config=config, dim=dim, cache_dir=package, disable_download=True)
    return model.embedding, model.tokenizer


def normalize_rows(matrix: Matrix) -> Matrix:
    """Rows scaled to unit length in place (zero rows stay zero); returns `matrix`."""
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


def pooled_sums(table: Matrix, ids: Ids, lengths: Ids) -> Matrix:
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
        self._table: Any = None  # float16 (vocabulary + 1 zero row for padding, dim)
        self._tokenizer: Any = None
        self._cache: dict[str, tuple[int, ...]] = {}
        self.load_seconds: float | None = None

    @property
    def model_id(self) -> str:
        return f"wordllama-{_package_version('wordllama')}/{self._config}-{self._dim}/mean-v1"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def loaded(self) -> bool:
        return self._table is not None

    def load(self) -> None:
        """Load the model now (a no-op once loaded). Raises if the packaged files are missing."""
        if self._table is not None:
            return
        with self._lock:
            if self._table is not None:
                return
            import numpy as np

            started = time.perf_counter()
            table, tokenizer = _packaged_files(self._config, self._dim) or _through_wordllama(self._config, self._dim)
            tokenizer.no_padding()
            tokenizer.no_truncation()
            self._tokenizer = tokenizer
            # float16 as shipped (+ a zero row that pads): sums are taken in float32
            self._table = np.vstack([np.asarray(table, dtype=np.float16), np.zeros((1, self._dim), dtype=np.float16)])
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
            np.clip(token_runs, 0, self._table.shape[0] - 1, out=token_runs)
            # One row per distinct piece: its token vectors' sum, then its token count; summing
            # these rows per text gives the text's sum and count in one pass.
            pieces = np.zeros((len(distinct) + 1, self._dim + 1), dtype=np.float32)
            pieces[:-1, :-1] = pooled_sums(self._table, token_runs, token_lengths)
            pieces[:-1, -1] = token_lengths
            sums = pooled_sums(pieces, piece_runs, piece_lengths)
            counts = sums[:, -1]
            present = counts > 0
            out[start : start + len(batch)][present] = sums[present, :-1] / counts[present, None]
        return normalize_rows(out)

    def _token_ids(self, pieces: list[str]) -> list[tuple[int, ...]]:
        """Token ids of each piece, through a bounded cache (most words recur across batches)."""
        cache = self._cache
        if len(cache) > CACHE_PIECES:
            cache = self._cache = {}
        missing = [piece for piece in pieces if piece not in cache]
        if missing:
            fast = getattr(self._tokenizer, "encode_batch_fast", None)  # tokenizers >= 0.20: no offsets
            encode = fast if fast is not None else self._tokenizer.encode_batch
            for piece, encoding in zip(missing, encode(missing, add_special_tokens=False), strict=True):
                cache[piece] = tuple(encoding.ids)
        return [cache[piece] for piece in pieces]

    def clear_cache(self) -> None:
        """Drop the word → tokens cache (it only pays during a build)."""
        self._cache = {}


class HashingEmbedder:
    """A tiny deterministic bag-of-words embedder: each folded word adds ±1 to a dimension
    chosen by its hash. No model and no meaning (synonyms do not meet), but stable and instant:
    for tests of the store and the builder, and a stand-in wherever a model is not wanted."""

    def __init__(self, dim: int = 64, model_id: str = "hashing-v1") -> None:
        self._dim = dim
        self._model_id = model_id

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

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
