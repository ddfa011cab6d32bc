"""Dates as Dataview reads and shows them.

Every date value in the engine is a naive `datetime` in local time: an aware datetime (a page's
mtime, a literal with an offset like `2024-01-05T10:00:00+02:00`) is converted to the machine's
local time and made naive, where luxon keeps the zone. A date without a time is midnight.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from obsidian_mcp.dataview.durations import add_months
from obsidian_mcp.dataview.grammar import DATE_REGEX

_DATE = re.compile(DATE_REGEX)
MONTH_NAMES = "January February March April May June July August September October November December".split()  # noqa: SIM905
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_END_OF_DAY = time(23, 59, 59, 999_000)


def naive(moment: datetime) -> datetime:
    """A naive local datetime for any datetime (aware ones are converted to local time)."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone().replace(tzinfo=None)


def from_date(day: date) -> datetime:
    return datetime.combine(day, time())


def parse_date(text: str) -> datetime | None:
    """Dataview's ISO-like date syntax `YYYY-MM[-DD[THH[:mm[:ss[.SSS][zone]]]]]`, or None.

    A zone (`Z`, `+02:00`, `[Europe/Paris]`) is only read after the seconds, as Dataview does; the
    result is converted to local time. Impossible dates (`2024-02-30`) are not dates.
    """
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    part = match.groupdict()
    try:
        moment = datetime(
            int(part["year"]),
            int(part["month"]),
            int(part["day"] or 1),
            int(part["hour"] or 0),
            int(part["minute"] or 0),
            int(part["second"] or 0),
            int(part["milli"] or 0) * 1000,
        )
        zone = part["zone"]
        if zone is None:
            return moment
        if zone == "Z":
            return naive(moment.replace(tzinfo=UTC))
        if zone.startswith("["):
            return naive(moment.replace(tzinfo=ZoneInfo(zone[1:-1])))
        hours, _, minutes = zone[1:].partition(":")
        offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
        return naive(moment.replace(tzinfo=timezone(-offset if zone[0] == "-" else offset)))
    except (ValueError, KeyError, OverflowError):  # impossible date, unknown zone name
        return None


def shorthand(name: str, now: datetime, today: date) -> datetime:
    """`date(today)`, `date(sow)`, `date(end-of-month)`, ... relative to `now` / `today`.

    Weeks start on Monday; `eow`/`eom`/`eoy` are the last millisecond of the period, as in luxon.
    """
    midnight = from_date(today)
    week_start = midnight - timedelta(days=today.weekday())
    month_start = midnight.replace(day=1)
    year_start = midnight.replace(month=1, day=1)
    end = timedelta(milliseconds=1)
    table = {
        "now": now,
        "today": midnight,
        "yesterday": midnight - timedelta(days=1),
        "tomorrow": midnight + timedelta(days=1),
        "sow": week_start,
        "start-of-week": week_start,
        "eow": week_start + timedelta(days=7) - end,
        "end-of-week": week_start + timedelta(days=7) - end,
        "som": month_start,
        "start-of-month": month_start,
        "eom": add_months(month_start, 1) - end,
        "end-of-month": add_months(month_start, 1) - end,
        "soy": year_start,
        "start-of-year": year_start,
        "eoy": year_start.replace(year=year_start.year + 1) - end,
        "end-of-year": year_start.replace(year=year_start.year + 1) - end,
    }
    return table[name]


def is_midnight(moment: datetime) -> bool:
    return moment.hour == moment.minute == moment.second == moment.microsecond == 0


def iso(moment: datetime) -> str:
    """`2024-01-05` for a date at midnight, else `2024-01-05T10:30:00` (milliseconds if any)."""
    if is_midnight(moment):
        return moment.date().isoformat()
    return moment.isoformat(timespec="milliseconds" if moment.microsecond else "seconds")


def display(moment: datetime) -> str:
    """Dataview's default rendering: `January 05, 2024`, or `3:15 PM - January 05, 2024`."""
    day = f"{MONTH_NAMES[moment.month - 1]} {moment.day:02d}, {moment.year}"
    if moment.hour == moment.minute == moment.second == 0:
        return day
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'} - {day}"


def date_part(moment: datetime, unit: str) -> int | None:
    """`d.year`, `d.month`, `d.weekyear`, `d.week`, `d.weekday`, ... as Dataview defines them."""
    match unit:
        case "year":
            return moment.year
        case "month":
            return moment.month
        case "weekyear":
            return moment.isocalendar().week
        case "week":
            return moment.day // 7 + 1
        case "weekday":
            return moment.isoweekday()
        case "day":
            return moment.day
        case "hour":
            return moment.hour
        case "minute":
            return moment.minute
        case "second":
            return moment.second
        case "millisecond":
            return moment.microsecond // 1000
    return None
