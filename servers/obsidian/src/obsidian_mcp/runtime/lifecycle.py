"""Ending the process on SIGTERM without abandoning a write in progress."""

from __future__ import annotations

import logging
import os
import threading
import time


class InFlight:
    """Counts running tool calls so SIGTERM can let a write in progress finish before the process ends.

    The SDK's stdin reader thread blocks interpreter shutdown (a handler calling sys.exit() hangs),
    so the handler waits on a helper thread for the calls to finish (at most GRACE seconds), then
    ends the process with os._exit(0). Calls arriving meanwhile are refused as mcp_unavailable.
    Over HTTP uvicorn owns the signal; `http_server.py` sets `stopping` and waits with `wait_idle` instead.
    """

    GRACE = 10.0

    def __init__(self) -> None:
        self._count = 0
        self._idle = threading.Condition()
        self.stopping = False

    def enter(self) -> None:
        with self._idle:
            self._count += 1

    def leave(self) -> None:
        with self._idle:
            self._count -= 1
            self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Block until no call is running (True) or `timeout` seconds have passed (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._count == 0, timeout=timeout)

    def terminate(self, signum: int, frame: object) -> None:
        self.stopping = True
        threading.Thread(target=self._exit_when_idle, name="sigterm", daemon=True).start()

    def _exit_when_idle(self) -> None:
        finished = self.wait_idle(self.GRACE)
        logging.getLogger("mcp_contract.lifecycle").info("terminating on SIGTERM", extra={"calls_finished": finished})
        time.sleep(0.05)  # let the answers of the calls that just finished reach stdout
        os._exit(0)
