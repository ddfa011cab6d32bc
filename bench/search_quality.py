"""Search quality and cost of keyword, semantic and hybrid search (obsidian-mcp `semantic`).

    uv run python bench/search_quality.py                 # quality + 10,000-note performance
    uv run python bench/search_quality.py --notes 0       # quality only
    uv run python bench/search_quality.py --verbose       # every question's ranks

Quality, over `examples/vault` and the questions of `servers/obsidian/tests/fixtures/search_eval.json`
(paraphrased questions with the notes that answer them, plus "needles": exact phrases and rare
words whose note must rank first):

* keyword: `search_notes(mode="keyword")`, every word must match (the search before the modes);
* keyword any-word: the same search for `any_word_query(question)` alone (the hybrid fallback);
* semantic: `search_notes(mode="semantic")`, the vectors alone;
* hybrid: `search_notes(mode="hybrid")`, the default: keyword, the any-word fallback when the
  all-words search finds fewer than `FALLBACK_BELOW` notes, and semantic, fused by
  `semantic.fusion.fuse`;

each through the server's own `VaultIndex` on an index in a temporary folder.

Recall@5 is the share of questions with an expected note in the first five results; MRR the mean
of 1/rank of the first expected note (0 when not in the first 50). Needles: the expected note's
rank per mode; a needle regresses when hybrid ranks it worse than keyword.

Performance (run first, so that the model loads in a fresh process), on a generated vault like
`bench/obsidian_search.py`'s, through `VaultIndex` as the server runs it: the keyword index build,
then the vectors built in the background (numpy and model loading, reading, chunking, embedding,
storing), a warm start, `search_notes` latency per mode (with the sync before each call, as the
tool does), the same right after another program edited a note (re-embedded before answering),
`similar_notes`, and resident memory: this process's, and a real `obsidian-mcp` process's once its
vectors are loaded and it has answered hybrid searches, next to a bare MCPServer (`bench/bare_server.py`).
Then where that memory goes: a fresh process runs the server in memory (`assemble` and an in-memory
client) on the same vault and index, and prints VmRSS after each step (the keyword sync alone, numpy,
the stored vectors, the model, the first and later searches), next to the same steps without vectors.

This is not a test; it prints Markdown tables.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# Words found in no note and meaning nothing: each must answer no results, in every mode. The first
# set was looked at while choosing `semantic.model.KNOWN_TOKENS`; the second never was (held out).
MADE_UP = [
    *["xylophonecanary", "blorptangle", "quenzivort", "snargleflap", "vextromium", "plinkerdoodle", "zorbulous"],
    *["crindlewhap", "frumptastic", "glimmerquop", "yarnoscope", "tumblewhisk", "drozzlepunk", "wibbleton"],
    *["squonkfire", "mervelish", "trundlequash", "pofflewick", "jaxonberry", "klimpertude"],
]
MADE_UP_HELD_OUT = [
    *["flumbersnatch", "grindlewomp", "quaxiphore", "brimblesort", "zentrovac", "poskadrill", "mumblethorpe"],
    *["vintraquil", "snoffleberg", "kraplunder", "dweezlenook", "farbolique", "hexaplumb", "jibberwant"],
    *["orvexium", "plondikart", "smeevolt", "trazzlebine", "wumpertide", "yolquist"],
]
FLOORS = [round(0.01 * step, 2) for step in range(0, 31)]  # similarity floors tried by the calibration
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
    """The modes of the server's `search_notes` over one `VaultIndex` (keyword index and vectors)."""

    index: Any

    def ranked(self, query: str, mode: str, limit: int = TOP) -> tuple[list[tuple[str, float]], int]:
        from obsidian_mcp import search
        from obsidian_mcp.vault.errors import VaultError

        try:
            found = search.search_notes(self.index, query, limit=limit, mode=mode)  # type: ignore[arg-type]
        except VaultError:  # nothing searchable in the query
            return [], 0
        return [(hit.path, hit.score) for hit in found.results], found.total

    def keyword(self, query: str, limit: int = TOP) -> tuple[list[tuple[str, float]], int]:
        return self.ranked(query, "keyword", limit)

    def any_word(self, query: str, limit: int = TOP) -> list[tuple[str, float]]:
        from obsidian_mcp.semantic import any_word_query

        any_words = any_word_query(query)
        return self.keyword(any_words, limit)[0] if any_words is not None else []

    def vector(self, query: str, limit: int = TOP) -> list[tuple[str, float]]:
        return self.ranked(query, "semantic", limit)[0]

    def hybrid(self, query: str, limit: int = TOP) -> list[str]:
        return [path for path, _ in self.ranked(query, "hybrid", limit)[0]]


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
    from obsidian_mcp.vault.paths import Vault

    vault = Vault(root)
    index = VaultIndex(vault, index_location(work / "index", vault.root), rescan_seconds=3600, watch=False)
    index.refresh()
    assert index.vectors.wait(600)
    return Searcher(index)


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
        floor = calibrate_floor(searcher, spec["questions"])
        needles = []
        for needle in spec["needles"]:
            kw = rank_of(modes["keyword (today: all words)"](needle["query"]), [needle["expected"]])
            hy = rank_of(searcher.hybrid(needle["query"]), [needle["expected"]])
            sem = rank_of(modes["semantic"](needle["query"]), [needle["expected"]])
            needles.append((needle["query"], kw, sem, hy))
        searcher.index.close()
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
    print_floor(floor)
    return {"table": table, "needles": needles, "regressed": regressed, "floor": floor}


# -- the similarity floor -----------------------------------------------------------------------


@dataclass(frozen=True)
class FloorCalibration:
    configured: float  # the floor the server uses (`semantic.model.WORDLLAMA_MIN_SIMILARITY`)
    chosen: float  # the highest floor keeping the held-in half's hybrid recall@5
    recall: dict[str, dict[float | None, float]]  # half -> floor (None: no floor) -> hybrid recall@5
    made_up: dict[str, int]  # mode -> results for the made-up words, summed, at the configured floor
    made_up_no_floor: int  # hybrid results for them without floor nor the known-word rule


def calibrate_floor(searcher: Searcher, questions: Sequence[dict[str, Any]]) -> FloorCalibration:
    """The floor under which a note found by meaning alone is dropped, fitted on half the questions
    (even positions) and checked on the other half (odd positions), which the fit never sees."""
    from obsidian_mcp.semantic import model

    vectors = searcher.index.vectors
    embedder = vectors.index.embedder
    halves = {"held-in (even)": list(questions[0::2]), "held-out (odd)": list(questions[1::2])}

    def recall(half: list[dict[str, Any]], floor: float) -> float:
        embedder.floor = floor
        ranks = [rank_of(searcher.hybrid(q["query"]), q["expected"]) for q in half]
        return sum(1 for r in ranks if r is not None and r <= 5) / len(ranks)

    held_in = halves["held-in (even)"]
    baseline = recall(held_in, -1.0)
    chosen = max(floor for floor in FLOORS if recall(held_in, floor) >= baseline)
    configured = model.WORDLLAMA_MIN_SIMILARITY
    table: dict[str, dict[float | None, float]] = {
        name: {None: recall(half, -1.0), chosen: recall(half, chosen), configured: recall(half, configured)}
        for name, half in halves.items()
    }
    embedder.floor = configured
    made_up = {
        f"{mode}, {name}": sum(len(searcher.ranked(word, mode)[0]) for word in words)
        for name, words in (("looked at", MADE_UP), ("held out", MADE_UP_HELD_OUT))
        for mode in ("keyword", "hybrid", "semantic")
    }
    meaningful = embedder.meaningful
    embedder.floor = -1.0
    embedder.meaningful = lambda text: True  # as before the rule
    made_up_no_floor = sum(len(searcher.ranked(word, "hybrid")[0]) for word in MADE_UP)
    embedder.meaningful = meaningful
    embedder.floor = configured
    return FloorCalibration(configured, chosen, table, made_up, made_up_no_floor)


def print_floor(floor: FloorCalibration) -> None:
    print("## Similarity floor: calibrated on half the questions, checked on the other half\n")
    print(
        f"highest floor keeping the held-in half's hybrid recall@5: {floor.chosen:.2f}; "
        f"configured (`WORDLLAMA_MIN_SIMILARITY`): {floor.configured:.2f}\n"
    )
    print("| half | hybrid recall@5, no floor | at the chosen floor | at the configured floor |")
    print("|---|---|---|---|")
    for name, row in floor.recall.items():
        print(f"| {name} | {row[None]:.3f} | {row[floor.chosen]:.3f} | {row[floor.configured]:.3f} |")
    results = ", ".join(f"{mode} {count}" for mode, count in floor.made_up.items())
    counts = f"{len(MADE_UP)} looked at, {len(MADE_UP_HELD_OUT)} held out"
    print(f"\nmade-up words ({counts}), results in all: {results} (target 0 each); ")
    print(f"before (no floor, no known-word rule), hybrid: {floor.made_up_no_floor}\n")


# -- performance ------------------------------------------------------------------------------


def percentiles(values: Sequence[float]) -> str:
    return f"{percentile(values, 0.5):.1f} / {percentile(values, 0.95):.1f} ms"


def timed_ms(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


async def server_rss(vault: Path, index_dir: Path, queries: Sequence[str]) -> tuple[int, int, float]:
    """(VmRSS kB of a real `obsidian-mcp` once its index of meanings is complete and it has answered
    hybrid searches and similar_notes, the same of a bare MCPServer, seconds until complete)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from bench.obsidian_search import BARE, UV, process_tree_rss

    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}

    async def measure(args: list[str], token: str, work: bool) -> tuple[int, float]:
        params = StdioServerParameters(command=UV, args=["run", "--quiet", *args], env=env, cwd=str(REPO))
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                await client.list_tools()
                started = time.perf_counter()
                while work:  # until the vectors are complete: the build's own progress, as a client sees it
                    answer = await client.call_tool("search_notes", {"query": queries[0]})
                    if not (answer.structured_content or {}).get("warnings"):
                        break
                    await asyncio.sleep(0.2)
                complete = time.perf_counter() - started
                if work:
                    for query in queries[:20]:
                        await client.call_tool("search_notes", {"query": query})
                    await client.call_tool("similar_notes", {"path": "Area 01/Sub 1/Note 1"})
                await asyncio.sleep(0.2)
                return process_tree_rss(token), complete

    ours, complete = await measure(
        ["obsidian-mcp", "--vault", str(vault), "--index-dir", str(index_dir)], str(vault), work=True
    )
    bare, _ = await measure(["python", str(BARE), str(index_dir)], str(index_dir), work=False)
    return ours, bare, complete


SPLIT_CHILD = """
import asyncio, json, sys
from pathlib import Path
from bench.search_quality import split_steps
print(json.dumps(asyncio.run(split_steps(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"))))
"""


def memory_split(vault: Path, index_dir: Path, semantic: bool = True) -> list[tuple[str, float]]:
    """`split_steps` in a fresh process (the model and numpy not yet loaded): [(step, VmRSS MB)]."""
    done = subprocess.run(
        [sys.executable, "-c", SPLIT_CHILD, str(vault), str(index_dir), "1" if semantic else "0"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))},
    )
    return [(name, mb) for name, mb in json.loads(done.stdout.strip().splitlines()[-1])]


async def split_steps(vault: Path, index_dir: Path, semantic: bool) -> list[tuple[str, float]]:
    """VmRSS after each step of a server answering searches, in this process (see the module
    docstring); `semantic=False`: the same server without vectors, for comparison."""
    from mcp import Client
    from obsidian_mcp.server import Config, assemble

    spec = json.loads(EVAL.read_text(encoding="utf-8"))
    queries = [q["query"] for q in spec["questions"]] + [n["query"] for n in spec["needles"]]
    steps = [("server modules imported", rss_mb())]
    assembled = assemble(Config.one_vault(vault, index_dir=index_dir))
    if not semantic:
        assembled.index.vectors.stop()  # before the first sync: no vectors at all
    async with Client(assembled.server, mode="legacy") as client:
        await client.list_tools()
        steps.append(("server started", rss_mb()))
        if semantic:  # what the first sync would import, measured apart (with the server's setting)
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
            import numpy  # noqa: F401

            steps.append(("numpy imported", rss_mb()))
        await client.call_tool("search_notes", {"query": queries[0], "mode": "keyword"})
        assembled.index.vectors.wait(600)
        steps.append(("first sync: keyword index (and the stored vectors loaded)", rss_mb()))
        if semantic:
            from obsidian_mcp.semantic.model import default_embedder

            default_embedder().load()
            steps.append(("model loaded (tokenizer tables; the table stays in its file)", rss_mb()))
        await client.call_tool("search_notes", {"query": queries[1]})
        steps.append(("first hybrid search", rss_mb()))
        for query in queries[:20]:
            await client.call_tool("search_notes", {"query": query})
        await client.call_tool("similar_notes", {"path": "Area 01/Sub 1/Note 1"})
        steps.append(("20 hybrid searches and similar_notes", rss_mb()))
    assembled.index.close()
    return steps


def performance(notes: int, seed: int, repeat: int) -> None:
    """The 10,000-note figures through the server's own code: `VaultIndex` (keyword index, then the
    vectors built in the background), `search_notes` in each mode, `similar_notes`, and the real
    server process's memory next to a bare MCPServer's."""
    sys.path.insert(0, str(REPO))
    from obsidian_mcp import search
    from obsidian_mcp.index.store import index_location
    from obsidian_mcp.index.vault_index import VaultIndex
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
        location = index_location(work / "index", vault.root)
        rss_start = rss_mb()

        # what the server does: the keyword index first (answers at once), then the vectors in the background
        index = VaultIndex(vault, location, rescan_seconds=3600)  # the change feed, as the server runs
        keyword_build_s = timed_ms(index.refresh) / 1000
        started = time.perf_counter()
        assert index.vectors.wait(600)
        semantic_build_s = time.perf_counter() - started
        stored = index.vectors.index
        assert stored is not None
        chunks = stored.chunk_count()
        rss_built = rss_mb()
        db_mb = sum(f.stat().st_size for f in location.parent.glob("index.sqlite3*")) / 1e6

        def run(mode: search.Mode) -> list[float]:
            for query in queries:  # warm-up
                search.search_notes(index, query, limit=20, mode=mode)
            return [
                timed_ms(partial(search.search_notes, index, query, limit=20, mode=mode))
                for _ in range(repeat)
                for query in queries
            ]

        keyword_ms, hybrid_ms, semantic_ms = run("keyword"), run("hybrid"), run("semantic")
        vector_ms = [timed_ms(partial(index.vectors.search, query, 50)) for _ in range(repeat) for query in queries]
        similar_ms = [
            timed_ms(partial(search.similar_notes, index, path, 10)) for path in paths[:: max(1, len(paths) // 100)]
        ]

        def edit(n: int) -> None:  # another program rewrites a note, as Obsidian would
            with open(root / paths[n * 37 % len(paths)], "a", encoding="utf-8") as handle:
                handle.write(f"\nEdited by another program, pass {n}: the harbour crane needs new cables.\n")

        edited_ms: list[float] = []
        for n, query in enumerate(queries[:40]):
            edit(n)
            edited_ms.append(timed_ms(partial(search.search_notes, index, query, limit=20, mode="hybrid")))
        rss_queried = rss_mb()
        index.close()

        # a new process finds the vectors stored: it only loads them
        reopened = VaultIndex(vault, location, rescan_seconds=3600, watch=False)
        reload_ms = timed_ms(lambda: (reopened.refresh(), reopened.vectors.wait(600)))
        reopened.close()

        ours, bare, complete_s = asyncio.run(server_rss(root, work / "index", queries))
        split = memory_split(root, work / "index")
        split_keyword = memory_split(root, work / "index", semantic=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    matrix_mb = chunks * (256 + 4) / 1e6  # int8 codes and a float32 scale per chunk
    rows = [
        ("notes / size / chunks", f"{len(paths):,} / {size / 1e6:.1f} MB / {chunks:,}", ""),
        ("keyword index build (first sync; answers from here on)", f"{keyword_build_s:.2f} s", "< 10 s"),
        (
            "semantic build in the background (numpy + model load, read, chunk, embed, store)",
            f"{semantic_build_s:.2f} s ({len(paths) / semantic_build_s:,.0f} notes/s)",
            "≤ 10 s",
        ),
        ("warm start: sync + load of the stored vectors (new VaultIndex)", f"{reload_ms:.0f} ms", ""),
        ("search_notes keyword p50 / p95", percentiles(keyword_ms), ""),
        (
            "search_notes hybrid p50 / p95 (VaultIndex: sync, keyword, fallback, vectors, fusion)",
            percentiles(hybrid_ms),
            "p50 ≤ 10, p95 ≤ 25 ms",
        ),
        ("search_notes semantic p50 / p95", percentiles(semantic_ms), ""),
        ("  of which the vectors (embed the query + cosine over every chunk)", percentiles(vector_ms), ""),
        ("hybrid right after another program edited a note (re-embedded first)", percentiles(edited_ms), ""),
        ("similar_notes p50 / p95", percentiles(similar_ms), ""),
        (
            "RSS of this process: + keyword index and vectors built",
            f"+{rss_built - rss_start:.0f} MB (int8 matrix {matrix_mb:.1f} MB)",
            "",
        ),
        ("RSS of this process: after the searches", f"+{rss_queried - rss_start:.0f} MB", ""),
        ("index database on disk (keyword + vectors)", f"{db_mb:.0f} MB", ""),
        ("obsidian-mcp process: vectors loaded (warm start) after", f"{complete_s:.2f} s", ""),
        ("RSS obsidian-mcp (warm start, after hybrid searches and similar_notes)", f"{ours / 1024:.1f} MB", ""),
        ("RSS bare MCPServer", f"{bare / 1024:.1f} MB", ""),
        ("RSS ratio", f"{ours / bare:.2f}×" if bare else "n/a", "≤ 2×"),
    ]
    print(f"## Performance: {len(paths):,} generated notes, {len(queries)} queries × {repeat}\n")
    print("| measure | result | target |")
    print("|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    print(f"\n(cores: {os.cpu_count()}; load average at the end: {os.getloadavg()[0]:.2f})\n")
    print("## Where the server's memory goes (VmRSS after each step, in-memory client, fresh processes)\n")
    print("| step | with vectors | + | keyword only | + |")
    print("|---|---|---|---|---|")
    keyword_only = dict(split_keyword)
    last = {True: 0.0, False: 0.0}
    for name, mb in split:
        cells = [f"{mb:.1f} MB", f"{mb - last[True]:+.1f}" if last[True] else ""]
        last[True] = mb
        other = keyword_only.get(name)
        if other is not None:
            cells += [f"{other:.1f} MB", f"{other - last[False]:+.1f}" if last[False] else ""]
            last[False] = other
        else:
            cells += ["", ""]
        print(f"| {name} | " + " | ".join(cells) + " |")


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
