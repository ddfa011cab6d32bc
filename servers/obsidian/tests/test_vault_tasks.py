"""update_task in the domain: one status character changed byte for byte, done dates the Tasks
plugin's way, and the next occurrence of a recurring task with its dates moved by its rule."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from obsidian_mcp.vault.errors import InvalidArgument, TaskLineChanged
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks, etag_of
from obsidian_mcp.vault.tasks import update_task

TODAY = date(2024, 5, 1)  # a Wednesday


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    (tmp_path / "v").mkdir()
    return Vault(tmp_path / "v")


def complete(vault: Vault, line_text: str, *, status: str = "x", before: str = "", after: str = "") -> tuple[str, str]:
    """(the note's text after completing `line_text`, the next occurrence's line or '')."""
    note = vault.root / "T.md"
    note.write_text(before + line_text + "\n" + after, encoding="utf-8")
    number = before.count("\n") + 1
    done = update_task(vault, PathLocks(), "T", number, line_text, status, today=TODAY)
    text = note.read_text(encoding="utf-8")
    assert done.etag == etag_of(text.encode())
    return text, done.next_text or ""


@pytest.mark.parametrize(
    ("line", "next_line"),
    [
        ("- [ ] a 🔁 every day 📅 2024-05-03", "- [ ] a 🔁 every day 📅 2024-05-04"),
        ("- [ ] a 🔁 every 3 days 📅 2024-05-03", "- [ ] a 🔁 every 3 days 📅 2024-05-06"),
        ("- [ ] a 🔁 every week ⏳ 2024-05-03 📅 2024-05-05", "- [ ] a 🔁 every week ⏳ 2024-05-10 📅 2024-05-12"),
        ("- [ ] a 🔁 every 2 weeks 🛫 2024-04-01", "- [ ] a 🔁 every 2 weeks 🛫 2024-04-15"),
        ("- [ ] a 🔁 every month 📅 2024-01-31", "- [ ] a 🔁 every month 📅 2024-02-29"),
        ("- [ ] a 🔁 every 2 months 📅 2024-12-15", "- [ ] a 🔁 every 2 months 📅 2025-02-15"),
        ("- [ ] a 🔁 every year 📅 2024-02-29", "- [ ] a 🔁 every year 📅 2025-02-28"),
        ("- [ ] a 🔁 every weekday 📅 2024-05-03", "- [ ] a 🔁 every weekday 📅 2024-05-06"),
        (
            "- [ ] a 🔁 every week on Monday, Thursday 📅 2024-05-06",
            "- [ ] a 🔁 every week on Monday, Thursday 📅 2024-05-09",
        ),
        ("- [ ] a 🔁 every week on friday 📅 2024-05-03", "- [ ] a 🔁 every week on friday 📅 2024-05-10"),
        # when done: from today (2024-05-01), every date moved by the same number of days
        (
            "- [ ] a 🔁 every week when done ⏳ 2024-04-20 📅 2024-04-22",
            "- [ ] a 🔁 every week when done ⏳ 2024-05-06 📅 2024-05-08",
        ),
        ("- [ ] a 🔁 every day when done", "- [ ] a 🔁 every day when done"),
        # no dates: the next one has none either; other metadata kept, block id and done/cancelled dates not
        ("  * [/] a ⏫ #tag 🔁 every day ➕ 2024-04-01 ^abc", "  * [ ] a ⏫ #tag 🔁 every day ➕ 2024-04-01"),
    ],
)
def test_the_next_occurrence_follows_the_rule(vault: Vault, line: str, next_line: str) -> None:
    text, written = complete(vault, line, before="# Tasks\n", after="tail\n")
    assert written == next_line
    done = line.replace("[ ]", "[x]", 1).replace("[/]", "[x]", 1)
    if done.endswith(" ^abc"):
        done = done[: -len(" ^abc")] + " ✅ 2024-05-01 ^abc"
    else:
        done += " ✅ 2024-05-01"
    assert text == f"# Tasks\n{next_line}\n{done}\ntail\n"


@pytest.mark.parametrize(
    "rule", ["every month on the 1st", "every 2 weeks on Monday", "every fortnight", "every day at noon"]
)
def test_other_rules_complete_without_a_next_occurrence(vault: Vault, rule: str) -> None:
    note = vault.root / "T.md"
    note.write_text(f"- [ ] rent 🔁 {rule} 📅 2024-05-01\n", encoding="utf-8")
    done = update_task(vault, PathLocks(), "T", 1, f"rent 🔁 {rule} 📅 2024-05-01", "x", today=TODAY)
    assert (done.next_created, done.line) == (False, 1)
    assert [(w.code, getattr(w, "rule", None)) for w in done.warnings] == [("RECURRENCE_NOT_CREATED", rule)]
    assert note.read_text(encoding="utf-8") == f"- [x] rent 🔁 {rule} 📅 2024-05-01 ✅ 2024-05-01\n"


def test_a_done_date_already_there_is_replaced_and_other_statuses_leave_it(vault: Vault) -> None:
    text, _ = complete(vault, "- [-] stale ✅ 2020-01-01 📅 2024-05-01")
    assert text == "- [x] stale ✅ 2024-05-01 📅 2024-05-01\n"
    text, _ = complete(vault, "- [x] keep ✅ 2020-01-01", status="X")
    assert text == "- [X] keep ✅ 2020-01-01\n"  # from done to done: nothing else changes
    text, _ = complete(vault, "- [ ] plain task", status="-")
    assert text == "- [-] plain task\n"
    text, _ = complete(vault, "- [ ] `📅 2024-05-01` only in code")
    assert text == "- [x] `📅 2024-05-01` only in code\n"  # emoji in code do not make it a Tasks task


def test_only_the_task_line_changes_whatever_the_encoding_of_the_rest(vault: Vault) -> None:
    note = vault.root / "T.md"
    data = "\ufeff---\r\ntags: [x]\r\n---\r\nCafé\u2028still line 4\r\n- [ ] Ünïcode task\r\nno final break".encode()
    note.write_bytes(data)
    done = update_task(vault, PathLocks(), "T", 5, "- [ ] Ünïcode task", "x", today=TODAY)
    assert note.read_bytes() == data.replace("- [ ] Ünïcode".encode(), "- [x] Ünïcode".encode())
    assert (done.line, done.text, done.next_created) == (5, "- [x] Ünïcode task", False)


def test_a_recurring_task_on_the_last_line_without_a_break(vault: Vault) -> None:
    note = vault.root / "T.md"
    note.write_bytes(b"a\r\n- [ ] r \xf0\x9f\x94\x81 every day \xf0\x9f\x93\x85 2024-05-01")
    done = update_task(vault, PathLocks(), "T", 2, "r 🔁 every day 📅 2024-05-01", "x", today=TODAY)
    assert note.read_bytes().decode() == (
        "a\r\n- [ ] r 🔁 every day 📅 2024-05-02\r\n- [x] r 🔁 every day 📅 2024-05-01 ✅ 2024-05-01"
    )
    assert done.line == 3


def test_expected_text_is_the_whole_line_or_the_task_text(vault: Vault) -> None:
    note = vault.root / "T.md"
    note.write_text("- [ ] first\n  continued\n- [ ] second\n", encoding="utf-8")
    locks = PathLocks()
    assert update_task(vault, locks, "T", 1, "first\ncontinued", "x", today=TODAY).text == "- [x] first"
    assert update_task(vault, locks, "T", 3, "second", "x", today=TODAY).text == "- [x] second"
    assert update_task(vault, locks, "T", 3, "- [x] second", " ", today=TODAY).text == "- [ ] second"
    for stale in ("- [ ] first", "continued", "secon", "", " second"):
        with pytest.raises(TaskLineChanged):
            update_task(vault, locks, "T", 1 if "first" in stale else 3, stale, "x", today=TODAY)
    with pytest.raises(InvalidArgument) as caught:
        update_task(vault, locks, "T", 2, "  continued", "x", today=TODAY)
    assert (caught.value.field, caught.value.reason) == ("line", "not_a_task")
    assert note.read_text(encoding="utf-8") == "- [x] first\n  continued\n- [ ] second\n"


@pytest.mark.parametrize(
    ("line", "status", "after"),
    [
        # Cancelling writes the cancelled date the way the Tasks plugin does; leaving '-' removes it.
        ("- [ ] a 📅 2024-05-03", "-", "- [-] a 📅 2024-05-03 ❌ 2024-05-01"),
        ("- [ ] a 📅 2024-05-03 ^id", "-", "- [-] a 📅 2024-05-03 ❌ 2024-05-01 ^id"),
        ("- [-] a 📅 2024-05-03 ❌ 2024-04-02", " ", "- [ ] a 📅 2024-05-03"),
        ("- [-] a ❌ 2024-04-02", "x", "- [x] a ✅ 2024-05-01"),
        ("- [x] a ✅ 2024-04-02", "-", "- [-] a ❌ 2024-05-01"),
        ("- [-] a ❌ 2024-04-02", "/", "- [/] a"),
        # The Tasks plugin's Dataview format: the same dates as bracketed inline fields.
        ("- [ ] a [due:: 2024-05-03]", "x", "- [x] a [due:: 2024-05-03] [completion:: 2024-05-01]"),
        ("- [x] a [due:: 2024-05-03] [completion:: 2024-04-30]", " ", "- [ ] a [due:: 2024-05-03]"),
        ("- [ ] a (priority:: high) ^b1", "-", "- [-] a (priority:: high) [cancelled:: 2024-05-01] ^b1"),
        ("- [-] a [due:: 2024-05-03] [cancelled:: 2024-04-30]", " ", "- [ ] a [due:: 2024-05-03]"),
        # A plain task, or a field that is not one of the Tasks plugin's: only the character changes.
        ("- [ ] a", "-", "- [-] a"),
        ("- [ ] a [owner:: Sam]", "x", "- [x] a [owner:: Sam]"),
        ("- [ ] a `[due:: 2024-05-03]`", "x", "- [x] a `[due:: 2024-05-03]`"),
    ],
)
def test_done_and_cancelled_dates_in_both_formats(vault: Vault, line: str, status: str, after: str) -> None:
    text, next_line = complete(vault, line, status=status, before="# T\n", after="tail\n")
    assert text == "# T\n" + after + "\ntail\n" and next_line == ""


@pytest.mark.parametrize(
    ("line", "next_line"),
    [
        (
            "- [ ] a [repeat:: every week] [due:: 2024-05-03]",
            "- [ ] a [repeat:: every week] [due:: 2024-05-10]",
        ),
        (
            "- [ ] a (repeat:: every month when done) [scheduled:: 2024-04-10] [start:: 2024-04-01] ^x",
            "- [ ] a (repeat:: every month when done) [scheduled:: 2024-06-01] [start:: 2024-05-23]",
        ),
    ],
)
def test_a_dataview_format_recurrence_creates_the_next_occurrence(vault: Vault, line: str, next_line: str) -> None:
    text, created = complete(vault, line)
    assert created == next_line
    done_line = text.splitlines()[1]
    assert (
        text.splitlines()[0] == next_line
        and done_line.startswith("- [x] a ")
        and "[completion:: 2024-05-01]" in done_line
    )
