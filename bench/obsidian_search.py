"""Benchmark of obsidian-mcp's search index against ripgrep, on a generated vault.

    uv run python bench/obsidian_search.py            # 10,000 notes (~20 MB)
    uv run python bench/obsidian_search.py --notes 50000

Generates a deterministic vault (frontmatter, headings, paragraphs from a seeded Zipf word model,
links, tags, code blocks) in a temporary folder, then measures in the same run:

* index build: the first sync of an empty index (reads and indexes every note), with the notes
  parsed in worker processes as a server does it (`workers` default), and on one thread
  (`workers=0`) for the ratio;
* unchanged sync: a full listing of the vault compared with the index (what a rescan costs),
  and what the default sync costs while the inotify change feed works (an empty drain);
* warm search p50/p95 over ~30 queries through the domain function `search_notes`: "query"
  with the index fresh and no change feed, "+ listing" with a full listing of the vault before
  every search (`--rescan-seconds 0`, the fallback's worst case), "feed drain + search" as the
  server does by default on Linux, and the same right after another program rewrote a note;
* the same queries as `rg -l -i` (the closest single ripgrep call: multi-word queries search
  their first word, filters other than the folder are ignored — all in ripgrep's favour);
* a real `uv run obsidian-mcp` on the vault with an empty index, over stdio: how long the first
  `search_notes` takes when it is called right after `initialize` (the server builds its index in
  the background from start-up and answers from what is indexed so far, with `INDEX_BUILDING`),
  and when the build is complete (the first keyword search without that warning);
* resident memory (VmRSS) of that server once built, after warm keyword searches, next to a
  bare `MCPServer` with no tools started the same way.

The index of meanings is off in process (`semantic=False`: these are the keyword index's own
figures); the server process builds it in the background after its keyword index, as it always
does. `bench/search_quality.py` measures search by meaning, and the server's memory once built.

This is not a test; it prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
UV = os.environ.get("UV") or shutil.which("uv") or "uv"

_COMMON_TEXT = """the of and to in is it that for on with as was be at by this have from or had not but what all were
when we there can an your which their said if do will each about how up out them then she many some so these
would other into has more her two like him see time could no make than first been its who now people my made
over did down only way find use may water long little very after words called just where most know get through
back much before go good new write our used me man too any day same right look think also around another came
come work three word must because does part even place well such here take why things help put years different
away again off went old number great tell men say small every found still between name should home big give
air line set own under read last never us left end along while might next sound below saw something thought
both few those always looked show large often together asked house world going want school important until form
food keep children feet land side without boy once animals life enough took sometimes four head above kind began
almost live page got earth need far hand high year mother light parts country father let night following picture
being study second eyes soon times story boys since white days ever paper hard near sentence better best across
during today others sure means knew it's try told young miles sun ways thing whole hear example heard several
change answer room sea against top turned learn point city play toward five using himself usually"""
COMMON = _COMMON_TEXT.split()
_TOPIC_TEXT = """garden budget meeting project review kitchen lighthouse migration sourdough marathon invoice
roadmap deadline harbour telescope compost cardamom bicycle mortgage retrospective architecture"""
TOPICS = _TOPIC_TEXT.split()
PLANTED = "the quiet cormorant sings at dawn"
EPOCH = 1_735_689_600  # 2025-01-01T00:00:00Z
TAGS = ["project/alpha", "project/beta", "area/health", "area/finance", "daily", "idea", "reading", "café", "work"]

QUERIES: list[tuple[str, dict[str, Any], list[str]]] = [
    # (query, search_notes filters, ripgrep arguments)
    ("garden", {}, ["garden"]),
    ("budget", {}, ["budget"]),
    ("lighthouse", {}, ["lighthouse"]),
    ("telescope", {}, ["telescope"]),
    ("water", {}, ["water"]),
    ("people", {}, ["people"]),
    ("zuvoka", {}, ["zuvoka"]),
    ("cormorant", {}, ["cormorant"]),
    ('"quiet cormorant"', {}, ["-F", "quiet cormorant"]),
    ('"project review"', {}, ["-F", "project review"]),
    ('"kitchen budget"', {}, ["-F", "kitchen budget"]),
    ("light*", {}, [r"\blight"]),
    ("meet*", {}, [r"\bmeet"]),
    ("harb*", {}, [r"\bharb"]),
    ("comp*", {}, [r"\bcomp"]),
    ("garden budget", {}, ["garden"]),
    ("meeting notes review", {}, ["meeting"]),
    ("sourdough cardamom", {}, ["sourdough"]),
    ("marathon training plan", {}, ["marathon"]),
    ("garden OR kitchen", {}, ["-e", "garden", "-e", "kitchen"]),
    ("budget -garden", {}, ["budget"]),
    ("invoice", {"folder": "Area 03"}, ["invoice", "Area 03"]),
    ("roadmap", {"folder": "Area 07/Sub 2"}, ["roadmap", "Area 07/Sub 2"]),
    ("deadline", {"tags": ["project/alpha"]}, ["deadline"]),
    ("review", {"tags": ["project"]}, ["review"]),
    ("migration", {"tags": ["work"], "folder": "Area 01"}, ["migration", "Area 01"]),
    ("café", {}, ["café"]),
    ("retrospective", {}, ["retrospective"]),
    ("architecture decision", {}, ["architecture"]),
    ("mortgage bicycle", {}, ["mortgage"]),
]


# -- the vault --------------------------------------------------------------------------------


def _pseudo_words(rng: random.Random, count: int) -> list[str]:
    syllables = ["ka", "zu", "vo", "mi", "ra", "te", "lo", "shi", "fen", "dor", "ul", "bra", "qui", "nex", "tor"]
    words = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))) for _ in range(count * 2)}
    return sorted(words)[:count]


@dataclass
class WordModel:
    words: list[str]
    cumulative: list[float]
    rng: random.Random

    @classmethod
    def build(cls, seed: int) -> WordModel:
        rng = random.Random(seed)
        words = COMMON + TOPICS + _pseudo_words(rng, 6000)
        weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(words))]
        # topic words get a mid-frequency boost so they behave like real subject words
        for index in range(len(COMMON), len(COMMON) + len(TOPICS)):
            weights[index] = weights[60]
        total = 0.0
        cumulative = []
        for weight in weights:
            total += weight
            cumulative.append(total)
        return cls(words, cumulative, rng)

    def sentence(self, length: int) -> str:
        words = self.rng.choices(self.words, cum_weights=self.cumulative, k=length)
        return " ".join(words).capitalize() + "."


def note_text(n: int, total: int, model: WordModel) -> str:
    rng = model.rng
    tags = rng.sample(TAGS, rng.randint(0, 3))
    lines = ["---", f"created: 2026-{1 + n % 12:02d}-{1 + n % 28:02d}"]
    if tags:
        lines.append("tags: [" + ", ".join(tags) + "]")
    if n % 10 == 0:
        lines.append(f"aliases: [{model.sentence(2)[:-1]}]")
    lines += ["---", f"# {model.sentence(rng.randint(2, 5))[:-1]}", ""]
    for section in range(rng.randint(2, 4)):
        lines += [f"## {model.sentence(rng.randint(1, 3))[:-1]}", ""]
        for _ in range(rng.randint(1, 4)):
            sentences = [model.sentence(rng.randint(6, 18)) for _ in range(rng.randint(2, 6))]
            if rng.random() < 0.3:
                sentences.append(f"See [[Note {rng.randrange(total)}]].")
            if rng.random() < 0.15:
                sentences.append("#" + rng.choice(TAGS))
            lines += [" ".join(sentences), ""]
        if section == 1 and n % 10 == 3:
            lines += ["```python", f"def step_{n}(x):", "    return budget(x) + 1", "```", ""]
    if n % 997 == 0:
        lines += [f"Only here: {PLANTED}.", ""]
    return "\n".join(lines)


def generate_vault(root: Path, notes: int, seed: int = 7) -> int:
    """Write `notes` notes under `root`; returns the total size in bytes."""
    model = WordModel.build(seed)
    size = 0
    for n in range(notes):
        folder = root / f"Area {n % 20:02d}" / f"Sub {n % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        data = note_text(n, notes, model).encode("utf-8")
        path = folder / f"Note {n}.md"
        path.write_bytes(data)
        os.utime(path, (EPOCH + n * 600, EPOCH + n * 600))  # notes written over months, like a real vault
        size += len(data)
    return size


# -- measuring --------------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def rg_times(vault: Path, repeat: int) -> list[float] | None:
    rg = shutil.which("rg")
    if rg is None:
        return None
    out = []
    for _ in range(repeat):
        for _, _, args in QUERIES:
            folder = vault
            if len(args) == 2 and args[0] != "-F" and not args[0].startswith("-"):
                args, folder = [args[0]], vault / args[1]
            command = [rg, "-l", "-i", *args, str(folder)]
            out.append(timed(functools.partial(subprocess.run, command, stdout=subprocess.DEVNULL, check=False)))
    return out


def process_tree_rss(token: str) -> int:
    """Largest VmRSS (kB) among non-uv processes whose command line holds `token`."""
    best = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if token not in cmdline or comm == "uv":
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                best = max(best, int(line.split()[1]))
    return best


@dataclass(frozen=True)
class FirstCall:
    """A real server started on a vault whose index is empty."""

    initialize_ms: float  # process started → `initialize` answered
    first_call_ms: float  # `search_notes` called right after `initialize` → its answer
    first_warning: str  # what that answer said of the build
    first_complete_s: float  # `initialize` answered → the first answer equal to ripgrep's, unflagged
    complete_s: float  # `initialize` answered → a keyword search without INDEX_BUILDING
    hybrid_unflagged_s: float  # `initialize` answered → a hybrid search without any warning (vectors built)
    building_ms: list[float]  # keyword searches while the keyword index or the vectors were building
    rss_kb: int  # the server once built, after warm keyword searches


@dataclass(frozen=True)
class Restart:
    """The same server started again on its up-to-date index (keyword and vectors stored)."""

    initialize_ms: float
    first_hybrid_ms: float  # `initialize` answered → the first hybrid answer
    first_warning: str  # what it said
    unflagged_ms: float  # `initialize` answered → the first hybrid answer without any warning


def _building(payload: dict[str, Any]) -> str:
    codes = [warning["code"] for warning in payload["warnings"]]
    for warning in payload["warnings"]:
        if warning["code"] == "INDEX_BUILDING":
            return f"INDEX_BUILDING {warning['done']:,} of {warning['total']:,}"
    return "complete" + (f" ({', '.join(codes)})" if codes else "")


def _payload(answer: Any) -> dict[str, Any]:
    import json

    return dict(json.loads(answer.content[0].text))


def _complete(payload: dict[str, Any], expected: int) -> bool:
    flagged = any(warning["code"] == "INDEX_BUILDING" for warning in payload["warnings"])
    return not flagged and payload["total"] == expected


# Keyword queries whose complete answer ripgrep gives: (search_notes query, `rg -l -i` arguments)
GIVE_UP = 300.0  # seconds a polling loop waits for what it waits for, then reports what it saw
TRUTH = [('"quiet cormorant"', ["-F", "quiet cormorant"]), ("lighthouse", ["-w", "lighthouse"])]


def rg_counts(vault: Path) -> list[int] | None:
    """How many notes ripgrep finds for each of `TRUTH` (None without ripgrep)."""
    rg = shutil.which("rg")
    if rg is None:
        return None
    return [
        len(subprocess.run([rg, "-l", "-i", *args, str(vault)], capture_output=True, text=True).stdout.splitlines())
        for _, args in TRUTH
    ]


@asynccontextmanager
async def initialized(args: list[str], env: dict[str, str]) -> AsyncIterator[tuple[Any, float, float]]:
    """A real server over stdio, initialized: (client session, when started, when `initialize` answered)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=UV, args=["run", "--quiet", *args], env=env, cwd=str(REPO))
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            yield client, started, time.perf_counter()


async def first_call(args: list[str], token: str, env: dict[str, str], expected: list[int] | None) -> FirstCall:
    async with initialized(args, env) as (client, started, ready):
        answer = await client.call_tool("search_notes", {"query": "garden budget"})  # the tool's default mode
        answered = time.perf_counter()
        first = _building(_payload(answer))
        first_complete = None
        while first_complete is None:  # the first answers equal to ripgrep's, as a client polling sees them
            payloads = [
                _payload(await client.call_tool("search_notes", {"query": query, "mode": "keyword", "limit": 100}))
                for query, _ in TRUTH
            ]
            if expected is None or all(map(_complete, payloads, expected)) or time.perf_counter() - ready > GIVE_UP:
                first_complete = time.perf_counter() - ready
            else:
                await asyncio.sleep(0.05)
        building_ms: list[float] = []
        complete = None
        turn = 0
        while True:  # until the vectors are built: warm keyword searches meanwhile, and the flags
            query, filters, _ = QUERIES[turn % len(QUERIES)]
            turn += 1
            asked = time.perf_counter()
            keyword = _payload(await client.call_tool("search_notes", {"query": query, "mode": "keyword", **filters}))
            building_ms.append((time.perf_counter() - asked) * 1000)
            if complete is None and not keyword["warnings"]:
                complete = time.perf_counter() - ready
            hybrid = _payload(await client.call_tool("search_notes", {"query": "garden budget"}))
            if not hybrid["warnings"] or time.perf_counter() - ready > GIVE_UP:
                last_warning = _building(hybrid)
                break
            await asyncio.sleep(0.1)
        hybrid_unflagged = time.perf_counter() - ready
        if last_warning != "complete":
            print(f"gave up after {GIVE_UP:.0f} s: the hybrid answer still said {last_warning}", file=sys.stderr)
        for query, filters, _ in QUERIES[:10]:
            await client.call_tool("search_notes", {"query": query, "mode": "keyword", **filters})
        await asyncio.sleep(0.2)
        rss = process_tree_rss(token)
    return FirstCall(
        initialize_ms=(ready - started) * 1000,
        first_call_ms=(answered - ready) * 1000,
        first_warning=first,
        first_complete_s=first_complete,
        complete_s=complete if complete is not None else hybrid_unflagged,
        hybrid_unflagged_s=hybrid_unflagged,
        building_ms=building_ms,
        rss_kb=rss,
    )


async def restart_call(args: list[str], env: dict[str, str]) -> Restart:
    """A hybrid search right after `initialize` of a server whose index is stored and up to date,
    then again without pause until an answer carries no warning."""
    async with initialized(args, env) as (client, started, ready):
        first = _payload(await client.call_tool("search_notes", {"query": "garden budget"}))
        answered = time.perf_counter()
        payload = first
        while payload["warnings"] and time.perf_counter() - ready < GIVE_UP:
            payload = _payload(await client.call_tool("search_notes", {"query": "garden budget"}))
        unflagged = time.perf_counter()
    return Restart(
        initialize_ms=(ready - started) * 1000,
        first_hybrid_ms=(answered - ready) * 1000,
        first_warning=_building(first),
        unflagged_ms=(unflagged - ready) * 1000,
    )


async def server_rss(args: list[str], token: str, env: dict[str, str], search: bool) -> int:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=UV, args=["run", "--quiet", *args], env=env, cwd=str(REPO))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            await client.list_tools()
            if search:
                for query, filters, _ in QUERIES[:10]:
                    await client.call_tool("search_notes", {"query": query, "mode": "keyword", **filters})
            await asyncio.sleep(0.2)
            return process_tree_rss(token)


BARE = Path(__file__).resolve().parent / "bare_server.py"  # the shared baseline of the benchmarks
Row = tuple[str, str, str]


def serve_rows(vault_dir: Path, work: Path) -> tuple[list[Row], int]:
    """A real server on the vault with an empty index (its first answers, against ripgrep's
    counts), then again on the index it built: the table's rows, and its RSS (kB) once built."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    fresh = work / "index-fresh"  # an empty index: the server builds it from start-up
    server_args = ["obsidian-mcp", "--vault", str(vault_dir), "--index-dir", str(fresh)]
    expected = rg_counts(vault_dir)
    served = asyncio.run(first_call(server_args, str(vault_dir), env, expected))
    restarted = asyncio.run(restart_call(server_args, env))  # its index now stored, vectors too
    rows: list[Row] = [
        ("server: initialize (process start → answer)", f"{served.initialize_ms:.0f} ms", ""),
        (
            "server: first search_notes right after initialize",
            f"{served.first_call_ms:.0f} ms",
            "< 1 s at 10k, < 2 s at 50k",
        ),
        ("server: what that first answer said", served.first_warning, ""),
        (
            "server: first COMPLETE answer (equal to `rg -l -i`, no INDEX_BUILDING), after initialize",
            f"{served.first_complete_s:.2f} s" if expected is not None else "ripgrep not installed: not checked",
            "≤ 1.5 s at 10k; ≤ 3 s at 50k, or flagged",
        ),
        ("server: keyword index built (no INDEX_BUILDING), after initialize", f"{served.complete_s:.2f} s", ""),
        ("server: vectors built (hybrid unflagged), after initialize", f"{served.hybrid_unflagged_s:.2f} s", ""),
        (
            "server: keyword search p50 / p95 while the keyword index or the vectors build",
            f"{percentile(served.building_ms, 0.5):.1f} / {percentile(served.building_ms, 0.95):.1f} ms "
            f"({len(served.building_ms)} calls)",
            "p95 ≤ 50 ms at 10k",
        ),
        ("restart (index up to date): initialize", f"{restarted.initialize_ms:.0f} ms", ""),
        (
            "restart: first hybrid answer after initialize, and what it said",
            f"{restarted.first_hybrid_ms:.0f} ms, {restarted.first_warning}",
            "complete and unflagged ≤ 0.3 s at 10k",
        ),
        ("restart: first hybrid answer without any warning", f"{restarted.unflagged_ms:.0f} ms", ""),
    ]
    return rows, served.rss_kb


def serve_only(notes: int, seed: int) -> None:
    """`--server-only`: the server rows alone, on a generated vault (no in-process builds)."""
    work = Path(tempfile.mkdtemp(prefix="obsidian-bench-"))
    try:
        size = generate_vault(work / "vault", notes, seed)
        rows, _ = serve_rows(work / "vault", work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{notes:,} notes, {size / 1e6:.1f} MB (cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f})\n")
    print("| measure | result | target |")
    print("|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5, help="passes over the query set")
    parser.add_argument("--keep", action="store_true", help="keep the generated vault and index")
    parser.add_argument("--server-only", action="store_true", help="only the real server's rows (first answers)")
    options = parser.parse_args()
    if options.server_only:
        serve_only(options.notes, options.seed)
        return

    from obsidian_mcp import search
    from obsidian_mcp.index.store import index_location
    from obsidian_mcp.index.vault_index import VaultIndex
    from obsidian_mcp.index.watch import ChangeFeed
    from obsidian_mcp.vault.paths import Vault

    work = Path(tempfile.mkdtemp(prefix="obsidian-bench-"))
    vault_dir, index_dir = work / "vault", work / "index"
    try:
        started = time.perf_counter()
        size = generate_vault(vault_dir, options.notes, options.seed)
        print(f"generated {options.notes} notes, {size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s")
        vault = Vault(vault_dir)
        location = index_location(index_dir, vault.root)

        one_thread = VaultIndex(
            vault, index_location(work / "index-1", vault.root), watch=False, semantic=False, workers=0
        )
        one_thread_ms = timed(one_thread.refresh)
        index = VaultIndex(vault, location, rescan_seconds=3600, watch=False, semantic=False)
        build_ms = timed(index.refresh)  # worker processes parse, as in the server
        sync_ms = statistics.median(timed(index.refresh) for _ in range(5))
        feed = ChangeFeed()
        feed_start_ms = timed(functools.partial(feed.start, vault.root))
        folders = feed.folders
        feed.close()

        def run_queries(target: VaultIndex, before: Callable[[int], object] | None = None) -> list[float]:
            for query, filters, _ in QUERIES:  # warm-up pass
                search.search_notes(target, query, **filters)
            times = []
            for n, (query, filters) in enumerate([(q, f) for _ in range(options.repeat) for q, f, _ in QUERIES]):
                if before is not None:
                    before(n)
                times.append(timed(functools.partial(search.search_notes, target, query, **filters)))
            return times

        query_ms = run_queries(index)
        listed_ms = run_queries(VaultIndex(vault, location, rescan_seconds=0, watch=False, semantic=False))
        default = VaultIndex(vault, location, semantic=False)  # what the server builds: the feed on Linux
        default.refresh()
        feed_active = default.feed is not None and default.feed.active
        drain_ms = statistics.median(timed(functools.partial(default.refresh, full=False)) for _ in range(50))
        fed_ms = run_queries(default)

        def edit_one(n: int) -> None:  # another program rewrites a note, as Obsidian would
            path = vault_dir / f"Area {n % 20:02d}" / f"Sub {n % 7}" / f"Note {n}.md"
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(f"\nEdited by another program, pass {n}.\n")

        edited_ms = run_queries(default, edit_one)
        default.close()
        planted = search.search_notes(index, '"quiet cormorant"', limit=100)
        assert planted.total == len(range(0, options.notes, 997)), planted.total
        rg_ms = rg_times(vault_dir, options.repeat)

        served_rows, ours = serve_rows(vault_dir, work)
        env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        bare = asyncio.run(server_rss(["python", str(BARE), str(work)], str(work), env, search=False))
    finally:
        if not options.keep:
            shutil.rmtree(work, ignore_errors=True)

    rows = [
        ("notes / size", f"{options.notes:,} / {size / 1e6:.1f} MB", ""),
        ("index build (first sync), worker processes", f"{build_ms / 1000:.2f} s", "≤ 6 s at 10k, ≤ 25 s at 50k"),
        (
            "index build, one thread ÷ worker processes",
            f"{one_thread_ms / 1000:.2f} s ÷ {build_ms / 1000:.2f} s = {one_thread_ms / build_ms:.2f}×",
            "",
        ),
        *served_rows,
        ("unchanged-vault sync (full listing)", f"{sync_ms:.1f} ms", "cheap"),
        ("feed start (watch every folder)", f"{feed_start_ms:.1f} ms for {folders} folders", ""),
        ("unchanged-vault sync (feed drain)", f"{drain_ms:.3f} ms" if feed_active else "no feed here", "small"),
        (
            "search p50 / p95 (query)",
            f"{percentile(query_ms, 0.5):.1f} / {percentile(query_ms, 0.95):.1f} ms",
            "p95 ≤ 10 ms at 10k",
        ),
        (
            "search p50 / p95 (+ listing every call)",
            f"{percentile(listed_ms, 0.5):.1f} / {percentile(listed_ms, 0.95):.1f} ms",
            "",
        ),
        (
            "search p50 / p95 (feed drain + search, the default)"
            if feed_active
            else "search p50 / p95 (default: periodic listing, no feed here)",
            f"{percentile(fed_ms, 0.5):.1f} / {percentile(fed_ms, 0.95):.1f} ms",
            "p95 < 50 ms",
        ),
        (
            "search p50 / p95 (right after another program's edit)",
            f"{percentile(edited_ms, 0.5):.1f} / {percentile(edited_ms, 0.95):.1f} ms",
            "",
        ),
    ]
    if rg_ms is None:
        rows.append(("rg -l -i p50 / p95", "ripgrep not installed: skipped", ""))
    else:
        ratio = percentile(rg_ms, 0.5) / percentile(query_ms, 0.5)
        rows.append(("rg -l -i p50 / p95", f"{percentile(rg_ms, 0.5):.1f} / {percentile(rg_ms, 0.95):.1f} ms", ""))
        rows.append(("rg p50 ÷ search p50 (query)", f"{ratio:.1f}×", "≥ 1×"))
    rows.append(("RSS obsidian-mcp, built, after warm search", f"{ours / 1024:.1f} MB", ""))
    rows.append(("RSS bare MCPServer", f"{bare / 1024:.1f} MB", ""))
    rows.append(("RSS ratio", f"{ours / bare:.2f}×" if bare else "n/a", "< 1.5×"))
    print(f"\n(cores: {os.cpu_count()}; load average at the end: {os.getloadavg()[0]:.2f})")
    print()
    print("| measure | result | target |")
    print("|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
