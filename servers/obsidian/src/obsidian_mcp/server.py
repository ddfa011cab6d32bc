"""Assembles the obsidian-mcp server: the contract middleware, the vault, its index, and the tool modules.

Read top-down: `models` (the contract's taxonomy) → `errors` (the one mapping of the domain's
exceptions to it) → the domain: `warnings`, `structure` (how a note's text reads: prose, code,
comments, headings), `dataview` (the pure Dataview query engine), `semantic`
(the pure engine of search by meaning), `vault` (notes on disk, tasks), `index` (the index's
machinery and every SQL statement: sync, build, change feed, the vectors kept in step with the
notes), then what asks the index questions: `search` (by words, by meaning, fused), `links`
(backlinks, link checks, moves, tags and tag renames) and `dataview.pages` (the pages Dataview
queries) → `tools` (thin MCP functions returning the domain's typed results) → this module →
`cli`. Imports only go downward within the domain and tools (vault never imports index, index
never search, links or tools), and nothing below this module imports `errors`.
"""

from __future__ import annotations

import functools
import importlib.metadata
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from obsidian_mcp.dataview.pages.vault_pages import VaultPages
from obsidian_mcp.errors import to_contract
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.store import default_index_dir, index_location
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.tools import prompts, resources
from obsidian_mcp.vault.exclusions import Exclusions
from obsidian_mcp.vault.paths import Vault

if TYPE_CHECKING:
    from obsidian_mcp.semantic import Embedder

TOOL_LISTING = Path(__file__).with_name("tool_listing.json")  # `scripts/tool_listing.py` writes it

INSTRUCTIONS = (
    "Work with an Obsidian vault. Paths are vault-relative with '/', '.md' optional. "
    "Errors are JSON objects {error, message, details}; details.reason says why a path was refused."
)


@dataclass(frozen=True)
class Config:
    vault: Path
    read_only: bool = False
    crash_tools: frozenset[str] = field(default_factory=frozenset)
    index_dir: Path | None = None  # None: the user cache dir
    rescan_seconds: float | None = None  # None: 300 s with the inotify change feed, 2 s without
    exclude: tuple[str, ...] = ()  # gitignore-style patterns of private folders and notes


SWITCH_INTERVAL = 0.001  # seconds: see `Assembled.start`


@dataclass(frozen=True)
class Assembled:
    server: ContractServer
    index: VaultIndex  # for tests and benchmarks: e.g. `index.vectors.wait()`

    def start(self) -> None:
        """What a process about to serve does first: build the index in the background, so that
        calls answer while it builds (a server assembled in a test builds on its first call).
        The interpreter hands the GIL between threads every millisecond instead of five: a call
        answered while the build or the embedding runs waits less for it at each SQLite step
        (keyword search p95 at 10,000 notes while the vectors build: 101 → 49 ms, loaded machine)."""
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.index.start()

    def stop(self) -> None:
        """When serving ended: stop the background work (build, change feed, embedding) cleanly."""
        self.index.close()


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
    vault = Vault(config.vault, Exclusions(config.exclude))
    locks = TrackedLocks()  # every write tool shares it, so the index sees their writes at once
    location = index_location(config.index_dir or default_index_dir(), vault.root)
    index = VaultIndex(vault, location, changes=locks, rescan_seconds=config.rescan_seconds, embedder=embedder)
    pages = VaultPages(index)  # built on the first query, then kept fresh by sync
    server.tools_on_demand(functools.partial(register_tools, server, vault, index, pages, locks), TOOL_LISTING)
    resources.register(server, vault, index)  # notes as resources, path completion
    prompts.register(server, vault, index)
    return Assembled(server, index)


def register_tools(
    server: ContractServer, vault: Vault, index: VaultIndex, pages: VaultPages, locks: TrackedLocks
) -> None:
    """Every tool, registered when a call first needs one (`ContractServer.tools_on_demand`): the tool
    modules, and the parts of the domain only they use, are imported then, not at start-up."""
    from obsidian_mcp.tools import daily as daily_tools
    from obsidian_mcp.tools import links as link_tools
    from obsidian_mcp.tools import notes as note_tools
    from obsidian_mcp.tools import query as query_tools
    from obsidian_mcp.tools import search as search_tools
    from obsidian_mcp.tools import tags as tag_tools
    from obsidian_mcp.tools import tasks as task_tools

    note_tools.register(server, vault, locks)
    daily_tools.register(server, vault, locks)
    search_tools.register(server, index)
    link_tools.register(server, index, locks)
    tag_tools.register(server, index, locks)
    query_tools.register(server, pages)
    task_tools.register(server, vault, locks)
