"""`obsidian-mcp`: serve an Obsidian vault over stdio (the default) or HTTP; `obsidian-mcp http-token`.

The MCP SDK (~1 s to import) is imported only once the command is known to serve. The stored vectors
and the model of a restarted index load on a thread of their own (`index.vectors.preload`) as soon as
the client has the tool list (`index.vectors.defer_loading`): loaded during start-up, they held the
GIL for ~0.5 s of it; loaded then, they are ready long before a client's first search. A fresh
index's notes, on the other hand, start to become searchable before the SDK's import (`index.early`):
reading and FTS5 tokenising let go of the GIL, and a first complete answer waits for them.
`--help` and `http-token` import neither.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import click

from obsidian_mcp.index.store import default_index_dir, index_location
from obsidian_mcp.index.vault_index import DEFAULT_RESCAN_SECONDS, FEED_RESCAN_SECONDS
from obsidian_mcp.index.vectors import defer_loading, preload
from obsidian_mcp.runtime.logs import configure_logging
from obsidian_mcp.runtime.serving import Serving, expose_tools, http_token_command, serve, serving_options
from obsidian_mcp.vault.exclusions import Exclusions, InvalidExclusion
from obsidian_mcp.vault.storage import cleanup_stale_temp_files

log = logging.getLogger("obsidian_mcp")


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--vault",
    envvar="OBSIDIAN_VAULT_PATH",
    type=click.Path(path_type=Path),
    help="Vault folder (env OBSIDIAN_VAULT_PATH).",
)
@click.option(
    "--read-only",
    is_flag=True,
    envvar="OBSIDIAN_MCP_READ_ONLY",
    help="Offer no write tools (env OBSIDIAN_MCP_READ_ONLY=1).",
)
@click.option(
    "--index-dir",
    envvar="OBSIDIAN_MCP_INDEX_DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder for the search index, outside the vault (env OBSIDIAN_MCP_INDEX_DIR; default: the user cache dir).",
)
@click.option(
    "--rescan-seconds",
    envvar="OBSIDIAN_MCP_RESCAN_SECONDS",
    type=click.FloatRange(min=0),
    default=None,
    help=(
        "How often the index lists the whole vault for edits made by other programs; 0 = before every call "
        f"(default: {FEED_RESCAN_SECONDS:g} s as a safety net while the Linux inotify feed reports them, "
        f"{DEFAULT_RESCAN_SECONDS:g} s without it)."
    ),
)
@click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="PATTERN",
    help=(
        "Hide notes and folders matching this gitignore-style pattern from every tool, e.g. 'Journal/' "
        "(repeatable; env OBSIDIAN_MCP_EXCLUDE, comma-separated)."
    ),
)
@click.option(
    "--log-level",
    envvar="OBSIDIAN_MCP_LOG_LEVEL",
    default="INFO",
    show_default=True,
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
)
@serving_options("obsidian-mcp", default_port=8765)
@click.pass_context
def main(
    ctx: click.Context,
    vault: Path | None,
    read_only: bool,
    index_dir: Path | None,
    rescan_seconds: float | None,
    exclude: tuple[str, ...],
    log_level: str,
    serving: Serving,
) -> None:
    """Serve the vault at VAULT to an MCP client over stdio, or over HTTP with --transport http."""
    configure_logging("obsidian-mcp", log_level)  # before the server exists, so the SDK adds no handler
    if ctx.invoked_subcommand is not None:
        return
    if vault is None or not vault.expanduser().is_dir():
        reason = "no vault given" if vault is None else f"vault folder does not exist: {vault}"
        log.critical(f"cannot start: {reason} (use --vault PATH or OBSIDIAN_VAULT_PATH)")
        sys.exit(2)

    root = vault.expanduser().resolve()
    if index_dir is not None:
        index_dir = Path(os.path.realpath(index_dir.expanduser()))
        if index_dir.is_relative_to(root):
            log.critical("cannot start: the index folder must be outside the vault (use --index-dir PATH)")
            sys.exit(2)
    removed = cleanup_stale_temp_files(root)
    if removed:
        log.warning("removed stale temp files left by an interrupted write", extra={"count": removed})
    # Test-only: tools named here raise an unexpected exception, so internal_error is testable end to end.
    crash = frozenset(t.strip() for t in os.environ.get("OBSIDIAN_MCP_CRASH_TOOLS", "").split(",") if t.strip())
    patterns = exclude or tuple(os.environ.get("OBSIDIAN_MCP_EXCLUDE", "").split(","))
    try:
        exclusions = Exclusions(patterns)
    except InvalidExclusion as exc:
        log.critical(f"cannot start: {exc} (--exclude / OBSIDIAN_MCP_EXCLUDE)")
        sys.exit(2)
    location = index_location(index_dir or default_index_dir(), root)  # as `assemble` finds it
    loading = defer_loading()  # the stored vectors and the model: once the client has the tool list
    preload(location)
    from obsidian_mcp.index import early  # what the server imports anyway, but not `--help`
    from obsidian_mcp.index.pool import default_workers
    from obsidian_mcp.vault.paths import Vault

    early.begin(Vault(root, exclusions), location, default_workers())  # before the SDK import

    from obsidian_mcp.server import Config, assemble  # imports the MCP SDK

    config = Config(
        vault=root,
        read_only=read_only,
        crash_tools=crash,
        index_dir=index_dir,
        rescan_seconds=rescan_seconds,
        exclude=exclusions.patterns,
    )
    assembled = assemble(config)
    assembled.server.after_start_up(loading)
    expose_tools(assembled.server, serving)
    log.info("serving vault", extra={"read_only": read_only, "excluded_patterns": len(exclusions.patterns)})
    assembled.start()  # the index builds while the server starts serving
    try:
        serve(assembled.server, serving)
    finally:
        assembled.stop()


main.add_command(http_token_command("obsidian-mcp"))
