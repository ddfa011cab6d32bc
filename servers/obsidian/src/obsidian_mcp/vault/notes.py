"""The note operations the tools call: validate arguments, resolve paths, lock, read, edit, write.

Each operation returns a plain JSON-safe dict and raises only `VaultError` subclasses: disk errors
are translated (messages name vault-relative paths only). Every change to an existing note happens
under that note's lock, reading the current bytes there, so `expected_etag` checks and edits see a
stable version and concurrent appends all land.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from obsidian_mcp.vault import edits
from obsidian_mcp.vault.errors import EtagMismatch, InvalidArgument, NoteExists, NoteNotFound
from obsidian_mcp.vault.markdown import parse_note
from obsidian_mcp.vault.paths import NotePath, Vault
from obsidian_mcp.vault.storage import (
    PathLocks,
    atomic_write,
    decode_note,
    etag_of,
    map_os_error,
    move_to_trash,
    read_bytes,
)

MAX_LIST_LIMIT = 1000
WRITE_MODES = ("create", "overwrite")


# -- helpers ------------------------------------------------------------------------------------


@contextmanager
def _disk(vault: Vault, rel: str) -> Iterator[None]:
    """Turn `OSError` into vault errors that name only `rel`."""
    try:
        yield
    except OSError as exc:
        raise map_os_error(exc, vault.root, rel) from None


def _int_arg(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(name, "invalid_type", f"'{name}' must be an integer")
    if value < minimum:
        raise InvalidArgument(name, "out_of_range", f"'{name}' must be at least {minimum}")
    return value


def _str_arg(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidArgument(name, "invalid_type", f"'{name}' must be a string")
    return value


def _encode(content: str) -> bytes:
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument("content", "invalid_text", "the content is not valid Unicode text") from None


def _check_etag(rel: str, expected: str | None, current: str) -> None:
    if expected is not None and expected != current:
        raise EtagMismatch(rel, current)


def _write(vault: Vault, note: NotePath, data: bytes) -> str:
    """Write under the caller's lock; re-checks the folder is still inside the vault. Returns the etag."""
    with _disk(vault, note.rel):
        note.abs.parent.mkdir(parents=True, exist_ok=True)
        vault.ensure_inside(note.abs.parent, note.rel)
        atomic_write(note.abs, data)
    return etag_of(data)


def _edit(
    vault: Vault, locks: PathLocks, path: str, expected_etag: str | None, change: Callable[[str, str], str]
) -> tuple[NotePath, str, str]:
    """Apply `change(text, rel)` to an existing note under its lock; returns (note, new text, etag)."""
    if expected_etag is not None:
        _str_arg("expected_etag", expected_etag)
    note = vault.resolve(path, for_write=True)
    with locks.hold(note.abs):
        with _disk(vault, note.rel):
            data = read_bytes(note.abs)
        _check_etag(note.rel, expected_etag, etag_of(data))
        text = decode_note(data, note.rel)
        new_text = change(text, note.rel)
        if new_text == text:
            return note, text, etag_of(data)
        return note, new_text, _write(vault, note, _encode(new_text))


# -- reading ------------------------------------------------------------------------------------


def read_note(
    vault: Vault, path: str, offset: int = 0, max_chars: int = 20000, *, strict_frontmatter: bool = True
) -> dict[str, Any]:
    """A slice of a note's text plus what the whole note contains (frontmatter, tags, links).

    With `strict_frontmatter=False` a note with invalid YAML is still returned, with an empty
    frontmatter and a `frontmatter_error` entry ({line, problem}) so it can be repaired.
    """
    _int_arg("offset", offset, 0)
    _int_arg("max_chars", max_chars, 1)
    note = vault.resolve(path)
    with _disk(vault, note.rel):
        data = read_bytes(note.abs)
    text = decode_note(data, note.rel)
    if offset > len(text):
        raise InvalidArgument(
            "offset", "out_of_range", f"offset {offset} is past the end of the note ({len(text)} characters)"
        )
    parsed = parse_note(text, note.rel, strict=strict_frontmatter)
    end = offset + max_chars
    truncated = end < len(text)
    result: dict[str, Any] = {
        "path": note.rel,
        "content": text[offset:end],
        "frontmatter": parsed.frontmatter,
        "tags": parsed.tags,
        "links": [link.as_dict() for link in parsed.links],
        "etag": etag_of(data),
        "size": len(text),
        "truncated": truncated,
        "next_offset": end if truncated else None,
    }
    if parsed.frontmatter_error is not None:
        err = parsed.frontmatter_error
        result["frontmatter_error"] = {"line": err.line, "problem": err.problem}
    return result


def _encode_cursor(folder: str, recursive: bool, after: str) -> str:
    raw = json.dumps({"v": 1, "folder": folder, "recursive": recursive, "after": after}, ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii")


def _decode_cursor(cursor: Any, folder: str, recursive: bool) -> str:
    bad = InvalidArgument("cursor", "invalid", "the cursor is not valid; list again without a cursor")
    if not isinstance(cursor, str) or not cursor:
        raise bad
    try:
        payload = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8"))
    except (ValueError, UnicodeError, binascii.Error):
        raise bad from None
    if not isinstance(payload, dict) or payload.get("v") != 1 or not isinstance(payload.get("after"), str):
        raise bad
    if payload.get("folder") != folder or payload.get("recursive") != recursive:
        raise InvalidArgument("cursor", "mismatch", "the cursor belongs to a different listing (folder or recursive)")
    after: str = payload["after"]
    return after


def _iso_utc(timestamp: float) -> str:
    moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def list_notes(
    vault: Vault, folder: str = "", recursive: bool = True, limit: int = 200, cursor: str | None = None
) -> dict[str, Any]:
    """One page of notes sorted by path. `next_cursor` continues after the last note returned, so
    notes added or removed between pages do not make others repeat or go missing. `limit` is
    capped at 1000."""
    _int_arg("limit", limit, 1)
    limit = min(limit, MAX_LIST_LIMIT)
    if not isinstance(recursive, bool):
        raise InvalidArgument("recursive", "invalid_type", "'recursive' must be true or false")
    folder_rel, _ = vault.resolve_folder(_str_arg("folder", folder))
    after = _decode_cursor(cursor, folder_rel, recursive) if cursor is not None else None
    page: list[dict[str, Any]] = []
    more = False
    for info in vault.iter_notes(folder_rel, recursive):
        if after is not None and info.rel <= after:
            continue
        if len(page) == limit:
            more = True
            break
        page.append({"path": info.rel, "size": info.size, "modified": _iso_utc(info.mtime)})
    next_cursor = _encode_cursor(folder_rel, recursive, page[-1]["path"]) if more else None
    return {"notes": page, "next_cursor": next_cursor}


# -- writing ------------------------------------------------------------------------------------


def write_note(
    vault: Vault,
    locks: PathLocks,
    path: str,
    content: str,
    mode: str = "create",
    expected_etag: str | None = None,
) -> dict[str, Any]:
    """Create a note, or overwrite one (creating it if missing). Content is written exactly as given.

    An `expected_etag` for a note that does not exist → `NoteNotFound` (the version is gone).
    """
    data = _encode(_str_arg("content", content))
    if mode not in WRITE_MODES:
        raise InvalidArgument("mode", "invalid_value", "mode must be 'create' or 'overwrite'")
    if expected_etag is not None:
        _str_arg("expected_etag", expected_etag)
    note = vault.resolve(path, must_exist=False, for_write=True)
    with locks.hold(note.abs):
        exists = os.path.isfile(note.abs)
        if exists and mode == "create":
            raise NoteExists(note.rel)
        if expected_etag is not None:
            if not exists:
                raise NoteNotFound(note.rel)
            with _disk(vault, note.rel):
                _check_etag(note.rel, expected_etag, etag_of(read_bytes(note.abs)))
        etag = _write(vault, note, data)
    return {"path": note.rel, "etag": etag, "created": not exists}


def _new_note_text(heading: str | None) -> str:
    """The starting text of a note created by an append under a heading: just that heading."""
    if heading is None:
        return ""
    stripped = heading.strip()
    return stripped + "\n" if stripped.startswith("#") else f"# {stripped}\n"


def append_to_note(
    vault: Vault,
    locks: PathLocks,
    path: str,
    content: str,
    heading: str | None = None,
    create_if_missing: bool = False,
) -> dict[str, Any]:
    """Append at the end of a note or of a heading's section. With `create_if_missing`, a missing
    note is created (holding the heading, as `# Heading` unless given with hashes, then the content)."""
    _str_arg("content", content)
    if heading is not None:
        _str_arg("heading", heading)
    note = vault.resolve(path, must_exist=False, for_write=True)
    with locks.hold(note.abs):
        exists = os.path.isfile(note.abs)
        if exists:
            with _disk(vault, note.rel):
                text = decode_note(read_bytes(note.abs), note.rel)
        elif create_if_missing:
            text = _new_note_text(heading)
        else:
            raise NoteNotFound(note.rel)
        new_text = edits.append(text, content, heading, path=note.rel)
        if exists and new_text == text:  # nothing to append: leave the file (and its mtime) alone
            return {"path": note.rel, "etag": etag_of(_encode(text)), "created": False}
        etag = _write(vault, note, _encode(new_text))
    return {"path": note.rel, "etag": etag, "created": not exists}


def replace_section(
    vault: Vault,
    locks: PathLocks,
    path: str,
    heading: str,
    content: str,
    expected_etag: str | None = None,
) -> dict[str, Any]:
    """Replace the body under a heading (see `edits.replace_section`)."""
    _str_arg("heading", heading)
    _str_arg("content", content)
    note, _, etag = _edit(
        vault, locks, path, expected_etag, lambda text, rel: edits.replace_section(text, heading, content, path=rel)
    )
    return {"path": note.rel, "etag": etag}


def update_frontmatter(
    vault: Vault,
    locks: PathLocks,
    path: str,
    set: dict[str, Any],
    remove: list[str],
    expected_etag: str | None = None,
) -> dict[str, Any]:
    """Set and remove frontmatter keys; returns the new parsed frontmatter."""
    result: dict[str, Any] = {}

    def change(text: str, rel: str) -> str:
        new_text, result["frontmatter"] = edits.update_frontmatter(text, set, remove, rel)
        return new_text

    note, _, etag = _edit(vault, locks, path, expected_etag, change)
    return {"path": note.rel, "etag": etag, "frontmatter": result["frontmatter"]}


def delete_note(vault: Vault, locks: PathLocks, path: str) -> dict[str, Any]:
    """Move a note to the vault's `.trash` folder (recoverable, like Obsidian's own delete).

    For a note reached through a symlink, the real file is moved."""
    note = vault.resolve(path, for_write=True)
    with locks.hold(note.abs), _disk(vault, note.rel):
        trashed_to = move_to_trash(vault.root, note.abs)
    return {"path": note.rel, "trashed_to": trashed_to}
