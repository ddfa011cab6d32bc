"""Templates as the core Templates plugin fills them: settings, variables, the templates folder,
write_note(template=...), and Templater syntax left alone."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from obsidian_mcp.vault.errors import InvalidArgument, NoteExists, NoteNotFound, PathRefused
from obsidian_mcp.vault.notes import write_note
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks
from obsidian_mcp.vault.templates import Variables, find_template, load_settings, render, templater_lines

NOW = dt.datetime(2026, 11, 23, 9, 5, 7)


def vault_with(tmp_path: Path, settings: object | None, files: dict[str, str]) -> Vault:
    root = tmp_path / "vault"
    (root / ".obsidian").mkdir(parents=True)
    if settings is not None:
        text = settings if isinstance(settings, str) else json.dumps(settings)
        (root / ".obsidian" / "templates.json").write_text(text, encoding="utf-8")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return Vault(root)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{title}}", "Weekly Sync"),
        ("{{date}} {{time}}", "2026-11-23 09:05"),
        ("{{date:dddd D MMMM}} at {{time:h:mm a}}", "Monday 23 November at 9:05 am"),
        ("{{ DATE : YYYY }} {{Title}}", "2026 Weekly Sync"),  # case and spaces as Obsidian allows
        ("{{time:YYYY-MM-DD}}", "2026-11-23"),  # time with a format is the same moment
        (
            "{{date+1d:YYYY-MM-DD}} {{yesterday}} {{monday:D}} {{month}}",
            "{{date+1d:YYYY-MM-DD}} {{yesterday}} {{monday:D}} {{month}}",
        ),  # the periodic plugins' additions are not the Templates plugin's
        ("{{unknown}} {{}} {date} {{date", "{{unknown}} {{}} {date} {{date"),
        ("", ""),
    ],
)
def test_core_template_variables(template: str, expected: str) -> None:
    variables = Variables(title="Weekly Sync", moment=NOW)
    assert render(template, variables) == expected


def test_date_and_time_formats_come_from_the_settings() -> None:
    variables = Variables(title="x", moment=NOW, date_format="DD.MM.YYYY", time_format="HH[h]mm")
    assert render("{{date}} {{time}} {{date:YYYY}}", variables) == "23.11.2026 09h05 2026"


@pytest.mark.parametrize(
    ("settings", "expected", "problems"),
    [
        (None, ("", "YYYY-MM-DD", "HH:mm"), []),
        ({"folder": "Templates/"}, ("Templates", "YYYY-MM-DD", "HH:mm"), []),
        ({"folder": "T", "dateFormat": "DD/MM", "timeFormat": ""}, ("T", "DD/MM", "HH:mm"), []),
        ("{oops", ("", "YYYY-MM-DD", "HH:mm"), ["the templates settings file is not readable JSON and was ignored"]),
        (
            {"folder": 3, "dateFormat": "D"},
            ("", "D", "HH:mm"),
            ["'folder' in the templates settings file is not text and was ignored"],
        ),
    ],
)
def test_settings(tmp_path: Path, settings: object, expected: tuple[str, str, str], problems: list[str]) -> None:
    loaded = load_settings(vault_with(tmp_path, settings, {}).root)
    assert (loaded.folder, loaded.date_format, loaded.time_format) == expected
    assert list(loaded.problems) == problems


def test_templater_blocks_are_found_by_line() -> None:
    assert templater_lines("a\n<% x %> and <%* y %>\n\n<%_\nmulti\n_%>\n{{title}}") == [2, 2, 4]
    assert templater_lines("100% <not templater> %>") == []


def test_templates_are_found_in_the_templates_folder(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, {"folder": "Templates"}, {"Templates/Meeting.md": "m", "Templates/Sub/Deep.md": "d"})
    settings = load_settings(vault.root)
    assert find_template(vault, "Meeting", settings) == ("Templates/Meeting.md", "m")
    assert find_template(vault, "Meeting.md", settings) == ("Templates/Meeting.md", "m")
    assert find_template(vault, "Templates/Meeting", settings) == ("Templates/Meeting.md", "m")
    assert find_template(vault, "Sub/Deep", settings) == ("Templates/Sub/Deep.md", "d")
    with pytest.raises(NoteNotFound) as caught:
        find_template(vault, "Gone", settings)
    assert (caught.value.resource, caught.value.path) == ("template", "Templates/Gone.md")
    for hostile in ("../outside", "/etc/passwd", ".obsidian/app"):
        with pytest.raises(PathRefused):
            find_template(vault, hostile, settings)


# -- write_note with a template ---------------------------------------------------------------------

MEETING = '---\ntitle: "{{title}}"\ndate: {{date}}\n---\n# {{title}}\n\nStarted {{time}}\n'


@pytest.mark.parametrize(
    ("content", "template", "expected"),
    [
        (None, MEETING, '---\ntitle: "Sync"\ndate: 2026-11-23\n---\n# Sync\n\nStarted 09:05\n'),
        ("- agenda\n", MEETING, '---\ntitle: "Sync"\ndate: 2026-11-23\n---\n# Sync\n\nStarted 09:05\n- agenda\n'),
        ("body", "no final line break", "no final line break\nbody"),  # content goes on a line of its own
        ("", "only {{title}}", "only Sync"),
        ("body", "", "body"),
    ],
)
def test_write_note_from_a_template(tmp_path: Path, content: str | None, template: str, expected: str) -> None:
    vault = vault_with(tmp_path, {"folder": "Templates"}, {"Templates/Meeting.md": template})
    result = write_note(vault, PathLocks(), "Meetings/Sync", content, template="Meeting", now=NOW)
    assert (result.path, result.created, result.warnings) == ("Meetings/Sync.md", True, [])
    assert (vault.root / "Meetings" / "Sync.md").read_text(encoding="utf-8") == expected


def test_write_note_template_warnings(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, '{"folder": "Templates", "timeFormat": 5}', {"Templates/T.md": "<% tp.x %> {{time}}"})
    result = write_note(vault, PathLocks(), "Note", None, template="T", now=NOW)
    assert [w.code for w in result.warnings] == ["TEMPLATE_SETTINGS_IGNORED", "TEMPLATE_UNSUPPORTED_SYNTAX"]
    assert result.warnings[1].model_dump()["lines"] == [1]
    assert (vault.root / "Note.md").read_text(encoding="utf-8") == "<% tp.x %> 09:05"


def test_write_note_without_a_templates_folder_takes_a_vault_path(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, None, {"Stuff/T.md": "{{title}} {{date}}"})
    write_note(vault, PathLocks(), "New", None, template="Stuff/T", now=NOW)
    assert (vault.root / "New.md").read_text(encoding="utf-8") == "New 2026-11-23"


def test_write_note_refusals_change_nothing(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, {"folder": "Templates"}, {"Templates/T.md": "t", "Exists.md": "mine"})
    with pytest.raises(NoteNotFound) as missing:
        write_note(vault, PathLocks(), "New", "x", template="Gone", now=NOW)
    assert missing.value.resource == "template"
    with pytest.raises(InvalidArgument) as neither:
        write_note(vault, PathLocks(), "New", None, now=NOW)
    assert (neither.value.field, neither.value.reason) == ("content", "missing")
    with pytest.raises(NoteExists):
        write_note(vault, PathLocks(), "Exists", None, template="T", now=NOW)
    assert not (vault.root / "New.md").exists()
    assert (vault.root / "Exists.md").read_text(encoding="utf-8") == "mine"
    write_note(vault, PathLocks(), "Exists", "more", mode="overwrite", template="T", now=NOW)
    assert (vault.root / "Exists.md").read_text(encoding="utf-8") == "t\nmore"
