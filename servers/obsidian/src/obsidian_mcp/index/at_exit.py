"""Background workers stopped cleanly at interpreter exit.

The index's build and the embedding of the vectors each run on a thread of their own and write
the index database in transactions. When the interpreter exits while one runs (the client closed
stdin, a test ended), each is asked to `stop`: it finishes its current batch rather than dying
inside a transaction. Workers are held weakly, so registering one keeps nothing alive.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from typing import Protocol


class Stoppable(Protocol):
    def stop(self) -> object: ...


_live: weakref.WeakSet[Stoppable] = weakref.WeakSet()
_lock = threading.Lock()
_registered = False


def stop_at_exit(worker: Stoppable) -> None:
    """Call `worker.stop()` at interpreter exit if it is still alive then."""
    global _registered
    with _lock:
        _live.add(worker)
        if not _registered:
            atexit.register(_stop_all)
            _registered = True


def _stop_all() -> None:
    for worker in list(_live):
        worker.stop()
