"""HTTP under load: 20 concurrent sessions × 25 calls against one HTTP server, and the same calls over stdio.

For each server, the same sessions run twice in one run: over streamable HTTP (all sessions share
one server process, as remote clients would) and over stdio (one server process per session, as
local clients have it). Each session runs its calls one after another, all sessions at once; the
mix is reads and calls that must fail (not_found, permission_denied, parse_error), after a few
untimed warm-up calls per session (the first index build is not what is measured). obsidian-mcp
serves a copy of examples/vault; gmail-mcp talks to the in-repo Gmail emulator, whose access token
is expired just before the burst so the sessions refresh it concurrently.

Checked: no protocol error (an exception instead of a result), every error the expected one, and
every answer to the same call identical across sessions (the shared index and token store stay
consistent). Printed: p50/p95 latency per transport and the HTTP/stdio ratio (target p95 ≤ 2×),
peak RSS of the server process(es), and the load average when the pair started. Exit 1 on a
protocol error or a wrong answer; the latency target is reported, not enforced (a shared
machine's noise is not a failure).

A call's latency is what the SDK's client sees, its own work included (for HTTP: httpx, and
reading the answer as JSON or as an event stream, whichever the server sent), with all sessions'
clients in this one process, as the stdio sessions' are. The ratio depends on the machine: the
HTTP server is one process, so it gets one core at most (one GIL) where the 20 stdio servers
share them all, and other work on the machine takes its share of both; compare runs made under
similar load.

    uv run python bench/http_load.py [--sessions 20] [--calls 25]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gmail_emulator import Emulator

from tests.contract.harness import REPO, HttpServer, http_client, server_env

WARM_UP = 5  # calls each session makes before the burst, not measured
Call = tuple[str, dict[str, Any], str | None]  # tool, arguments, expected error code (None: success)
Opener = Callable[[], AbstractAsyncContextManager[ClientSession]]


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    protocol_errors: Counter[str] = field(default_factory=Counter)
    wrong_answers: list[str] = field(default_factory=list)
    reference: dict[int, str] = field(default_factory=dict)  # call index → first normalised answer

    def check(self, index: int, call: Call, text: str) -> None:
        payload = json.loads(text)
        code = payload.get("error")
        if code != call[2]:
            self.wrong_answers.append(f"{call[0]}: expected {call[2]}, got {code}")
            return
        if code:
            payload["details"].pop("request_id", None)
        normalised = json.dumps(payload, sort_keys=True)
        if self.reference.setdefault(index, normalised) != normalised:
            self.wrong_answers.append(f"{call[0]}: answer differs between sessions")


class Rendezvous:
    """Every session waits here until all have arrived; the last one runs `hook` first."""

    def __init__(self, parties: int, hook: Callable[[], None]) -> None:
        self.waiting, self.hook, self.event = parties, hook, anyio.Event()

    async def arrive(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.hook()
            self.event.set()
        await self.event.wait()


async def session_run(opener: Opener, calls: list[Call], start: Rendezvous, end: Rendezvous, tally: Tally) -> None:
    async with opener() as client:
        await client.initialize()
        await client.list_tools()
        for tool, arguments, _ in calls[:WARM_UP]:  # untimed: the server's first index build or token load
            await client.call_tool(tool, arguments)
        await start.arrive()
        for index, call in enumerate(calls):
            started = time.perf_counter()
            try:
                result = await client.call_tool(call[0], call[1])
            except Exception as exc:  # a protocol error: no result at all
                tally.protocol_errors[type(exc).__name__] += 1
                continue
            tally.latencies.append(time.perf_counter() - started)
            text = result.content[0].text if result.content and result.content[0].type == "text" else "{}"
            tally.check(index, call, text)
        await end.arrive()  # every server process is still up: the last to arrive measures them


async def burst(
    openers: list[Opener], calls: list[Call], before: Callable[[], None], measure: Callable[[], float]
) -> Run:
    """All sessions initialise, then start their calls together; the run's tally, wall time and peak RSS."""
    run = Run()
    marks: dict[str, float] = {}

    def begin() -> None:
        before()
        marks["start"] = time.perf_counter()

    def finish() -> None:
        marks["end"] = time.perf_counter()
        run.rss_mb = measure()

    start, end = Rendezvous(len(openers), begin), Rendezvous(len(openers), finish)
    async with anyio.create_task_group() as tasks:
        for opener in openers:
            tasks.start_soon(session_run, opener, calls, start, end, run.tally)
    run.wall = marks["end"] - marks["start"]
    return run


@dataclass
class Run:
    tally: Tally = field(default_factory=Tally)
    wall: float = 0.0
    rss_mb: float = 0.0


def peak_rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
    return total / 1024


def children_running(module: str) -> list[int]:
    """Server processes started by this bench (stdio_client does not tell their pids)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getpid() and module.encode() in cmdline:
            found.append(int(entry.name))
    return found


@dataclass
class Target:
    name: str
    module: str
    args: list[str]
    env: dict[str, str]
    calls: list[Call]
    before_burst: Callable[[], None] = lambda: None


async def over_http(target: Target, sessions: int, folder: Path) -> Run:
    server = HttpServer.python(target.module, target.args, folder, target.env)
    try:

        def opener() -> AbstractAsyncContextManager[ClientSession]:
            return _http_session(server)

        run = await burst(
            [opener] * sessions, target.calls, target.before_burst, lambda: peak_rss_mb([server.proc.pid])
        )
    finally:
        exit_code = await anyio.to_thread.run_sync(server.stop)
    assert exit_code == 0, f"{target.name} over HTTP exited {exit_code}"
    server.assert_clean()
    return run


@asynccontextmanager
async def _http_session(server: HttpServer) -> AsyncIterator[ClientSession]:
    async with (
        http_client(server.token) as http,
        streamable_http_client(server.url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        yield client


async def over_stdio(target: Target, sessions: int) -> Run:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", target.module, *target.args], env=server_env(target.env), cwd=str(REPO)
    )

    @asynccontextmanager
    async def opener() -> AsyncIterator[ClientSession]:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
                yield client

    return await burst(
        [opener] * sessions, target.calls, target.before_burst, lambda: peak_rss_mb(children_running(target.module))
    )


def obsidian_target(tmp: Path) -> Target:
    vault = tmp / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault, symlinks=True)
    calls: list[Call] = [
        ("read_note", {"path": "Projects/Alpha.md"}, None),
        ("list_notes", {"folder": "Projects"}, None),
        ("search_notes", {"query": "battery"}, None),
        ("list_tags", {}, None),
        ("get_backlinks", {"path": "People/Sam Rivera.md"}, None),
        ("read_note", {"path": "Projects/No Such Note.md"}, "not_found"),
        ("read_note", {"path": "../outside"}, "permission_denied"),
        ("read_note", {"path": "Projects/Alpha.md", "max_chars": -1}, "parse_error"),
        ("no_such_tool", {}, "not_found"),
    ]
    args = ["--vault", str(vault), "--index-dir", str(tmp / "index")]
    return Target("obsidian-mcp", "obsidian_mcp", args, {}, calls)


def gmail_target(tmp: Path, emulator: Emulator) -> Target:
    token_file = tmp / "gmail" / "token.json"
    token_file.parent.mkdir(mode=0o700, parents=True)
    token_file.write_text(json.dumps(emulator.issue_token()))
    os.chmod(token_file, 0o600)
    env = {
        "GMAIL_MCP_TOKEN_FILE": str(token_file),
        "GMAIL_MCP_API_ENDPOINT": emulator.base_url,
        "GMAIL_MCP_DOWNLOAD_DIR": str(tmp / "downloads"),
        "GMAIL_MCP_TIMEOUT_SECONDS": "10",
    }
    message_id, thread_id = _first_message(emulator)
    calls: list[Call] = [
        ("search_emails", {"query": "in:inbox", "max_results": 5}, None),
        ("list_labels", {}, None),
        ("get_email", {"message_id": message_id}, None),
        ("get_thread", {"thread_id": thread_id}, None),
        ("get_email", {"message_id": "ffffffffffffffff"}, "not_found"),
        ("get_email", {"message_id": "../etc/passwd"}, "parse_error"),
        ("no_such_tool", {}, "not_found"),
    ]

    def expire() -> None:  # every session's next call finds the access token expired and refreshes it
        emulator.expire_access_token(json.loads(token_file.read_text())["token"])

    return Target("gmail-mcp", "gmail_mcp", [], env, calls, expire)


def _first_message(emulator: Emulator) -> tuple[str, str]:
    """The newest inbox message's id and thread id, asked of the emulator's REST API directly."""
    token = emulator.issue_token()["token"]
    url = emulator.base_url + "gmail/v1/users/me/messages?q=in%3Ainbox&maxResults=1"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        first = json.loads(answer.read())["messages"][0]
    return str(first["id"]), str(first["threadId"])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


def report(name: str, results: dict[str, Run], sessions: int, calls: int, load: float) -> bool:
    print(f"\n{name}: {sessions} concurrent sessions × {calls} calls (load average {load:.1f}, {os.cpu_count()} cores)")
    print(f"{'transport':<10}{'calls':>7}{'p50 ms':>9}{'p95 ms':>9}{'calls/s':>9}{'RSS MB':>9}  problems")
    for transport, run in results.items():
        tally = run.tally
        problems = sum(tally.protocol_errors.values()) + len(tally.wrong_answers)
        print(
            f"{transport:<10}{len(tally.latencies):>7}{statistics.median(tally.latencies) * 1000:>9.1f}"
            f"{percentile(tally.latencies, 0.95) * 1000:>9.1f}{len(tally.latencies) / run.wall:>9.0f}"
            f"{run.rss_mb:>9.1f}  {problems} {dict(tally.protocol_errors) or ''} {tally.wrong_answers[:3] or ''}"
        )
    http, stdio = results["http"], results["stdio"]
    p50 = statistics.median(http.tally.latencies) / statistics.median(stdio.tally.latencies)
    p95 = percentile(http.tally.latencies, 0.95) / percentile(stdio.tally.latencies, 0.95)
    rss = http.rss_mb / stdio.rss_mb
    verdict = "met" if p95 <= 2.0 else "MISSED"
    print(
        f"http/stdio: p50 {p50:.2f}×, p95 {p95:.2f}× (target ≤ 2×: {verdict}); "
        f"RSS {rss:.2f}× (one HTTP process against {sessions} stdio processes)"
    )
    clean = all(not r.tally.protocol_errors and not r.tally.wrong_answers for r in results.values())
    complete = all(len(r.tally.latencies) == sessions * calls for r in results.values())
    return clean and complete


async def main_async(sessions: int, calls: int) -> bool:
    ok = True
    with tempfile.TemporaryDirectory() as tmp, Emulator() as emulator:
        root = Path(tmp)
        targets: list[Callable[[], Target]] = [
            lambda: obsidian_target(root / "obsidian"),
            lambda: gmail_target(root / "gmail", emulator),
        ]
        for make in targets:
            target = make()
            mix = (target.calls * (calls // len(target.calls) + 1))[:calls]
            target.calls = mix
            load = os.getloadavg()[0]
            results = {
                "stdio": await over_stdio(target, sessions),
                "http": await over_http(target, sessions, Path(tempfile.mkdtemp(dir=tmp))),
            }
            ok = report(target.name, results, sessions, calls, load) and ok
    return ok


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--calls", type=int, default=25)
    options = parser.parse_args()
    ok = anyio.run(main_async, options.sessions, options.calls)
    print("\nno protocol error, every answer as expected" if ok else "\nFAILED: protocol errors or wrong answers")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
