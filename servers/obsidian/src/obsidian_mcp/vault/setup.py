"""Which vaults one server serves: `--vault NAME=PATH` (repeatable), `OBSIDIAN_MCP_VAULTS`,
`--default-vault NAME` and the per-vault `--exclude NAME:PATTERN`, checked once at start-up.

A bare path (`--vault ~/Notes`, or the single-vault `OBSIDIAN_VAULT_PATH`) is one vault named
after its folder; a folder name that could not name a vault (`Note`, `a:b`) is made into one
(`Note-vault`, `a-b`), so that every single-vault set-up of version 2 still starts.

Names are what an agent types in a tool's `vault` argument and what a resource URI carries
(`obsidian://{vault}/note/{path}`), so they are checked here: not empty, unique (case-insensitively,
as a file system may be), no `/` or `:` (they would make a URI ambiguous), not `note` (the
single-vault URI's own segment) and not `*` (every vault, for `search_notes`).

Nothing here touches the index or MCP: `cli` turns a `VaultSetupError` into exit code 2 with its
message, and the server assembles one space per `VaultSpec`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from obsidian_mcp.vault.exclusions import Exclusions, InvalidExclusion

RESERVED_NAMES = frozenset({"note", "*"})
FORBIDDEN_CHARACTERS = "/:\\"
MAX_NAME_LENGTH = 64


class VaultSetupError(ValueError):
    """A configuration no server can start with; the message says what to change."""


@dataclass(frozen=True, kw_only=True)
class VaultSpec:
    """One vault as configured: its name, its resolved folder and the patterns it excludes."""

    name: str
    root: Path
    exclusions: Exclusions


@dataclass(frozen=True, kw_only=True)
class VaultSetup:
    """Every vault the server serves, in the order given; `default` names the one a call without
    `vault` works on."""

    vaults: tuple[VaultSpec, ...]
    default: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.vaults)

    def spec(self, name: str) -> VaultSpec:
        for spec in self.vaults:
            if spec.name == name:
                return spec
        raise KeyError(name)


def check_name(name: str) -> str:
    """`name` when it can name a vault, else a `VaultSetupError` saying why."""
    if not name or name != name.strip():
        raise VaultSetupError(f"vault name {name!r} is empty or starts or ends with a space")
    if name.casefold() in RESERVED_NAMES:
        raise VaultSetupError(f"vault name {name!r} is reserved ('note' and '*' mean something else)")
    bad = [c for c in FORBIDDEN_CHARACTERS if c in name]
    if bad or any(ord(c) < 32 for c in name):
        raise VaultSetupError(
            f"vault name {name!r} may not contain '/', ':', '\\' or control characters (name it with --vault NAME=PATH)"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise VaultSetupError(f"vault name {name!r} is longer than {MAX_NAME_LENGTH} characters")
    return name


def derived_name(root: Path) -> str:
    """The name of a vault given as a bare path: its folder's name, made usable when it is not."""
    name = "".join("-" if c in FORBIDDEN_CHARACTERS or ord(c) < 32 else c for c in root.name).strip()
    name = name[:MAX_NAME_LENGTH].strip() or "vault"
    return f"{name}-vault" if name.casefold() in RESERVED_NAMES else name


def _named(entry: str) -> VaultSpec | None:
    """`NAME=PATH` read as a (name, folder) pair, or None for a bare path. A `=` counts only when
    what stands before it could be a name (no path separator), so a folder `a=b` still works bare."""
    name, sep, path = entry.partition("=")
    if sep and name.strip() and not any(c in name for c in "/\\") and path.strip():
        return VaultSpec(name=name.strip(), root=Path(path.strip()), exclusions=Exclusions())
    return None


def split_env(value: str | None) -> tuple[str, ...]:
    """`OBSIDIAN_MCP_VAULTS`: entries separated by `os.pathsep` (`:` here, `;` on Windows)."""
    if not value:
        return ()
    return tuple(part for part in value.split(os.pathsep) if part.strip())


def parse_setup(entries: Sequence[str], *, default: str | None = None, exclude: Sequence[str] = ()) -> VaultSetup:
    """The checked setup from the `--vault` entries (or the environment's), `--default-vault` and
    every `--exclude` pattern. `exclude` entries `NAME:PATTERN` apply to the vault NAME when NAME is
    one of the configured names; any other pattern applies to every vault."""
    if not entries:
        raise VaultSetupError("no vault given (use --vault PATH or --vault NAME=PATH, or OBSIDIAN_VAULT_PATH)")
    named: list[tuple[str, Path]] = []
    for entry in entries:
        given = _named(entry)
        path = (given.root if given is not None else Path(entry.strip())).expanduser()
        if not entry.strip() or not path.is_dir():
            raise VaultSetupError(f"vault folder does not exist: {path}")
        root = path.resolve()
        named.append((check_name(given.name) if given is not None else derived_name(root), root))
    seen: dict[str, str] = {}
    for name, _ in named:
        key = name.casefold()
        if key in seen:
            raise VaultSetupError(f"two vaults are named {name!r}; give each its own name with --vault NAME=PATH")
        seen[key] = name
    roots: dict[Path, str] = {}
    for name, root in named:
        for other_root, other in roots.items():
            if root == other_root or root.is_relative_to(other_root) or other_root.is_relative_to(root):
                raise VaultSetupError(f"vaults {other!r} and {name!r} overlap ({other_root} and {root})")
        roots[root] = name
    names = [name for name, _ in named]
    chosen = default if default is not None else names[0]
    if chosen not in names:
        raise VaultSetupError(f"--default-vault {chosen!r} is not one of the vaults: {', '.join(names)}")
    patterns: dict[str, list[str]] = {name: [] for name in names}
    for pattern in exclude:
        target, sep, rest = pattern.partition(":")
        if sep and target in patterns:
            patterns[target].append(rest)
        else:
            for found in patterns.values():
                found.append(pattern)
    specs = []
    for name, root in named:
        try:
            exclusions = Exclusions(patterns[name])
        except InvalidExclusion as exc:
            raise VaultSetupError(f"vault {name!r}: {exc} (--exclude / OBSIDIAN_MCP_EXCLUDE)") from None
        specs.append(VaultSpec(name=name, root=root, exclusions=exclusions))
    return VaultSetup(vaults=tuple(specs), default=chosen)
