"""`obsidian-mcp`: serve Obsidian vaults over stdio (the default) or HTTP; `obsidian-mcp http-token`.

The vaults: `--vault NAME=PATH` (repeatable) or a bare `--vault PATH`; without `--vault`,
`OBSIDIAN_MCP_VAULTS` (entries separated by `os.pathsep`), else `OBSIDIAN_VAULT_PATH` (one path).
`vault.setup` checks them; a configuration no server can start with exits 2 with one log line.

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
from obsidian_mcp.vault.setup import VaultSetupError, parse_setup, split_env

log = logging.getLogger("obsidian_mcp")


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--vault",
    "vault",
    multiple=True,
    metavar="[NAME=]PATH",
    help=(
        "A vault folder, named NAME (default: the folder's name); repeatable (env OBSIDIAN_MCP_VAULTS, entries "
        f"separated by {os.pathsep!r}, or OBSIDIAN_VAULT_PATH for one)."
    ),
)
@click.option(
    "--default-vault",
    envvar="OBSIDIAN_MCP_DEFAULT_VAULT",
    metavar="NAME",
    help="The vault a call without `vault` works on (default: the first; env OBSIDIAN_MCP_DEFAULT_VAULT).",
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
    help=(
        "Folder for the search indexes, outside every vault (env OBSIDIAN_MCP_INDEX_DIR; default: the user cache dir)."
    ),
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
    metavar="[NAME:]PATTERN",
    help=(
        "Hide notes and folders matching this gitignore-style pattern from every tool, e.g. 'Journal/', in "
        "every vault or only in vault NAME (repeatable; env OBSIDIAN_MCP_EXCLUDE, comma-separated)."
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
    vault: tuple[str, ...],
    default_vault: str | None,
    read_only: bool,
    index_dir: Path | None,
    rescan_seconds: float | None,
    exclude: tuple[str, ...],
    log_level: str,
    serving: Serving,
) -> None:
    """Serve the vaults given with --vault to an MCP client over stdio, or over HTTP with --transport http."""
    configure_logging("obsidian-mcp", log_level)  # before the server exists, so the SDK adds no handler
    if ctx.invoked_subcommand is not None:
        return
    entries = vault or split_env(os.environ.get("OBSIDIAN_MCP_VAULTS"))
    if not entries and os.environ.get("OBSIDIAN_VAULT_PATH"):
        entries = (os.environ["OBSIDIAN_VAULT_PATH"],)
    patterns = exclude or tuple(p for p in os.environ.get("OBSIDIAN_MCP_EXCLUDE", "").split(",") if p.strip())
    try:
        setup = parse_setup(entries, default=default_vault, exclude=patterns)
    except VaultSetupError as exc:
        log.critical(f"cannot start: {exc}")
        sys.exit(2)
    if index_dir is not None:
        index_dir = Path(os.path.realpath(index_dir.expanduser()))
        inside = [spec.name for spec in setup.vaults if index_dir.is_relative_to(spec.root)]
        if inside:
            log.critical(
                f"cannot start: the index folder must be outside the vault {inside[0]!r}, as outside every "
                "vault (use --index-dir PATH)"
            )
            sys.exit(2)
    # Test-only: tools named here raise an unexpected exception, so internal_error is testable end to end.
    crash = frozenset(t.strip() for t in os.environ.get("OBSIDIAN_MCP_CRASH_TOOLS", "").split(",") if t.strip())
    default = setup.spec(setup.default)
    location = index_location(index_dir or default_index_dir(), default.root)  # the default vault's index
    loading = defer_loading()  # the stored vectors and the model: once the client has the tool list
    preload(location)
    from obsidian_mcp.index import early  # what the server imports anyway, but not `--help`
    from obsidian_mcp.index.pool import default_workers
    from obsidian_mcp.vault.paths import Vault

    early.begin(Vault(default.root, default.exclusions), location, default_workers())  # before the SDK import

    from obsidian_mcp.server import Config, assemble  # imports the MCP SDK

    config = Config(
        vaults=setup, read_only=read_only, crash_tools=crash, index_dir=index_dir, rescan_seconds=rescan_seconds
    )
    assembled = assemble(config)  # opens the default vault's space (its stale temp files removed)
    assembled.server.after_start_up(loading)
    expose_tools(assembled.server, serving)
    log.info(
        "serving vaults",
        extra={
            "read_only": read_only,
            "vaults": len(setup.vaults),
            "excluded_patterns": sum(len(spec.exclusions.patterns) for spec in setup.vaults),
        },
    )
    assembled.start()  # the index builds while the server starts serving
    try:
        serve(assembled.server, serving)
    finally:
        assembled.stop()


main.add_command(http_token_command("obsidian-mcp"))
