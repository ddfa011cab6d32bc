"""The one mapping from domain failures to the ADR-0008 contract (interface.md §1)."""

from __future__ import annotations

from pathlib import PurePath

from gmail_mcp.api.access import Access
from gmail_mcp.api.errors import (
    ApiConflict,
    ApiForbidden,
    ApiNotFound,
    ApiRejected,
    ApiUnavailable,
    AuthRequired,
    RateLimited,
    ReadOnlyAccount,
    SendFailed,
    SystemLabel,
    UnknownAccount,
)
from gmail_mcp.documents.errors import EncryptedDocument, UnreadableDocument, UnsupportedDocument
from gmail_mcp.guard.errors import ConfirmationRequired, Declined, DraftChanged
from gmail_mcp.mail.errors import AttachmentNotFound, InvalidField, MessageMalformed, NotSendAs
from gmail_mcp.models import MCPError, contract_error

# Only auth_required depends on the access mode (its re-auth command), and a batch never reports an
# AuthRequired part on its own (it fails the whole call): per-item codes can use either mode.
_PER_ITEM = Access(read_only=False)


def to_contract(exc: BaseException, request_id: str, access: Access) -> MCPError | None:
    """The contract error for an anticipated failure, or None when the failure is unexpected."""
    match exc:
        case UnknownAccount():
            command = access.reauth_for(exc.account)
            known = ", ".join(exc.known) or "none yet"
            return contract_error(
                "auth_required",
                f"{exc} (accounts: {known}); authorise it with: {command}",
                request_id,
                reason=exc.reason,
                reauth_command=command,
                accounts=exc.known,
            )
        case AuthRequired():
            command = access.reauth_for(exc.account)
            return contract_error(
                "auth_required",
                f"{exc}; authorise with: {command}",
                request_id,
                reason=exc.reason,
                reauth_command=command,
            )
        case Declined():
            return contract_error("permission_denied", str(exc), request_id, reason="declined")
        case ConfirmationRequired():
            context: dict[str, object] = {"draft_id": exc.draft_id} if exc.draft_id is not None else {}
            if exc.new_recipients is not None:
                context["new_recipients"] = exc.new_recipients
            return contract_error("permission_denied", str(exc), request_id, reason="confirmation_required", **context)
        case DraftChanged():
            return contract_error(
                "permission_denied", str(exc), request_id, reason="changed", resource="draft", id=exc.draft_id
            )
        case ReadOnlyAccount():
            return contract_error("permission_denied", str(exc), request_id, reason="read_only", account=exc.account)
        case SystemLabel():
            return contract_error(
                "permission_denied", str(exc), request_id, reason="system_label", resource="label", id=exc.label_id
            )
        case ApiConflict():
            context = {"id": exc.id} if exc.id else {}
            return contract_error(
                "permission_denied", str(exc), request_id, reason="exists", resource=exc.resource, **context
            )
        case ApiNotFound():
            return contract_error("not_found", str(exc), request_id, resource=exc.resource, id=exc.id)
        case RateLimited():
            return contract_error(
                "rate_limited",
                str(exc),
                request_id,
                retryable=True,
                retry_after_seconds=exc.retry_after_seconds,
            )
        case ApiForbidden():
            return contract_error(
                "permission_denied", str(exc), request_id, reason="forbidden", gmail_reason=exc.reason
            )
        case ApiRejected():
            if exc.field is None:
                return contract_error("parse_error", str(exc), request_id, reason=exc.reason)
            return contract_error("parse_error", str(exc), request_id, reason=exc.reason, field=exc.field)
        case ApiUnavailable():
            return contract_error("mcp_unavailable", f"{exc}; try again later", request_id, service="gmail_api")
        case SendFailed():
            return contract_error(
                "send_failed",
                str(exc),
                request_id,
                delivery=exc.delivery,
                retryable=exc.delivery == "not_sent",
            )
        case InvalidField():
            return contract_error("parse_error", str(exc), request_id, field=exc.field, reason=exc.reason)
        case AttachmentNotFound():
            name = PurePath(exc.path).name or "(no name)"  # the caller's own path, but never echo it whole
            return contract_error(
                "not_found", f"attachment file not found: {name}", request_id, resource="attachment_file", path=name
            )
        case EncryptedDocument():
            return contract_error("permission_denied", str(exc), request_id, reason="encrypted", resource="attachment")
        case UnsupportedDocument():
            return contract_error(
                "parse_error", str(exc), request_id, reason=exc.reason, resource="attachment", mime_type=exc.mime_type
            )
        case UnreadableDocument():
            return contract_error("parse_error", str(exc), request_id, reason=exc.reason, resource="attachment")
        case MessageMalformed():
            return contract_error("parse_error", str(exc), request_id, reason="malformed_message")
        case NotSendAs():
            return contract_error(
                "permission_denied", str(exc), request_id, reason="not_send_as", field="from_address",
                send_as=exc.allowed,
            )  # fmt: skip
    return None


def code_for(failure: BaseException) -> str:
    """The contract code one failed item of a batch would have had on its own (for per-item warnings)."""
    mapped = to_contract(failure, "", _PER_ITEM)
    return mapped.error if mapped is not None else "internal_error"
