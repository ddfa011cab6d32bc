"""Fault injection: what to break, on which route, how many times."""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any

from .errors import ApiError
from .http_types import JSON_CONTENT_TYPE, ApiResponse

ANY_ROUTE = "*"

# A body that is cut off mid-object: not valid JSON, but looks like the start of a real answer.
MALFORMED_BODY = b'{\n  "id": "18c0ffee00000000",\n  "threadId": "18c0ff'


@dataclass
class Fault:
    """One injected failure.

    ``route`` is a route name (``messages.send``, ``batch``, ``token`` ...) or ``"*"``.
    ``times`` failures happen before the fault is exhausted (``None``: forever).

    Status: when ``status`` is None the fault answers 500, unless it is "delay only"
    (``delay`` > 0 with no status, ``retry_after``, malformed body or dropped connection),
    in which case the request is served normally after the delay. ``malformed_body`` answers
    ``status or 200`` with a non-JSON body. ``drop_connection`` resets the TCP connection
    without answering. With ``after_commit`` the request is executed first (so a send is
    really stored) and only then is the error / malformed body / drop produced.
    """

    route: str
    status: int | None = None
    reason: str | None = None
    times: int | None = 1
    retry_after: float | None = None
    delay: float = 0.0
    malformed_body: bool = False
    drop_connection: bool = False
    after_commit: bool = False
    message: str | None = None

    def effective_status(self) -> int | None:
        """The error status to answer, or None when the request should be served normally."""
        if self.status is not None:
            return self.status
        if self.malformed_body or self.drop_connection:
            return None
        if self.retry_after is not None:
            return 429
        if self.delay > 0:
            return None
        return 500

    def error_response(self, route: str) -> ApiResponse | None:
        """The response this fault answers with (None: serve normally / drop)."""
        headers: dict[str, str] = {}
        if self.retry_after is not None:
            ra = self.retry_after
            headers["Retry-After"] = str(int(ra)) if float(ra).is_integer() else str(ra)
        if self.malformed_body:
            headers["Content-Type"] = JSON_CONTENT_TYPE
            return ApiResponse(self.status or 200, MALFORMED_BODY, headers)
        status = self.effective_status()
        if status is None:
            return None
        if route in ("token", "authorize"):
            body = {"error": self.reason or "internal_failure", "error_description": self.message or ""}
            return ApiResponse.json(body, status, headers)
        return ApiResponse.from_error(ApiError(status, self.reason, self.message, headers=headers))

    def describe(self) -> str:
        parts = [self.route]
        if self.drop_connection:
            parts.append("drop")
        if self.malformed_body:
            parts.append("malformed")
        status = self.effective_status()
        if status is not None:
            parts.append(str(status))
        if self.delay:
            parts.append(f"delay={self.delay}")
        if self.after_commit:
            parts.append("after_commit")
        return " ".join(parts)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fault:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown Fault fields: {sorted(unknown)}")
        if "route" not in data:
            raise ValueError("Fault needs a 'route'")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class FaultSet:
    """Thread-safe ordered set of active faults; the first matching one fires."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: list[list[Any]] = []  # [Fault, remaining (int | None)]

    def add(self, fault: Fault) -> None:
        if fault.times is not None and fault.times <= 0:
            return
        with self._lock:
            self._faults.append([fault, fault.times])

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def active(self) -> list[Fault]:
        with self._lock:
            return [entry[0] for entry in self._faults]

    def take(self, route: str) -> Fault | None:
        """Consume one use of the first fault matching ``route``."""
        with self._lock:
            for i, entry in enumerate(self._faults):
                fault: Fault = entry[0]
                if fault.route not in (route, ANY_ROUTE):
                    continue
                remaining: int | None = entry[1]
                if remaining is not None:
                    remaining -= 1
                    if remaining <= 0:
                        del self._faults[i]
                    else:
                        entry[1] = remaining
                return fault
        return None
