"""The note operations the tools call: validate arguments, resolve paths, lock, read, edit, write.

Each operation returns one typed result (`vault.results`), warnings attached, and raises only
`VaultError` subclasses: disk errors are translated (messages name vault-relative paths only).
Every change to an existing note happens under that note's lock, reading the current bytes there,
so `expected_etag` checks and edits see a stable version and concurrent appends all land.

Moving a note is split for `links.move`, which decides what its links become: `check_move`
validates both ends, `move_file` renames, `rewrite_note` edits one other note's text.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from obsidian_mcp import warnings
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault import edits, templates
from obsidian_mcp.vault.cursors import decode_cursor, encode_cursor
from obsidian_mcp.vault.errors import EtagMismatch, InvalidArgument, NoteExists, NoteNotFound
from obsidian_mcp.vault.links import stem
from obsidian_mcp.vault.markdown import load_frontmatter, parse_note
from obsidian_mcp.vault.paths import NotePath, Vault
from obsidian_mcp.vault.results import (
    DeleteResult,
    FrontmatterResult,
    ListNotesResult,
    NoteEntry,
    ReadNoteResult,
    WriteNoteResult,
    WriteResult,
)
from obsidian_mcp.vault.storage import (
    PathLocks,
    atomic_write,
    decode_note,
    etag_of,
    map_os_error,
    move_to_trash,
    move_without_replacing,
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


@dataclass(frozen=True)
class _Edited:
    """A note after `_edit`: its text and etag now, and whether the file was written."""

    note: NotePath
    text: str
    etag: str
    written: bool


def _edit(
    vault: Vault, locks: PathLocks, path: str, expected_etag: str | None, change: Callable[[str, str], str]
) -> _Edited:
    """Apply `change(text, rel)` to an existing note under its lock; an unchanged text is not written."""
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
            return _Edited(note, text, etag_of(data), written=False)
        return _Edited(note, new_text, _write(vault, note, _encode(new_text)), written=True)


# -- reading ------------------------------------------------------------------------------------


def read_note(
    vault: Vault, path: str, offset: int = 0, max_chars: int = 20000, *, strict_frontmatter: bool = True
) -> ReadNoteResult:
    """A slice of a note's text plus what the whole note contains (frontmatter, tags, links); a
    `CONTENT_TRUNCATED` warning when text remains after the slice.

    With `strict_frontmatter=False` a note with invalid YAML is still returned, with an empty
    frontmatter and a `FRONTMATTER_INVALID` warning, so it can be repaired.
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
    found: list[ToolWarning] = []
    if parsed.frontmatter_error is not None:
        found.append(warnings.frontmatter_invalid(parsed.frontmatter_error.line, parsed.frontmatter_error.problem))
    if truncated:
        found.append(warnings.content_truncated(max_chars, len(text), end))
    return ReadNoteResult(
        path=note.rel,
        content=text[offset:end],
        frontmatter=parsed.frontmatter,
        tags=parsed.tags,
        links=parsed.links,
        etag=etag_of(data),
        size=len(text),
        truncated=truncated,
        next_offset=end if truncated else None,
        warnings=found,
    )


def _encode_cursor(folder: str, recursive: bool, after: str) -> str:
    return encode_cursor({"folder": folder, "recursive": recursive, "after": after})


def _decode_cursor(cursor: Any, folder: str, recursive: bool) -> str:
    payload = decode_cursor(cursor, again="list")
    if not isinstance(payload.get("after"), str):
        raise InvalidArgument("cursor", "invalid", "the cursor is not valid; list again without a cursor")
    if payload.get("folder") != folder or payload.get("recursive") != recursive:
        raise InvalidArgument("cursor", "mismatch", "the cursor belongs to a different listing (folder or recursive)")
    after: str = payload["after"]
    return after


def iso_utc(timestamp: float) -> str:
    """A file time as `list_notes` gives it: ISO 8601 in UTC, to the millisecond."""
    moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def list_notes(
    vault: Vault, folder: str = "", recursive: bool = True, limit: int = 200, cursor: str | None = None
) -> ListNotesResult:
    """One page of notes sorted by path. `next_cursor` continues after the last note returned, so
    notes added or removed between pages do not make others repeat or go missing. `limit` is
    capped at 1000."""
    _int_arg("limit", limit, 1)
    limit = min(limit, MAX_LIST_LIMIT)
    if not isinstance(recursive, bool):
        raise InvalidArgument("recursive", "invalid_type", "'recursive' must be true or false")
    folder_rel, _ = vault.resolve_folder(_str_arg("folder", folder))
    after = _decode_cursor(cursor, folder_rel, recursive) if cursor is not None else None
    page: list[NoteEntry] = []
    more = False
    for info in vault.iter_notes(folder_rel, recursive):
        if after is not None and info.rel <= after:
            continue
        if len(page) == limit:
            more = True
            break
        page.append(NoteEntry(path=info.rel, size=info.size, modified=iso_utc(info.mtime)))
    next_cursor = _encode_cursor(folder_rel, recursive, page[-1].path) if more else None
    return ListNotesResult(notes=page, next_cursor=next_cursor)


# -- writing ------------------------------------------------------------------------------------


def _from_template(
    vault: Vault, template: str, note: NotePath, now: dt.datetime | None
) -> tuple[str, list[ToolWarning]]:
    """The text of the template `template` filled for the new note `note`, as the core Templates
    plugin fills it, and what got in the way (settings ignored, Templater syntax)."""
    settings = templates.load_settings(vault.root)
    found = [warnings.template_settings_ignored(problem) for problem in settings.problems]
    path, text = templates.find_template(vault, _str_arg("template", template), settings)
    variables = templates.Variables(
        title=stem(note.rel),
        moment=now or dt.datetime.now(),
        date_format=settings.date_format,
        time_format=settings.time_format,
    )
    rendered, problems = templates.fill(text, path, variables)
    return rendered, found + problems


def _joined(template_text: str, content: str) -> str:
    """The template's text, then `content` on a line of its own (a line break is added between
    them only when the template's text does not end with one)."""
    if template_text and content and not template_text.endswith("\n"):
        return template_text + "\n" + content
    return template_text + content


def write_note(
    vault: Vault,
    locks: PathLocks,
    path: str,
    content: str | None,
    mode: str = "create",
    expected_etag: str | None = None,
    *,
    template: str | None = None,
    now: dt.datetime | None = None,
) -> WriteNoteResult:
    """Create a note, or overwrite one (creating it if missing). Content is written exactly as given.

    With `template` (a note in the templates folder, `templates.find_template`), the note starts
    with the template filled in (`{{title}}`, `{{date}}`, ...) and `content`, if any, follows it.
    A missing template → `NoteNotFound` with `resource="template"`, before anything is written.
    An `expected_etag` for a note that does not exist → `NoteNotFound` (the version is gone).
    """
    if content is None and template is None:
        raise InvalidArgument("content", "missing", "give 'content', a 'template', or both")
    text = "" if content is None else _str_arg("content", content)
    if mode not in WRITE_MODES:
        raise InvalidArgument("mode", "invalid_value", "mode must be 'create' or 'overwrite'")
    if expected_etag is not None:
        _str_arg("expected_etag", expected_etag)
    note = vault.resolve(path, must_exist=False, for_write=True)
    found: list[ToolWarning] = []
    if template is not None:
        filled, found = _from_template(vault, template, note, now)
        text = _joined(filled, text)
    data = _encode(text)
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
    return WriteNoteResult(path=note.rel, etag=etag, created=not exists, warnings=found)


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
) -> WriteResult:
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
            return WriteResult(path=note.rel, etag=etag_of(_encode(text)), created=False)
        etag = _write(vault, note, _encode(new_text))
    return WriteResult(path=note.rel, etag=etag, created=not exists)


def replace_section(
    vault: Vault,
    locks: PathLocks,
    path: str,
    heading: str,
    content: str,
    expected_etag: str | None = None,
) -> WriteResult:
    """Replace the body under a heading (see `edits.replace_section`)."""
    _str_arg("heading", heading)
    _str_arg("content", content)
    edited = _edit(
        vault, locks, path, expected_etag, lambda text, rel: edits.replace_section(text, heading, content, path=rel)
    )
    return WriteResult(path=edited.note.rel, etag=edited.etag)


def update_frontmatter(
    vault: Vault,
    locks: PathLocks,
    path: str,
    set: dict[str, Any],
    remove: list[str],
    expected_etag: str | None = None,
) -> FrontmatterResult:
    """Set and remove frontmatter keys; the result holds the frontmatter as the note now has it."""
    edited = _edit(
        vault, locks, path, expected_etag, lambda text, rel: edits.update_frontmatter(text, set, remove, rel).text
    )
    frontmatter, _ = load_frontmatter(edited.text, edited.note.rel)
    return FrontmatterResult(path=edited.note.rel, etag=edited.etag, frontmatter=frontmatter)


def delete_note(vault: Vault, locks: PathLocks, path: str) -> DeleteResult:
    """Move a note to the vault's `.trash` folder (recoverable, like Obsidian's own delete).

    For a note reached through a symlink, the real file is moved."""
    note = vault.resolve(path, for_write=True)
    with locks.hold(note.abs), _disk(vault, note.rel):
        trashed_to = move_to_trash(vault.root, note.abs)
    return DeleteResult(path=note.rel, trashed_to=trashed_to)


# -- moving -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoteMove:
    """Both ends of a move, checked: `source` exists, `target` is free and elsewhere."""

    source: NotePath
    target: NotePath


def check_move(vault: Vault, path: str, new_path: str) -> NoteMove:
    """Validate a move before anything changes: an existing note at `new_path` → `NoteExists`."""
    source = vault.resolve(path, for_write=True, source=True)
    target = vault.resolve(new_path, must_exist=False, for_write=True)
    if source.rel == target.rel or source.abs == target.abs:
        raise InvalidArgument("new_path", "same_path", "the note is already at new_path")
    if target.exists:
        raise NoteExists(target.rel)
    return NoteMove(source, target)


def move_file(vault: Vault, locks: PathLocks, move: NoteMove) -> None:
    """Rename the note under the locks of both paths, creating folders; never replaces a note at
    the target, even one created since `check_move` (`NoteExists`)."""
    first, second = sorted((move.source.abs, move.target.abs), key=os.fspath)
    with locks.hold(first), locks.hold(second), _disk(vault, move.target.rel):
        move.target.abs.parent.mkdir(parents=True, exist_ok=True)
        vault.ensure_inside(move.target.abs.parent, move.target.rel)
        if not move_without_replacing(move.source.abs, move.target.abs):
            raise NoteExists(move.target.rel)


def rewrite_note(vault: Vault, locks: PathLocks, path: str, change: Callable[[str, str], str]) -> bool:
    """Apply `change(text, rel)` to the note at `path` under its lock, writing it atomically if
    the text changed; True when it was written."""
    return _edit(vault, locks, path, None, change).written
