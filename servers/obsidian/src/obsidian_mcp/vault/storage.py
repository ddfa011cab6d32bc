"""The disk side: reading with etags, atomic writes, per-note locks, moves that never replace a
file, the vault's trash.

Writes never leave a half-written note: data goes to a dot-prefixed temp file in the note's own
folder (hidden from listings, ignored by Obsidian), is flushed and fsynced, takes the original
file's mode, and replaces the note with `os.replace`; the folder is fsynced afterwards. A crash
can leave a temp file behind, which `cleanup_stale_temp_files` removes at the next start.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from obsidian_mcp.vault.errors import DocumentParseError, NoteNotFound, PathRefused, VaultError, VaultUnavailable

TEMP_SUFFIX = ".obsidian-mcp.tmp"
TEMP_PATTERN = re.compile(r"^\..+\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + r"$", re.DOTALL)
TRASH_FOLDER = ".trash"
_TEMP_NAME_BYTES = 200
_NO_HARDLINKS = frozenset({errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP})


def etag_of(data: bytes) -> str:
    """An opaque version tag of a note's bytes."""
    return hashlib.sha256(data).hexdigest()[:32]


# -- errors -------------------------------------------------------------------------------------


def root_available(root: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(root).st_mode) and os.access(root, os.R_OK | os.X_OK)
    except OSError:
        return False


def map_os_error(exc: OSError, root: Path, rel: str) -> VaultError:
    """Translate a disk error into a vault error whose message names only `rel`."""
    if not root_available(root):
        return VaultUnavailable()
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return NoteNotFound(rel)
    if exc.errno == errno.ELOOP:
        return PathRefused(rel, "symlink", "the path runs into a loop of symbolic links")
    reason = os.strerror(exc.errno) if exc.errno else type(exc).__name__
    return VaultUnavailable(f"cannot access {rel}: {reason}")


# -- reading ------------------------------------------------------------------------------------


def read_bytes(abs: Path) -> bytes:
    """The bytes of a regular file. Opened non-blocking so a FIFO swapped in cannot hang us."""
    fd = os.open(abs, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise IsADirectoryError(errno.EISDIR, "not a regular file")
        return handle.read()


def decode_note(data: bytes, rel: str) -> str:
    """UTF-8 text of a note; a BOM stays as U+FEFF so writing the text back restores it."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DocumentParseError(
            rel, line, f"the note is not valid UTF-8 text (invalid byte at offset {exc.start})"
        ) from None


def read_text(abs: Path, *, rel: str | None = None) -> tuple[str, str]:
    """(text, etag) of a note. `rel` names the note in errors (defaults to the file name)."""
    data = read_bytes(abs)
    return decode_note(data, rel if rel is not None else abs.name), etag_of(data)


# -- writing ------------------------------------------------------------------------------------


def _temp_name(name: str) -> str:
    short = name.encode("utf-8")[:_TEMP_NAME_BYTES].decode("utf-8", errors="ignore")
    return f".{short}.{secrets.token_hex(4)}{TEMP_SUFFIX}"


def _open_temp(directory: Path, name: str, mode: int) -> tuple[Path, int]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(16):
        path = directory / _temp_name(name)
        try:
            return path, os.open(path, flags, mode)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "could not create a unique temporary file")


def _fsync_dir(directory: Path) -> None:
    with suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(abs: Path, data: bytes) -> None:
    """Replace (or create) `abs` with `data` atomically, keeping an existing file's mode and owner.

    New files get 0o644 minus the umask (the kernel applies it). On any failure the temp file is
    removed and the original is untouched.
    """
    try:
        original: os.stat_result | None = os.stat(abs)
    except FileNotFoundError:
        original = None
    temp, fd = _open_temp(abs.parent, abs.name, 0o600 if original else 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            if original is not None:
                os.fchmod(handle.fileno(), stat.S_IMODE(original.st_mode))
                if hasattr(os, "fchown") and original.st_uid != os.geteuid():
                    with suppress(OSError):
                        os.fchown(handle.fileno(), original.st_uid, original.st_gid)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, abs)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_dir(abs.parent)


def cleanup_stale_temp_files(root: Path, older_than: float = 0.0) -> int:
    """Remove temp files left by interrupted writes anywhere in the vault; returns how many.

    Dot-folders (.git, .obsidian, .trash, ...) are not entered and symlinks are not followed.
    `older_than` (seconds) spares temp files another running process may still be writing.
    """
    removed = 0
    now = time.time()
    for directory, folders, files in os.walk(root):
        folders[:] = [f for f in folders if not f.startswith(".")]
        for name in files:
            if not TEMP_PATTERN.match(name):
                continue
            path = Path(directory) / name
            with suppress(OSError):
                info = os.lstat(path)
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime >= older_than:
                    os.unlink(path)
                    removed += 1
    return removed


# -- locks --------------------------------------------------------------------------------------


class PathLocks:
    """One lock per absolute path, so concurrent tool calls on a note run one after another."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, abs_path: Path) -> Iterator[None]:
        key = os.path.normcase(os.fspath(abs_path))
        with self._guard:
            lock, users = self._locks.get(key, (threading.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users <= 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)


# -- moving -------------------------------------------------------------------------------------


def move_without_replacing(source: Path, target: Path) -> bool:
    """Move the file `source` to `target` unless something is there already; False then.

    Never overwrites, even when another process races for the name: a hard link claims `target`
    atomically, then `source` is unlinked. On filesystems without hard links a rename after an
    existence check is used (the only non-atomic path). Both folders are fsynced after a move.
    """
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_HARDLINKS:
            raise
        if os.path.lexists(target):
            return False
        os.rename(source, target)
    else:
        os.unlink(source)
    _fsync_dir(target.parent)
    _fsync_dir(source.parent)
    return True


# -- trash --------------------------------------------------------------------------------------


def _trash_name(stem: str, number: int) -> str:
    suffix = f" {number}.md" if number else ".md"
    limit = 255 - len(suffix.encode("utf-8"))
    return stem.encode("utf-8")[:limit].decode("utf-8", errors="ignore") + suffix


def move_to_trash(vault_root: Path, abs: Path) -> str:
    """Move a note into `<vault>/.trash/` (flat, like Obsidian), adding ` 1`, ` 2`... on a name clash.

    Returns the vault-relative trash path. The move never overwrites (`move_without_replacing`).
    """
    trash = Path(os.path.realpath(vault_root)) / TRASH_FOLDER
    refused = PathRefused(TRASH_FOLDER, "symlink", "the vault's .trash is not a plain folder inside the vault")
    if os.path.islink(trash):
        raise refused
    trash.mkdir(exist_ok=True)
    real_trash = Path(os.path.realpath(trash))
    if real_trash != trash or not real_trash.is_dir():
        raise refused
    stem = abs.name.removesuffix(".md")
    for number in itertools.count():
        name = _trash_name(stem, number)
        if move_without_replacing(abs, real_trash / name):
            return f"{TRASH_FOLDER}/{name}"
    raise AssertionError("unreachable")
