"""Turning user-supplied note paths into safe locations inside the vault.

Every path a caller gives is hostile until proven otherwise. `Vault.resolve` first validates the
*text* of the path without touching the filesystem (absolute, drive, UNC, `..`, control characters,
over-long names, hidden components, non-note extensions), then walks the vault one directory entry
at a time, never listing or opening anything before checking that the realpath reached so far is
still inside the vault. Only then does it answer with a `NotePath`.

Decisions:
* A backslash is a path separator (Obsidian forbids it in file names), so `a\\b` means `a/b`,
  `\\x` is absolute and `..\\x` climbs out; all are judged after that normalisation.
* `.` components and repeated slashes collapse; a component starting with a dot is hidden (this
  catches `...`, `..%2f`, `.obsidian`); `%2e%2e` is a literal (odd) name: nothing is URL-decoded.
* A note name must end in `.md` or have no known non-note extension; `.md` is appended when absent.
  `Meeting 2024.01.05` becomes `Meeting 2024.01.05.md`, while `photo.png` or `Note.MD` are refused.
* Names are looked up by their NFC form, case-sensitively; the spelling found on disk wins.
  New path components are created in NFC.
* `NotePath.abs` is the realpath of the file (symlinks resolved), so writes go to the real file
  and locks are shared between aliases; `NotePath.rel` is the path as the user walked it.
* Private folders (`exclusions.Exclusions`) are judged on that on-disk spelling, by the path alone,
  never by whether anything exists there: reading an excluded path answers `NoteNotFound` exactly
  as for a missing note, writing into one is refused (`excluded`), and listings never show them.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from obsidian_mcp.vault.errors import NoteNotFound, PathRefused, VaultUnavailable
from obsidian_mcp.vault.exclusions import Exclusions

MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 4096
NOTE_SUFFIX = ".md"

# Extensions that name an attachment or another kind of file, never a note.
_NON_NOTE_EXTENSION_TEXT = """
png jpg jpeg gif bmp svg webp avif tif tiff ico heic heif pdf mp3 wav m4a ogg flac aac 3gp webm
mp4 mkv mov ogv avi canvas base txt json csv tsv html htm xml js ts css py sh bat exe dll so zip
gz tgz tar 7z rar doc docx xls xlsx ppt pptx odt ods epub yaml yml toml ini log db sqlite
"""
NON_NOTE_EXTENSIONS = frozenset(_NON_NOTE_EXTENSION_TEXT.split())

_DRIVE = re.compile(r"^[A-Za-z]:")
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
# Quick guard so that absurd inputs are refused before any normalisation work.
_MAX_RAW_CHARS = MAX_PATH_BYTES * 2

UNAVAILABLE_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.EIO})
if hasattr(errno, "ENOTCONN"):
    UNAVAILABLE_ERRNOS |= {errno.ENOTCONN}
if hasattr(errno, "ESTALE"):
    UNAVAILABLE_ERRNOS |= {errno.ESTALE}


@dataclass(frozen=True)
class NotePath:
    """A validated note location: `rel` for people (posix, vault-relative), `abs` for the disk."""

    rel: str
    abs: Path
    exists: bool = False


@dataclass(frozen=True)
class NoteInfo:
    """One note as seen by a listing."""

    rel: str
    size: int
    mtime: float


def _refuse(path: str, reason: str, message: str) -> PathRefused:
    return PathRefused(path, reason, message)


def _display(user_path: str) -> str:
    """A printable, bounded rendering of a refused path for messages (never touches the disk)."""
    cleaned = "".join(ch if unicodedata.category(ch) not in _REFUSED_CATEGORIES else "?" for ch in user_path)
    return cleaned if len(cleaned) <= 200 else cleaned[:200] + "…"


def split_user_path(user_path: str, *, allow_root: bool = False) -> list[str]:
    """Validate the text of a vault-relative path and return its components (no filesystem access).

    Raises `PathRefused` for anything that is not a plain relative path made of visible names.
    `allow_root` accepts "", "." and "/" as the vault root (an empty list), for folder arguments.
    """
    shown = _display(user_path) if isinstance(user_path, str) else "?"
    if not isinstance(user_path, str):
        raise _refuse(shown, "invalid_path", "the path must be a string")
    if allow_root and user_path.strip() in ("", ".", "/"):
        return []
    if user_path.strip() == "":
        raise _refuse(shown, "invalid_path", "the path is empty")
    if len(user_path) > _MAX_RAW_CHARS:
        raise _refuse(shown, "invalid_path", f"the path is longer than {MAX_PATH_BYTES} bytes")
    if any(unicodedata.category(ch) in _REFUSED_CATEGORIES for ch in user_path):
        raise _refuse(shown, "invalid_path", "the path contains control characters")
    text = user_path.replace("\\", "/")
    if text.startswith("/"):
        raise _refuse(shown, "outside_vault", "absolute paths are not allowed; give a path relative to the vault")
    if _DRIVE.match(text):
        raise _refuse(shown, "outside_vault", "drive paths are not allowed; give a path relative to the vault")
    raw_parts = text.split("/")
    if any(part == ".." for part in raw_parts):
        raise _refuse(shown, "outside_vault", "'..' is not allowed; paths cannot leave the vault")
    parts = [part for part in raw_parts if part not in ("", ".")]
    if not parts:
        if allow_root:
            return []
        raise _refuse(shown, "invalid_path", "the path does not name a note")
    for part in parts:
        if part.startswith("."):
            raise _refuse(
                shown, "hidden_path", f"hidden files and folders (like '{_display(part)}') are not accessible"
            )
    return [unicodedata.normalize("NFC", part) for part in parts]


def _check_lengths(shown: str, parts: list[str]) -> None:
    for part in parts:
        if len(part.encode("utf-8")) > MAX_COMPONENT_BYTES:
            raise _refuse(shown, "invalid_path", f"a path component is longer than {MAX_COMPONENT_BYTES} bytes")
    if len("/".join(parts).encode("utf-8")) > MAX_PATH_BYTES:
        raise _refuse(shown, "invalid_path", f"the path is longer than {MAX_PATH_BYTES} bytes")


def note_components(user_path: str) -> list[str]:
    """Components of a note path with `.md` ensured; refuses folders-only and non-note extensions."""
    shown = _display(user_path)
    parts = split_user_path(user_path)
    if user_path.replace("\\", "/").split("/")[-1] in ("", "."):
        raise _refuse(shown, "invalid_path", "the path names a folder, not a note")
    name = parts[-1]
    if not name.endswith(NOTE_SUFFIX):
        stem, dot, ext = name.rpartition(".")
        if dot and stem and (ext.lower() in NON_NOTE_EXTENSIONS or ext.lower() == "md"):
            raise _refuse(shown, "invalid_path", f"only Markdown notes (.md) are accessible, not '.{ext}' files")
        parts[-1] = name + NOTE_SUFFIX
    _check_lengths(shown, parts)
    return parts


def _inside(real: Path, root: Path) -> bool:
    """Containment on realpaths by path components, never by string prefix."""
    return real == root or real.is_relative_to(root)


Ancestors = frozenset[tuple[int, int]]
"""The (device, inode) of every folder above the one being listed."""


def enter_folder(real_dir: Path, ancestors: Ancestors) -> Ancestors | None:
    """`ancestors` plus `real_dir`, or None when `real_dir` is one of them already: a symlink loop,
    not to be entered again. An `OSError` when it cannot be stat-ed."""
    info = os.stat(real_dir)
    key = (info.st_dev, info.st_ino)
    return None if key in ancestors else ancestors | {key}


class Vault:
    """An Obsidian vault folder; all path decisions go through here."""

    def __init__(self, root: Path, exclusions: Exclusions | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.exclusions = exclusions or Exclusions()

    def hides(self, rel: str, *, folder: bool = False) -> bool:
        """Whether the vault-relative `rel` lies in a private (excluded) part of the vault."""
        return self.exclusions.excludes(rel, folder=folder)

    def hides_at(self, rel: str, real: Path, *, folder: bool = False) -> bool:
        """`hides` for an entry reached as `rel` whose real location (inside the vault) is `real`:
        a symlink into a private folder is as private as the folder."""
        if not self.exclusions:  # the common case, asked for every entry of a listing: no path work
            return False
        if self.hides(rel, folder=folder):
            return True
        return real != self.root and self.hides(real.relative_to(self.root).as_posix(), folder=folder)

    def _excluded(self, rel: str, real: Path, *, refuse: bool, folder: bool = False) -> None:
        """Raise when `rel`, or `real` (where a symlink on the way leads), is excluded: refused
        (`excluded`) when about to write there, else missing."""
        if not self.hides_at(rel, real, folder=folder):
            return
        if refuse:
            raise _refuse(rel, "excluded", "the path is in a private part of the vault that this server may not touch")
        raise NoteNotFound(rel, resource="folder" if folder else "note")

    # -- availability -------------------------------------------------------------------------

    def check_available(self) -> None:
        """Raise `VaultUnavailable` when the root folder is gone, not a folder, or unreadable."""
        try:
            st = os.stat(self.root)
            if not stat.S_ISDIR(st.st_mode):
                raise VaultUnavailable("the vault folder is not a folder")
            if not os.access(self.root, os.R_OK | os.X_OK):
                raise VaultUnavailable("the vault folder is not readable")
        except OSError as exc:
            raise VaultUnavailable(f"the vault folder is not available ({os.strerror(exc.errno or 0)})") from None

    def ensure_inside(self, abs_path: Path, shown: str) -> Path:
        """Return the realpath of `abs_path` after checking it is inside the vault and not hidden."""
        real = Path(os.path.realpath(abs_path))
        if not _inside(real, self.root):
            raise _refuse(shown, "symlink", "the path goes through a symbolic link that leaves the vault")
        if any(part.startswith(".") for part in real.relative_to(self.root).parts):
            raise _refuse(shown, "hidden_path", "the path leads into a hidden folder of the vault")
        return real

    def listed_location(self, rel: str) -> Path:
        """The realpath of a note a listing or the change feed named, checked again now that it is
        about to be read: `PathRefused` if a symlink swapped since leaves the vault or is hidden,
        `NoteNotFound` if it (or where it leads) is excluded."""
        real = self.ensure_inside(self.root / rel, rel)
        if self.hides_at(rel, real):
            raise NoteNotFound(rel)
        return real

    # -- resolution ---------------------------------------------------------------------------

    def _find_entry(self, real_dir: Path, name: str) -> str | None:
        """The on-disk spelling of `name` in `real_dir` (NFC-insensitive, case-sensitive), or None."""
        try:
            entries = os.listdir(real_dir)
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            return None
        if name in entries:
            return name
        matches = sorted(e for e in entries if unicodedata.normalize("NFC", e) == name)
        if matches:
            return matches[0]
        if os.path.lexists(real_dir / name):  # case-insensitive filesystem: find the real spelling
            folded = name.casefold()
            same = sorted(e for e in entries if unicodedata.normalize("NFC", e).casefold() == folded)
            return same[0] if same else name
        return None

    def _walk(self, parts: list[str], shown: str, for_write: bool) -> tuple[list[str], Path, bool]:
        """Follow `parts` from the root entry by entry.

        Returns the on-disk spelling of each component, the real location (realpath of the deepest
        existing entry joined with the not-yet-existing rest), and whether the whole path exists.
        A file where a folder is needed is refused when writing, and means "missing" otherwise.
        """
        current = self.root
        spelled: list[str] = []
        for index, part in enumerate(parts):
            try:
                found = self._find_entry(current, part)
            except OSError as exc:
                raise self._os_error(exc, shown) from None
            if found is None:
                rest = parts[index:]
                return spelled + rest, current.joinpath(*rest), False
            spelled.append(found)
            candidate = current / found
            if os.path.islink(candidate):
                candidate = self.ensure_inside(candidate, shown)
            current = candidate
            is_last = index == len(parts) - 1
            if not is_last and not current.is_dir():
                if current.exists() and for_write:
                    raise _refuse(shown, "invalid_path", f"'{'/'.join(spelled)}' is a file, not a folder")
                # a dangling link inside the vault, or a file used as a folder: nothing there
                return spelled + parts[index + 1 :], current.joinpath(*parts[index + 1 :]), False
        return spelled, current, os.path.exists(current)

    def _os_error(self, exc: OSError, shown: str) -> Exception:
        self.check_available()
        return VaultUnavailable(f"cannot access {shown}: {os.strerror(exc.errno or 0)}")

    def resolve(
        self, user_path: str, *, must_exist: bool = True, for_write: bool = False, source: bool = False
    ) -> NotePath:
        """Validate `user_path` and locate it in the vault.

        `must_exist` raises `NoteNotFound` for a missing note. `for_write` refuses (`invalid_path`) a
        path whose parent is a file, since no folder could be created there. Existing entries that
        are not regular files (folders named `x.md`, FIFOs) are refused either way.
        An excluded path is refused (`excluded`) when `for_write`, and missing otherwise or when it is
        the `source` of a move (moving a note out of a private folder reveals it as reading would).
        """
        parts = note_components(user_path)
        shown = "/".join(parts)
        self.check_available()
        spelled, real, exists = self._walk(parts, shown, for_write)
        rel = "/".join(spelled)
        self._excluded(rel, real, refuse=for_write and not source)
        if exists:
            try:
                mode = os.stat(real).st_mode
            except OSError as exc:
                raise self._os_error(exc, rel) from None
            if not stat.S_ISREG(mode):
                what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
                raise _refuse(rel, "invalid_path", f"'{rel}' is {what}, not a note")
        elif must_exist:
            raise NoteNotFound(rel)
        return NotePath(rel=rel, abs=real, exists=exists)

    def resolve_folder(self, user_folder: str) -> tuple[str, Path]:
        """Validate a folder path ("" is the root) that must exist; returns (rel, realpath)."""
        parts = split_user_path(user_folder, allow_root=True)
        shown = "/".join(parts)
        _check_lengths(_display(user_folder), parts)
        self.check_available()
        if not parts:
            return "", self.root
        spelled, real, exists = self._walk(parts, shown, for_write=False)
        rel = "/".join(spelled)
        self._excluded(rel, real, refuse=False, folder=True)
        if not exists or not real.is_dir():
            raise NoteNotFound(rel, resource="folder")
        return rel, real

    # -- listing ------------------------------------------------------------------------------

    def iter_notes(self, folder_rel: str = "", recursive: bool = True) -> Iterator[NoteInfo]:
        """Notes under a folder, sorted by vault-relative path.

        Never enters dot-folders or excluded folders, skips dot-files (our temp files among them),
        excluded notes, non-`.md` files, names that are not valid UTF-8, and symlinks whose target
        leaves the vault or is hidden.
        Symlinked folders inside the vault are followed once (loops are cut).
        """
        rel, real = self.resolve_folder(folder_rel)
        found: list[NoteInfo] = []
        self._collect(real, rel, recursive, found, frozenset(), top=True)
        found.sort(key=lambda info: info.rel)
        return iter(found)

    def _collect(
        self,
        real_dir: Path,
        rel_dir: str,
        recursive: bool,
        out: list[NoteInfo],
        ancestors: Ancestors,
        top: bool,
    ) -> None:
        """Append the notes of one folder (and, if `recursive`, below); `ancestors` cuts symlink loops."""
        try:
            inside = enter_folder(real_dir, ancestors)
            if inside is None:
                return
            ancestors = inside
            with os.scandir(real_dir) as it:
                entries = list(it)
        except OSError as exc:
            if top:
                raise self._os_error(exc, rel_dir or "the vault root") from None
            return  # an unreadable sub-folder is skipped rather than failing the whole listing
        for entry in entries:
            name = entry.name
            if is_unlisted_name(name):
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            path = Path(entry.path)
            try:
                if entry.is_symlink():
                    real = Path(os.path.realpath(path))
                    if not _inside(real, self.root) or any(
                        p.startswith(".") for p in real.relative_to(self.root).parts
                    ):
                        continue
                    path = real
                st = os.stat(path)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if recursive and not self.hides_at(rel, path, folder=True):
                    self._collect(path, rel, recursive, out, ancestors, top=False)
            elif stat.S_ISREG(st.st_mode) and name.endswith(NOTE_SUFFIX) and not self.hides_at(rel, path):
                out.append(NoteInfo(rel=rel, size=st.st_size, mtime=st.st_mtime))


def is_unlisted_name(name: str) -> bool:
    """A folder or file name the vault never lists or indexes: hidden (dot) names and names that are not
    valid UTF-8 on disk (surrogate-escaped)."""
    return name.startswith(".") or _has_surrogates(name)


def _has_surrogates(name: str) -> bool:
    """File names that were not valid UTF-8 come back with surrogate escapes; they cannot be addressed."""
    return any("\ud800" <= ch <= "\udfff" for ch in name)
