"""Benchmark of obsidian-mcp's Dataview queries (`query_notes`) on a generated vault.

    uv run python bench/obsidian_query.py            # 10,000 notes
    uv run python bench/obsidian_query.py --notes 2000 --repeat 3

The vault is bench/obsidian_search.py's (same notes, folders, tags, links and word model) with
what Dataview queries read added to every note: frontmatter `status`, `priority`, `type`, `due`
(spread around TODAY) and an `owner` link; an `effort::` inline field in a third of the notes; and
a `## Tasks` section in half of them (1-4 tasks: Tasks-plugin emoji dates, priorities, some done,
some recurring, a few Dataview `[due:: ...]` fields).

It measures, in one process, through the domain function the tool calls (`dql.query_notes`: the
index sync, the pages, the engine, the mapping to the tool's result; no MCP framing):

* index build: the first sync of an empty index, as search has it (no pages), Dataview's tables
  included; and beside it, on one thread each, the same build with and without the Dataview
  tables (their extraction and rows switched off, as the index was before them);
* the first query: building the pages (from the index's tables, links resolved) and then the
  engine deriving what it reads of every page a query touches — the extra cost a server pays
  once, on its first `query_notes`;
* warm p50/p95 per query and over all runs of the 20 queries, with the server's default index
  (the inotify feed where available), after one warm-up pass;
* the same right after another program appended a line to one note before each query;
* resident memory (VmRSS of this process) before and after the pages exist (the index of
  meanings, `semantic`, which the same index builds in the background, is in these figures too).

Timings are wall clock on whatever else the machine is running: compare runs on a quiet machine.
This is not a test; it prints Markdown tables.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.obsidian_search import EPOCH, WordModel, note_text, percentile

TODAY = date(2026, 3, 2)  # a Monday, inside the generated due dates
STATUSES = ("active", "blocked", "done", "someday", "waiting")
TYPES = ("project", "meeting", "journal", "reference")

QUERIES: list[tuple[str, str]] = [
    # (kind, query)
    ("FROM #tag", "TABLE status, due FROM #project/alpha SORT due"),
    ("FROM #tag", "LIST FROM #idea"),
    ("FROM #tag", 'TABLE status, priority FROM #work WHERE status = "active" SORT priority DESC'),
    ("FROM folder", 'LIST FROM "Area 03"'),
    ("FROM folder", 'TABLE due FROM "Area 07/Sub 2" WHERE due < date(today) SORT due'),
    ("FROM link", "LIST FROM [[Note 1]]"),
    ("FROM link", "LIST FROM outgoing([[Note 42]])"),
    ("WHERE frontmatter", 'LIST WHERE status = "blocked"'),
    ("WHERE frontmatter", "TABLE priority, due WHERE priority >= 4 SORT due LIMIT 20"),
    ("WHERE frontmatter", "LIST WHERE due >= date(today) AND due <= date(today) + dur(7 days)"),
    ("WHERE frontmatter", "LIST WHERE owner = [[Note 7]]"),
    ("WHERE file", "TABLE file.mtime SORT file.mtime DESC LIMIT 10"),
    ("WHERE file", 'LIST WHERE contains(file.tags, "#café")'),
    ("WHERE inline field", "TABLE effort WHERE effort > dur(2 hours) SORT effort DESC LIMIT 20"),
    ("TASK due this week", "TASK WHERE !completed AND due >= date(today) AND due <= date(today) + dur(7 days)"),
    ("TASK", 'TASK FROM #project WHERE !completed AND priority = "high"'),
    ("TASK", "TASK WHERE recurrence AND !completed GROUP BY file.link"),
    ("GROUP BY", "TABLE length(rows) AS notes GROUP BY status"),
    ("GROUP BY", "TABLE length(rows) AS n FROM #project GROUP BY type"),
    ("GROUP BY", "TABLE sum(rows.priority) AS priority, length(rows) AS n GROUP BY type"),
]


def dataview_text(n: int, total: int, model: WordModel, rng: random.Random) -> str:
    """bench/obsidian_search.py's note n, with Dataview fields and tasks added."""
    text = note_text(n, total, model)
    due = TODAY + timedelta(days=rng.randrange(-60, 60))
    fields = [
        f"status: {STATUSES[n % len(STATUSES)]}",
        f"priority: {1 + n % 5}",
        f"type: {TYPES[n % len(TYPES)]}",
        f"due: {due.isoformat()}",
        f'owner: "[[Note {rng.randrange(50)}]]"',
    ]
    text = "---\n" + "\n".join(fields) + "\n" + text[len("---\n") :]
    lines = [text.rstrip("\n"), ""]
    if n % 3 == 0:
        lines += [f"effort:: {1 + n % 6} hours", ""]
    if n % 2 == 0:
        lines += ["## Tasks", ""]
        for k in range(1 + rng.randrange(4)):
            when = TODAY + timedelta(days=rng.randrange(-20, 30))
            done = rng.random() < 0.3
            box = "x" if done else " "
            extra = " ⏫" if rng.random() < 0.15 else ""
            if rng.random() < 0.1:
                extra += " 🔁 every week"
            if done:
                extra += f" ✅ {(when - timedelta(days=1)).isoformat()}"
            if k == 3:
                lines.append(f"- [{box}] follow up {model.sentence(3)[:-1]} [due:: {when.isoformat()}]")
            else:
                lines.append(f"- [{box}] {model.sentence(rng.randint(3, 8))[:-1]} 📅 {when.isoformat()}{extra}")
        lines.append("")
    return "\n".join(lines)


def generate(root: Path, notes: int, seed: int = 7) -> int:
    model = WordModel.build(seed)
    rng = random.Random(seed + 1)
    size = 0
    for n in range(notes):
        folder = root / f"Area {n % 20:02d}" / f"Sub {n % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        data = dataview_text(n, notes, model, rng).encode("utf-8")
        path = folder / f"Note {n}.md"
        path.write_bytes(data)
        os.utime(path, (EPOCH + n * 600, EPOCH + n * 600))
        size += len(data)
    return size


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_thread_build(vault_dir: Path, location: Path, *, dataview_tables: bool) -> float:
    """Seconds for a first build on one thread with the keyword index only, with or without the
    Dataview tables (without: their extraction returns nothing and their rows are not written)."""
    from obsidian_mcp.dataview import extract as dataview_extract
    from obsidian_mcp.index import metadata
    from obsidian_mcp.index.vault_index import VaultIndex
    from obsidian_mcp.vault.paths import Vault

    saved = dataview_extract.scan_structure, metadata.write
    if not dataview_tables:
        dataview_extract.scan_structure = lambda structure, first_line=1: dataview_extract.BodyMetadata((), ())
        metadata.write = lambda conn, note_id, record: None
    try:
        index = VaultIndex(Vault(vault_dir), location, watch=False, semantic=False, workers=0)
        started = time.perf_counter()
        index.refresh()
        elapsed = time.perf_counter() - started
        index.close()
    finally:
        dataview_extract.scan_structure, metadata.write = saved
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5, help="timed passes over the 20 queries")
    parser.add_argument("--keep", action="store_true", help="keep the generated vault")
    options = parser.parse_args()

    from obsidian_mcp.dataview.pages import dql
    from obsidian_mcp.dataview.pages.results import QueryNotesResult
    from obsidian_mcp.dataview.pages.vault_pages import VaultPages
    from obsidian_mcp.index.vault_index import VaultIndex
    from obsidian_mcp.vault.paths import Vault

    work = Path(tempfile.mkdtemp(prefix="obsidian-query-bench-"))
    vault_dir = work / "vault"
    try:
        started = time.perf_counter()
        size = generate(vault_dir, options.notes, options.seed)
        print(f"generated {options.notes} notes, {size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s")
        vault = Vault(vault_dir)
        index = VaultIndex(vault, work / "index" / "index.sqlite3")  # the server's default: the feed where possible
        pages = VaultPages(index)

        def query(text: str) -> QueryNotesResult:
            return dql.query_notes(pages, text, 100, today=TODAY)

        rss_before = rss_mb()
        started = time.perf_counter()
        index.refresh()
        build_s = time.perf_counter() - started
        # The index of meanings (search's `semantic` mode) embeds every note on a background thread
        # after a first build; the queries are timed once it is idle, as a running server would be.
        vectors = getattr(index, "vectors", None)
        started = time.perf_counter()
        if vectors is not None and hasattr(vectors, "wait"):
            vectors.wait(900)
        embed_s = time.perf_counter() - started
        started = time.perf_counter()
        index.run(pages.current)
        pages_s = time.perf_counter() - started
        rss_pages = rss_mb()
        first: dict[str, float] = {}
        for _, text in QUERIES:  # the first pass: the engine derives what each query needs, once
            started = time.perf_counter()
            query(text)
            first[text] = time.perf_counter() - started
        rss_after = rss_mb()

        times: dict[str, list[float]] = {text: [] for _, text in QUERIES}
        cpu: list[float] = []
        for _ in range(options.repeat):
            for _, text in QUERIES:
                started, cpu_started = time.perf_counter(), time.process_time()
                result = query(text)
                times[text].append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
                assert result.total >= 0
        totals = {text: query(text).total for _, text in QUERIES}

        edited: list[float] = []
        for n, (_, text) in enumerate(QUERIES * options.repeat):
            note = vault_dir / f"Area {n % 20:02d}" / f"Sub {n % 7}" / f"Note {n}.md"
            with open(note, "a", encoding="utf-8") as handle:
                handle.write(f"\nEdited by another program, pass {n}. #edited\n")
            started = time.perf_counter()
            query(text)
            edited.append((time.perf_counter() - started) * 1000)
        assert query("LIST FROM #edited").total == len(QUERIES * options.repeat)
        index.close()
        # Last, so that their memory does not count in the RSS figures above.
        without = one_thread_build(vault_dir, work / "without" / "index.sqlite3", dataview_tables=False)
        with_tables = one_thread_build(vault_dir, work / "with" / "index.sqlite3", dataview_tables=True)
    finally:
        if not options.keep:
            shutil.rmtree(work, ignore_errors=True)

    every = [t for runs in times.values() for t in runs]
    medians = [statistics.median(runs) for runs in times.values()]
    print()
    print("| # | kind | query | rows | first run | p50 | p95 |")
    print("|---|---|---|---|---|---|---|")
    for number, (kind, text) in enumerate(QUERIES, 1):
        runs = times[text]
        print(
            f"| {number} | {kind} | `{text}` | {totals[text]} | {first[text] * 1000:.0f} ms | "
            f"{percentile(runs, 0.5):.1f} ms | {percentile(runs, 0.95):.1f} ms |"
        )
    print()
    print("| measure | result | target |")
    print("|---|---|---|")
    rows = [
        ("notes / size", f"{options.notes:,} / {size / 1e6:.1f} MB", ""),
        ("index build (first sync, no pages), as the server builds it", f"{build_s:.2f} s", "≤ 10 s"),
        (
            "index build on one thread: without / with the Dataview tables",
            f"{without:.2f} / {with_tables:.2f} s (+{(with_tables / without - 1) * 100:.0f} %)",
            "",
        ),
        ("(not query_notes: waiting for the background embedding of the first build)", f"{embed_s:.1f} s", ""),
        ("pages build (first query: from the index's tables, links resolved)", f"{pages_s:.2f} s", ""),
        ("first pass of the 20 queries (engine derives fields, tasks)", f"{sum(first.values()):.2f} s", ""),
        ("index build + pages + first pass", f"{build_s + pages_s + sum(first.values()):.2f} s", ""),
        (
            "warm p50 / p95, all runs",
            f"{percentile(every, 0.5):.1f} / {percentile(every, 0.95):.1f} ms",
            "≤ 10 / ≤ 50 ms",
        ),
        (
            "warm p50 / p95, CPU time of this process (all runs)",
            f"{percentile(cpu, 0.5):.1f} / {percentile(cpu, 0.95):.1f} ms",
            "",
        ),
        (
            "warm p50 / p95 of the per-query medians",
            f"{percentile(medians, 0.5):.1f} / {percentile(medians, 0.95):.1f} ms",
            "",
        ),
        (
            "p50 / p95 right after another program's edit",
            f"{percentile(edited, 0.5):.1f} / {percentile(edited, 0.95):.1f} ms",
            "",
        ),
        (
            "RSS: before / index + pages / after the first pass",
            f"{rss_before:.0f} / {rss_pages:.0f} / {rss_after:.0f} MB",
            "",
        ),
    ]
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
