"""Which notes other programs changed since the last call: an inotify change feed (Linux only).

`ChangeFeed.start(root)` watches every folder that `Vault.iter_notes` would enter (no dot-folders,
no names that are not UTF-8, symlinked folders only when their target is a visible folder inside
the vault, symlink loops cut). `drain()` then reads, without blocking, every event queued since
the last drain and answers the vault-relative `.md` paths that were created, written, touched,
deleted or renamed — or `None` when it cannot tell precisely and the caller must list the whole
vault: the kernel queue overflowed, a folder was created, deleted, moved or had its attributes
changed, or an event came for an unknown watch. Before answering `None` the feed re-watches the
whole folder tree (`add_watch` on the same folder returns the same descriptor), so folders that
appeared are covered from then on; the caller's listing runs after that, so nothing is lost.

Not seen by the feed: a change made through another name of the same file — the target of a
symlinked note, or a hard link — reaches only the name that was used; the caller's periodic
safety listing catches the other name.

Draining at the start of every call, on the caller's thread, closes the race a background thread
would open: when another program's `write()` has returned, its event is already queued.

`start` answers False — and logs one warning — when inotify cannot be used: not Linux, the module
does not import, the vault is on a file system whose remote changes inotify never sees (NFS, SMB,
9p as in WSL's /mnt/c, FUSE mounts such as sshfs or rclone), or a watch cannot be added (the
`fs.inotify.max_user_watches` / `max_user_instances` limits: ENOSPC, EMFILE). If re-watching fails
later, the feed closes itself (`active` turns False) and the caller goes back to periodic listing.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import sys
from pathlib import Path
from typing import Protocol

from obsidian_mcp.vault.errors import VaultError
from obsidian_mcp.vault.exclusions import Exclusions
from obsidian_mcp.vault.paths import (  # iter_notes' own rules for names and symlink loops
    NOTE_SUFFIX,
    Ancestors,
    Vault,
    enter_folder,
    is_unlisted_name,
)

log = logging.getLogger("obsidian_mcp.index")

# inotify(7) bits, as in <sys/inotify.h> (inotify_simple.flags has the same values)
IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_UNMOUNT, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x2000, 0x4000, 0x8000
IN_ONLYDIR, IN_EXCL_UNLINK, IN_ISDIR = 0x01000000, 0x04000000, 0x40000000

WATCH_MASK = (
    IN_CREATE
    | IN_MODIFY
    | IN_CLOSE_WRITE
    | IN_ATTRIB
    | IN_DELETE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR  # a folder replaced by a file between listing and watching is not watched
    | IN_EXCL_UNLINK  # no events from files already unlinked but still open
)
_GONE = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED  # a watched folder itself went away

# File systems where changes made elsewhere (another machine, the Windows side of WSL, a remote
# behind FUSE) never reach inotify: periodic listing is the only way to see them.
REMOTE_FS = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "virtiofs", "ceph", "glusterfs", "afs", "lustre"})
_OCTAL = re.compile(r"\\([0-7]{3})")
FATAL_ERRNOS = frozenset({errno.ENOSPC, errno.EMFILE, errno.ENFILE, errno.ENOMEM})


class _INotify(Protocol):
    """The part of `inotify_simple.INotify` used here."""

    def add_watch(self, path: Path, mask: int) -> int: ...
    def rm_watch(self, wd: int) -> None: ...
    def read(self, timeout: int | None = None) -> list[tuple[int, int, int, str]]: ...
    def close(self) -> None: ...


class FeedUnavailable(Exception):
    """inotify cannot cover this vault; the reason is logged once."""


class ChangeFeed:
    """Folder watches over one vault, drained synchronously. Not thread-safe: callers hold a lock."""

    def __init__(self) -> None:
        self._inotify: _INotify | None = None
        self._vault: Vault | None = None
        self._folders: dict[int, list[str]] = {}  # watch descriptor -> vault-relative folders ("" = root)
        self._watched: set[str] = set()  # every folder in `_folders`
        self._removed: set[int] = set()  # descriptors we removed ourselves; their late events are stale

    @property
    def active(self) -> bool:
        return self._inotify is not None

    @property
    def folders(self) -> int:
        """How many vault folders are watched (a symlinked folder counts under each name)."""
        return len(self._watched)

    def start(self, root: Path, exclusions: Exclusions | None = None) -> bool:
        """Watch the vault at `root`, leaving out its `exclusions`; False (after one warning) when
        inotify cannot be used."""
        self.close()
        try:
            if not sys.platform.startswith("linux"):
                raise FeedUnavailable(f"inotify is Linux-only (this is {sys.platform})")
            fs_type = remote_fs_type(root)
            if fs_type is not None:
                raise FeedUnavailable(f"inotify does not see remote changes on a {fs_type} file system")
            try:
                import inotify_simple
            except ImportError as exc:
                raise FeedUnavailable(f"inotify_simple cannot be imported ({exc})") from None
            self._vault = Vault(root, exclusions)
            try:
                self._inotify = inotify_simple.INotify()
            except OSError as exc:
                raise FeedUnavailable(_describe(exc)) from None
            self._watch_tree()
        except FeedUnavailable as exc:
            self.close()
            log.warning("no change feed; edits by other programs are found by listing", extra={"reason": str(exc)})
            return False
        return True

    def drain(self) -> set[str] | None:
        """The vault-relative note paths changed since the last drain, or None: list everything."""
        if self._inotify is None:
            return None
        try:
            events = self._inotify.read(timeout=0)
        except OSError as exc:
            self._fail(FeedUnavailable(_describe(exc)))
            return None
        changed: set[str] = set()
        dead: set[int] = set()  # watches the kernel dropped (their folder went away)
        rewatch = False
        for wd, mask, _cookie, name in events:
            if wd in self._removed:
                if mask & IN_IGNORED:
                    self._removed.discard(wd)
                continue
            folders = self._folders.get(wd)
            if mask & IN_IGNORED:
                dead.add(wd)
            if mask & IN_Q_OVERFLOW or folders is None or mask & _GONE or not name:
                rewatch = True  # lost events, an unknown watch, a folder gone or its own attributes changed
            elif is_unlisted_name(name):
                continue  # dot-files (temp files among them) and dot-folders are never indexed
            elif mask & IN_ISDIR:
                rewatch = True
            else:
                rewatch |= self._file_event(mask, name, folders, changed)
        if rewatch:
            try:
                self._watch_tree(dead)
            except FeedUnavailable as exc:
                self._fail(exc)
            return None
        return changed

    def close(self) -> None:
        """Stop watching (idempotent); `drain` answers None from then on."""
        if self._inotify is not None:
            self._inotify.close()
        self._inotify = None
        self._folders.clear()
        self._watched.clear()
        self._removed.clear()

    # -- internals ----------------------------------------------------------------------------

    def _file_event(self, mask: int, name: str, folders: list[str], changed: set[str]) -> bool:
        """Record a non-folder entry's event into `changed`; True when it changes the folder tree."""
        assert self._vault is not None
        for folder in folders:
            rel = f"{folder}/{name}" if folder else name
            if mask & (IN_DELETE | IN_MOVED_FROM) and rel in self._watched:
                return True  # a symlink to a folder went away
            if mask & (IN_CREATE | IN_MOVED_TO) and os.path.isdir(self._vault.root / rel):
                return True  # a symlink to a folder appeared
            if name.endswith(NOTE_SUFFIX):
                changed.add(rel)
        return False

    def _watch_tree(self, dead: set[int] | None = None) -> None:
        """(Re)watch every folder `iter_notes` enters and drop the other watches (`dead` ones are
        gone already). Raises FeedUnavailable when a watch cannot be added."""
        assert self._inotify is not None and self._vault is not None
        folders: dict[int, list[str]] = {}
        self._watch_folder(self._vault.root, "", frozenset(), folders)
        for wd in self._folders.keys() - folders.keys() - (dead or set()):
            self._removed.add(wd)  # until its IN_IGNORED arrives, its events are stale
            with contextlib.suppress(OSError):  # gone meanwhile: IN_IGNORED is queued
                self._inotify.rm_watch(wd)
        self._folders = folders
        self._watched = {folder for names in folders.values() for folder in names}

    def _watch_folder(self, real_dir: Path, rel_dir: str, ancestors: Ancestors, out: dict[int, list[str]]) -> None:
        """Watch one folder, then its sub-folders, following the rules of `Vault._collect`.

        The watch is added before the folder is read, so an entry created meanwhile is either seen
        here or reported as an event.
        """
        assert self._inotify is not None and self._vault is not None
        top = not rel_dir
        try:
            inside = enter_folder(real_dir, ancestors)
            if inside is None:
                return
            ancestors = inside
            out.setdefault(self._inotify.add_watch(real_dir, WATCH_MASK), []).append(rel_dir)
            with os.scandir(real_dir) as it:
                entries = list(it)
        except OSError as exc:
            if top or exc.errno in FATAL_ERRNOS:
                raise FeedUnavailable(_describe(exc)) from None
            return  # gone or unreadable meanwhile: iter_notes skips it too
        for entry in entries:
            try:
                if not entry.is_dir():  # from the directory entry's type alone, unless a symlink
                    continue
            except OSError:
                continue
            name = entry.name
            if is_unlisted_name(name):
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            path = Path(entry.path)
            if entry.is_symlink():
                try:
                    path = self._vault.ensure_inside(path, rel)  # refuses targets outside or hidden
                except (OSError, VaultError):
                    continue
            if self._vault.hides_at(rel, path, folder=True):
                continue  # a private folder: never listed, so nothing to hear of
            self._watch_folder(path, rel, ancestors, out)

    def _fail(self, exc: FeedUnavailable) -> None:
        self.close()
        log.warning("change feed stopped; edits by other programs are found by listing", extra={"reason": str(exc)})


def _describe(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "the inotify watch limit is reached (raise fs.inotify.max_user_watches)"
    if exc.errno == errno.EMFILE:
        return "the inotify instance limit is reached (raise fs.inotify.max_user_instances)"
    return f"inotify failed: {os.strerror(exc.errno) if exc.errno else exc}"


def remote_fs_type(root: Path) -> str | None:
    """The file system type of the mount holding `root` when inotify misses remote changes there."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as mounts:
            fs_type = mount_type(os.path.realpath(root), mounts.read().splitlines())
    except OSError:
        return None
    remote = fs_type in REMOTE_FS or (fs_type.startswith("fuse") and fs_type != "fuseblk")
    return fs_type if remote else None


def mount_type(target: str, mountinfo: list[str]) -> str:
    """The type of the innermost mount holding the absolute path `target` ("" when none does)."""
    best, best_type = "", ""
    for line in mountinfo:
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) < 5 or not rest:
            continue
        point = _unescape(parts[4])
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):  # the last of stacked mounts is the visible one
            best, best_type = point, rest.split()[0]
    return best_type


def _unescape(field: str) -> str:
    r"""mountinfo writes space, tab, newline and backslash in mount points as \040, \011, \012, \134."""
    return _OCTAL.sub(lambda match: chr(int(match.group(1), 8)), field)
