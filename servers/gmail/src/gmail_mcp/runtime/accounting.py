"""One request's bookkeeping, the same for tool calls (`server.py`) and the other requests
(`requests.py`): its own request id (in the context for log lines, and in `details.request_id`),
a place in the calls in flight that SIGTERM waits for, the refusal once the server is stopping,
and exactly one log line with its duration and error code."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..models import MCPError, contract_error
from .lifecycle import InFlight
from .logs import REQUEST_ID

log = logging.getLogger("mcp_contract.calls")


@dataclass
class Accounted:
    """The request being served: set `error` to the contract error it ends with, if any."""

    request_id: str
    calls: InFlight
    error: MCPError | None = None

    def refuse_if_stopping(self) -> bool:
        """Once SIGTERM arrived, end this request as `mcp_unavailable` (True); else False."""
        if self.calls.stopping:
            self.error = contract_error(
                "mcp_unavailable", "the server is shutting down; start it again", self.request_id, service="server"
            )
        return self.error is not None


@contextmanager
def accounted(calls: InFlight, what: str, fields: dict[str, Any]) -> Iterator[Accounted]:
    """Serve one request inside: a fresh request id (the JSON-RPC id is the client's, not unique),
    counted in flight, and logged once as `what` with `fields` when it ends, however it ends."""
    request = Accounted(uuid.uuid4().hex[:16], calls)
    token = REQUEST_ID.set(request.request_id)
    started = time.perf_counter()
    calls.enter()
    try:
        yield request
    finally:
        log.info(
            what,
            extra={
                **fields,
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                "error_code": request.error.error if request.error else None,
            },
        )
        REQUEST_ID.reset(token)
        calls.leave()
