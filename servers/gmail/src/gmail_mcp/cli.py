"""`gmail-mcp` serves the mailbox over stdio; `gmail-mcp auth` authorises it once."""

from __future__ import annotations

import logging
import sys

import click

from gmail_mcp.config import Settings
from gmail_mcp.runtime.logs import configure_logging

log = logging.getLogger("gmail_mcp")
LEVELS = click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--read-only", is_flag=True, help="Read-only scope; no write tools (env GMAIL_MCP_READ_ONLY=1).")
@click.option("--log-level", envvar="GMAIL_MCP_LOG_LEVEL", default="INFO", show_default=True, type=LEVELS)
@click.pass_context
def main(ctx: click.Context, read_only: bool, log_level: str) -> None:
    """Serve Gmail to an MCP client over stdio (the default), or authorise with `auth`."""
    configure_logging("gmail-mcp", log_level)  # before the server exists, so the SDK adds no handler
    if ctx.invoked_subcommand is not None:
        return
    from gmail_mcp.server import build_server

    settings = Settings.from_env(read_only=read_only)
    server = build_server(settings)
    log.info("serving", extra={"read_only": settings.read_only, "token_present": settings.token_file.exists()})
    server.run("stdio")


@main.command()
@click.option("--no-browser", is_flag=True, help="Print the authorisation URL instead of opening a browser.")
@click.option("--read-only", is_flag=True, help="Ask only for gmail.readonly.")
@click.option("--port", default=0, show_default=True, help="Loopback port for the redirect (0 = any free port).")
def auth(no_browser: bool, read_only: bool, port: int) -> None:
    """Run Google's installed-app OAuth flow and store the token (mode 0600)."""
    from gmail_mcp.api.authorize import AuthorizationError, authorize

    settings = Settings.from_env(read_only=read_only)
    try:
        path = authorize(settings, open_browser=not no_browser, port=port)
    except AuthorizationError as exc:
        click.echo(f"gmail-mcp auth: {exc}", err=True)
        sys.exit(1)
    click.echo(f"Authorised. Token saved to {path}")
