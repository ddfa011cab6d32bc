"""The one mapping from domain failures to the ADR-0008 contract (interface.md §1)."""

from __future__ import annotations

from obsidian_mcp.dataview.errors import QueryError
from obsidian_mcp.models import MCPError, contract_error
from obsidian_mcp.vault.errors import (
    DocumentParseError,
    EtagMismatch,
    HeadingNotFound,
    InvalidArgument,
    NoteExists,
    NoteNotFound,
    PathRefused,
    TaskLineChanged,
    UnknownVault,
    VaultUnavailable,
)

_REFUSAL_MESSAGES = {
    "outside_vault": "the path leads outside the vault; use a vault-relative path like 'Folder/Note.md'",
    "hidden_path": "hidden files and folders (.obsidian, .git, .trash, any dot-folder) are not accessible",
    "symlink": "the path goes through a symlink that leads outside the vault",
    "invalid_path": "the path is not a valid vault-relative note path (no NUL or control characters, "
    "no drive letters, notes only)",
    "excluded": "the path is in a private part of the vault (the server's --exclude patterns); "
    "choose a path outside it",
}


def to_contract(exc: BaseException, request_id: str) -> MCPError | None:
    """The contract error for an anticipated failure, or None when the failure is unexpected."""
    match exc:
        case PathRefused():
            # The refused path is not echoed: it may be an absolute path outside the vault.
            message = _REFUSAL_MESSAGES.get(exc.reason, "this path cannot be used")
            return contract_error("permission_denied", message, request_id, reason=exc.reason)
        case NoteNotFound():
            return contract_error("not_found", str(exc), request_id, resource=exc.resource, path=exc.path)
        case UnknownVault():
            return contract_error(
                "not_found",
                f"{exc} (list_vaults lists them)",
                request_id,
                resource="vault",
                id=exc.name[:100],
                vaults=list(exc.known),
            )
        case HeadingNotFound():
            return contract_error(
                "not_found", str(exc), request_id, resource="heading", path=exc.path, heading=exc.heading
            )
        case NoteExists():
            return contract_error(
                "permission_denied",
                f"{exc} (use mode='overwrite' to replace it)",
                request_id,
                reason="exists",
                path=exc.path,
            )
        case EtagMismatch():
            return contract_error(
                "permission_denied",
                str(exc),
                request_id,
                reason="etag_mismatch",
                path=exc.path,
                current_etag=exc.current_etag,
            )
        case DocumentParseError():
            return contract_error(
                "parse_error", str(exc), request_id, path=exc.path, line=exc.line, reason="invalid_document"
            )
        case InvalidArgument():
            return contract_error("parse_error", str(exc), request_id, field=exc.field, reason=exc.reason)
        case QueryError():
            return contract_error(
                "parse_error",
                f"the query cannot run: {exc}",
                request_id,
                field="query",
                reason="invalid_query",
                position=exc.position,
            )
        case TaskLineChanged():
            return contract_error(
                "permission_denied",
                str(exc),
                request_id,
                reason="changed",
                path=exc.path,
                line=exc.line,
                current_text=exc.current_text,
            )
        case VaultUnavailable():
            return contract_error(
                "mcp_unavailable",
                f"{exc}; check that it is mounted and readable",
                request_id,
                service="vault",
                retryable=True,
            )
    return None
