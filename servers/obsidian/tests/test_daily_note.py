"""Daily and periodic notes: paths over formats and dates, the settings layouts and their precedence,
templates, Obsidian's defaults."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from obsidian_mcp.vault.daily import daily_note, load_settings, parse_date
from obsidian_mcp.vault.errors import InvalidArgument, NoteNotFound, PathRefused
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks
from obsidian_mcp.vault.templates import Variables, render

DAY = dt.date(2026, 11, 23)  # a Monday, ISO week 48
NOW = dt.datetime(2026, 11, 23, 9, 5, 7)


def test_daily_template_variables() -> None:
    template = (
        "{{title}} | {{date}} | {{time}} | {{date:dddd, MMMM Do}} | {{ time : HH[h]mm }} | "
        "{{date+1d:YYYY-MM-DD}} | {{date-1M:YYYY-MM}} | {{yesterday}} | {{tomorrow}} | {{unknown}}"
    )
    variables = Variables(
        title="2026-11-23", moment=NOW, date_format="YYYY/MM/YYYY-MM-DD", time_format="HH:mm", period="day"
    )
    assert render(template, variables) == (
        "2026-11-23 | 2026/11/2026-11-23 | 09:05 | Monday, November 23rd | 09h05 | "
        "2026-11-24 | 2026-10 | 2026/11/2026-11-22 | 2026/11/2026-11-24 | {{unknown}}"
    )


def test_dates_are_iso_or_invalid() -> None:
    assert parse_date(None, DAY) == DAY
    assert parse_date("2024-02-29", DAY) == dt.date(2024, 2, 29)
    for bad in ("2023-02-29", "2026-13-01", "23/11/2026", "20261123", "", "2026-11-23T10:00", "٢٠٢٦-١١-٢٣"):
        with pytest.raises(InvalidArgument) as caught:
            parse_date(bad, DAY)
        assert caught.value.field == "date"


def vault_with(tmp_path: Path, config: object | None, files: dict[str, str] | None = None) -> Vault:
    root = tmp_path / "vault"
    (root / ".obsidian").mkdir(parents=True)
    if config is not None:
        text = config if isinstance(config, str) else json.dumps(config)
        (root / ".obsidian" / "daily-notes.json").write_text(text, encoding="utf-8")
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return Vault(root)


def test_a_missing_note_is_created_from_the_template(tmp_path: Path) -> None:
    vault = vault_with(
        tmp_path,
        {"folder": "Journal/", "format": "YYYY/MM-MMMM/YYYY-MM-DD ddd", "template": "Templates/Daily.md"},
        {"Templates/Daily.md": '---\ndate: "{{date:YYYY-MM-DD}}"\n---\n# {{title}}\n\nCreated {{time}}\n'},
    )
    result = daily_note(vault, PathLocks(), "2026-11-23", now=NOW)
    assert result.path == "Journal/2026/11-November/2026-11-23 Mon.md" and result.created is True
    assert result.content == '---\ndate: "2026-11-23"\n---\n# 2026-11-23 Mon\n\nCreated 09:05\n'
    assert (vault.root / result.path).read_text(encoding="utf-8") == result.content
    assert result.warnings == []
    again = daily_note(vault, PathLocks(), "2026-11-23", now=NOW)
    assert again.created is False and again.content == result.content


def test_obsidian_defaults_without_settings(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, None)
    assert load_settings(vault.root).format == "YYYY-MM-DD"
    result = daily_note(vault, PathLocks(), None, now=NOW)
    assert (result.path, result.created, result.content, result.warnings) == (
        "2026-11-23.md",
        True,
        "",
        [],
    )


@pytest.mark.parametrize("config", ["{not json", "[1, 2]", {"folder": 7, "format": ["x"]}])
def test_invalid_settings_fall_back_to_defaults_with_a_warning(tmp_path: Path, config: object) -> None:
    vault = vault_with(tmp_path, config)
    result = daily_note(vault, PathLocks(), "2026-11-23", now=NOW)
    assert result.path == "2026-11-23.md"
    assert result.warnings and all(w.code == "DAILY_SETTINGS_IGNORED" for w in result.warnings)


def test_a_missing_template_makes_an_empty_note_and_a_warning(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, {"folder": "Daily", "template": "Templates/Gone"})
    result = daily_note(vault, PathLocks(), "2026-11-23", now=NOW)
    assert result.created and result.content == ""
    assert [w.code for w in result.warnings] == ["TEMPLATE_MISSING"]


def test_missing_notes_are_not_found_without_create_or_in_read_only_mode(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, {"folder": "Daily"})
    with pytest.raises(NoteNotFound) as caught:
        daily_note(vault, PathLocks(), "2026-11-22", create=False, now=NOW)
    assert caught.value.path == "Daily/2026-11-22.md"
    with pytest.raises(NoteNotFound):
        daily_note(vault, PathLocks(), "2026-11-22", may_write=False, now=NOW)
    assert not (vault.root / "Daily").exists()


def test_settings_cannot_lead_outside_the_vault(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, {"folder": "../elsewhere"})
    with pytest.raises(PathRefused):
        daily_note(vault, PathLocks(), "2026-11-23", now=NOW)
    vault = vault_with(tmp_path / "b", {"folder": ".hidden"})
    with pytest.raises(PathRefused):
        daily_note(vault, PathLocks(), "2026-11-23", now=NOW)
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "b" / "vault" / ".hidden").exists()


def test_a_long_existing_note_is_truncated_with_a_warning(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, None, {"2026-11-23.md": "x" * 25_000})
    result = daily_note(vault, PathLocks(), "2026-11-23", now=NOW)
    assert len(result.content) == 20_000 and result.created is False
    assert result.warnings[0].model_dump() == {
        "code": "CONTENT_TRUNCATED",
        "message": "returned 20000 of 25000 characters; read the rest with read_note(path, offset=20000)",
        "next_offset": 20_000,
    }


def test_the_sample_vault_settings(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[3] / "examples" / "vault"
    settings = load_settings(sample)
    assert (settings.folder, settings.format, settings.template) == ("Daily", "YYYY-MM-DD", "Templates/Daily")


# -- periodic notes -------------------------------------------------------------------------------

PLUGIN = ".obsidian/plugins/periodic-notes/data.json"


def periodic_vault(tmp_path: Path, plugin: object | None = None, files: dict[str, str] | None = None) -> Vault:
    """A vault with the Periodic Notes plugin's settings (`plugin`, or none) and `files`."""
    texts = dict(files or {})
    if plugin is not None:
        texts[PLUGIN] = plugin if isinstance(plugin, str) else json.dumps(plugin)
    return vault_with(tmp_path, None, texts)


@pytest.mark.parametrize(
    ("period", "date", "expected"),
    [
        ("day", "2026-11-23", "2026-11-23.md"),
        ("week", "2026-11-23", "2026-W48.md"),  # Monday
        ("week", "2026-11-22", "2026-W48.md"),  # Sunday: English locale weeks start on Sunday
        ("week", "2026-11-21", "2026-W47.md"),  # Saturday
        ("week", "2026-12-31", "2027-W01.md"),  # the week holding January 1st is week 1
        ("week", "2022-12-31", "2022-W53.md"),  # a locale week 53
        ("week", "2023-01-01", "2023-W01.md"),
        ("month", "2026-11-23", "2026-11.md"),
        ("month", "2026-01-31", "2026-01.md"),
        ("quarter", "2026-11-23", "2026-Q4.md"),
        ("quarter", "2026-03-31", "2026-Q1.md"),
        ("quarter", "2026-04-01", "2026-Q2.md"),
        ("year", "2026-11-23", "2026.md"),
        ("year", "2027-01-01", "2027.md"),
    ],
)
def test_periods_use_the_plugins_default_formats_without_settings(
    tmp_path: Path, period: str, date: str, expected: str
) -> None:
    result = daily_note(periodic_vault(tmp_path), PathLocks(), date, period=period, now=NOW)
    assert (result.path, result.created, result.warnings) == (expected, True, [])


@pytest.mark.parametrize(
    ("pattern", "date", "expected"),
    [
        ("GGGG-[W]WW", "2026-11-23", "2026-W48"),  # ISO weeks start on Monday...
        ("GGGG-[W]WW", "2026-11-22", "2026-W47"),  # ...so this Sunday is still in week 47
        ("GGGG-[W]WW", "2027-01-01", "2026-W53"),  # ISO week 53 across the year boundary
        ("GGGG-[W]WW", "2027-01-03", "2026-W53"),
        ("GGGG-[W]WW", "2027-01-04", "2027-W01"),
        ("gggg-[W]ww", "2027-01-03", "2027-W02"),
        ("YYYY-MM-DD [week]", "2026-11-25", "2026-11-22 week"),  # named after the week's first day
        ("gggg/[W]ww/[notes]", "2026-11-25", "2026/W48/notes"),  # '/' makes folders
        ("GGGG-[W]WW (MMM D)", "2026-11-25", "2026-W48 (Nov 23)"),
    ],
)
def test_weekly_note_names_over_formats_and_dates(tmp_path: Path, pattern: str, date: str, expected: str) -> None:
    settings = {"weekly": {"enabled": True, "folder": "Weekly/", "format": pattern, "template": ""}}
    result = daily_note(periodic_vault(tmp_path, settings), PathLocks(), date, period="week", now=NOW)
    assert result.path == f"Weekly/{expected}.md"


def test_the_old_settings_layout(tmp_path: Path) -> None:
    settings = {
        "showGettingStartedBanner": False,
        "daily": {"enabled": True, "folder": "Journal/Days", "format": "YYYY/MM-DD", "template": ""},
        "weekly": {"enabled": True, "folder": "Journal/Weeks", "format": "GGGG-[W]WW", "template": "T/Week"},
        "monthly": {"enabled": False, "folder": "Ignored", "format": "MMMM", "template": ""},
        "quarterly": {"enabled": True, "folder": "", "format": "", "template": ""},
    }
    vault = periodic_vault(tmp_path, settings, {"T/Week.md": "# {{title}}\n"})
    assert daily_note(vault, PathLocks(), "2026-11-23", now=NOW).path == "Journal/Days/2026/11-23.md"
    week = daily_note(vault, PathLocks(), "2026-11-23", period="week", now=NOW)
    assert (week.path, week.content) == ("Journal/Weeks/2026-W48.md", "# 2026-W48\n")
    assert daily_note(vault, PathLocks(), "2026-11-23", period="month", now=NOW).path == "2026-11.md"  # disabled
    assert daily_note(vault, PathLocks(), "2026-11-23", period="quarter", now=NOW).path == "2026-Q4.md"


def test_the_new_settings_layout_uses_the_active_calendar_set(tmp_path: Path) -> None:
    week = {"enabled": True, "openAtStartup": False, "folder": "Other", "format": "gggg", "templatePath": ""}
    settings = {
        "activeCalendarSet": "Work",
        "calendarSets": [
            {"id": "Default", "ctime": "x", "week": week},
            {
                "id": "Work",
                "ctime": "x",
                "day": {"enabled": False, "folder": "Nope", "format": "", "templatePath": ""},
                "week": {"enabled": True, "folder": "/", "format": "", "templatePath": "T/Week.md"},
                "month": {"enabled": True, "folder": "Months", "format": "YYYY-MM MMMM", "templatePath": "/"},
            },
        ],
        "weekly": {"enabled": True, "folder": "Legacy", "format": "YYYY", "template": ""},  # not read: sets win
    }
    vault = periodic_vault(tmp_path, settings, {"T/Week.md": "week of {{sunday:MMM D}}\n"})
    weekly = daily_note(vault, PathLocks(), "2026-11-25", period="week", now=NOW)
    assert (weekly.path, weekly.content) == ("2026-W48.md", "week of Nov 22\n")
    monthly = daily_note(vault, PathLocks(), "2026-11-25", period="month", now=NOW)
    assert (monthly.path, monthly.content, monthly.warnings) == ("Months/2026-11 November.md", "", [])
    # the active set's day is disabled: the core Daily notes settings (none here) apply
    assert daily_note(vault, PathLocks(), "2026-11-25", now=NOW).path == "2026-11-25.md"


def test_an_unknown_active_set_means_the_first(tmp_path: Path) -> None:
    settings = {
        "activeCalendarSet": "Gone",
        "calendarSets": [{"id": "A", "year": {"enabled": True, "folder": "Years", "format": "[Y]YYYY"}}],
    }
    result = daily_note(periodic_vault(tmp_path, settings), PathLocks(), "2026-11-25", period="year", now=NOW)
    assert result.path == "Years/Y2026.md"


def test_days_prefer_the_plugin_then_daily_notes_json(tmp_path: Path) -> None:
    plugin = {"daily": {"enabled": True, "folder": "FromPlugin", "format": "DD.MM.YYYY", "template": ""}}
    core = {"folder": "FromCore", "format": "YYYY-MM-DD"}
    vault = vault_with(tmp_path, core, {PLUGIN: json.dumps(plugin)})
    assert daily_note(vault, PathLocks(), "2026-11-23", now=NOW).path == "FromPlugin/23.11.2026.md"
    plugin["daily"]["enabled"] = False
    (vault.root / PLUGIN).write_text(json.dumps(plugin), encoding="utf-8")
    assert daily_note(vault, PathLocks(), "2026-11-23", now=NOW).path == "FromCore/2026-11-23.md"


@pytest.mark.parametrize(
    ("community_plugins", "used"),
    [(None, True), ('["calendar", "periodic-notes"]', True), ('["calendar"]', False), ("[]", False), ("{bad", True)],
)
def test_the_plugins_settings_count_only_while_it_is_enabled(
    tmp_path: Path, community_plugins: str | None, used: bool
) -> None:
    files = {} if community_plugins is None else {".obsidian/community-plugins.json": community_plugins}
    plugin = {"weekly": {"enabled": True, "folder": "Weeks", "format": "gggg-[W]ww"}}
    vault = periodic_vault(tmp_path, plugin, files)
    result = daily_note(vault, PathLocks(), "2026-11-23", period="week", now=NOW)
    assert result.path == ("Weeks/2026-W48.md" if used else "2026-W48.md")


@pytest.mark.parametrize(
    ("plugin", "problem"),
    [
        ("{not json", "the Periodic Notes settings file is not readable JSON and was ignored"),
        ("[1]", "the Periodic Notes settings file is not a JSON object and was ignored"),
        (
            {"weekly": {"enabled": True, "folder": ["x"], "format": "gggg-[W]ww"}},
            "'folder' in the Periodic Notes settings file is not text and was ignored",
        ),
    ],
)
def test_unusable_plugin_settings_fall_back_with_a_warning(tmp_path: Path, plugin: object, problem: str) -> None:
    result = daily_note(periodic_vault(tmp_path, plugin), PathLocks(), "2026-11-23", period="week", now=NOW)
    assert result.path == "2026-W48.md"
    assert [(w.code, w.message) for w in result.warnings] == [("DAILY_SETTINGS_IGNORED", problem)]


@pytest.mark.parametrize(
    ("period", "pattern", "template", "expected"),
    [
        (
            "week",
            "gggg-[W]ww",
            "{{title}}: {{sunday:ddd D}}–{{saturday:ddd D}}, {{monday:YYYY-MM-DD}} | {{date}} | "
            "{{date:YYYY-MM-DD HH:mm}} | {{date+1w:[W]ww}} | {{yesterday}}",
            "2026-W48: Sun 22–Sat 28, 2026-11-23 | 2026-W48 | 2026-11-22 09:05 | W49 | {{yesterday}}",
        ),
        (
            "week",
            "GGGG-[W]WW",
            "{{monday:D}}..{{sunday:D}} {{date:YYYY-MM-DD}}",
            "23..29 2026-11-23",  # an ISO week runs Monday to Sunday
        ),
        (
            "month",
            "YYYY-MM",
            "{{title}} {{month:MMMM}} {{month+1M:YYYY-MM}} {{date:D}} {{time}} {{quarter}}",
            "2026-11 November 2026-12 1 09:05 {{quarter}}",
        ),
        ("quarter", "YYYY-[Q]Q", "{{quarter:Qo [quarter of] YYYY}} {{quarter-1Q}}", "4th quarter of 2026 2026-Q3"),
        ("year", "YYYY", "{{year}} {{year+1y:YY}} {{date:MM-DD}}", "2026 27 01-01"),
        ("day", "YYYY-MM-DD", "{{yesterday}} {{tomorrow}} {{monday:D}}", "2026-11-24 2026-11-26 {{monday:D}}"),
    ],
)
def test_periodic_template_variables(tmp_path: Path, period: str, pattern: str, template: str, expected: str) -> None:
    key = {"day": "daily", "week": "weekly", "month": "monthly", "quarter": "quarterly", "year": "yearly"}[period]
    settings = {key: {"enabled": True, "format": pattern, "template": "T/Period"}}
    vault = periodic_vault(tmp_path, settings, {"T/Period.md": template})
    result = daily_note(vault, PathLocks(), "2026-11-25", period=period, now=NOW)
    assert result.content == expected and result.warnings == []


def test_templater_syntax_is_copied_with_a_warning(tmp_path: Path) -> None:
    template = "# {{title}}\n<% tp.date.now() %>\n<%* tR += 'x' %>\n"
    settings = {"weekly": {"enabled": True, "template": "T/Week"}}
    vault = periodic_vault(tmp_path, settings, {"T/Week.md": template})
    result = daily_note(vault, PathLocks(), "2026-11-25", period="week", now=NOW)
    assert result.content == "# 2026-W48\n<% tp.date.now() %>\n<%* tR += 'x' %>\n"
    assert [w.model_dump() for w in result.warnings] == [
        {
            "code": "TEMPLATE_UNSUPPORTED_SYNTAX",
            "message": "the template 'T/Week.md' uses Templater syntax (<% ... %>), which this server does not run; "
            "it was copied into the note as written",
            "template": "T/Week.md",
            "lines": [2, 3],
        }
    ]


def test_a_missing_periodic_template_names_the_period(tmp_path: Path) -> None:
    settings = {"monthly": {"enabled": True, "template": "T/Gone"}}
    result = daily_note(periodic_vault(tmp_path, settings), PathLocks(), "2026-11-25", period="month", now=NOW)
    assert (result.created, result.content) == (True, "")
    assert [w.message for w in result.warnings] == [
        "the monthly note template 'T/Gone' was not found; the note was created empty"
    ]


def test_an_existing_periodic_note_is_found_from_any_day_of_its_period(tmp_path: Path) -> None:
    vault = periodic_vault(tmp_path, None, {"2026-W48.md": "mine\n"})
    for day in ("2026-11-22", "2026-11-25", "2026-11-28"):
        found = daily_note(vault, PathLocks(), day, period="week", create=False, now=NOW)
        assert (found.path, found.created, found.content) == ("2026-W48.md", False, "mine\n")
    with pytest.raises(NoteNotFound):
        daily_note(vault, PathLocks(), "2026-11-29", period="week", create=False, now=NOW)


def test_an_unknown_period_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument) as caught:
        daily_note(periodic_vault(tmp_path), PathLocks(), "2026-11-25", period="fortnight", now=NOW)
    assert (caught.value.field, caught.value.reason) == ("period", "invalid_value")
