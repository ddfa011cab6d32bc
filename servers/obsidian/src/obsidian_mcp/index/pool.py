"""Worker processes that read and parse notes for a build, while the build writes the index.

Parsing a note (`extract`: frontmatter YAML, Markdown structure) is most of what a first build
costs, and it is pure Python: threads would share one core. `ReadPool` runs `sync.read_notes` in
worker processes instead, one batch of notes per task, so on two cores the parsing of the next
batches overlaps the SQLite writing (FTS5 tokenising) of the current one.

The workers are forked, which costs a few milliseconds and no imports, but forking a process
that runs other threads can leave a lock held forever in the child. So a pool is only opened on a
process's only thread (`cli` starts the server's build before it serves, `VaultIndex.refresh` in a
benchmark), on Linux, with at least two cores; otherwise `open_pool` answers None and the build
reads on its own thread. It is opened before the build opens its database connection, so no
SQLite handle is ever used across a fork.

The workers run at a lower CPU priority (`NICENESS`): when cores are short, the server's own
process comes first, so calls answer promptly and the writer, whose SQLite work is the part that
cannot be shared out, keeps going; the workers use what is left.

A worker must never outlive the server or keep the client waiting: it points its stdin and stdout
at /dev/null (an MCP client over stdio waits for the server's stdout to close), ignores Ctrl-C
(the server's to handle), and exits as soon as its parent is gone, even when the parent was killed
before it could shut the pool down.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.connection import wait

from obsidian_mcp.index.sync import NoteRead, read_notes
from obsidian_mcp.vault.paths import NoteInfo, Vault

log = logging.getLogger("obsidian_mcp.index")

MAX_WORKERS = 4  # beyond this the single SQLite writer is the bottleneck
NICENESS = 5  # the workers yield the CPU to the server's own process (its calls, the index writer)
_vault: Vault | None = None  # the vault a worker process reads


def default_workers() -> int:
    """Worker processes worth starting here: none on one core; else the cores but one (the build's
    writer needs one), at least two, at most `MAX_WORKERS`."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return 0 if cores < 2 else min(MAX_WORKERS, max(2, cores - 1))


class ReadPool:
    """A pool of forked worker processes reading batches of notes of one vault (see the module)."""

    def __init__(self, executor: ProcessPoolExecutor, workers: int) -> None:
        self._executor = executor
        self.workers = workers

    def read(self, batch: list[tuple[NoteInfo, str | None]]) -> Future[list[NoteRead]]:
        """`sync.read_notes` of the batch, in a worker process."""
        return self._executor.submit(_read, batch)

    def close(self) -> None:
        """Drop the batches not started, wait for the ones running (one per worker), end the workers."""
        self._executor.shutdown(wait=True, cancel_futures=True)


def open_pool(vault: Vault, workers: int) -> ReadPool | None:
    """A pool of `workers` processes when forking is safe here (see the module), else None."""
    if workers < 1 or not sys.platform.startswith("linux"):
        return None
    if threading.current_thread() is not threading.main_thread() or threading.active_count() > 1:
        return None
    try:
        executor = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker, initargs=(vault,)
        )
        executor.submit(int)  # forks every worker now, while this is still the only thread
    except (OSError, RuntimeError) as exc:  # no more processes allowed, or too little memory to fork
        log.warning("reading notes on one thread: no worker processes", extra={"reason": str(exc)[:200]})
        return None
    return ReadPool(executor, workers)


def _start_worker(vault: Vault) -> None:
    global _vault
    _vault = vault
    os.nice(NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), name="parent-watch", daemon=True).start()


def _exit_with(sentinel: int) -> None:
    wait([sentinel])
    os._exit(0)


def _read(batch: list[tuple[NoteInfo, str | None]]) -> list[NoteRead]:
    assert _vault is not None
    return read_notes(_vault, batch)
