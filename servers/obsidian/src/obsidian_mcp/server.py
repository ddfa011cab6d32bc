"""Assembles the obsidian-mcp server: the contract middleware, the vault, its index, and the tool modules.

Read top-down: `models` (the contract's taxonomy) → `errors` (the one mapping of the domain's
exceptions to it) → the domain: `warnings`, `vault` (notes on disk), `index` (search, tags,
links, moves) → `tools` (thin MCP functions returning the domain's typed results) → this module
→ `cli`. Imports only go downward within the domain and tools (vault never imports index, index
never tools), and nothing below this module imports `errors`.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field
from pathlib import Path

from obsidian_mcp.errors import to_contract
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.store import default_index_dir, index_location
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.runtime.server import ContractServer
from obsidian_mcp.tools import daily as daily_tools
from obsidian_mcp.tools import links as link_tools
from obsidian_mcp.tools import notes as note_tools
from obsidian_mcp.tools import search as search_tools
from obsidian_mcp.vault.paths import Vault

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


def build_server(config: Config) -> ContractServer:
    server = ContractServer(
        name="obsidian-mcp",
        version=importlib.metadata.version("obsidian-mcp"),
        mapper=to_contract,
        instructions=INSTRUCTIONS,
        read_only=config.read_only,
        crash_tools=config.crash_tools,
    )
    vault = Vault(config.vault)
    locks = TrackedLocks()  # every write tool shares it, so the index sees their writes at once
    location = index_location(config.index_dir or default_index_dir(), vault.root)
    index = VaultIndex(vault, location, changes=locks, rescan_seconds=config.rescan_seconds)
    note_tools.register(server, vault, locks)
    daily_tools.register(server, vault, locks)
    search_tools.register(server, index)
    link_tools.register(server, index, locks)
    return server
