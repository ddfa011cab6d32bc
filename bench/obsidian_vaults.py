"""Several vaults in one obsidian-mcp (issue 27): three generated vaults against one, same run.

    uv run python bench/obsidian_vaults.py [--notes 10000] [--repeat 5] [--runs 7] [--seed 7]

Generates three vaults with `bench/obsidian_search.py`'s generator (different seeds, same size) and
starts real servers (`python -m obsidian_mcp`, no `uv run` wrapper) over stdio:

1. warm-up: one server with the three vaults builds every index (keyword and vectors) and stores it,
   so that what follows measures servers restarted on stored indexes, as users run them;
2. start-up, spawn → `tools/list` answered, median of `--runs`, one vault against three (only the
   default vault opens at start-up: target ≤ 1.05×);
3. memory: VmRSS of the server process once one hybrid search in each of its vaults answered
   without warnings (its vectors loaded), one vault against three (target ≤ 1.6×);
4. warm hybrid `search_notes` p50/p95 over the queries × `--repeat`, in one vault and with
   `vault: "*"` on the three-vault server (target: `*` p95 ≤ 3× one vault's).

Prints a Markdown table and the load average. Not a test: a target missed is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.obsidian_search import QUERIES, generate_vault, percentile
from tests.contract.raw import INITIALIZE, RawServer, tool_call

NAMES = ("work", "home", "archive")
WAIT = 900.0  # seconds a build may take at most, on a loaded machine


class Server:
    """A real obsidian-mcp over stdio on `vaults` (name → folder), the first the default."""

    def __init__(self, vaults: dict[str, Path], index_dir: Path) -> None:
        args = [arg for name, root in vaults.items() for arg in ("--vault", f"{name}={root}")]
        self.raw = RawServer("obsidian_mcp", [*args, "--index-dir", str(index_dir)])
        self._id = 0

    def initialize(self) -> None:
        self.raw.request(INITIALIZE, timeout=WAIT)  # a loaded machine can take longer than RawServer's 20 s
        self.raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self._id += 1
        reply = self.raw.request(tool_call(self._id, tool, arguments), timeout=WAIT)
        payload: dict[str, Any] = json.loads(reply["result"]["content"][0]["text"])
        assert "error" not in payload, payload
        return payload

    def settled(self, vault: str, query: str = "garden budget") -> float:
        """Search `vault` until an answer has no warning (index built, vectors loaded); seconds taken."""
        started = time.monotonic()
        while True:
            payload = self.call("search_notes", {"query": query, "vault": vault})
            if not payload["warnings"]:
                return time.monotonic() - started
            if time.monotonic() - started > WAIT:
                raise TimeoutError(f"{vault}: still {payload['warnings'][0]['code']}")
            time.sleep(0.5)

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.raw.proc.pid}/status").read_text()
        kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return kb / 1024

    def close(self) -> None:
        self.raw.close()


def startup(vaults: dict[str, Path], index_dir: Path) -> float:
    started = time.perf_counter()
    server = Server(vaults, index_dir)
    server.initialize()
    reply = server.raw.request({"jsonrpc": "2.0", "id": 0, "method": "tools/list"}, timeout=WAIT)
    elapsed = time.perf_counter() - started
    assert "result" in reply, reply
    server.close()
    return elapsed


def search_times(server: Server, vaults: tuple[str, ...], repeat: int) -> dict[str, list[float]]:
    """Warm hybrid searches of each query in each of `vaults`, alternated query by query, so that the
    machine's load drifts weigh on every vault alike."""
    times: dict[str, list[float]] = {vault: [] for vault in vaults}
    for _ in range(repeat):
        for query, filters, _ in QUERIES:
            for vault in vaults:
                arguments = {"query": query, "vault": vault, **filters}
                started = time.perf_counter()
                server.call("search_notes", arguments)
                times[vault].append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-vaults-") as tmp:
        work = Path(tmp)
        vaults = {name: work / name for name in NAMES}
        for number, root in enumerate(vaults.values()):
            generate_vault(root, options.notes, options.seed + number)
        index_dir = work / "index"
        one = {"work": vaults["work"]}

        warm = Server(vaults, index_dir)  # builds and stores every index
        warm.initialize()
        built = {name: warm.settled(name) for name in NAMES}
        warm.close()

        starts: dict[str, list[float]] = {"one": [], "three": []}
        for _ in range(options.runs):  # alternating, so load drifts hit both alike
            starts["one"].append(startup(one, index_dir))
            starts["three"].append(startup(vaults, index_dir))

        single = Server(one, index_dir)
        single.initialize()
        single.settled("work")
        rss_one = single.rss_mb()
        one_times = search_times(single, ("work",), options.repeat)["work"]
        single.close()

        triple = Server(vaults, index_dir)
        triple.initialize()
        for name in NAMES:
            triple.settled(name)
        rss_three = triple.rss_mb()
        alternated = search_times(triple, ("work", "*"), options.repeat)
        home_times, every_times = alternated["work"], alternated["*"]
        triple.close()

    start_one, start_three = statistics.median(starts["one"]), statistics.median(starts["three"])
    p95_one, p95_every = percentile(one_times, 0.95), percentile(every_times, 0.95)
    load = " / ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"## Several vaults: 3 × {options.notes:,} notes (load average 1/5/15 min at the end: {load})\n")
    print("| measure | one vault | three vaults | ratio | target |")
    print("|---|---|---|---|---|")
    print(
        f"| start-up, spawn → tools/list (median of {options.runs}) | {start_one:.3f} s | {start_three:.3f} s "
        f"| {start_three / start_one:.2f}× | ≤ 1.05× |"
    )
    print(
        f"| RSS after one search in each vault (vectors loaded) | {rss_one:.1f} MB | {rss_three:.1f} MB "
        f"| {rss_three / rss_one:.2f}× | ≤ 1.6× |"
    )
    print(
        f'| warm hybrid search p50 / p95 ({len(one_times)} searches): one vault vs `vault: "*"` '
        f"| {percentile(one_times, 0.5):.1f} / {p95_one:.1f} ms "
        f"| {percentile(every_times, 0.5):.1f} / {p95_every:.1f} ms | {p95_every / p95_one:.2f}× (p95) | ≤ 3× |"
    )
    print(
        f"| the same, alternated query by query on the three-vault server: one vault vs `*` "
        f"| {percentile(home_times, 0.5):.1f} / {percentile(home_times, 0.95):.1f} ms "
        f"| {percentile(every_times, 0.5):.1f} / {percentile(every_times, 0.95):.1f} ms "
        f"| {percentile(every_times, 0.95) / percentile(home_times, 0.95):.2f}× (p95) | ≤ 3× |"
    )
    firsts = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in built.items())
    print(f"\nfirst build of each vault, to a warning-free hybrid answer (warm-up server): {firsts}")


if __name__ == "__main__":
    main()
