"""Templates, filled the way Obsidian fills them: one engine for the core Templates plugin
(`write_note(template=...)`) and for daily and periodic notes (`daily_note`).

Variables, replaced wherever they appear (names in any case, spaces inside the braces allowed):

* `{{title}}` — the new note's name (the last part of its path, without `.md`);
* `{{date}}`, `{{time}}` — the moment in the default formats: for a template inserted by the
  Templates plugin, now, in its `dateFormat` (default `YYYY-MM-DD`) and `timeFormat` (default
  `HH:mm`) from `.obsidian/templates.json`; for a periodic note, the first day of its period at
  the current time of day, in the note's own format and `HH:mm`;
* `{{date:FORMAT}}`, `{{time:FORMAT}}` — the same moment in any moment.js format.

Periodic notes also have what the Periodic Notes plugin (and the daily-notes interface it builds
on) adds: offsets `{{date+1d:FORMAT}}` (units y, q, M, w, d, h, m, s); `{{yesterday}}` and
`{{tomorrow}}` for daily notes; `{{monday:FORMAT}}` ... `{{sunday:FORMAT}}` (that day of the
note's week) for weekly notes; `{{month}}`, `{{quarter}}`, `{{year}}` (with offsets and formats)
for monthly, quarterly and yearly notes. Anything else between braces stays as written.

Templater's syntax (`<% ... %>`, a community plugin running JavaScript) is not run: it is copied
verbatim and reported (`TEMPLATE_UNSUPPORTED_SYNTAX`) so the caller knows the note still holds it.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from obsidian_mcp import warnings
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault.config import read_object, text_setting
from obsidian_mcp.vault.errors import NoteNotFound
from obsidian_mcp.vault.moment import LOCALE_EN, Period, WeekSpec, format_moment, shifted, weekday
from obsidian_mcp.vault.paths import Vault, split_user_path
from obsidian_mcp.vault.storage import decode_note, map_os_error, read_bytes

TEMPLATES_CONFIG = "templates.json"
TEMPLATES_LABEL = "the templates settings file"
DEFAULT_DATE_FORMAT = "YYYY-MM-DD"
DEFAULT_TIME_FORMAT = "HH:mm"

_VARIABLE = re.compile(
    r"{{\s*(?P<name>[A-Za-z]+)\s*"
    r"(?:(?P<amount>[+-]\d{1,6})(?P<unit>[yYqQMwWdDhHms]))?\s*(?::(?P<format>[^}]*))?}}"
)
_TEMPLATER = re.compile(r"<%.*?%>", re.DOTALL)
_DAY_NAMES = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
MAX_REPORTED_LINES = 20


@dataclass(frozen=True)
class TemplateSettings:
    """The core Templates plugin's settings, with its defaults for what is missing."""

    folder: str = ""
    date_format: str = DEFAULT_DATE_FORMAT
    time_format: str = DEFAULT_TIME_FORMAT
    problems: tuple[str, ...] = field(default_factory=tuple)


def load_settings(root: Path) -> TemplateSettings:
    """`.obsidian/templates.json` (`folder`, `dateFormat`, `timeFormat`); absent → the defaults."""
    found = read_object(root, TEMPLATES_CONFIG, TEMPLATES_LABEL)
    problems = [found.problem] if found.problem else []
    data = found.data if isinstance(found.data, dict) else {}
    folder = text_setting(data, "folder", TEMPLATES_LABEL, problems).strip("/")
    date_format = text_setting(data, "dateFormat", TEMPLATES_LABEL, problems)
    time_format = text_setting(data, "timeFormat", TEMPLATES_LABEL, problems)
    return TemplateSettings(
        folder, date_format or DEFAULT_DATE_FORMAT, time_format or DEFAULT_TIME_FORMAT, tuple(problems)
    )


@dataclass(frozen=True)
class Variables:
    """What the variables of one template stand for. `moment` is the date they speak of, at the
    time of day they are filled. `period` is set for periodic notes only: it turns on offsets and
    the period's own variables; `week` is how that note's week runs (for the weekday names)."""

    title: str
    moment: dt.datetime
    date_format: str = DEFAULT_DATE_FORMAT
    time_format: str = DEFAULT_TIME_FORMAT
    period: Period | None = None
    week: WeekSpec = LOCALE_EN


def render(template: str, variables: Variables) -> str:
    """`template` with its variables replaced (see the module docstring); the rest as written."""

    def replace(match: re.Match[str]) -> str:
        value = _value(match, variables)
        return match.group() if value is None else value

    return _VARIABLE.sub(replace, template)


def _value(match: re.Match[str], v: Variables) -> str | None:
    """What one `{{...}}` becomes, or None to leave it as written."""
    name = match.group("name").lower()
    custom = (match.group("format") or "").strip()
    amount = match.group("amount")
    if amount and v.period is None:
        return None  # offsets are the periodic plugins' addition, not the Templates plugin's
    moment = shifted(v.moment, int(amount), match.group("unit")) if amount else v.moment
    if name == "title":
        return None if amount else v.title
    if name in ("date", "time"):
        default = v.date_format if name == "date" else v.time_format
        return format_moment(moment, custom or default, v.week)
    if v.period == "day" and name in ("yesterday", "tomorrow") and not amount and match.group("format") is None:
        day = v.moment + dt.timedelta(days=-1 if name == "yesterday" else 1)
        return format_moment(day, v.date_format, v.week)
    if v.period == "week" and name in _DAY_NAMES and not amount and custom:
        first = v.moment - dt.timedelta(days=(weekday(v.moment) - v.week.dow) % 7)
        day = first + dt.timedelta(days=(_DAY_NAMES.index(name) - v.week.dow) % 7)
        return format_moment(day, custom, v.week)
    if v.period is not None and v.period != "day" and name == v.period:
        return format_moment(moment, custom or v.date_format, v.week)
    return None


def templater_lines(template: str) -> list[int]:
    """The 1-based lines where Templater blocks (`<% ... %>`) start, at most `MAX_REPORTED_LINES`."""
    return [template.count("\n", 0, m.start()) + 1 for m in _TEMPLATER.finditer(template)][:MAX_REPORTED_LINES]


def fill(template: str, path: str, variables: Variables) -> tuple[str, list[ToolWarning]]:
    """The rendered template and what it could not do (Templater syntax, left as written)."""
    lines = templater_lines(template)
    found = [warnings.template_unsupported_syntax(path, lines)] if lines else []
    return render(template, variables), found


# -- finding templates ---------------------------------------------------------------------------


def read_template(vault: Vault, path: str) -> tuple[str, str]:
    """(vault path, text) of the template note at `path`; a missing one → `NoteNotFound` with
    `resource="template"`. Hidden or escaping paths are refused like any note path."""
    try:
        note = vault.resolve(path)
    except NoteNotFound as exc:
        raise NoteNotFound(exc.path, resource="template") from None
    try:
        return note.rel, decode_note(read_bytes(note.abs), note.rel)
    except OSError as exc:
        error = map_os_error(exc, vault.root, note.rel)
        if isinstance(error, NoteNotFound):
            raise NoteNotFound(note.rel, resource="template") from None
        raise error from None


def find_template(vault: Vault, name: str, settings: TemplateSettings) -> tuple[str, str]:
    """(vault path, text) of the template `name` in the templates folder: `name` is relative to
    the folder (`Meeting` is `Templates/Meeting.md`), or a vault path already inside it
    (`Templates/Meeting`). Without a templates folder, `name` is a vault path."""
    parts = split_user_path(name)  # refuses absolute, escaping and hidden names before anything else
    folder = settings.folder
    if not folder:
        return read_template(vault, name)
    relative = "/".join(parts)
    try:
        return read_template(vault, f"{folder}/{relative}")
    except NoteNotFound:
        if relative.casefold().startswith(folder.casefold() + "/"):
            return read_template(vault, relative)
        raise
