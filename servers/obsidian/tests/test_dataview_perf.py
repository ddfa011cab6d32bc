"""Performance sanity: 20 typical queries over 10,000 generated in-memory pages.

Timings are printed (run with `-s`), never asserted: the machine is shared. The answers are
checked against what the generator put in, so the queries do real work.
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import date, datetime, timedelta

import pytest
from obsidian_mcp.dataview import Page, PageList, TaskItem, execute_query

TODAY = date(2024, 5, 1)
COUNT = 10_000
FOLDERS = ("Projects", "Meetings", "Journal", "Areas/Home", "Areas/Work", "Archive")
STATUSES = ("active", "blocked", "done", "someday")

QUERIES = (
    "LIST FROM #project",
    'TABLE status, due FROM "Projects" WHERE status = "active" SORT due',
    "TABLE file.name, priority WHERE priority >= 4 SORT priority DESC, file.name LIMIT 50",
    "LIST WHERE due >= date(today) AND due <= date(today) + dur(7 days)",
    "TASK WHERE !completed AND due <= date(today) + dur(7 days)",
    "TABLE length(rows) AS n GROUP BY status",
    'TABLE length(rows) AS n FROM "Meetings" GROUP BY due.month',
    "LIST FROM [[Note 00001]]",
    "LIST FROM outgoing([[Note 00042]])",
    "TABLE rating WHERE rating SORT rating DESC LIMIT 20",
    'LIST WHERE contains(file.tags, "#area/work")',
    "TABLE effort WHERE effort > dur(2 hours)",
    'TASK WHERE priority = "high" GROUP BY file.link',
    'LIST WHERE regexmatch(".*7$", file.name)',
    "TABLE WITHOUT ID file.link, owner WHERE owner = [[Note 00001]]",
    'TABLE tag FROM #project FLATTEN file.etags AS tag WHERE startswith(tag, "#project/")',
    'LIST FROM #project AND -"Archive" WHERE status != "done"',
    "TABLE file.mtime SORT file.mtime DESC LIMIT 10",
    "LIST WHERE any(file.tasks, (t) => !t.completed AND t.due < date(today))",
    "TABLE sum(rows.priority) AS p GROUP BY type",
)


def name(index: int) -> str:
    return f"Note {index:05d}"


def generate(count: int = COUNT, seed: int = 7) -> PageList:
    rng = random.Random(seed)
    outlinks: dict[int, list[int]] = {i: rng.sample(range(count), 3) for i in range(count)}
    inlinks: dict[int, list[int]] = {i: [] for i in range(count)}
    for source, targets in outlinks.items():
        for target in targets:
            inlinks[target].append(source)
    folder_of = {i: FOLDERS[i % len(FOLDERS)] for i in range(count)}

    def path(index: int) -> str:
        return f"{folder_of[index]}/{name(index)}.md"

    pages = []
    for i in range(count):
        due = date(2024, 1, 1) + timedelta(days=rng.randrange(366))
        tags = (
            ["#project", f"#project/p{i % 40}"]
            if folder_of[i] == "Projects"
            else [f"#area/{folder_of[i][-4:].lower()}"]
        )
        frontmatter: dict[str, object] = {
            "status": STATUSES[i % 4],
            "due": due,
            "priority": i % 5 + 1,
            "type": folder_of[i].split("/")[0].lower(),
            "owner": f"[[{name(i % 50)}]]",
            "tags": [tag[1:] for tag in tags],
        }
        if i % 3:
            frontmatter["rating"] = i % 10
        task_due = due.isoformat()
        body = "\n".join(
            [
                f"# {name(i)}",
                f"effort:: {i % 5} hours",
                f"Related: [[{name(outlinks[i][0])}]] and [[{name(outlinks[i][1])}]]",
                "",
                f"- [ ] first task 📅 {task_due} {'⏫' if i % 7 == 0 else ''}",
                f"    - [{'x' if i % 2 else ' '}] subtask [due:: {task_due}]",
                f"- [{'x' if i % 3 == 0 else ' '}] second task ⏳ {task_due}",
                "",
                "```",
                "fake:: field",
                "- [ ] fake task",
                "```",
            ]
        )
        pages.append(
            Page(
                path=path(i),
                frontmatter=frontmatter,
                body=body,
                size=len(body),
                ctime=datetime(2024, 1, 1) + timedelta(minutes=i),
                mtime=datetime(2024, 2, 1) + timedelta(minutes=i * 7 % count),
                outlinks=tuple(path(t) for t in outlinks[i]),
                inlinks=tuple(path(s) for s in inlinks[i]),
                tags=tuple(tags),
            )
        )
    return PageList(pages)


@pytest.fixture(scope="module")
def pages() -> PageList:
    return generate()


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


@pytest.mark.slow
def test_typical_queries_over_ten_thousand_pages(pages: PageList) -> None:
    started = time.perf_counter()
    results = {query: execute_query(query, pages, today=TODAY) for query in QUERIES}
    cold = time.perf_counter() - started  # the first pass scans every body and builds every row

    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for query in QUERIES:
        runs: list[tuple[float, float]] = []
        for _ in range(3):
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            results[query] = execute_query(query, pages, today=TODAY)
            runs.append((time.perf_counter() - wall_start, time.process_time() - cpu_start))
        wall[query] = statistics.median(run[0] for run in runs)
        cpu[query] = statistics.median(run[1] for run in runs)

    assert results["LIST FROM #project"].total == -(-COUNT // len(FOLDERS))  # every sixth note
    for query, result in results.items():
        assert result.total > 0, query
    linking = [page.path for page in pages if "Meetings/Note 00001.md" in page.outlinks]
    assert [getattr(row, "path", None) for row in results["LIST FROM [[Note 00001]]"].rows] == linking
    grouped = results["TABLE length(rows) AS n GROUP BY status"]
    assert [row.values for row in grouped.rows] == [[s, COUNT // 4] for s in sorted(STATUSES)]
    tasks = results['TASK WHERE priority = "high" GROUP BY file.link'].tasks
    assert all(isinstance(task, TaskItem) for group in tasks for task in getattr(group, "tasks", []))

    print(f"\n{COUNT} pages, {len(QUERIES)} queries; first pass over all of them: {cold * 1000:.0f} ms")
    for query in QUERIES:
        print(f"  {wall[query] * 1000:7.1f} ms wall {cpu[query] * 1000:7.1f} ms cpu  {query}")
    for label, times in (("wall", list(wall.values())), ("cpu", list(cpu.values()))):
        p50, p95 = _percentile(times, 0.5), _percentile(times, 0.95)
        print(f"  {label}: p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
