"""Benchmark of the Dataview engine's two evaluators: over a batch of rows, and row by row.

    uv run python bench/dataview_eval.py                 # 10,000 notes, 5 rounds
    uv run python bench/dataview_eval.py --notes 2000 --rounds 3

Every WHERE, SORT and GROUP BY expression is evaluated over all the rows at once
(`dataview.batch.compile_batch`), with the row-by-row closures (`dataview.compiler.compile_expr`)
as the fallback when a row fails. This runs the same queries both ways, alternately, in one
process, with row by row as the baseline:

* "batch": the engine as it is;
* "row by row": `compile_batch` made to fail at once, so that the executor takes its row-by-row
  path for every command (what it would be with a single evaluator).

The pages are bench/obsidian_query.py's generated vault (the same notes, frontmatter, inline
fields and tasks), read into memory (`dataview.loader`) and served through a small
`IndexedPages` so that FROM and the starting rows work as over the server's index (no SQLite, no
sync: only the engine is timed). Measured:

* the 20 queries of bench/obsidian_query.py, warm (the engine has derived every page once);
* the same with the columns kept between queries dropped before each query, as right after an
  edit (the batch evaluator keeps the columns of whole-vault queries; row by row keeps none);
* single WHERE expressions over the 10,000 page rows or the task rows, plain lists (no kept
  columns), evaluator alone.

Both evaluators' answers are compared on every query (an assertion, not a timing). Timings are
this process's CPU time (the engine runs on one thread), the fastest of `--rounds` runs, the two
evaluators alternating: compare the ratios, which come from one run. Not a test; prints Markdown
tables.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence, Set
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.obsidian_query import QUERIES, TODAY, dataview_text
from bench.obsidian_search import EPOCH, WordModel

EXPRESSIONS: list[tuple[str, str]] = [
    # (rows, WHERE expression)
    ("pages", 'status = "blocked"'),
    ("pages", "priority >= 4"),
    ("pages", "due >= date(today) AND due <= date(today) + dur(7 days)"),
    ("pages", "owner = [[Note 7]]"),
    ("pages", 'contains(file.tags, "#café")'),
    ("pages", "effort > dur(2 hours)"),
    ("pages", 'file.mtime > date(today) - dur(30 days) OR status = "active"'),
    ("pages", 'length(file.outlinks) > 1 AND lower(type) = "project"'),
    ("tasks", "!completed AND due <= date(today) + dur(7 days)"),
    ("tasks", 'priority = "high" AND !completed'),
]


class MemoryPages:
    """Pages in memory with the lookups of `dataview.IndexedPages` (as the server's index has)."""

    def __init__(self, pages: Any) -> None:
        from obsidian_mcp.dataview.records import record_of

        self._list = pages
        self._ordered = list(pages.ordered())
        self._paths = frozenset(page.path for page in self._ordered)
        self._tags: dict[str, set[str]] = {}
        self._links: dict[str, set[str]] = {}
        for page in self._ordered:
            for tag in record_of(page).lower_tags:
                self._tags.setdefault(tag, set()).add(page.path)
            for target in page.outlinks:
                self._links.setdefault(target, set()).add(page.path)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._ordered)

    def get(self, path: str) -> Any:
        return self._list.get(path)

    def resolver(self) -> Any:
        return self._list.resolver()

    def ordered(self) -> Sequence[Any]:
        return self._ordered

    def paths(self) -> Set[str]:
        return self._paths

    def tagged(self, tag: str) -> Set[str]:
        return self._tags.get(tag, set())

    def in_folder(self, folder: str) -> Set[str]:
        prefix = folder + "/"
        return {path for path in self._paths if path.startswith(prefix)}

    def linking_to(self, path: str) -> Set[str]:
        return self._links.get(path, set())


def generate_pages(notes: int, seed: int) -> MemoryPages:
    from obsidian_mcp.dataview.loader import page_from_text, resolve_links

    model = WordModel.build(seed)
    rng = random.Random(seed + 1)
    pages = []
    for n in range(notes):
        stamp = datetime.fromtimestamp(EPOCH + n * 600)
        path = f"Area {n % 20:02d}/Sub {n % 7}/Note {n}.md"
        pages.append(page_from_text(path, dataview_text(n, notes, model, rng), ctime=stamp, mtime=stamp))
    return MemoryPages(resolve_links(pages))


@contextmanager
def row_by_row() -> Iterator[None]:
    """The executor without its batch evaluator: every command takes its row-by-row path."""
    from obsidian_mcp.dataview import executor
    from obsidian_mcp.dataview.errors import EvalError

    def no_batch(expr: object) -> Any:
        raise EvalError("row by row")

    saved = getattr(executor, "compile_batch")  # noqa: B009 (not re-exported: mypy)
    setattr(executor, "compile_batch", no_batch)  # noqa: B010
    try:
        yield
    finally:
        setattr(executor, "compile_batch", saved)  # noqa: B010


def drop_kept_columns() -> None:
    """Forget the columns the batch evaluator kept over the starting rows (as a page change does)."""
    from obsidian_mcp.dataview import executor

    for starts in executor._STARTS.values():
        for start in starts.values():
            start.rows.columns.clear()


def timed(fn: Callable[[], object]) -> float:
    """CPU milliseconds of this process for `fn()`: the engine runs on one thread, and CPU time is
    far less disturbed than wall clock by the other processes sharing the machine."""
    started = time.process_time()
    fn()
    return (time.process_time() - started) * 1000


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--rounds", type=int, default=7, help="timed runs of each query in each mode (the fastest counts)"
    )
    options = parser.parse_args()

    from obsidian_mcp.dataview import execute_query
    from obsidian_mcp.dataview.batch import compile_batch
    from obsidian_mcp.dataview.compiler import compile_expr
    from obsidian_mcp.dataview.context import EvalContext
    from obsidian_mcp.dataview.parser import parse_query
    from obsidian_mcp.dataview.records import record_of
    from obsidian_mcp.dataview.syntax import Where

    print(f"load average {load()}")
    started = time.perf_counter()
    pages = generate_pages(options.notes, options.seed)
    print(f"{options.notes:,} pages generated and read in {time.perf_counter() - started:.1f} s")
    resolver = pages.resolver()

    def run(text: str) -> Any:
        return execute_query(text, pages, resolver=resolver, today=TODAY, limit=100)

    for _, text in QUERIES:  # derive every page once, and check the two evaluators agree
        batch_answer = run(text)
        with row_by_row():
            assert run(text) == batch_answer, text

    modes: dict[str, dict[str, dict[str, list[float]]]] = {
        condition: {mode: {text: [] for _, text in QUERIES} for mode in ("batch", "rows")}
        for condition in ("warm", "edited")
    }
    for round_ in range(options.rounds):
        for _, text in QUERIES:
            order = ("batch", "rows") if round_ % 2 == 0 else ("rows", "batch")  # alternate: no drift
            run(text)  # warm: the columns this query reads are kept (the edited runs drop them)
            for condition in ("warm", "edited"):
                for mode in order:
                    if condition == "edited":
                        drop_kept_columns()
                    if mode == "rows":
                        with row_by_row():
                            elapsed = timed(lambda text=text: run(text))  # type: ignore[misc]
                    else:
                        elapsed = timed(lambda text=text: run(text))  # type: ignore[misc]
                    modes[condition][mode][text].append(elapsed)

    page_rows = [record_of(page).row for page in pages.ordered()]
    task_rows = [row for page in pages.ordered() for row in record_of(page).task_rows()]
    expression_rows = []
    for kind, expression in EXPRESSIONS:
        rows = page_rows if kind == "pages" else task_rows
        clause = parse_query(f"LIST WHERE {expression}").clauses[0]
        assert isinstance(clause, Where)

        def context() -> EvalContext:
            return EvalContext(pages=pages, resolver=resolver, today=TODAY)

        def batched(expr: Any = clause.expr, rows: list[Any] = rows) -> list[Any]:
            return compile_batch(expr)(list(rows), context())

        def single(expr: Any = clause.expr, rows: list[Any] = rows) -> list[Any]:
            compiled, ctx = compile_expr(expr), context()
            return [compiled(row, ctx) for row in rows]

        assert batched() == single(), expression
        times: dict[str, list[float]] = {"batch": [], "rows": []}
        for round_ in range(options.rounds):
            for mode in ("batch", "rows") if round_ % 2 == 0 else ("rows", "batch"):
                times[mode].append(timed(batched if mode == "batch" else single))
        expression_rows.append((kind, len(rows), expression, times))
    print(f"load average {load()}")

    print()
    print(
        f"Answers: identical both ways on all {len(QUERIES)} queries; "
        f"values identical on the {len(EXPRESSIONS)} expressions."
    )
    print()
    print("| # | query | warm: batch | warm: row by row | ÷ | after an edit: batch | row by row | ÷ |")
    print("|---|---|---|---|---|---|---|---|")
    for number, (_, text) in enumerate(QUERIES, 1):
        cells = []
        for condition in ("warm", "edited"):
            batch = min(modes[condition]["batch"][text])
            rows_ = min(modes[condition]["rows"][text])
            cells += [f"{batch:.1f} ms", f"{rows_:.1f} ms", f"{rows_ / batch:.2f}"]
        print(f"| {number} | `{text}` | " + " | ".join(cells) + " |")
    cells = []
    for condition in ("warm", "edited"):
        batch_sum = sum(min(runs) for runs in modes[condition]["batch"].values())
        rows_sum = sum(min(runs) for runs in modes[condition]["rows"].values())
        cells += [f"{batch_sum:.0f} ms", f"{rows_sum:.0f} ms", f"**{rows_sum / batch_sum:.2f}**"]
    print("| | all 20 | " + " | ".join(cells) + " |")
    print()
    print("| rows | expression | batch | row by row | row by row ÷ batch |")
    print("|---|---|---|---|---|")
    for kind, count, expression, times in expression_rows:
        batch, rows_ = min(times["batch"]), min(times["rows"])
        print(f"| {count:,} {kind} | `{expression}` | {batch:.1f} ms | {rows_:.1f} ms | {rows_ / batch:.2f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
