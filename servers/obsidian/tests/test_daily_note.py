"""Daily notes: moment formats, folders from the format, templates, Obsidian's defaults."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from obsidian_mcp.vault.daily import daily_note, load_settings, parse_date, render_template
from obsidian_mcp.vault.errors import InvalidArgument, NoteNotFound, PathRefused
from obsidian_mcp.vault.moment import format_moment, ordinal
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks

DAY = dt.date(2026, 11, 23)  # a Monday, ISO week 48
NOW = dt.datetime(2026, 11, 23, 9, 5, 7)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("YYYY-MM-DD", "2026-11-23"),
        ("YY.M.D", "26.11.23"),
        ("DDD DDDD", "327 327"),
        ("ddd, MMM Do", "Mon, Nov 23rd"),
        ("dddd, MMMM D, YYYY", "Monday, November 23, 2026"),
        ("[Week] ww, gggg", "Week 48, 2026"),
        ("GGGG-[W]WW-E", "2026-W48-1"),
        ("W w Wo", "48 48 48th"),
        ("Q Qo [quarter]", "4 4th quarter"),
        ("YYYY/MM/YYYY-MM-DD", "2026/11/2026-11-23"),
        ("[YYYY] \\D", "YYYY D"),
        ("d dd e", "1 Mo 1"),
        ("HH:mm:ss A h a", "09:05:07 AM 9 am"),
    ],
)
def test_moment_formats(pattern: str, expected: str) -> None:
    assert format_moment(NOW, pattern) == expected


def test_iso_weeks_across_the_year_boundary_and_ordinals() -> None:
    assert format_moment(dt.date(2027, 1, 1), "GGGG-[W]WW gggg-ww YYYY") == "2026-W53 2026-53 2027"
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip


def test_template_variables() -> None:
    template = (
        "{{title}} | {{date}} | {{time}} | {{date:dddd, MMMM Do}} | {{ time : HH[h]mm }} | "
        "{{date+1d:YYYY-MM-DD}} | {{date-1M:YYYY-MM}} | {{yesterday}} | {{tomorrow}} | {{unknown}}"
    )
    assert render_template(template, DAY, "YYYY/MM/YYYY-MM-DD", NOW) == (
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
