"""Google-style API errors (the JSON error envelope Google APIs answer with)."""

from __future__ import annotations

import json
from typing import Any

# HTTP status -> google.rpc canonical status name, as Google's JSON errors carry it.
STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ALREADY_EXISTS",
    412: "FAILED_PRECONDITION",
    413: "OUT_OF_RANGE",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNKNOWN",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

# Default reason per status when a fault does not name one.
DEFAULT_REASONS: dict[int, str] = {
    400: "invalidArgument",
    401: "authError",
    403: "forbidden",
    404: "notFound",
    405: "methodNotAllowed",
    409: "duplicate",
    412: "failedPrecondition",
    429: "rateLimitExceeded",
    500: "backendError",
    502: "backendError",
    503: "backendError",
    504: "backendError",
}

# Default human message per reason (what Google says for these).
DEFAULT_MESSAGES: dict[str, str] = {
    "authError": "Invalid Credentials",
    "insufficientPermissions": "Insufficient Permission",
    "notFound": "Requested entity was not found.",
    "invalidArgument": "Invalid argument",
    "badRequest": "Bad Request",
    "failedPrecondition": "Precondition check failed.",
    "rateLimitExceeded": "Rate Limit Exceeded",
    "userRateLimitExceeded": "User-rate limit exceeded.",
    "dailyLimitExceeded": "Daily Limit Exceeded",
    "quotaExceeded": "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user'.",
    "concurrentLimitExceeded": "Too many concurrent requests for user.",
    "backendError": "Backend Error",
    "internalError": "Internal error encountered.",
    "forbidden": "Forbidden",
    "duplicate": "Label name exists or conflicts",
    "methodNotAllowed": "Method not allowed",
}

# Reasons Google reports in the "usageLimits" domain rather than "global".
USAGE_LIMIT_REASONS = frozenset(
    {
        "rateLimitExceeded",
        "userRateLimitExceeded",
        "dailyLimitExceeded",
        "quotaExceeded",
        "concurrentLimitExceeded",
    }
)


def error_body(
    status: int,
    reason: str | None = None,
    message: str | None = None,
    *,
    extra: dict[str, Any] | None = None,
    details: list[dict[str, Any]] | None = None,
    status_name: str | None = None,
) -> dict[str, Any]:
    """Build ``{"error": {"code", "message", "errors": [...], "status"}}`` like Google does.

    ``status_name`` overrides the canonical status derived from the HTTP code (Google answers
    some 400s with ``FAILED_PRECONDITION``, e.g. "Filter already exists")."""
    reason = reason or DEFAULT_REASONS.get(status, "backendError")
    text = message or DEFAULT_MESSAGES.get(reason) or "Error"
    item: dict[str, Any] = {
        "message": text,
        "domain": "usageLimits" if reason in USAGE_LIMIT_REASONS else "global",
        "reason": reason,
    }
    if extra:
        item.update(extra)
    err: dict[str, Any] = {
        "code": status,
        "message": text,
        "errors": [item],
        "status": status_name or STATUS_NAMES.get(status, "UNKNOWN"),
    }
    if details:
        err["details"] = details
    return {"error": err}


class ApiError(Exception):
    """Raised by handlers; turned into a Google-style JSON error response."""

    def __init__(
        self,
        status: int,
        reason: str | None = None,
        message: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
        details: list[dict[str, Any]] | None = None,
        status_name: str | None = None,
    ) -> None:
        self.status = status
        self.status_name = status_name
        self.reason = reason or DEFAULT_REASONS.get(status, "backendError")
        self.message = message or DEFAULT_MESSAGES.get(self.reason) or "Error"
        self.headers = dict(headers or {})
        self.extra = extra
        self.details = details
        super().__init__(f"{status} {self.reason}: {self.message}")

    def body(self) -> dict[str, Any]:
        return error_body(
            self.status, self.reason, self.message, extra=self.extra, details=self.details, status_name=self.status_name
        )

    def body_bytes(self) -> bytes:
        return json.dumps(self.body(), indent=2, ensure_ascii=False).encode("utf-8")


def not_found(message: str = "Requested entity was not found.") -> ApiError:
    return ApiError(404, "notFound", message)


def invalid(message: str, *, location: str | None = None) -> ApiError:
    extra = {"location": location, "locationType": "parameter"} if location else None
    return ApiError(400, "invalidArgument", message, extra=extra)


def failed_precondition(message: str) -> ApiError:
    """400 ``failedPrecondition`` / ``FAILED_PRECONDITION`` (Google maps FAILED_PRECONDITION to HTTP 400)."""
    return ApiError(400, "failedPrecondition", message, status_name="FAILED_PRECONDITION")
