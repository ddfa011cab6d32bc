"""`gmail-mcp` serves the mailbox over stdio (or HTTP); `gmail-mcp auth` authorises it once; `http-token`."""

from __future__ import annotations

import logging
import sys

import click

from gmail_mcp.config import ConfirmMode, Settings
from gmail_mcp.runtime.logs import configure_logging
from gmail_mcp.runtime.serving import Serving, expose_tools, http_token_command, serve, serving_options

log = logging.getLogger("gmail_mcp")
LEVELS = click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--read-only", is_flag=True, help="Read-only scope; no write tools (env GMAIL_MCP_READ_ONLY=1).")
@click.option("--log-level", envvar="GMAIL_MCP_LOG_LEVEL", default="INFO", show_default=True, type=LEVELS)
@click.option(
    "--confirm",
    envvar="GMAIL_MCP_CONFIRM",
    default="new-recipients",
    show_default=True,
    type=click.Choice(["new-recipients", "always", "never"]),
    help="What the person confirms in the client: mail to new recipients, every mail, or nothing.",
)
@serving_options("gmail-mcp", default_port=8766)
@click.pass_context
def main(ctx: click.Context, read_only: bool, log_level: str, confirm: str, serving: Serving) -> None:
    """Serve Gmail to an MCP client over stdio (the default) or HTTP, or authorise with `auth`."""
    configure_logging("gmail-mcp", log_level)  # before the server exists, so the SDK adds no handler
    if ctx.invoked_subcommand is not None:
        return
    from gmail_mcp.server import build_server

    settings = Settings.from_env(read_only=read_only, confirm=ConfirmMode(confirm))
    server = build_server(settings)
    expose_tools(server, serving)
    log.info(
        "serving",
        extra={
            "read_only": settings.read_only,
            "token_present": settings.token_file.exists(),
            "confirm": settings.confirm.value,
        },
    )
    serve(server, serving)


@main.command()
@click.option("--no-browser", is_flag=True, help="Print the authorisation URL instead of opening a browser.")
@click.option("--read-only", is_flag=True, help="Ask only for gmail.readonly.")
@click.option("--port", default=0, show_default=True, help="Loopback port for the redirect (0 = any free port).")
@click.option("--account", default="default", show_default=True, help="Name of the account to authorise.")
def auth(no_browser: bool, read_only: bool, port: int, account: str) -> None:
    """Run Google's installed-app OAuth flow for one account and store its token (mode 0600)."""
    from gmail_mcp.authorize import AuthorizationError, authorize

    settings = Settings.from_env(read_only=read_only)
    try:
        done = authorize(settings, open_browser=not no_browser, port=port, account=account)
    except AuthorizationError as exc:
        click.echo(f"gmail-mcp auth: {exc}", err=True)
        sys.exit(1)
    click.echo(f"Authorised {done.email or 'the account'} as {done.account!r}. Token saved to {done.path}")
    if done.same_address:
        click.echo(f"Note: {', '.join(done.same_address)} is the same mailbox.", err=True)


@main.command()
def accounts() -> None:
    """List the authorised accounts (from the token files; nothing is asked of Gmail)."""
    from gmail_mcp.authorize import stored_accounts

    found = stored_accounts(Settings.from_env())
    if not found:
        click.echo("No account is authorised yet: run `uv run gmail-mcp auth`.")
    for item in found:
        mode = {True: "read-only", False: "read-write", None: "unreadable token"}[item.read_only]
        click.echo(f"{'*' if item.is_default else ' '} {item.name}\t{item.email or '(address unknown)'}\t{mode}")
    if found:
        click.echo("(* = the account a tool uses when given none)")


main.add_command(http_token_command("gmail-mcp"))
