"""Changing one task's status, byte for byte, the way the Tasks plugin does (`update_task`).

Only the status character between the brackets changes, and for a task the Tasks plugin manages,
its done and cancelled dates. A task is in the Tasks plugin's emoji format when it carries one of
its emoji (📅 ⏳ 🛫 ✅ ➕ ❌ 🔁 or a priority), and in its Dataview format when it carries one of
the same fields as a bracketed inline field (`[due:: 2026-11-20]`, `(repeat:: every week)`, ...).
Completing (`x`/`X` from any other status) writes today's done date at the end of the line,
before a `^block-id` (` ✅ YYYY-MM-DD` / ` [completion:: YYYY-MM-DD]`), or replaces one already
there; reopening (from `x`/`X` to another status) removes it. Cancelling (`-` from another
status) writes the cancelled date the same way (` ❌ YYYY-MM-DD` / ` [cancelled:: YYYY-MM-DD]`),
and leaving `-` removes it. A plain task (neither format) only has its character changed. Every
other byte of the note stays as it was: line endings, indentation, the bullet, the rest of the text.

The caller names the line (1-based, as `query_notes` gives it) and what it expects there: the
whole line, or the task's text after the checkbox. Anything else means the note changed or lines
moved since it was read (`TaskLineChanged`); a line that is not a task (`- [ ] ...` outside code
and frontmatter) is an `InvalidArgument` on `line`.

Recurring tasks. Completing a task with `🔁 rule` (or `[repeat:: rule]`) writes its next
occurrence on a new line just above it, as the Tasks plugin does by default: the same line,
status ` `, no done or cancelled date nor block id, and its dates moved. The reference date is
the due date, else the scheduled, else the start date; the next one is the rule's first date
after it (after today with `when done`), and every date moves by the same number of days. Rules:
`every [N] day(s)`, `week(s)`, `month(s)` (the day clamped to the month's end, as Tasks does),
`year(s)`, `every weekday`, `every week on Monday[, Friday...]`, each optionally `when done`.
Other rules complete the task without a next occurrence (`next_created: false`,
`RECURRENCE_NOT_CREATED`).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from obsidian_mcp import warnings
from obsidian_mcp.dataview.extract import scan_body
from obsidian_mcp.dataview.list_items import LIST_LINE, without_code_spans
from obsidian_mcp.models import ToolWarning
from obsidian_mcp.vault.edits import newline_of
from obsidian_mcp.vault.errors import InvalidArgument, TaskLineChanged
from obsidian_mcp.vault.markdown import body_start
from obsidian_mcp.vault.notes import rewrite_note
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.results import TaskUpdateResult
from obsidian_mcp.vault.storage import PathLocks, etag_of

DONE = frozenset("xX")
CANCELLED = "-"
TASKS_EMOJI = frozenset(
    "\U0001f4c5\U0001f4c6\U0001f5d3\u23f3\u231b\U0001f6eb\u2705\u2795\u274c\U0001f501\U0001f53a\u23eb\U0001f53c\U0001f53d\u23ec"
)
_ISO = r"\d{4}-\d{2}-\d{2}"


def _stamp_pattern(emoji: str, field: str) -> re.Pattern[str]:
    """A done or cancelled date in either format (` ✅ 2026-11-26` / ` [completion:: 2026-11-26]`),
    with the blanks before it."""
    return re.compile(f"[ \t]*(?:{emoji}\ufe0f?[ \t]*{_ISO}|[\\[(]{field}::[ \t]*{_ISO}[ \t]*[\\])])")


_DONE_DATE = _stamp_pattern("\u2705", "completion")
_CANCELLED_DATE = _stamp_pattern("\u274c", "cancelled")
# The Tasks plugin's fields in its Dataview format: a task carrying one of them is managed like an emoji one.
_DATAVIEW_TASK_FIELD = re.compile(r"[\[(](?:due|scheduled|start|created|completion|cancelled|repeat|priority)::", re.I)
_BLOCK_ID = re.compile(r"[ \t]+\^[A-Za-z0-9-]+[ \t]*$")
_TRAILING = re.compile(r"(?:[ \t]+\^[A-Za-z0-9-]+)?[ \t]*$")
_RECURRENCE = re.compile("\U0001f501\ufe0f?[ \t]*([a-zA-Z0-9, !]+)|[\\[(]repeat::[ \t]*([a-zA-Z0-9, !]+)[\\])]", re.I)
# The dates a next occurrence moves, by the emoji that marks them (Dataview reads the variants too).
_DATE_MARKS = {
    "due": "\U0001f4c5\U0001f4c6\U0001f5d3",
    "scheduled": "\u23f3\u231b",
    "start": "\U0001f6eb",
}
_DATES = {
    name: re.compile(f"([{marks}]\ufe0f?[ \t]*|[\\[(]{name}::[ \t]*)(\\d{{4}}-\\d{{2}}-\\d{{2}})")
    for name, marks in _DATE_MARKS.items()
}
_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")  # not the locale's
_WEEKDAYS = {name: number for number, name in enumerate(_DAY_NAMES)} | {
    name[:3]: number for number, name in enumerate(_DAY_NAMES)
}
_RULE = re.compile(
    r"every(?:\s+(?P<count>\d+))?\s+(?P<unit>day|week|month|year)s?(?:\s+on\s+(?P<days>[a-z, ]+?))?"
    r"(?P<done>\s+when\s+done)?",
    re.IGNORECASE,
)
_WEEKDAY_RULE = re.compile(r"every\s+weekday(?P<done>\s+when\s+done)?", re.IGNORECASE)
MAX_LINE_ECHO = 500  # characters of the current line an error repeats


@dataclass(frozen=True)
class _Line:
    number: int
    start: int  # offset of the line in the note
    end: int  # offset after its text (before any \r\n or \n)
    text: str
    ending: str  # "\r\n", "\n" or "" for a last line without one


def update_task(
    vault: Vault,
    locks: PathLocks,
    path: str,
    line: int,
    expected_text: str,
    status: str,
    *,
    today: date | None = None,
) -> TaskUpdateResult:
    """Set the status character of the task on `line` (see the module docstring)."""
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        raise InvalidArgument("line", "out_of_range", "line must be a line number, 1 or more")
    if not isinstance(expected_text, str):
        raise InvalidArgument("expected_text", "invalid_type", "expected_text must be a string")
    if not isinstance(status, str) or len(status) != 1 or status in "[]\r\n\t":
        raise InvalidArgument(
            "status", "invalid_value", "status must be one character: ' ' (open), 'x' (done), '/', '-', ..."
        )
    day = today if today is not None else date.today()
    outcome: list[_Change] = []

    def change(text: str, rel: str) -> str:
        done = _change(text, rel, line, expected_text, status, day)
        outcome.append(done)
        return done.text

    rewrite_note(vault, locks, path, change)
    done = outcome[0]
    return TaskUpdateResult(
        path=done.rel,
        line=done.line,
        text=done.line_text,
        etag=etag_of(done.text.encode("utf-8")),
        next_created=done.next_text is not None,
        next_text=done.next_text,
        warnings=done.warnings,
    )


@dataclass(frozen=True)
class _Change:
    rel: str
    text: str  # the whole note after the change
    line: int
    line_text: str
    next_text: str | None
    warnings: list[ToolWarning]


def _find_line(text: str, number: int, rel: str) -> _Line:
    start = 0
    for _ in range(number - 1):
        found = text.find("\n", start)
        if found == -1:
            start = len(text) + 1
            break
        start = found + 1
    if start >= len(text) and not (number == 1 and not text):
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        raise InvalidArgument("line", "out_of_range", f"{rel} has {lines} line(s); line {number} is not one of them")
    newline = text.find("\n", start)
    end = len(text) if newline == -1 else newline
    ending = "" if newline == -1 else "\n"
    if end > start and text[end - 1] == "\r" and ending:
        end, ending = end - 1, "\r\n"
    return _Line(number, start, end, text[start:end], ending)


def _checkbox(text: str, found: _Line, rel: str) -> tuple[int, str]:
    """(offset of the status character in the line, the task's text as `query_notes` gives it)."""
    offset = body_start(text)
    first_body_line = text.count("\n", 0, offset) + 1
    match = LIST_LINE.fullmatch(found.text)
    item = None
    if found.number >= first_body_line and match is not None and match.group("rest") is not None:
        wanted = found.number - first_body_line + 1
        item = next((i for i in scan_body(text[offset:]).items if i.line == wanted and i.task), None)
    if item is None or match is None:
        raise InvalidArgument(
            "line", "not_a_task", f"line {found.number} of {rel} is not a task (a '- [ ] ...' list item outside code)"
        )
    position = match.start("rest") + 1
    if found.text[position - 1 : position + 2 : 2] != "[]":
        raise InvalidArgument("line", "not_a_task", f"line {found.number} of {rel} is not a task")
    return position, item.text


def _change(text: str, rel: str, number: int, expected: str, status: str, today: date) -> _Change:
    found = _find_line(text, number, rel)
    if expected != found.text:
        match = LIST_LINE.fullmatch(found.text)
        after_box = (match.group("rest") or "")[3:].lstrip(" \t") if match else None
        task_text = _task_text_or_none(text, found, rel)
        if expected not in (after_box, task_text) or not expected:
            raise TaskLineChanged(rel, number, found.text[:MAX_LINE_ECHO])
    position, _ = _checkbox(text, found, rel)
    old = found.text[position]
    if old == status:
        return _Change(rel, text, number, found.text, None, [])
    line_text = found.text[:position] + status + found.text[position + 1 :]
    style = _style(found.text)
    completing, reopening = status in DONE and old not in DONE, old in DONE and status not in DONE
    if style is not None:
        if completing:
            line_text = _with_date(line_text, _DONE_DATE, style.done(today))
        elif reopening:
            line_text = _DONE_DATE.sub("", line_text)
        if status == CANCELLED and old != CANCELLED:
            line_text = _with_date(line_text, _CANCELLED_DATE, style.cancelled(today))
        elif old == CANCELLED and status != CANCELLED:
            line_text = _CANCELLED_DATE.sub("", line_text)
    next_text: str | None = None
    notes: list[ToolWarning] = []
    rule = _RECURRENCE.search(without_code_spans(found.text))
    if completing and rule is not None:
        rule_text = (rule.group(1) or rule.group(2)).strip()
        next_text = _next_occurrence(found.text, position, rule_text, today)
        if next_text is None:
            notes.append(warnings.recurrence_not_created(rule_text))
    new_text = text[: found.start] + line_text + text[found.end :]
    if next_text is None:
        return _Change(rel, new_text, number, line_text, None, notes)
    ending = found.ending or newline_of(text) or "\n"
    new_text = text[: found.start] + next_text + ending + line_text + text[found.end :]
    return _Change(rel, new_text, number + 1, line_text, next_text, notes)


def _task_text_or_none(text: str, found: _Line, rel: str) -> str | None:
    try:
        return _checkbox(text, found, rel)[1]
    except InvalidArgument:
        return None


@dataclass(frozen=True)
class _Style:
    """How the Tasks plugin writes a task's done and cancelled dates in one of its two formats."""

    done_mark: str
    cancelled_mark: str
    closing: str

    def done(self, day: date) -> str:
        return f" {self.done_mark}{day.isoformat()}{self.closing}"

    def cancelled(self, day: date) -> str:
        return f" {self.cancelled_mark}{day.isoformat()}{self.closing}"


_EMOJI_STYLE = _Style("\u2705 ", "\u274c ", "")
_DATAVIEW_STYLE = _Style("[completion:: ", "[cancelled:: ", "]")


def _style(line: str) -> _Style | None:
    """The Tasks plugin format `line` is written in (emoji first), or None for a plain task."""
    visible = without_code_spans(line)
    if any(char in TASKS_EMOJI for char in visible):
        return _EMOJI_STYLE
    return _DATAVIEW_STYLE if _DATAVIEW_TASK_FIELD.search(visible) else None


def _with_date(line: str, existing: re.Pattern[str], stamp: str) -> str:
    """`line` with `stamp` (e.g. ` ✅ 2026-11-26`) replacing the first date `existing` finds, else
    added at the end of the line, before a `^block-id` and trailing blanks."""
    if existing.search(line):
        return existing.sub(lambda m: stamp, line, count=1)
    tail = _TRAILING.search(line)
    cut = tail.start() if tail is not None else len(line)
    return line[:cut] + stamp + line[cut:]


# -- recurrence ---------------------------------------------------------------------------------


def _next_occurrence(line: str, position: int, rule_text: str, today: date) -> str | None:
    """The next occurrence's line, or None when the rule is not one we compute."""
    parsed = _parse_rule(rule_text)
    if parsed is None:
        return None
    step, when_done = parsed
    dates = {name: _date_in(line, name) for name in _DATES}
    reference = dates["due"] or dates["scheduled"] or dates["start"]
    base = today if when_done or reference is None else reference
    shift = (step(base) - base).days + ((base - reference).days if reference is not None else 0)
    text = line[:position] + " " + line[position + 1 :]
    for name, pattern in _DATES.items():
        if dates[name] is not None:
            text = pattern.sub(
                lambda m: m.group(1) + (date.fromisoformat(m.group(2)) + timedelta(days=shift)).isoformat(), text
            )
    text = _DONE_DATE.sub("", text)
    text = _CANCELLED_DATE.sub("", text)
    return _BLOCK_ID.sub("", text)


def _date_in(line: str, name: str) -> date | None:
    match = _DATES[name].search(without_code_spans(line))
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(2))
    except ValueError:
        return None


Step = Callable[[date], date]


def _parse_rule(rule: str) -> tuple[Step, bool] | None:
    """(the first date after a given one, whether it counts from the completion) for the rules
    we compute; None for others."""
    rule = " ".join(rule.split())
    if match := _WEEKDAY_RULE.fullmatch(rule):
        return _next_weekday(frozenset(range(5))), bool(match.group("done"))
    match = _RULE.fullmatch(rule)
    if match is None:
        return None
    count = int(match.group("count") or 1)
    unit = match.group("unit").lower()
    when_done = bool(match.group("done"))
    if count < 1:
        return None
    if match.group("days"):
        if unit != "week" or count != 1:
            return None
        names = [part.strip().lower() for part in re.split(r",|\band\b", match.group("days")) if part.strip()]
        days = {_WEEKDAYS.get(name) for name in names}
        if None in days or not days:
            return None
        return _next_weekday(frozenset(day for day in days if day is not None)), when_done
    if unit == "day":
        return (lambda d: d + timedelta(days=count)), when_done
    if unit == "week":
        return (lambda d: d + timedelta(weeks=count)), when_done
    if unit == "month":
        return (lambda d: _add_months(d, count)), when_done
    return (lambda d: _add_months(d, 12 * count)), when_done


def _next_weekday(days: frozenset[int]) -> Step:
    def step(start: date) -> date:
        moved = start + timedelta(days=1)
        while moved.weekday() not in days:
            moved += timedelta(days=1)
        return moved

    return step


def _add_months(start: date, months: int) -> date:
    """`months` later on the same day, or the month's last day when it is shorter (Jan 31 → Feb 28)."""
    index = start.year * 12 + start.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(start.day, calendar.monthrange(year, month + 1)[1]))
