"""Daily and periodic notes, the way Obsidian's core Daily notes plugin and the Periodic Notes
community plugin make them: the note of the day, week, month, quarter or year holding a date.

Where folder, format and template come from, first match wins:

1. The Periodic Notes plugin (`.obsidian/plugins/periodic-notes/data.json`), for a period it has
   enabled, unless `.obsidian/community-plugins.json` lists the enabled community plugins without
   it (the plugin is installed but turned off; without that list its settings are used). Both of
   its layouts are read:
   * 1.x: `calendarSets: [{id, day: {enabled, format, folder, templatePath}, week: {...}, month,
     quarter, year}]`, the set named by `activeCalendarSet` (else the first); it wins whenever it
     holds a set, since the plugin migrates the old keys only when it has none;
   * 0.x: top-level `daily`, `weekly`, `monthly`, `quarterly`, `yearly`, each `{enabled, format,
     folder, template}`.
2. For days: `.obsidian/daily-notes.json` (`folder`, `format`, `template`), the core plugin.
3. Otherwise the plugins' defaults: the vault root, no template, and the formats `YYYY-MM-DD`,
   `gggg-[W]ww`, `YYYY-MM`, `YYYY-[Q]Q`, `YYYY`.

An empty format means the default; anything unusable (not JSON, not text) falls back to the
default with a `DAILY_SETTINGS_IGNORED` warning.

The note of a period is named after the period's first day, `folder/format(first day).md` (a `/`
in the format makes subfolders), as the plugin names the note it opens. Weeks run as the format
counts them (`moment.week_spec_of`): from Sunday with moment's English locale weeks (`gggg`,
`ww`: week 1 holds January 1st), from Monday with ISO weeks (`GGGG`, `WW`), so a date always
lands in the week its note's name says.

A new note starts from the template filled by `templates.render` (variables: `templates`'s
docstring). Creation goes through `notes.write_note(mode="create")`, so it is atomic,
path-checked, and never replaces a note created concurrently.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from obsidian_mcp import warnings
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault import notes, templates
from obsidian_mcp.vault.config import community_plugin_enabled, read_object, text_setting
from obsidian_mcp.vault.errors import InvalidArgument, NoteExists, NoteNotFound, VaultError
from obsidian_mcp.vault.moment import PERIODS, Period, format_moment, start_of, week_spec_of
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.results import DailyNoteResult
from obsidian_mcp.vault.storage import PathLocks, decode_note, map_os_error, read_bytes

DAILY_CONFIG = "daily-notes.json"
DAILY_LABEL = "the daily notes settings file"
PLUGIN_ID = "periodic-notes"
PLUGIN_CONFIG = "plugins/periodic-notes/data.json"
PLUGIN_LABEL = "the Periodic Notes settings file"
DEFAULT_FORMAT = "YYYY-MM-DD"
DEFAULT_FORMATS: dict[Period, str] = {
    "day": DEFAULT_FORMAT,
    "week": "gggg-[W]ww",
    "month": "YYYY-MM",
    "quarter": "YYYY-[Q]Q",
    "year": "YYYY",
}
NOTE_KINDS: dict[Period, str] = {
    "day": "daily",
    "week": "weekly",
    "month": "monthly",
    "quarter": "quarterly",
    "year": "yearly",
}
MAX_CONTENT_CHARS = 20_000
TIME_FORMAT = "HH:mm"

_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class PeriodicSettings:
    """Folder, format and template of one period's notes, and what was wrong with the settings."""

    folder: str = ""
    format: str = DEFAULT_FORMAT
    template: str = ""
    problems: tuple[str, ...] = field(default_factory=tuple)


def _plugin_config(root: Path, period: Period, problems: list[str]) -> dict[str, Any] | None:
    """The Periodic Notes plugin's settings for `period`, when the plugin is on and the period enabled."""
    if community_plugin_enabled(root, PLUGIN_ID) is False:
        return None
    found = read_object(root, PLUGIN_CONFIG, PLUGIN_LABEL)
    if found.problem:
        problems.append(found.problem)
    if not isinstance(found.data, dict):
        return None
    sets = found.data.get("calendarSets")
    config: Any
    if isinstance(sets, list) and sets:
        usable = [one for one in sets if isinstance(one, dict)]
        active = found.data.get("activeCalendarSet")
        chosen = next((one for one in usable if one.get("id") == active), usable[0] if usable else {})
        config = chosen.get(period)
    else:
        config = found.data.get(NOTE_KINDS[period])
    if not isinstance(config, dict) or config.get("enabled") is not True:
        return None
    return config


def load_settings(root: Path, period: Period = "day") -> PeriodicSettings:
    """Folder, format and template of `period`'s notes (the precedence of the module docstring)."""
    problems: list[str] = []
    config = _plugin_config(root, period, problems)
    label = PLUGIN_LABEL
    template_key = "template"
    if config is not None:
        template_key = "templatePath" if "templatePath" in config else "template"
    elif period == "day":
        found = read_object(root, DAILY_CONFIG, DAILY_LABEL)
        problems += [found.problem] if found.problem else []
        config, label = (found.data if isinstance(found.data, dict) else {}), DAILY_LABEL
    else:
        config = {}
    folder = text_setting(config, "folder", label, problems).strip("/")
    pattern = text_setting(config, "format", label, problems)
    template = text_setting(config, template_key, label, problems)
    template = "" if template == "/" else template  # the plugin's "no template"
    return PeriodicSettings(folder, pattern or DEFAULT_FORMATS[period], template, tuple(problems))


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


def parse_period(value: str) -> Period:
    for period in PERIODS:
        if value == period:
            return period
    raise InvalidArgument("period", "invalid_value", "'period' must be one of day, week, month, quarter, year")


def _template(vault: Vault, template: str) -> tuple[str, str] | None:
    """(path, text) of the template ("", "" when there is none); None when it is missing or unusable."""
    if not template:
        return "", ""
    try:
        return templates.read_template(vault, template)
    except VaultError:
        return None


def _existing(vault: Vault, rel: str, abs: Path, found: list[ToolWarning]) -> str:
    """The text of an existing note, cut at `MAX_CONTENT_CHARS` with a warning."""
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
    period: str = "day",
    may_write: bool = True,
    now: dt.datetime | None = None,
) -> DailyNoteResult:
    """The note of the `period` holding `date` (default today, local time): returned if it
    exists, else created from the template when `create` and `may_write`, else `NoteNotFound`."""
    unit = parse_period(period)
    kind = NOTE_KINDS[unit]
    moment_now = now or dt.datetime.now()
    day = parse_date(date, moment_now.date())
    settings = load_settings(vault.root, unit)
    found = [warnings.daily_settings_ignored(problem) for problem in settings.problems]
    pattern = settings.format
    week = week_spec_of(pattern)
    first = start_of(day, unit, week)
    name = format_moment(first, pattern, week).strip().strip("/")
    if not name:
        pattern = DEFAULT_FORMATS[unit]
        found.append(warnings.daily_settings_ignored(f"the {kind} note format gives an empty name; used {pattern}"))
        week = week_spec_of(pattern)
        first = start_of(day, unit, week)
        name = format_moment(first, pattern, week)
    rel = f"{settings.folder}/{name}" if settings.folder else name
    writing = create and may_write
    note = vault.resolve(rel, must_exist=False, for_write=writing)
    created = False
    if note.exists:
        content = _existing(vault, note.rel, note.abs, found)
    elif not writing:
        raise NoteNotFound(note.rel)
    else:
        template = _template(vault, settings.template)
        if template is None:
            found.append(warnings.template_missing(settings.template, kind))
        path, text = template or ("", "")
        variables = templates.Variables(
            title=name.rsplit("/", 1)[-1],
            moment=dt.datetime.combine(first, moment_now.time()),
            date_format=pattern,
            time_format=TIME_FORMAT,
            period=unit,
            week=week,
        )
        content, problems = templates.fill(text, path, variables)
        try:
            created = notes.write_note(vault, locks, note.rel, content, mode="create").created
            found += problems
        except NoteExists:  # created by someone else a moment ago: theirs wins
            content = _existing(vault, note.rel, note.abs, found)
    return DailyNoteResult(path=note.rel, created=created, content=content, warnings=found)
