"""Domain failures of the vault. They know nothing of MCP; `obsidian_mcp.errors` maps them to the contract."""

from __future__ import annotations


class VaultError(Exception):
    """Base class of every anticipated vault failure."""


class PathRefused(VaultError):
    """The path may not be touched. `reason`: outside_vault, hidden_path, symlink, invalid_path, excluded."""

    def __init__(self, path: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


class NoteNotFound(VaultError):
    def __init__(self, path: str, resource: str = "note") -> None:
        super().__init__(f"{resource} not found: {path}")
        self.path = path
        self.resource = resource


class HeadingNotFound(VaultError):
    def __init__(self, path: str, heading: str) -> None:
        super().__init__(f"heading not found in {path}: {heading}")
        self.path = path
        self.heading = heading


class NoteExists(VaultError):
    def __init__(self, path: str) -> None:
        super().__init__(f"a note already exists at {path}")
        self.path = path


class EtagMismatch(VaultError):
    def __init__(self, path: str, current_etag: str) -> None:
        super().__init__(f"{path} changed since it was read; read it again and retry")
        self.path = path
        self.current_etag = current_etag


class DocumentParseError(VaultError):
    """A note's content cannot be parsed (invalid YAML frontmatter). `line` is 1-based within the note."""

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        super().__init__(f"cannot parse {path}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


class InvalidArgument(VaultError):
    """An argument is well-typed but unusable (bad offset, empty heading, ...)."""

    def __init__(self, field: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.reason = reason


class UnknownVault(VaultError):
    """A call named a vault the server does not serve; `known` are the names it does."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"no vault is named {name[:100]!r}; the vaults are: {', '.join(known)}")
        self.name = name
        self.known = known


class TaskLineChanged(VaultError):
    """The line of a task is no longer the text the caller expected (the note changed, or lines moved)."""

    def __init__(self, path: str, line: int, current_text: str) -> None:
        super().__init__(f"line {line} of {path} is no longer the expected text; query the task again")
        self.path = path
        self.line = line
        self.current_text = current_text


class VaultUnavailable(VaultError):
    """The vault folder is gone or unreadable (unmounted, permissions)."""

    def __init__(self, message: str = "the vault is not available") -> None:
        super().__init__(message)
