"""Assembles the obsidian-mcp server: the contract middleware, the vaults' spaces, and the tool modules.

Read top-down: `models` (the contract's taxonomy) → `errors` (the one mapping of the domain's
exceptions to it) → the domain: `warnings`, `structure` (how a note's text reads: prose, code,
comments, headings), `dataview` (the pure Dataview query engine), `semantic` (the pure engine of
search by meaning), `vault` (notes on disk, tasks), `index` (the index's machinery and every SQL
statement: sync, build, change feed, the vectors kept in step with the notes), then what asks the
index questions: `search` (by words, by meaning, fused), `links` (backlinks, link checks, moves,
tags and tag renames) and `dataview.pages` (the pages Dataview queries), then `spaces` (the vaults
served, each with its own index, opened when first asked) → `tools` (thin MCP functions returning
the domain's typed results) → this module → `cli`. Imports only go downward within the domain and
tools (vault never imports index, index never search, links or tools), and nothing below this module
imports `errors`.
"""

from __future__ import annotations

import functools
import importlib.metadata
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from obsidian_mcp.errors import to_contract
from obsidian_mcp.index.store import default_index_dir
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.spaces import SpaceOptions, Spaces, open_space
from obsidian_mcp.tools import prompts, resources
from obsidian_mcp.vault.setup import VaultSetup, parse_setup

if TYPE_CHECKING:
    from obsidian_mcp.semantic import Embedder

TOOL_LISTING = Path(__file__).with_name("tool_listing.json")  # `scripts/tool_listing.py` writes it

INSTRUCTIONS = (
    "Work with Obsidian vaults. Paths are vault-relative with '/', '.md' optional. "
    "Tools work on the default vault unless given `vault` (list_vaults names them). "
    "Errors are JSON objects {error, message, details}; details.reason says why a path was refused."
)


@dataclass(frozen=True)
class Config:
    vaults: VaultSetup  # the vaults served, the default among them, each with its exclusions
    read_only: bool = False
    crash_tools: frozenset[str] = field(default_factory=frozenset)
    index_dir: Path | None = None  # None: the user cache dir (one index file per vault)
    rescan_seconds: float | None = None  # None: 300 s with the inotify change feed, 2 s without

    @classmethod
    def one_vault(cls, vault: Path, *, exclude: tuple[str, ...] = (), **options: Any) -> Config:
        """A server of the one vault at `vault` (named after its folder), excluding `exclude`."""
        return cls(vaults=parse_setup([str(vault)], exclude=exclude), **options)


SWITCH_INTERVAL = 0.001  # seconds: see `Assembled.start`


@dataclass(frozen=True)
class Assembled:
    server: ContractServer
    spaces: Spaces

    @property
    def index(self) -> VaultIndex:
        """The default vault's index, for tests and benchmarks: e.g. `index.vectors.wait()`."""
        return self.spaces.default.index

    def start(self) -> None:
        """What a process about to serve does first: build the index in the background, so that
        calls answer while it builds (a server assembled in a test builds on its first call).
        The interpreter hands the GIL between threads every millisecond instead of five: a call
        answered while the build or the embedding runs waits less for it at each SQLite step
        (keyword search p95 at 10,000 notes while the vectors build: 101 → 49 ms, loaded machine)."""
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.spaces.start()  # the default vault; every other one on its first call

    def stop(self) -> None:
        """When serving ended: stop the background work (builds, change feeds, embedding) cleanly."""
        self.spaces.close()


def build_server(config: Config) -> ContractServer:
    return assemble(config).server


def assemble(config: Config, *, embedder: Embedder | None = None) -> Assembled:
    """The server and its index; `embedder` replaces the model of search by meaning (tests)."""
    server = ContractServer(
        name="obsidian-mcp",
        version=importlib.metadata.version("obsidian-mcp"),
        mapper=to_contract,
        instructions=INSTRUCTIONS,
        read_only=config.read_only,
        crash_tools=config.crash_tools,
    )
    options = SpaceOptions(
        index_dir=config.index_dir or default_index_dir(), rescan_seconds=config.rescan_seconds, embedder=embedder
    )
    spaces = Spaces(config.vaults, lambda spec: open_space(spec, options))  # opens the default vault's space
    server.tools_on_demand(functools.partial(register_tools, server, spaces), TOOL_LISTING)
    resources.register(server, spaces)  # notes as resources, vault and path completion
    prompts.register(server, spaces)
    return Assembled(server, spaces)


def register_tools(server: ContractServer, spaces: Spaces) -> None:
    """Every tool, registered when a call first needs one (`ContractServer.tools_on_demand`): the tool
    modules, and the parts of the domain only they use, are imported then, not at start-up."""
    from obsidian_mcp.tools import daily as daily_tools
    from obsidian_mcp.tools import links as link_tools
    from obsidian_mcp.tools import notes as note_tools
    from obsidian_mcp.tools import query as query_tools
    from obsidian_mcp.tools import search as search_tools
    from obsidian_mcp.tools import tags as tag_tools
    from obsidian_mcp.tools import tasks as task_tools

    note_tools.register(server, spaces)
    daily_tools.register(server, spaces)
    search_tools.register(server, spaces)  # and list_vaults
    link_tools.register(server, spaces)
    tag_tools.register(server, spaces)
    query_tools.register(server, spaces)  # a vault's pages are built on its first query, then kept fresh
    task_tools.register(server, spaces)
