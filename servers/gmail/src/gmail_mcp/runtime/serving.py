"""How a server is offered: the command-line options for transport and tools, and the `http-token` command.

Both servers' `cli.py` add these with `serving_options(service, port)` and `http_token_command(service)`,
then call `expose_tools` once the tools are registered and `serve` to run.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from .http_token import TokenFileError, ensure_token, rotate_token, token_file_path

if TYPE_CHECKING:  # the MCP SDK (~1 s to import) is imported by `cli` once the command runs, not for --help
    from .server import ContractServer

log = logging.getLogger("mcp_contract.serving")
_Fn = TypeVar("_Fn", bound=Callable[..., Any])


@dataclass(frozen=True)
class Serving:
    transport: str
    host: str
    port: int
    allowed_hosts: tuple[str, ...]
    tools: tuple[str, ...]
    token_file: Path


def serving_options(service: str, default_port: int) -> Callable[[_Fn], _Fn]:
    """Click options --transport, --host, --port, --allowed-host, --tools, handed to the command as `serving`."""
    prefix = service.upper().replace("-", "_")

    def decorate(fn: _Fn) -> _Fn:
        @functools.wraps(fn)
        def command(
            *args: Any, transport: str, host: str, port: int, allowed_host: tuple[str, ...], tools: str, **kwargs: Any
        ) -> Any:
            serving = Serving(
                transport=transport,
                host=host,
                port=port,
                allowed_hosts=allowed_host,
                tools=tuple(entry.strip() for entry in tools.split(",") if entry.strip()) or ("all",),
                token_file=token_file_path(service),
            )
            return fn(*args, serving=serving, **kwargs)

        options = [
            click.option(
                "--transport",
                type=click.Choice(["stdio", "http"]),
                default="stdio",
                show_default=True,
                envvar=f"{prefix}_TRANSPORT",
                help=f"stdio for one client that starts the server; http serves http://HOST:PORT/mcp "
                f"(env {prefix}_TRANSPORT).",
            ),
            click.option(
                "--host",
                default="127.0.0.1",
                show_default=True,
                help="HTTP: the address to listen on; beyond loopback, put a TLS proxy in front.",
            ),
            click.option(
                "--port",
                type=click.IntRange(0, 65535),
                default=default_port,
                show_default=True,
                help="HTTP: the port (0: any free port, logged in the 'serving http' line).",
            ),
            click.option(
                "--allowed-host",
                multiple=True,
                help="HTTP: one more accepted Host header (repeatable), e.g. the name a reverse proxy serves.",
            ),
            click.option(
                "--tools",
                default="all",
                show_default=True,
                envvar=f"{prefix}_TOOLS",
                help=f"Offer only these tools: comma-separated names and groups read, all (env {prefix}_TOOLS).",
            ),
        ]
        for option in reversed(options):
            command = option(command)
        return command  # type: ignore[return-value]

    return decorate


def expose_tools(server: ContractServer, serving: Serving) -> None:
    """Apply --tools; a name that is no tool or group ends the process (exit 2) with one log line."""
    from .server import UnknownTools

    try:
        server.expose(serving.tools)
    except UnknownTools as exc:
        log.critical(f"cannot start: {exc}")
        sys.exit(2)


def serve(server: ContractServer, serving: Serving) -> None:
    """Run until the client leaves (stdio) or the process is told to stop (SIGTERM/SIGINT)."""
    if serving.transport == "stdio":
        server.run("stdio")
        return
    from .http_server import HttpOptions, ServeError, serve_http  # uvicorn is imported only for HTTP

    try:
        serve_http(server, HttpOptions(serving.host, serving.port, serving.allowed_hosts, serving.token_file))
    except (TokenFileError, ServeError) as exc:
        log.critical(f"cannot start: {exc}")
        sys.exit(2)


def http_token_command(service: str) -> click.Command:
    """`<service> http-token [--rotate]`: print the bearer token HTTP clients send (created on first use)."""

    @click.command("http-token")
    @click.option("--rotate", is_flag=True, help="Write a new token; running servers refuse the old one at once.")
    def http_token(rotate: bool) -> None:
        """Print the bearer token for --transport http (created 0600 on first use)."""
        path = token_file_path(service)
        try:
            token = rotate_token(path) if rotate else ensure_token(path)
        except TokenFileError as exc:
            click.echo(f"{service} http-token: {exc}", err=True)
            sys.exit(1)
        click.echo(token)

    return http_token
