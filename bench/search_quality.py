"""Search quality and cost of keyword, semantic and hybrid search (obsidian-mcp `semantic`).

    uv run python bench/search_quality.py                 # quality + 10,000-note performance
    uv run python bench/search_quality.py --notes 0       # quality only
    uv run python bench/search_quality.py --verbose       # every question's ranks

Quality, over `examples/vault` and the questions of `servers/obsidian/tests/fixtures/search_eval.json`
(paraphrased questions with the notes that answer them, plus "needles": exact phrases and rare
words whose note must rank first):

* keyword: today's `search_notes` (every word must match), called read-only through
  `obsidian_mcp.index.search` on an index in a temporary folder;
* keyword any-word: the same search for `any_word_query(question)` alone (the fallback);
* semantic: `SemanticIndex.search` alone;
* hybrid: keyword, the any-word fallback when the all-words search finds fewer than
  `FALLBACK_BELOW` notes, and semantic, fused by `semantic.fusion.fuse`.

Recall@5 is the share of questions with an expected note in the first five results; MRR the mean
of 1/rank of the first expected note (0 when not in the first 50). Needles: the expected note's
rank per mode; a needle regresses when hybrid ranks it worse than keyword.

Performance (run first, so that the model loads in a fresh process), on a generated vault like
`bench/obsidian_search.py`'s: embedding the whole vault
from scratch with `SemanticBuilder` (reading, chunking, embedding, storing), query latency of the
vector part and of a full hybrid search, the embedding model's load time, and resident memory.

This is not a test; it prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO / "servers" / "obsidian" / "tests" / "fixtures" / "search_eval.json"
TOP = 50  # results taken from each ranking


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


@dataclass
class Searcher:
    """The three modes over one vault: a keyword index (the server's) and a semantic index."""

    keyword_index: Any
    semantic: Any

    def keyword(self, query: str, limit: int = TOP) -> tuple[list[tuple[str, float]], int]:
        from obsidian_mcp.index import search
        from obsidian_mcp.vault.errors import VaultError

        try:
            found = search.search_notes(self.keyword_index, query, limit=limit)
        except VaultError:  # nothing searchable in the query
            return [], 0
        # the index package is being refactored: accept its result as a dict or as a model
        results, total = _field(found, "results"), _field(found, "total")
        return [(str(_field(hit, "path")), float(_field(hit, "score"))) for hit in results], int(total)

    def any_word(self, query: str, limit: int = TOP) -> list[tuple[str, float]]:
        from obsidian_mcp.semantic import any_word_query

        any_words = any_word_query(query)
        return self.keyword(any_words, limit)[0] if any_words is not None else []

    def vector(self, query: str, limit: int = TOP) -> list[tuple[str, float]]:
        return [(hit.path, hit.score) for hit in self.semantic.search(query, limit)]

    def hybrid(self, query: str, limit: int = TOP) -> list[str]:
        from obsidian_mcp.semantic import fuse, needs_fallback

        keyword, total = self.keyword(query, limit)
        fallback = self.any_word(query, limit) if needs_fallback(total) else []
        fused = fuse(
            keyword, self.vector(query, limit), fallback=fallback, keyword_total=total, query=query, limit=limit
        )
        return [hit.path for hit in fused]


def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, dict) else getattr(item, name)


def rank_of(ranking: Sequence[str], expected: Sequence[str]) -> int | None:
    for position, path in enumerate(ranking, 1):
        if path in expected:
            return position
    return None


def load_vault(root: Path) -> list[tuple[str, str]]:
    from obsidian_mcp.vault.paths import Vault

    vault = Vault(root)
    return [(info.rel, (root / info.rel).read_text(encoding="utf-8")) for info in vault.iter_notes()]


def open_indexes(root: Path, work: Path) -> Searcher:
    from obsidian_mcp.index.store import index_location
    from obsidian_mcp.index.vault_index import VaultIndex
    from obsidian_mcp.semantic import NoteText, SemanticBuilder, SemanticIndex
    from obsidian_mcp.vault.paths import Vault

    vault = Vault(root)
    keyword_index = VaultIndex(vault, index_location(work / "index", vault.root), rescan_seconds=3600, watch=False)
    keyword_index.refresh()
    import sqlite3

    conn = sqlite3.connect(work / "semantic.sqlite3", isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    semantic = SemanticIndex(conn)

    def load(path: str) -> NoteText | None:
        try:
            return NoteText(path, (root / path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    builder = SemanticBuilder(semantic, load)
    builder.submit([info.rel for info in vault.iter_notes()])
    builder.wait()
    builder.stop()
    return Searcher(keyword_index, semantic)


# -- quality ----------------------------------------------------------------------------------


def quality(verbose: bool) -> dict[str, Any]:
    spec = json.loads(EVAL.read_text(encoding="utf-8"))
    work = Path(tempfile.mkdtemp(prefix="search-quality-"))
    try:
        vault = work / "vault"
        shutil.copytree(REPO / spec["vault"], vault, symlinks=True)
        searcher = open_indexes(vault, work)
        modes: dict[str, Callable[[str], list[str]]] = {
            "keyword (today: all words)": lambda q: [p for p, _ in searcher.keyword(q)[0]],
            "keyword any-word (the fallback alone)": lambda q: [p for p, _ in searcher.any_word(q)],
            "semantic": lambda q: [p for p, _ in searcher.vector(q)],
            "hybrid": searcher.hybrid,
        }
        table: dict[str, dict[str, float]] = {}
        per_question: list[tuple[str, list[int | None]]] = []
        for question in spec["questions"]:
            ranks = [rank_of(run(question["query"]), question["expected"]) for run in modes.values()]
            per_question.append((question["query"], ranks))
        for column, name in enumerate(modes):
            ranks = [r[column] for _, r in per_question]
            table[name] = {
                "recall@5": sum(1 for r in ranks if r is not None and r <= 5) / len(ranks),
                "recall@10": sum(1 for r in ranks if r is not None and r <= 10) / len(ranks),
                "mrr": sum(1 / r for r in ranks if r is not None) / len(ranks),
            }
        needles = []
        for needle in spec["needles"]:
            kw = rank_of(modes["keyword (today: all words)"](needle["query"]), [needle["expected"]])
            hy = rank_of(searcher.hybrid(needle["query"]), [needle["expected"]])
            sem = rank_of(modes["semantic"](needle["query"]), [needle["expected"]])
            needles.append((needle["query"], kw, sem, hy))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"## Quality: {len(spec['questions'])} paraphrased questions over {spec['vault']}\n")
    print("| mode | recall@5 | recall@10 | MRR |")
    print("|---|---|---|---|")
    for name, row in table.items():
        print(f"| {name} | {row['recall@5']:.3f} | {row['recall@10']:.3f} | {row['mrr']:.3f} |")
    gain = table["hybrid"]["recall@5"] - table["keyword (today: all words)"]["recall@5"]
    print(f"\nhybrid recall@5 − keyword recall@5 = {gain:+.3f} (target ≥ +0.3; hybrid target ≥ 0.8)\n")
    if verbose:
        print("| question | keyword | semantic | hybrid |")
        print("|---|---|---|---|")
        for query, ranks in per_question:
            print(f"| {query} | " + " | ".join("–" if r is None else str(r) for r in ranks) + " |")
        print()
    regressed = [n for n in needles if n[1] is not None and (n[3] is None or n[3] > n[1])]
    print(f"## Needles: {len(needles)} exact phrases and rare words (rank of their note)\n")
    print("| query | keyword | semantic | hybrid |")
    print("|---|---|---|---|")
    for query, kw, sem, hy in needles:
        cells = ["–" if r is None else str(r) for r in (kw, sem, hy)]
        print(f"| `{query}` | " + " | ".join(cells) + " |")
    first = sum(1 for n in needles if n[3] == 1)
    print(f"\nhybrid ranks the needle first: {first}/{len(needles)}; regressions vs keyword: {len(regressed)}\n")
    return {"table": table, "needles": needles, "regressed": regressed}


# -- performance ------------------------------------------------------------------------------


def performance(notes: int, seed: int, repeat: int) -> None:
    sys.path.insert(0, str(REPO))
    from obsidian_mcp.index.store import index_location
    from obsidian_mcp.index.vault_index import VaultIndex
    from obsidian_mcp.semantic import NoteText, SemanticBuilder, SemanticIndex, default_embedder
    from obsidian_mcp.vault.paths import Vault

    from bench.obsidian_search import generate_vault

    spec = json.loads(EVAL.read_text(encoding="utf-8"))
    queries = [q["query"] for q in spec["questions"]] + [n["query"] for n in spec["needles"]]
    work = Path(tempfile.mkdtemp(prefix="search-quality-perf-"))
    try:
        root = work / "vault"
        size = generate_vault(root, notes, seed)
        vault = Vault(root)
        paths = [info.rel for info in vault.iter_notes()]
        rss_start = rss_mb()
        import numpy  # noqa: F401  (numpy's own memory is not the model's)

        rss_numpy = rss_mb()
        embedder = default_embedder()
        started = time.perf_counter()
        embedder.load()
        load_s = time.perf_counter() - started
        rss_model = rss_mb()

        import sqlite3

        conn = sqlite3.connect(work / "semantic.sqlite3", isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        semantic = SemanticIndex(conn, embedder)

        def load(path: str) -> NoteText | None:
            try:
                return NoteText(path, (root / path).read_text(encoding="utf-8"))
            except FileNotFoundError:
                return None

        reports: list[float] = []
        builder = SemanticBuilder(semantic, load, on_progress=lambda _: reports.append(time.perf_counter()))
        started = time.perf_counter()
        builder.submit(paths)
        builder.wait()
        build_s = time.perf_counter() - started
        builder.stop()
        chunks = semantic.chunk_count()
        rss_built = rss_mb()
        db_mb = sum(f.stat().st_size for f in work.glob("semantic.sqlite3*")) / 1e6

        # a fresh process would load the stored vectors instead of embedding again
        reopened = SemanticIndex(conn, embedder)
        started = time.perf_counter()
        reopened.note_count()
        reload_s = time.perf_counter() - started
        del reopened

        for query in queries:  # warm-up
            semantic.search(query, 20)
        vector_ms: list[float] = []
        for _ in range(repeat):
            for query in queries:
                started = time.perf_counter()
                semantic.search(query, 20)
                vector_ms.append((time.perf_counter() - started) * 1000)
        similar_ms: list[float] = []
        for path in paths[:: max(1, len(paths) // 100)]:
            started = time.perf_counter()
            semantic.similar(path, 10)
            similar_ms.append((time.perf_counter() - started) * 1000)

        keyword_index = VaultIndex(vault, index_location(work / "index", vault.root), rescan_seconds=3600, watch=False)
        started = time.perf_counter()
        keyword_index.refresh()
        keyword_build_s = time.perf_counter() - started
        searcher = Searcher(keyword_index, semantic)
        for query in queries:
            searcher.hybrid(query, 20)
        hybrid_ms: list[float] = []
        keyword_ms: list[float] = []
        for _ in range(repeat):
            for query in queries:
                started = time.perf_counter()
                searcher.keyword(query, 20)
                keyword_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                searcher.hybrid(query, 20)
                hybrid_ms.append((time.perf_counter() - started) * 1000)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    matrix_mb = chunks * embedder.dim * 4 / 1e6
    rows = [
        ("notes / size / chunks", f"{len(paths):,} / {size / 1e6:.1f} MB / {chunks:,}", ""),
        ("model load (first use)", f"{load_s:.2f} s", ""),
        ("semantic build from scratch (read, chunk, embed, store)", f"{build_s:.2f} s", "≤ 10 s"),
        ("  throughput", f"{len(paths) / build_s:,.0f} notes/s, {chunks / build_s:,.0f} chunks/s", ""),
        ("reload of stored vectors (new process)", f"{reload_s * 1000:.0f} ms", ""),
        (
            "vector search p50 / p95 (embed query + cosine over all chunks)",
            f"{percentile(vector_ms, 0.5):.1f} / {percentile(vector_ms, 0.95):.1f} ms",
            "p50 ≤ 10, p95 ≤ 25 ms",
        ),
        (
            "similar_notes p50 / p95",
            f"{percentile(similar_ms, 0.5):.1f} / {percentile(similar_ms, 0.95):.1f} ms",
            "",
        ),
        (
            "keyword search p50 / p95 (today's search_notes)",
            f"{percentile(keyword_ms, 0.5):.1f} / {percentile(keyword_ms, 0.95):.1f} ms",
            "",
        ),
        (
            "hybrid search p50 / p95 (keyword + fallback + vector + fusion)",
            f"{percentile(hybrid_ms, 0.5):.1f} / {percentile(hybrid_ms, 0.95):.1f} ms",
            "",
        ),
        ("keyword index build (for comparison)", f"{keyword_build_s:.2f} s", ""),
        ("RSS: + numpy imported", f"+{rss_numpy - rss_start:.0f} MB", ""),
        ("RSS: + model loaded (wordllama, tokenizers, 32k×256 table)", f"+{rss_model - rss_numpy:.0f} MB", ""),
        ("RSS: + vault embedded", f"+{rss_built - rss_model:.0f} MB (matrix {matrix_mb:.0f} MB)", ""),
        ("semantic tables on disk", f"{db_mb:.0f} MB", ""),
    ]
    print(f"## Performance: {len(paths):,} generated notes, {len(queries)} queries × {repeat}\n")
    print("| measure | result | target |")
    print("|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    print(f"\n(cores: {os.cpu_count()}; load average at the end: {os.getloadavg()[0]:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="generated notes for the performance part (0: skip)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5, help="passes over the queries")
    parser.add_argument("--verbose", action="store_true", help="print every question's ranks")
    options = parser.parse_args()
    if options.notes:  # first: the model loads (and memory is measured) in a fresh process
        performance(options.notes, options.seed, options.repeat)
    quality(options.verbose)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
