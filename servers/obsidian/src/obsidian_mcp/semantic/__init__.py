"""Finding notes by meaning, offline: chunk vectors next to the keyword index, and hybrid ranking.

Modules: `chunking` (notes → heading/paragraph chunks with their note's names), `model` (the
embedder: WordLlama's static vectors, shipped in its wheel, loaded lazily), with `table` (the
embedding table's rows read from the wheel's file) and `bpe`/`tokenizer` (the packaged tokenizer
as compact tables, the `tokenizers` library for large batches), `notes` (a note to embed, and the
hits), `matrix` (the vectors in memory: int8 rows, scored in blocks), `builder` (`SemanticBuilder`:
embedding in batches on a background thread, with progress, into a `VectorStore`), and `fusion`
(reciprocal rank fusion of the keyword and vector rankings, exact hits pinned on top, and the
any-word keyword fallback). The store of the vectors, `SemanticIndex` (their tables in the index
database, all in memory for brute-force cosine search, incremental updates, `search` and
`similar`), is `index.vector_store`: the index owns every SQL statement.

Importing this package is cheap: numpy, `tokenizers` and `wordllama` are imported on first use.

Wiring (`index.vectors` does this; nothing here knows MCP or the index's tables):

* Give `SemanticIndex` a connection to the index database file, preferably its own
  (`sqlite3.connect(location, isolation_level=None, check_same_thread=False, timeout=10)` with
  WAL, as the keyword index's) so that its background writes never interleave with the keyword
  index's transactions; open it after the keyword index has created or recreated the file
  (that index deletes a file whose schema it does not know, and with it these tables). For the
  in-memory keyword index, use a private `":memory:"` connection: it is a cache either way.
* Create one `SemanticBuilder(index, load)` whose `load(path)` reads the note and returns a
  `NoteText` (title and content hash as the keyword index has them), or None when it is gone.
* After each keyword-index sync, `builder.submit(changed_paths, removed_paths)`; at start-up (and
  after a full listing) `builder.reconcile({path: hash})`. Moves made by the server itself:
  `builder.submit(renamed=[(old, new)])` keeps the vectors without embedding again.
* `search_notes(mode=...)`: see `fusion` for the hybrid flow; add a `SEMANTIC_NOT_READY` warning
  while `builder.progress().complete` is False.
* `similar_notes(path, limit)`: `index.similar(path, limit)`.
"""

from obsidian_mcp.semantic.builder import BuildProgress, Loader, SemanticBuilder, VectorStore
from obsidian_mcp.semantic.chunking import Chunk, NoteChunks, chunk_note
from obsidian_mcp.semantic.fusion import (
    FALLBACK_BELOW,
    FusedHit,
    FusionParams,
    any_word_query,
    content_words,
    fuse,
    needs_fallback,
    pinned_paths,
)
from obsidian_mcp.semantic.model import Embedder, HashingEmbedder, WordLlamaEmbedder, default_embedder
from obsidian_mcp.semantic.notes import ChunkHit, NoteHit, NoteText, content_hash

__all__ = [
    "FALLBACK_BELOW",
    "BuildProgress",
    "Chunk",
    "ChunkHit",
    "Embedder",
    "FusedHit",
    "FusionParams",
    "HashingEmbedder",
    "Loader",
    "NoteChunks",
    "NoteHit",
    "NoteText",
    "SemanticBuilder",
    "VectorStore",
    "WordLlamaEmbedder",
    "any_word_query",
    "chunk_note",
    "content_hash",
    "content_words",
    "default_embedder",
    "fuse",
    "needs_fallback",
    "pinned_paths",
]
