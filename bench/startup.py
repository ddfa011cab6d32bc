"""Start-up: spawn → initialize → tools/list answered, for both servers and a bare MCPServer, same run.

Each server is started as `python -m <module>` from the project's environment (no `uv run`
wrapper, whose own start-up would dominate), alternating the three so load drifts hit all
alike. Prints median times and the ratio to the bare server (target ≤ 1.15×), and the CPU time
the server process used until it answered (user + system, all its threads; Linux): on a loaded
machine the wall time mostly measures the scheduler, the CPU time what start-up costs.

    uv run python bench/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.contract.raw import RawServer

BENCH = Path(__file__).resolve().parent


def spawn_to_tools_list(module: str, args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Seconds from spawn to the tools/list answer, and the CPU seconds the server used until then."""
    started = time.perf_counter()
    server = RawServer(module, args, env)
    server.initialize()
    reply = server.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(server.proc.pid)
    assert "result" in reply, reply
    server.close()
    return elapsed, cpu


def cpu_seconds(pid: int) -> float:
    """utime + stime of the process (all threads) from /proc; NaN where there is no /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        (vault / "Note.md").write_text("# Note\n")
        cases = {
            "bare MCPServer": ("bench.bare_server", [], None),
            # The default index location (platformdirs' user cache dir), as most users run it.
            "obsidian-mcp": ("obsidian_mcp", ["--vault", str(vault)], {"XDG_CACHE_HOME": f"{tmp}/cache"}),
            "gmail-mcp": ("gmail_mcp", [], {"GMAIL_MCP_TOKEN_FILE": f"{tmp}/none.json"}),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        loads: list[float] = []
        for _ in range(runs):
            for name, (module, args, env) in cases.items():
                elapsed, used = spawn_to_tools_list(module, args, env)
                times[name].append(elapsed)
                cpu[name].append(used)
            loads.append(os.getloadavg()[0])
    base = statistics.median(times["bare MCPServer"])
    cpu_base = statistics.median(cpu["bare MCPServer"])
    print(f"start-up, spawn → tools/list answered, median of {runs} runs (load average {statistics.median(loads):.2f})")
    print(f"{'server':<16}{'median s':>10}{'p90 s':>10}{'ratio':>8}{'cpu s':>8}{'ratio':>8}")
    for name, values in times.items():
        p90 = statistics.quantiles(values, n=10)[-1]
        median, used = statistics.median(values), statistics.median(cpu[name])
        print(f"{name:<16}{median:>10.3f}{p90:>10.3f}{median / base:>8.2f}{used:>8.3f}{used / cpu_base:>8.2f}")


if __name__ == "__main__":
    main()
