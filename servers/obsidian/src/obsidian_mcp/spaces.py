"""The vaults one server serves, each in its own space: its folder (with its exclusions, templates
and periodic-note settings, read from its own `.obsidian/`), its write locks, its index (its own
database file and change feed) and its Dataview pages. Nothing is shared between spaces but the
model of search by meaning (`semantic.default_embedder`, one per process), so links, backlinks,
moves, tag renames and link checks never cross vaults, and a path always resolves inside the
vault a call named.

The default vault's space opens at assembly and starts building at start-up (on the process's
only thread, so its build may read notes in worker processes: `index.pool`). Every other space
opens on the first call that names its vault and starts building then, on a worker thread, so
without worker processes (forking a threaded process is unsafe). A vault nobody asks about costs
nothing; its first search answers completely all the same (`index.pending`). Opening a space
removes the temp files an interrupted write left in its vault.

Tools ask `Spaces.get(vault)` for the space of the vault a call names (None: the default vault);
an unknown name raises `UnknownVault` (the error mapping: `not_found`, `resource: vault`), and `*`
(every vault) is refused except by `search_notes`, which asks `Spaces.searched`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from obsidian_mcp import warnings
from obsidian_mcp.dataview.pages.vault_pages import VaultPages
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.store import index_location
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault.errors import InvalidArgument, UnknownVault, VaultUnavailable
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.setup import VaultSetup, VaultSpec
from obsidian_mcp.vault.storage import cleanup_stale_temp_files

if TYPE_CHECKING:
    from obsidian_mcp.semantic import Embedder

log = logging.getLogger("obsidian_mcp")

EVERY_VAULT = "*"


@dataclass(frozen=True, kw_only=True)
class Space:
    """One vault and what works on it."""

    name: str
    vault: Vault
    locks: TrackedLocks  # every write tool of this vault shares it, so its index sees their writes at once
    index: VaultIndex
    pages: VaultPages


@dataclass(frozen=True, kw_only=True)
class SpaceOptions:
    """What every space is opened with."""

    index_dir: Path
    rescan_seconds: float | None = None
    embedder: Embedder | None = None  # None: the default model, loaded once for every space


def open_space(spec: VaultSpec, options: SpaceOptions) -> Space:
    """The space of one vault: its stale temp files removed, its index ready to build."""
    removed = cleanup_stale_temp_files(spec.root)
    if removed:
        log.warning("removed stale temp files left by an interrupted write", extra={"count": removed})
    vault = Vault(spec.root, spec.exclusions)
    locks = TrackedLocks()
    index = VaultIndex(
        vault,
        index_location(options.index_dir, vault.root),
        changes=locks,
        rescan_seconds=options.rescan_seconds,
        embedder=options.embedder,
    )
    return Space(name=spec.name, vault=vault, locks=locks, index=index, pages=VaultPages(index))


class Spaces:
    """Every configured vault's space, opened when first needed."""

    def __init__(self, setup: VaultSetup, opener: Callable[[VaultSpec], Space]) -> None:
        self.setup = setup
        self._opener = opener
        self._open: dict[str, Space] = {}
        self._lock = threading.Lock()
        self._started = False
        self._closed = False  # serving ended: a space opened by a call still in flight does not start building
        self.default = self.get(None)

    @property
    def names(self) -> tuple[str, ...]:
        return self.setup.names

    def get(self, name: str | None) -> Space:
        """The space of the vault `name` (None: the default vault), opened and, once the server
        has started, building in the background. `*` is refused: only a search takes every vault."""
        if name == EVERY_VAULT:
            raise InvalidArgument(
                "vault",
                "every_vault",
                "vault '*' (every vault) is for search_notes only; name one vault (see list_vaults)",
            )
        wanted = self.setup.default if name is None else name
        with self._lock:
            space = self._open.get(wanted)
            if space is not None:
                return space
            try:
                spec = self.setup.spec(wanted)
            except KeyError:
                raise UnknownVault(wanted, self.names) from None
            space = self._opener(spec)
            self._open[wanted] = space
            if self._started and not self._closed:
                log.info("opening vault", extra={"vault": wanted})
                space.index.start()
            return space

    def searched(self, name: str | None) -> list[Space]:
        """The spaces a search names: every vault for `*`, else the one `get` gives."""
        return self.every() if name == EVERY_VAULT else [self.get(name)]

    def every(self) -> list[Space]:
        """Every vault's space, in the configured order (opening those not yet opened)."""
        return [self.get(name) for name in self.names]

    def opened(self, name: str) -> Space | None:
        """The space of `name` if it is open, without opening it."""
        with self._lock:
            return self._open.get(name)

    def start(self) -> None:
        """The server is about to serve: the default vault builds now, the others when first asked."""
        with self._lock:
            self._started = True
            opened = list(self._open.values())
        for space in opened:
            space.index.start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            opened = list(self._open.values())
        for space in opened:
            space.index.close()


# One vault as list_vaults shows it.
class VaultEntry(BaseModel):
    name: str = Field(description="what a tool's `vault` argument takes")
    default: bool = Field(description="the vault a call without `vault` works on")
    notes: int | None = Field(description="notes in the vault (excluded ones not counted); null if unavailable")
    indexed: bool = Field(
        description="its index is built in this server run (false until the vault's first call builds it)"
    )


# list_vaults: every vault the server serves, in the configured order.
class VaultsResult(BaseModel):
    vaults: list[VaultEntry]
    warnings: list[ToolWarning] = Field(default_factory=list)


def list_vaults(spaces: Spaces) -> VaultsResult:
    """Every vault with its note count (one listing of its folder; the index is not opened, so a
    vault nobody asked about stays unopened) and whether its index is built."""
    entries: list[VaultEntry] = []
    unavailable: list[str] = []
    for spec in spaces.setup.vaults:
        space = spaces.opened(spec.name)
        vault = space.vault if space is not None else Vault(spec.root, spec.exclusions)
        try:
            vault.check_available()
            notes: int | None = sum(1 for _ in vault.iter_notes())
        except VaultUnavailable:
            notes = None
            unavailable.append(spec.name)
        entries.append(
            VaultEntry(
                name=spec.name,
                default=spec.name == spaces.setup.default,
                notes=notes,
                indexed=space is not None and space.index.built,
            )
        )
    found = [warnings.vaults_unavailable(unavailable)] if unavailable else []
    return VaultsResult(vaults=entries, warnings=found)
