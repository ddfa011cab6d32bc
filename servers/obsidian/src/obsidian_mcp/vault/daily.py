"""Daily notes the way Obsidian's core Daily notes plugin makes them.

Settings come from `.obsidian/daily-notes.json` (`folder`, `format`, `template`), read directly
from the vault root because `Vault.resolve` refuses hidden folders for callers; anything missing
or invalid falls back to Obsidian's defaults (vault root, `YYYY-MM-DD`, no template) with a
warning. The note's path is `folder/format(date).md`; a `/` in the format makes subfolders.

A new note starts from the template with Obsidian's variables replaced: `{{date}}` (the date in
the daily-note format), `{{title}}` (the note's name), `{{time}}` (now, `HH:mm`),
`{{date:FORMAT}}` / `{{time:FORMAT}}` (the note's date at the current time of day, any moment
format), offsets such as `{{date+1d:YYYY-MM-DD}}` (units y, q, M, w, d, h, m, s) and
`{{yesterday}}` / `{{tomorrow}}`. Creation goes through `notes.write_note(mode="create")`, so it
is atomic, path-checked, and never replaces a note created concurrently.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from obsidian_mcp import warnings
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import InvalidArgument, NoteExists, NoteNotFound, PathRefused
from obsidian_mcp.vault.moment import format_moment
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.results import DailyNoteResult
from obsidian_mcp.vault.storage import PathLocks, decode_note, map_os_error, read_bytes

CONFIG_PATH = (".obsidian", "daily-notes.json")
DEFAULT_FORMAT = "YYYY-MM-DD"
MAX_CONFIG_BYTES = 64 * 1024
MAX_CONTENT_CHARS = 20_000

_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_VARIABLE = re.compile(
    r"{{\s*(?P<name>date|time|title|yesterday|tomorrow)\s*"
    r"(?:(?P<amount>[+-]\d{1,6})(?P<unit>[yYqQMwWdDhHms]))?\s*(?::(?P<format>[^}]*))?}}",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DailySettings:
    folder: str = ""
    format: str = DEFAULT_FORMAT
    template: str = ""
    problems: tuple[str, ...] = field(default_factory=tuple)


def _config_data(root: Path) -> tuple[dict[str, Any], str | None]:
    """The parsed config file ({} when absent) and what was wrong with it, if anything."""
    path = root.joinpath(*CONFIG_PATH)
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root):
        return {}, "the daily notes settings file leads outside the vault and was ignored"
    try:
        if os.stat(real).st_size > MAX_CONFIG_BYTES:
            return {}, "the daily notes settings file is too large and was ignored"
        data = json.loads(read_bytes(real).decode("utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return {}, None
    except (OSError, UnicodeDecodeError, ValueError):
        return {}, "the daily notes settings file is not readable JSON and was ignored"
    if not isinstance(data, dict):
        return {}, "the daily notes settings file is not a JSON object and was ignored"
    return data, None


def load_settings(root: Path) -> DailySettings:
    """Settings from `.obsidian/daily-notes.json`, with Obsidian's defaults for what is missing."""
    data, problem = _config_data(root)
    problems = [problem] if problem else []

    def text(key: str) -> str:
        value = data.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            problems.append(f"'{key}' in the daily notes settings is not text and was ignored")
            return ""
        return value.strip()

    folder, pattern, template = text("folder").strip("/"), text("format"), text("template")
    return DailySettings(folder, pattern or DEFAULT_FORMAT, template, tuple(problems))


def parse_date(value: str | None, today: dt.date) -> dt.date:
    """An ISO `YYYY-MM-DD` date (None means today)."""
    if value is None:
        return today
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value.strip()):
        raise InvalidArgument("date", "invalid_date", "'date' must be an ISO date like 2026-11-23")
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise InvalidArgument("date", "invalid_date", "'date' is not a real calendar date") from None


def _add_months(moment: dt.datetime, months: int) -> dt.datetime:
    index = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        return moment
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def shifted(moment: dt.datetime, amount: int, unit: str) -> dt.datetime:
    """`moment` moved by a moment.js-style offset (`m` minutes, `M` months, others any case)."""
    if unit == "M":
        return _add_months(moment, amount)
    if unit == "m":
        return moment + dt.timedelta(minutes=amount)
    lower = unit.lower()
    if lower in ("y", "q"):
        return _add_months(moment, amount * (12 if lower == "y" else 3))
    step = {"w": dt.timedelta(weeks=1), "d": dt.timedelta(days=1), "h": dt.timedelta(hours=1)}
    try:
        return moment + step.get(lower, dt.timedelta(seconds=1)) * amount
    except OverflowError:
        return moment


def render_template(template: str, day: dt.date, pattern: str, now: dt.datetime) -> str:
    """The template with Obsidian's date, time and title variables replaced."""
    name = format_moment(day, pattern).rsplit("/", 1)[-1]
    at_now = dt.datetime.combine(day, now.time())

    def replace(match: re.Match[str]) -> str:
        variable = match.group("name").lower()
        custom = match.group("format")
        moment = at_now
        if match.group("amount"):
            moment = shifted(moment, int(match.group("amount")), match.group("unit"))
        if variable == "title":
            return name
        if variable in ("yesterday", "tomorrow"):
            return format_moment(day + dt.timedelta(days=-1 if variable == "yesterday" else 1), pattern)
        if custom is not None and custom.strip():
            return format_moment(moment, custom.strip())
        if variable == "time":
            return format_moment(moment, "HH:mm")
        return format_moment(moment, pattern)

    return _VARIABLE.sub(replace, template)


def _template_text(vault: Vault, template: str) -> str | None:
    """The template's text ("" when there is none); None when it is missing or unusable."""
    if not template:
        return ""
    try:
        note = vault.resolve(template)
        return decode_note(read_bytes(note.abs), note.rel)
    except (NoteNotFound, PathRefused, OSError):
        return None


def _existing(vault: Vault, rel: str, abs: Path, found: list[ToolWarning]) -> str:
    """The text of an existing daily note, cut at `MAX_CONTENT_CHARS` with a warning."""
    try:
        text = decode_note(read_bytes(abs), rel)
    except OSError as exc:
        raise map_os_error(exc, vault.root, rel) from None
    if len(text) > MAX_CONTENT_CHARS:
        found.append(
            warnings.content_truncated(MAX_CONTENT_CHARS, len(text), MAX_CONTENT_CHARS, rest_via_read_note=True)
        )
        return text[:MAX_CONTENT_CHARS]
    return text


def daily_note(
    vault: Vault,
    locks: PathLocks,
    date: str | None = None,
    create: bool = True,
    *,
    may_write: bool = True,
    now: dt.datetime | None = None,
) -> DailyNoteResult:
    """The daily note of `date` (default today, local time): returned if it exists, else created
    from the template when `create` and `may_write`, else `NoteNotFound`."""
    moment_now = now or dt.datetime.now()
    day = parse_date(date, moment_now.date())
    settings = load_settings(vault.root)
    found = [warnings.daily_settings_ignored(problem) for problem in settings.problems]
    name = format_moment(day, settings.format).strip().strip("/")
    if not name:
        found.append(warnings.daily_settings_ignored("the daily note format is empty; used YYYY-MM-DD"))
        name = format_moment(day, DEFAULT_FORMAT)
    rel = f"{settings.folder}/{name}" if settings.folder else name
    writing = create and may_write
    note = vault.resolve(rel, must_exist=False, for_write=writing)
    created = False
    if note.exists:
        content = _existing(vault, note.rel, note.abs, found)
    elif not writing:
        raise NoteNotFound(note.rel)
    else:
        template = _template_text(vault, settings.template)
        if template is None:
            found.append(warnings.template_missing(settings.template))
        content = render_template(template or "", day, settings.format, moment_now)
        try:
            created = notes.write_note(vault, locks, note.rel, content, mode="create").created
        except NoteExists:  # created by someone else a moment ago: theirs wins
            content = _existing(vault, note.rel, note.abs, found)
    return DailyNoteResult(path=note.rel, created=created, content=content, warnings=found)
