"""Drive a real server subprocess with the official MCP client, exactly as users start it.

`running` speaks stdio, or streamable HTTP when CONTRACT_TRANSPORT=http (`make test` runs the
contract suite both ways): then the server gets `--transport http --port 0` and a private token
file, and the client sends the token. Tests that only make sense over stdio are marked
`stdio_only`; tests that start no server through `running` are marked `transport_independent`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
from mcp import Client
from mcp.client.session import ClientSession, ElicitationFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

UV = os.environ.get("UV") or shutil.which("uv") or "uv"
REPO = Path(__file__).resolve().parents[2]
SAMPLE_VAULT = REPO / "examples" / "vault"
SPECS = REPO / "specs" / "contracts"
TRANSPORT = os.environ.get("CONTRACT_TRANSPORT", "stdio")
if TRANSPORT not in ("stdio", "http"):
    raise RuntimeError(f"CONTRACT_TRANSPORT must be stdio or http, not {TRANSPORT!r}")

# Words that must never reach a client: tracebacks and exception class names.
LEAK_PATTERNS = re.compile(
    r"Traceback|File \"|\b[A-Z][A-Za-z]*(Error|Exception)\b|HttpError|RefreshError|googleapis\.com"
)


@dataclass
class Answer:
    result: CallToolResult
    payload: dict[str, Any]

    @property
    def error(self) -> str | None:
        code = self.payload.get("error")
        return str(code) if code is not None else None


class Session:
    def __init__(self, client: ClientSession | Client, errlog: Any) -> None:
        self.client = client
        self._errlog = errlog

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> Answer:
        result = await self.client.call_tool(name, arguments or {})
        assert len(result.content) == 1 and isinstance(result.content[0], TextContent), result
        payload = json.loads(result.content[0].text)
        assert isinstance(payload, dict)
        assert bool(result.is_error) == ("error" in payload), "isError must be set exactly for errors"
        if result.is_error:
            # interface.md §1: TS SDK clients reject an error whose structuredContent misses the outputSchema.
            assert result.structured_content is None, "an error result must not carry structuredContent"
        else:
            assert result.structured_content == payload, "structuredContent must equal the text's JSON"
        return Answer(result, payload)

    async def tool_names(self) -> list[str]:
        return sorted(tool.name for tool in (await self.client.list_tools()).tools)

    def stderr_lines(self) -> list[str]:
        self._errlog.flush()
        self._errlog.seek(0)
        return [line for line in self._errlog.read().splitlines() if line.strip()]

    def log_records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stderr_lines()]


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(extra or {})
    return env


def obsidian(vault: Path, *flags: str) -> list[str]:
    """The command that starts obsidian-mcp on `vault`, as `.mcp.json` does, with `flags`."""
    return ["obsidian-mcp", "--vault", str(vault), *flags]


@asynccontextmanager
async def running(
    command: list[str],
    env: dict[str, str] | None = None,
    elicitation: ElicitationFnT | None = None,
    protocol: str = "2025-11-25",
) -> AsyncIterator[Session]:
    """Start `uv run <command>` from the repo root over CONTRACT_TRANSPORT, initialise, and yield a Session.

    With `elicitation`, the client declares the elicitation capability and answers with that callback.
    `protocol="2026-07-28"` connects as today's Claude Code does: `server/discover` and no handshake, where
    questions to the client ride `InputRequiredResult` (the SDK's `Client` answers them and retries).
    """
    if TRANSPORT == "http":
        async with running_http(command, env, elicitation, protocol) as session:
            yield session
        return
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        params = StdioServerParameters(
            command=UV, args=["run", "--quiet", "--locked", *command], env=server_env(env), cwd=str(REPO)
        )
        if protocol != "2025-11-25":
            async with Client(
                stdio_client(params, errlog=errlog), mode=protocol, elicitation_callback=elicitation
            ) as modern:
                yield Session(modern, errlog)
            return
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, elicitation_callback=elicitation) as client,
        ):
            await client.initialize()
            yield Session(client, errlog)


@asynccontextmanager
async def running_http(
    command: list[str],
    env: dict[str, str] | None = None,
    elicitation: ElicitationFnT | None = None,
    protocol: str = "2025-11-25",
) -> AsyncIterator[Session]:
    """`uv run <command> --transport http --port 0`: the SDK's streamable HTTP client, sending the bearer token."""
    service = command[0]
    with tempfile.TemporaryDirectory(prefix="contract-http-") as tmp:
        server = HttpServer(
            [UV, "run", "--quiet", "--locked", *command, "--transport", "http", "--port", "0"],
            service,
            Path(tmp),
            env,
        )
        try:
            await anyio.to_thread.run_sync(server.wait_until_serving)
            if protocol != "2025-11-25":
                async with (
                    http_client(server.token) as http,
                    Client(
                        streamable_http_client(server.url, http_client=http),
                        mode=protocol,
                        elicitation_callback=elicitation,
                    ) as modern,
                ):
                    with open(server.stderr_path, encoding="utf-8") as errlog:
                        yield Session(modern, errlog)
                return
            async with (
                http_client(server.token) as http,
                streamable_http_client(server.url, http_client=http) as (read, write),
                ClientSession(read, write, elicitation_callback=elicitation) as client,
            ):
                await client.initialize()
                with open(server.stderr_path, encoding="utf-8") as errlog:
                    yield Session(client, errlog)
        finally:
            exit_code = await anyio.to_thread.run_sync(server.stop)
        assert exit_code == 0, f"{service} exited {exit_code} on SIGTERM"
        server.assert_clean()


def http_client(token: str | None, **headers: str) -> httpx2.AsyncClient:
    """An HTTP client with the MCP SDK's timeouts; `token` (if any) goes in the Authorization header."""
    if token is not None:
        headers = {"Authorization": f"Bearer {token}", **headers}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))


class HttpServer:
    """A server process started with `argv` (which must choose --transport http), with a token file of
    its own in `folder`; its stderr goes to a file there. Ready once it logs "serving http"."""

    def __init__(self, argv: list[str], service: str, folder: Path, env: dict[str, str] | None = None) -> None:
        self.service = service
        self.folder = folder
        self.token_file = folder / "config" / "http-token"
        self.stderr_path = folder / "stderr.log"
        self.stdout_path = folder / "stdout.log"
        variable = service.upper().replace("-", "_") + "_HTTP_TOKEN_FILE"
        folder.mkdir(parents=True, exist_ok=True)
        with open(self.stderr_path, "ab") as stderr, open(self.stdout_path, "ab") as stdout:
            self.proc = subprocess.Popen(
                argv,
                cwd=REPO,
                env=server_env({variable: str(self.token_file), **(env or {})}),
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
            )
        self.port = 0
        self.host = "127.0.0.1"

    @classmethod
    def python(cls, module: str, args: list[str], folder: Path, env: dict[str, str] | None = None) -> HttpServer:
        """`python -m module ARGS --transport http --port 0`, no `uv run` in between (signals reach it), started."""
        argv = [sys.executable, "-m", module, *args, "--transport", "http", "--port", "0"]
        server = cls(argv, module.replace("_", "-"), folder, env)
        server.wait_until_serving()
        return server

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/mcp"

    @property
    def token(self) -> str:
        return self.token_file.read_text(encoding="ascii").strip()

    def records(self) -> list[dict[str, Any]]:
        text = self.stderr_path.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def wait_until_serving(self, timeout: float = 90) -> None:
        """Wait (polling its stderr) for the "serving http" line and take the port from it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.stderr_path.read_text(encoding="utf-8")
            for line in text.split("\n")[:-1]:  # whole lines only
                if '"serving http"' in line:
                    record = json.loads(line)
                    self.host, self.port = record["host"], int(record["port"])
                    return
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.service} exited {self.proc.returncode} before serving:\n{text}")
            time.sleep(0.05)
        self.stop()
        raise TimeoutError(f"{self.service} did not log 'serving http' within {timeout:.0f}s")

    def stop(self, timeout: float = 20) -> int:
        """SIGTERM, then the exit code (SIGKILL after `timeout` seconds)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def assert_clean(self) -> None:
        """Nothing on stdout, and the token in no log line."""
        assert self.stdout_path.read_text(encoding="utf-8") == "", "the HTTP server wrote to stdout"
        if self.token_file.exists():
            assert self.token not in self.stderr_path.read_text(encoding="utf-8"), "the token reached the log"


def tree_state(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Everything under `root`, hidden entries too: (mode, mtime in ns, bytes or link target) per relative path.
    Equal states mean nothing was created, removed, written, touched or re-linked in between."""
    state: dict[str, tuple[int, int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                data = os.readlink(path).encode()
            elif stat.S_ISREG(info.st_mode):
                data = path.read_bytes()
            else:
                data = b""
            state[str(path.relative_to(root))] = (info.st_mode, info.st_mtime_ns, data)
    return state


@dataclass
class SharedObsidian:
    """One obsidian-mcp (`obsidian-mcp --vault <vault>`, its index in `index_dir`) on a private copy of the
    sample vault, shared by the read-only tests of one pytest process (tests/contract/README.md, "Sharing a
    server"). `session` is its client session."""

    session: Session
    vault: Path
    index_dir: Path
    _stop: anyio.Event = field(default_factory=anyio.Event)
    _stopped: anyio.Event = field(default_factory=anyio.Event)


class SharedObsidianPool:
    """Starts the shared obsidian-mcp on first use and keeps it for the next test, unless `discard` is called.

    Each server runs in a task of its own inside `task_group` (the session fixture's), so its cancel scopes
    never interleave with the tests'. A server that fails (it did not start, or did not exit 0) is recorded in
    `errors` and never raised into the task group, which would cancel the test that happens to be running."""

    def __init__(self, task_group: anyio.abc.TaskGroup, make_folder: Callable[[], Path]) -> None:
        self._task_group = task_group
        self._make_folder = make_folder
        self._current: SharedObsidian | None = None
        self.errors: list[BaseException] = []

    async def get(self) -> SharedObsidian:
        if self._current is None:
            self._current = await self._task_group.start(self._serve)
        return self._current

    def take_errors(self) -> list[BaseException]:
        """The failures recorded since the last call (each is reported once)."""
        errors, self.errors = self.errors, []
        return errors

    async def discard(self) -> None:
        """Stop the current server (if any): the next `get` starts a fresh one on a fresh copy."""
        current, self._current = self._current, None
        if current is not None:
            current._stop.set()
            await current._stopped.wait()

    async def _serve(self, *, task_status: anyio.abc.TaskStatus[SharedObsidian]) -> None:
        folder = self._make_folder()
        vault = folder / "vault"
        shutil.copytree(SAMPLE_VAULT, vault, symlinks=True)
        index_dir = folder / "index"
        shared: SharedObsidian | None = None
        try:
            async with running(obsidian(vault), {"OBSIDIAN_MCP_INDEX_DIR": str(index_dir)}) as session:
                shared = SharedObsidian(session, vault, index_dir)
                task_status.started(shared)
                await shared._stop.wait()
        except Exception as error:
            if shared is None:
                raise  # it never started: start() raises it in the test that asked for the server
            self.errors.append(error)  # reported by the fixtures; see the class docstring
        finally:
            if shared is not None:
                shared._stopped.set()
