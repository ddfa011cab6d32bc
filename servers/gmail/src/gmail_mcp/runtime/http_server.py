"""Serving over MCP streamable HTTP: the SDK's ASGI app behind the bearer guard, run by uvicorn.

uvicorn logs through the root logger (JSON lines, no access log), listens on a socket bound here
(so `--port 0` can report the port it got), and on SIGTERM/SIGINT lets the calls in flight
finish and send their answers before it closes the connections, as the stdio path does.

One process serves every session, so its per-request cost is what 20 concurrent sessions queue
behind (bench/http_load.py): uvicorn runs on uvloop with the httptools parser (both dependencies;
uvicorn's "auto" falls back to asyncio and h11 where they are missing), an answer that comes alone
goes back as JSON on a kept connection (`http_answers.py`), and what start-up built is frozen out
of the garbage collector's full collections, which otherwise paused every session at once.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import socket
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from .http_answers import LoneAnswerAsJson
from .http_auth import BearerGuard
from .http_token import TokenSource, ensure_token
from .lifecycle import InFlight
from .server import ContractServer

log = logging.getLogger("mcp_contract.http")

ENDPOINT = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_BODY_BYTES = 32 * 1024 * 1024  # the SDK's 4 MiB would refuse a large write_note that stdio accepts
CLOSE_SECONDS = 2  # once drained: how long uvicorn waits for connections to close before cutting them


@dataclass(frozen=True)
class HttpOptions:
    host: str
    port: int
    allowed_hosts: tuple[str, ...]
    token_file: Path


class ServeError(Exception):
    """The server cannot listen; the message says why in one line."""


def serve_http(server: ContractServer, options: HttpOptions) -> None:
    """Serve `server` on http://HOST:PORT/mcp until SIGTERM or SIGINT."""
    ensure_token(options.token_file)  # raises TokenFileError: there is no serving without a usable token
    sock = _listen(options.host, options.port)
    port = sock.getsockname()[1]
    security = transport_security(options.host, port, options.allowed_hosts)
    app = server.streamable_http_app(
        streamable_http_path=ENDPOINT,
        transport_security=security,
        host=options.host,
        max_request_body_size=MAX_BODY_BYTES,
    )
    posts = InFlight()
    answers = LoneAnswerAsJson(app)
    guarded = BearerGuard(_PostsInFlight(answers, posts), TokenSource(options.token_file), realm=server.name)
    config = uvicorn.Config(
        guarded,
        loop="auto",  # uvloop when installed
        http="auto",  # httptools when installed
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=CLOSE_SECONDS,
    )
    logging.getLogger("uvicorn.error").addFilter(_without_colors)
    if options.host not in LOOPBACK:
        log.warning("listening beyond this machine: put a TLS proxy in front", extra={"host": options.host})
    announced = {"host": options.host, "port": port, "endpoint": ENDPOINT, "token_file": str(options.token_file)}
    runner = _Uvicorn(config, server.calls, posts, announced)
    # What exists now (modules, the SDK's models, the tools) lives as long as the process: frozen,
    # it is left out of every full collection, which took 60-80 ms under bench/http_load.py (10-20
    # ms frozen), every session waiting.
    gc.freeze()
    runner.run(sockets=[sock])  # on the loop `config` chose
    if runner.drained is False:
        os._exit(0)  # a call still runs on a worker thread after the grace period: do not wait for it


def transport_security(host: str, port: int, allowed_hosts: Iterable[str]) -> TransportSecuritySettings:
    """DNS-rebinding checks: Host must name this server (loopback names, the bound address, or an
    --allowed-host), and an Origin, when sent, must be one of the same over http or https."""
    names = ["127.0.0.1", "localhost"]
    if host not in ("", "0.0.0.0", "::", *names):
        names.append(f"[{host}]" if ":" in host else host)
    hosts = [f"{name}:{port}" for name in names] + [h for h in allowed_hosts if h]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def _without_colors(record: logging.LogRecord) -> bool:
    """uvicorn adds a `color_message` copy with ANSI escapes to some records: not for a JSON log."""
    record.__dict__.pop("color_message", None)
    return True


def _listen(host: str, port: int) -> socket.socket:
    try:
        family, _, _, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        return socket.create_server(address, family=family, backlog=2048)
    except OSError as exc:
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc


class _PostsInFlight:
    """Counts POST requests until their answer is sent (a tool call's answer travels in its POST's
    response: its event stream, or one JSON body), so shutdown can wait for them. GET event streams
    stay open for good: not counted."""

    def __init__(self, app: ASGIApp, posts: InFlight) -> None:
        self.app = app
        self.posts = posts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        self.posts.enter()
        try:
            await self.app(scope, receive, send)
        finally:
            self.posts.leave()


class _Uvicorn(uvicorn.Server):
    """uvicorn.Server that announces itself once listening and stops like the stdio path.

    On SIGTERM/SIGINT new calls answer mcp_unavailable at once, but uvicorn is told to stop only
    once the POSTs in flight have sent their answers (at most GRACE seconds): its `should_exit`
    also makes sse-starlette end every open event stream, answers still on their way included.
    """

    def __init__(self, config: uvicorn.Config, calls: InFlight, posts: InFlight, address: dict[str, Any]) -> None:
        super().__init__(config)
        self.calls = calls
        self.posts = posts
        self.address = address
        self.drained: bool | None = None  # None: no signal yet

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            log.info("serving http", extra=self.address)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn's own version raises the signal again after shutting down, which would end the
        # process with "killed by SIGTERM" instead of exit 0.
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.calls.stopping:  # a second signal: stop waiting
            super().handle_exit(sig, frame)
            return
        self.calls.stopping = True  # new calls answer mcp_unavailable from now on
        drain = threading.Thread(target=self._exit_when_drained, args=(sig, frame), name="drain", daemon=True)
        drain.start()

    def _exit_when_drained(self, sig: int, frame: FrameType | None) -> None:
        self.drained = self.posts.wait_idle(InFlight.GRACE)
        name = signal.Signals(sig).name
        log.info(f"terminating on {name}", extra={"calls_finished": self.drained})
        super().handle_exit(sig, frame)
