"""Running blocking index work on a worker thread while telling the client how far it got.

The work gets a `report(done, total)` callback; each call crosses back to the event loop and
sends `notifications/progress` for the current request. The SDK makes that a no-op when the
client sent no `progressToken`, so callers need not check.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context

from obsidian_mcp.index.progress import ProgressFn

log = logging.getLogger("obsidian_mcp.tools")

T = TypeVar("T")


async def in_worker(ctx: Context[Any, Any], work: Callable[[ProgressFn], T]) -> T:
    """`work(report)` on a worker thread; its result or exception comes back unchanged."""

    def report(done: int, total: int) -> None:
        try:
            anyio.from_thread.run(ctx.report_progress, done, total)
        except Exception:  # a lost progress notification must not fail the work itself
            log.debug("could not send a progress notification", exc_info=True)

    return await anyio.to_thread.run_sync(work, report)
