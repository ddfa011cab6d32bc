"""Durations and the calendar arithmetic Dataview does with them.

A `Duration` keeps two parts: calendar `months` (a year is 12) and exact `seconds` (a week is 7
days, a day 86,400 seconds). Adding one to a date adds the months on the calendar first (the day
clamped to the month's length, so Jan 31 + 1 month is Feb 28/29), then the seconds, as luxon does.
Comparing durations uses luxon's "casual" conversion (a month is 30 days), so `dur(1 month) =
dur(30 days)` is true here, where luxon's unit-by-unit `equals` says false.
"""

from __future__ import annotations

import calendar
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.grammar import DURATION_PATTERN

DAY = 86_400.0
MONTH_AS_SECONDS = 30 * DAY  # luxon's casual matrix

# unit name -> (months, seconds) per unit
_UNITS: dict[str, tuple[float, float]] = {}
for _names, _factor in (
    (("years", "year", "yrs", "yr"), (12.0, 0.0)),
    (("months", "month", "mos", "mo"), (1.0, 0.0)),
    (("weeks", "week", "wks", "wk", "w"), (0.0, 7 * DAY)),
    (("days", "day", "d"), (0.0, DAY)),
    (("hours", "hour", "hrs", "hr", "h"), (0.0, 3600.0)),
    (("minutes", "minute", "mins", "min", "m"), (0.0, 60.0)),
    (("seconds", "second", "secs", "sec", "s"), (0.0, 1.0)),
):
    for _name in _names:
        _UNITS[_name] = _factor

_FULL_DURATION = re.compile(rf"\s*{DURATION_PATTERN}\s*")
_PART = re.compile(r"(-?\d+(?:\.\d+)?)\s*([a-z]+)")


@dataclass(frozen=True, slots=True)
class Duration:
    """A span of time: calendar months plus exact seconds."""

    months: float = 0.0
    seconds: float = 0.0

    def casual_seconds(self) -> float:
        return self.months * MONTH_AS_SECONDS + self.seconds

    def __add__(self, other: Duration) -> Duration:
        return Duration(self.months + other.months, self.seconds + other.seconds)

    def __sub__(self, other: Duration) -> Duration:
        return Duration(self.months - other.months, self.seconds - other.seconds)

    def __neg__(self) -> Duration:
        return Duration(-self.months, -self.seconds)

    def scaled(self, factor: float) -> Duration:
        return Duration(self.months * factor, self.seconds * factor)

    def in_unit(self, unit: str) -> float | None:
        """The whole duration expressed in `unit` (`dur.days`, `dur.hours`, ...), or None for an
        unknown unit. Months count as 30 days and years as 365, as luxon's `shiftTo` does."""
        factor = {
            "year": 365 * DAY,
            "years": 365 * DAY,
            "month": MONTH_AS_SECONDS,
            "months": MONTH_AS_SECONDS,
            "weeks": 7 * DAY,
            "day": DAY,
            "days": DAY,
            "hour": 3600.0,
            "hours": 3600.0,
            "minute": 60.0,
            "minutes": 60.0,
            "second": 1.0,
            "seconds": 1.0,
            "millisecond": 0.001,
            "milliseconds": 0.001,
        }.get(unit)
        if factor is None:
            return None
        if unit.startswith("year"):
            return self.months / 12 + self.seconds / factor
        return _tidy(self.casual_seconds() / factor)

    def components(self) -> list[tuple[str, float]]:
        """(unit, amount) pairs, largest first, zero amounts left out: years and months from the
        calendar part, weeks down to milliseconds from the exact part."""
        parts: list[tuple[str, float]] = []
        years, months = _split(self.months, 12.0)
        parts += [("year", years), ("month", months)]
        rest = self.seconds
        for unit, size in (("week", 7 * DAY), ("day", DAY), ("hour", 3600.0), ("minute", 60.0), ("second", 1.0)):
            amount, rest = _split(rest, size)
            parts.append((unit, amount))
        parts.append(("millisecond", round(rest * 1000, 3)))
        return [(unit, _tidy(amount)) for unit, amount in parts if amount]

    def iso(self) -> str:
        """ISO 8601 (`P1M2DT3H`); weeks are written as days, each part carries its own sign."""
        parts = dict(self.components())
        days = parts.get("week", 0) * 7 + parts.get("day", 0)
        seconds = parts.get("second", 0) + parts.get("millisecond", 0) / 1000
        date_part = "".join(
            f"{_number(v)}{u}" for u, v in (("Y", parts.get("year", 0)), ("M", parts.get("month", 0)), ("D", days)) if v
        )
        time_part = "".join(
            f"{_number(v)}{u}"
            for u, v in (("H", parts.get("hour", 0)), ("M", parts.get("minute", 0)), ("S", seconds))
            if v
        )
        if not date_part and not time_part:
            return "PT0S"
        return "P" + date_part + (f"T{time_part}" if time_part else "")

    def human(self) -> str:
        """Dataview's display form: `1 month, 2 days`."""
        words = [f"{_number(v)} {u}{'' if abs(v) == 1 else 's'}" for u, v in self.components()]
        return ", ".join(words) if words else "0 seconds"


def _split(value: float, size: float) -> tuple[float, float]:
    whole = math.trunc(value / size)
    return float(whole), value - whole * size


def _tidy(value: float) -> float:
    rounded = round(value, 9)
    return float(int(rounded)) if rounded == int(rounded) else rounded


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def parse_duration(text: str) -> Duration | None:
    """Dataview's duration syntax (`7 days`, `1 week`, `4hr2min`, `1 day, 2 hours`), or None."""
    if not _FULL_DURATION.fullmatch(text):
        return None
    total = Duration()
    for amount, unit in _PART.findall(text):
        months, seconds = _UNITS[unit]
        total = total + Duration(months * float(amount), seconds * float(amount))
    return total


def add_months(moment: datetime, months: int) -> datetime:
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def shift(moment: datetime, duration: Duration) -> datetime:
    """`moment + duration`: calendar months first, then exact time."""
    try:
        whole = math.trunc(duration.months)
        extra = (duration.months - whole) * MONTH_AS_SECONDS
        return add_months(moment, whole) + timedelta(seconds=duration.seconds + extra)
    except (OverflowError, ValueError) as exc:
        raise EvalError(f"date arithmetic out of range: {exc}") from exc


def between(later: datetime, earlier: datetime) -> Duration:
    """`later - earlier` as whole calendar months plus the exact rest (luxon's `diff`)."""
    if later < earlier:
        return -between(earlier, later)
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    while months > 0 and add_months(earlier, months) > later:
        months -= 1
    rest = later - add_months(earlier, months)
    return Duration(float(months), rest.total_seconds())
