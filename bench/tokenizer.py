"""Benchmark of the embedder's two tokenizers: the compact BPE tables and the `tokenizers` library.

    uv run python bench/tokenizer.py                 # 3 rounds, 10,000 generated notes
    uv run python bench/tokenizer.py --rounds 5 --notes 2000

The embedder tokenises space-separated pieces (`semantic.tokenizer.PieceTokenizer`): below
`LIBRARY_AT` pieces in one batch through the compact tables of `semantic.bpe` (pure Python), from
there through the HuggingFace `tokenizers` library (Rust, loaded then and dropped after a build).
This measures both paths on the same pieces, in one run, with the library as the baseline:

* a search query: the pieces of each of the 52 paraphrased questions of the evaluation set
  (`servers/obsidian/tests/fixtures/search_eval.json`), none cached, as a search embeds them;
* batches of 1 to 34,000 chunks of bench/obsidian_search.py's generated notes (`chunk_note`, as
  the builder makes them): the distinct pieces of the batch, none cached (an edited note is one to
  a few chunks; a build hands the embedder batches of up to `TOKENIZE_TEXTS` texts);
* what each path costs before its first piece, in a fresh process (median of `--fresh` processes):
  `import tokenizers`, the file read into a library `Tokenizer`, the file read into compact tables,
  and the resident memory each leaves behind (VmRSS after `malloc_trim`, as the server trims).

The two paths' ids are compared on every piece measured (an assertion, not a timing). Timings are
wall clock on whatever else the machine runs: compare the ratios, which come from one run. Not a
test; prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.obsidian_search import WordModel, note_text

REPO = Path(__file__).resolve().parents[1]
EVALUATION = REPO / "servers" / "obsidian" / "tests" / "fixtures" / "search_eval.json"
BATCH_CHUNKS = (1, 4, 16, 64, 256, 1024, 4096)

# Run in a fresh interpreter: what one path costs before its first piece. Prints one JSON object.
FRESH = r"""
import json, sys, time
from pathlib import Path
path, mode = sys.argv[1], sys.argv[2]

def rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

from obsidian_mcp.semantic.model import trim_heap
from obsidian_mcp.semantic.tokenizer import PieceTokenizer, prepared_library
trim_heap()
before = rss()
out = {}
started = time.perf_counter()
if mode == "library":
    import tokenizers
    out["import"] = time.perf_counter() - started
    library = prepared_library(tokenizers.Tokenizer.from_file(path))
    out["load"] = time.perf_counter() - started - out["import"]
    tokenizer = PieceTokenizer(None, lambda: library, library)
else:
    from obsidian_mcp.semantic.bpe import CompactBpe
    out["import"] = 0.0
    compact = CompactBpe.open(Path(path))
    assert compact is not None
    out["load"] = time.perf_counter() - started
    tokenizer = PieceTokenizer(compact, lambda: None)
loaded = time.perf_counter()
tokenizer.encode("how do I get my money back for a broken order".split(" "))
out["first"] = time.perf_counter() - loaded
trim_heap()
out["rss"] = rss() - before
print(json.dumps(out))
"""


def tokenizer_file() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("wordllama")
    assert spec is not None and spec.submodule_search_locations is not None
    return Path(next(iter(spec.submodule_search_locations))) / "tokenizers" / "l2_supercat_tokenizer_config.json"


def chunk_texts(notes: int, seed: int) -> list[str]:
    """What the builder embeds for bench/obsidian_search.py's notes: each chunk's `embed_text`."""
    from obsidian_mcp.semantic.chunking import chunk_note

    model = WordModel.build(seed)
    texts: list[str] = []
    for n in range(notes):
        chunks = chunk_note(f"Area {n % 20:02d}/Sub {n % 7}/Note {n}.md", note_text(n, notes, model))
        texts += [chunk.embed_text for chunk in chunks.chunks]
    return texts


def distinct_pieces(texts: Sequence[str]) -> list[str]:
    """The pieces `WordLlamaEmbedder.embed` tokenises for `texts` when none is cached."""
    from obsidian_mcp.semantic.model import MAX_WORDS

    return list(dict.fromkeys(chain.from_iterable(text.split(" ")[:MAX_WORDS] for text in texts)))


def best_of(rounds: int, fn: Callable[[], object]) -> float:
    """The fastest of `rounds` calls, in milliseconds (the least disturbed by the machine's load)."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


def fresh(path: Path, mode: str, runs: int) -> dict[str, float]:
    """Medians over `runs` fresh processes of `FRESH` in `mode`."""
    results: list[dict[str, float]] = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", FRESH, str(path), mode], capture_output=True, text=True, check=True, timeout=120
        )
        results.append(json.loads(done.stdout))
    return {key: statistics.median(result[key] for result in results) for key in results[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="generated notes to chunk")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="timed calls per measure (the fastest counts)")
    parser.add_argument("--fresh", type=int, default=5, help="fresh processes per path for the load costs")
    options = parser.parse_args()

    from obsidian_mcp.semantic.bpe import CompactBpe
    from obsidian_mcp.semantic.tokenizer import LIBRARY_AT, PieceTokenizer, prepared_library
    from tokenizers import Tokenizer

    path = tokenizer_file()
    compact_tables = CompactBpe.open(path)
    assert compact_tables is not None
    library = prepared_library(Tokenizer.from_file(str(path)))

    def no_load() -> Any:
        raise AssertionError("the compact path never loads the library here")

    # Each path on its own, through the class the embedder uses (no word cache: the embedder's).
    paths: dict[str, PieceTokenizer] = {
        "compact": PieceTokenizer(compact_tables, no_load),
        "library": PieceTokenizer(None, no_load, library),
    }

    def encode_small(name: str, pieces: list[str]) -> list[tuple[int, ...]]:
        """Below `LIBRARY_AT` `PieceTokenizer` picks the tables; above, the library: chunked so
        that each path tokenises every batch itself."""
        step = LIBRARY_AT - 1 if name == "compact" else len(pieces) or 1
        return list(
            chain.from_iterable(paths[name].encode(pieces[at : at + step]) for at in range(0, len(pieces), step))
        )

    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    evaluation = json.loads(EVALUATION.read_text(encoding="utf-8"))
    queries = [item["query"].split(" ") for item in evaluation["questions"]]
    started = time.perf_counter()
    texts = chunk_texts(options.notes, options.seed)
    print(f"{len(texts):,} chunks of {options.notes:,} generated notes in {time.perf_counter() - started:.1f} s")

    for pieces in queries:  # the same ids, and everything warm
        assert encode_small("compact", pieces) == encode_small("library", pieces)
    query_ms = {
        name: [best_of(options.rounds, lambda name=name, q=q: encode_small(name, q)) for q in queries]  # type: ignore[misc]
        for name in paths
    }
    query_pieces = statistics.median(len(q) for q in queries)

    batch_rows = []
    for chunks in (*BATCH_CHUNKS, len(texts)):
        if chunks > len(texts):
            continue
        pieces = distinct_pieces(texts[:chunks])
        assert encode_small("compact", pieces) == encode_small("library", pieces)
        rounds = options.rounds if len(pieces) < 20_000 else 1
        timing = {
            name: best_of(rounds, lambda name=name, pieces=pieces: encode_small(name, pieces))  # type: ignore[misc]
            for name in paths
        }
        batch_rows.append((chunks, len(pieces), timing))

    loads = {name: fresh(path, name, options.fresh) for name in paths}
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")

    print()
    print(f"Ids: identical on all {sum(len(q) for q in queries) + sum(r[1] for r in batch_rows):,} pieces measured.")
    print()
    print("| measure | compact tables | `tokenizers` library | compact ÷ library |")
    print("|---|---|---|---|")
    for label, fraction in (("p50", 0.5), ("p95", 0.95)):
        compact_q = sorted(query_ms["compact"])[round(fraction * (len(queries) - 1))]
        library_q = sorted(query_ms["library"])[round(fraction * (len(queries) - 1))]
        print(
            f"| query {label} ({len(queries)} questions, median {query_pieces:.0f} pieces) | "
            f"{compact_q * 1000:.0f} µs | {library_q * 1000:.0f} µs | {compact_q / library_q:.2f} |"
        )
    for chunks, count, timing in batch_rows:
        print(
            f"| {chunks:,} chunks: {count:,} distinct pieces | {timing['compact']:.1f} ms | "
            f"{timing['library']:.1f} ms | {timing['compact'] / timing['library']:.2f} |"
        )
    c, lib = loads["compact"], loads["library"]
    c_total, lib_total = (sum(side[key] for key in ("import", "load", "first")) for side in (c, lib))
    rows = [
        (f"`import tokenizers` (fresh process, median of {options.fresh})", "—", f"{lib['import'] * 1000:.0f} ms", ""),
        (
            "the file read into tables / a `Tokenizer`",
            f"{c['load'] * 1000:.0f} ms",
            f"{lib['load'] * 1000:.0f} ms",
            f"{c['load'] / lib['load']:.2f}",
        ),
        (
            "fresh process: import + load + first query's pieces",
            f"{c_total * 1000:.0f} ms",
            f"{lib_total * 1000:.0f} ms",
            f"{c_total / lib_total:.2f}",
        ),
        (
            "resident memory left (VmRSS after `malloc_trim`)",
            f"{c['rss']:.1f} MB",
            f"{lib['rss']:.1f} MB",
            f"{c['rss'] / lib['rss']:.2f}",
        ),
    ]
    for row in rows:
        print("| " + " | ".join(row) + " |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
