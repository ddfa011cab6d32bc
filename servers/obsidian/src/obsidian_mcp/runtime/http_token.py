"""The HTTP bearer token: one private file, created on first use, rotated in place, re-read when it changes."""

from __future__ import annotations

import logging
import os
import secrets
import string
import tempfile
from pathlib import Path

log = logging.getLogger("mcp_contract.http")

MIN_TOKEN_CHARS = 32
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "-._~+/=")  # RFC 6750 b64token


class TokenFileError(Exception):
    """The token file cannot be used; the message says why in one line (never the token)."""


def token_file_path(service: str) -> Path:
    """`<SERVICE>_HTTP_TOKEN_FILE`, else ~/.config/<service>/http-token."""
    variable = service.upper().replace("-", "_") + "_HTTP_TOKEN_FILE"
    return Path(os.environ.get(variable) or f"~/.config/{service}/http-token").expanduser()


def ensure_token(path: Path) -> str:
    """The token in `path`, creating the file (and its folders, 0700) with a random 256-bit token if missing."""
    if not path.exists():
        try:
            _make_folders(path.parent)
            _write(path, secrets.token_urlsafe(32), replace=False)
            log.info("created the http token file", extra={"path": str(path)})
        except FileExistsError:
            pass  # another process created it a moment ago: use theirs
        except OSError as exc:
            raise TokenFileError(f"cannot create the http token file {path}: {exc.strerror or exc}") from exc
    return read_token(path)


def rotate_token(path: Path) -> str:
    """Replace the token with a new random one; servers reading `path` refuse the old one from the next request."""
    token = secrets.token_urlsafe(32)
    try:
        _make_folders(path.parent)
        _write(path, token, replace=True)
    except OSError as exc:
        raise TokenFileError(f"cannot write the http token file {path}: {exc.strerror or exc}") from exc
    log.info("rotated the http token", extra={"path": str(path)})
    return token


def read_token(path: Path) -> str:
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(f"cannot read the http token file {path}: {type(exc).__name__}") from exc
    if mode & 0o077:
        raise TokenFileError(f"the http token file {path} is open to other users (mode {mode & 0o777:o}); chmod 600 it")
    if len(text) < MIN_TOKEN_CHARS or not set(text) <= _TOKEN_CHARS:
        raise TokenFileError(
            f"the http token file {path} must hold one token of at least {MIN_TOKEN_CHARS} characters "
            "(letters, digits, -._~+/=); `http-token --rotate` writes a new one"
        )
    return text


class TokenSource:
    """The current token as bytes, re-read whenever the file changes, so a rotation applies without a restart.

    Any problem with the file (gone, unreadable, too open, malformed) yields None: every request is
    then refused until the file is fixed. Each problem is logged once.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._token: bytes | None = None
        self._problem: str | None = None

    def current(self) -> bytes | None:
        try:
            st = os.stat(self.path)
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp is None or stamp != self._stamp:
            self._stamp = stamp
            try:
                self._token, problem = read_token(self.path).encode("ascii"), None
            except TokenFileError as exc:
                self._token, problem = None, str(exc)
            if problem and problem != self._problem:
                log.error("http token unusable: every request is refused", extra={"reason": problem})
            self._problem = problem
        return self._token


def _make_folders(folder: Path) -> None:
    """Create `folder` and any missing parents with mode 0700 (whatever the umask)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        created.mkdir(mode=0o700, exist_ok=True)
        os.chmod(created, 0o700)


def _write(path: Path, token: str, *, replace: bool) -> None:
    """Write atomically: a 0600 temp file in the same folder, then renamed (replace) or hard-linked (create only)."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".http-token-")  # mkstemp creates it 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(token + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temp, path)
        else:
            os.link(temp, path)  # FileExistsError if another process got there first
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
