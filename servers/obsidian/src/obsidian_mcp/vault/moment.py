"""moment.js dates: formatting, week numbering, adding offsets and the start of a period, as
moment computes them, for the formats Obsidian users put in daily/periodic notes and templates.

Tokens (English names): `YYYY YY Y`, `Q Qo`, `M MM MMM MMMM Mo`, `D DD Do`, `DDD DDDD DDDo`
(day of year), `d do dd ddd dddd`, `e E`, `w ww wo W WW Wo`, `gg gggg ggggg GG GGGG GGGGG`,
`H HH h hh k kk`, `m mm s ss`, `A a`, `X x`. `[text]` is literal text and `\\x` a literal
character; anything else is copied as is.

Weeks come in two systems, as in moment:

* locale weeks (`w ww wo`, week-year `gg gggg`, weekday `e`) follow a `WeekSpec`: `dow`, the
  first day of the week (0 = Sunday), and `doy`, which fixes week 1 as the week holding January
  `7 + dow - doy`. The default is moment's English locale, `dow 0, doy 6`: weeks start on Sunday
  and week 1 is the one containing January 1st: 2026-12-31 is in week 1 of 2027, and 2022-12-31
  (a Saturday) in week 53 of 2022.
* ISO weeks (`W WW Wo`, `GG GGGG`, weekday `E`): weeks start on Monday and week 1 holds January
  4th (`dow 1, doy 4`), whatever the locale.

The arithmetic is moment's own (`firstWeekOffset`, `weekOfYear`, `weeksInYear` in its source),
so any `WeekSpec` works the way moment's `updateLocale` would; it was checked against moment
2.29.4 itself over 33 years of dates (English locale, ISO, and `dow 1, doy 6`, the Calendar
plugin's "start week on Monday").
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Period = Literal["day", "week", "month", "quarter", "year"]
PERIODS: tuple[Period, ...] = ("day", "week", "month", "quarter", "year")

_MONTHS = "January February March April May June July August September October November December".split()  # noqa: SIM905
_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

# Longest tokens first, as in moment's own formatting expression.
_TOKENS = re.compile(
    r"\[[^\[\]]*\]|\\.|YYYY|YY|Y|Qo|Q|MMMM|MMM|Mo|MM|M|DDDD|DDDo|DDD|Do|DD|D|dddd|ddd|dd|do|d|"
    r"wo|ww|w|Wo|WW|W|ggggg|gggg|gg|GGGGG|GGGG|GG|e|E|HH|H|hh|h|kk|k|mm|m|ss|s|A|a|X|x|.",
    re.DOTALL,
)
_LOCALE_WEEK_TOKENS = frozenset({"w", "ww", "wo", "gg", "gggg", "ggggg", "e"})
_ISO_WEEK_TOKENS = frozenset({"W", "WW", "Wo", "GG", "GGGG", "GGGGG", "E"})


# -- weeks --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WeekSpec:
    """How a locale numbers weeks: `dow` is the first day of the week (0 = Sunday ... 6 =
    Saturday); week 1 is the week that holds January `7 + dow - doy`."""

    dow: int
    doy: int


LOCALE_EN = WeekSpec(dow=0, doy=6)  # moment's default (English) locale
ISO = WeekSpec(dow=1, doy=4)


def weekday(day: dt.date) -> int:
    """Day of the week as moment's `day()`: 0 = Sunday ... 6 = Saturday."""
    return day.isoweekday() % 7


def _weekday_of(year: int, month: int, day: int) -> int:
    """0 = Sunday, for any year >= 1 (no datetime range limit: years 0 and 10000 are needed at
    the edges of the calendar). Sakamoto's method, proleptic Gregorian like datetime."""
    offsets = (0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4)
    if month < 3:
        year -= 1
    return (year + year // 4 - year // 100 + year // 400 + offsets[month - 1] + day) % 7


def _days_in_year(year: int) -> int:
    return 366 if calendar.isleap(year) else 365


def _first_week_offset(year: int, spec: WeekSpec) -> int:
    """Where week 1 of `year` starts, in days relative to January 1st (moment's firstWeekOffset)."""
    fwd = 7 + spec.dow - spec.doy  # this day of January is always in week 1
    fwd_weekday = (7 + _weekday_of(year, 1, fwd) - spec.dow) % 7
    return -fwd_weekday + fwd - 1


def weeks_in_year(year: int, spec: WeekSpec) -> int:
    """52 or 53 (moment's weeksInYear)."""
    return (_days_in_year(year) - _first_week_offset(year, spec) + _first_week_offset(year + 1, spec)) // 7


def week_of_year(day: dt.date, spec: WeekSpec) -> tuple[int, int]:
    """(week-year, week) of `day` under `spec` (moment's weekOfYear)."""
    offset = _first_week_offset(day.year, spec)
    week = (day.timetuple().tm_yday - offset - 1) // 7 + 1
    if week < 1:
        return day.year - 1, week + weeks_in_year(day.year - 1, spec)
    if week > weeks_in_year(day.year, spec):
        return day.year + 1, week - weeks_in_year(day.year, spec)
    return day.year, week


def week_spec_of(pattern: str, locale: WeekSpec = LOCALE_EN) -> WeekSpec:
    """The week system a format counts in: ISO when it uses ISO week tokens and no locale ones,
    else `locale`. Decides where "the week of a date" starts for a weekly note's name."""
    tokens = {match.group() for match in _TOKENS.finditer(pattern)}
    if tokens & _ISO_WEEK_TOKENS and not tokens & _LOCALE_WEEK_TOKENS:
        return ISO
    return locale


# -- periods and offsets ------------------------------------------------------------------------


def start_of(day: dt.date, period: Period, week: WeekSpec = LOCALE_EN) -> dt.date:
    """The first day of the `period` holding `day` (moment's `startOf`); weeks start on `week.dow`."""
    if period == "week":
        return day - dt.timedelta(days=(weekday(day) - week.dow) % 7)
    if period == "month":
        return day.replace(day=1)
    if period == "quarter":
        return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
    if period == "year":
        return day.replace(month=1, day=1)
    return day


def _add_months(moment: dt.datetime, months: int) -> dt.datetime:
    """moment's month arithmetic: the day of the month is clamped to the target month's length."""
    index = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        return moment
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def shifted(moment: dt.datetime, amount: int, unit: str) -> dt.datetime:
    """`moment.add(amount, unit)` for the one-letter units of moment's alias table: `y`/`Y`
    years, `Q` quarters, `M` months, `w`/`W` weeks, `d`/`D` days, `h`/`H` hours, `m` minutes,
    `s` seconds. moment knows no unit `q` and then adds nothing; neither does this. An offset
    beyond the calendar leaves `moment` as it is."""
    if unit == "q":
        return moment
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


# -- formatting ---------------------------------------------------------------------------------


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ..."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _hour12(moment: dt.datetime) -> int:
    return moment.hour % 12 or 12


def _iso(moment: dt.datetime) -> tuple[int, int]:
    iso = moment.isocalendar()
    return iso.year, iso.week


Formatter = Callable[[dt.datetime, WeekSpec], str]

_FORMATTERS: dict[str, Formatter] = {
    "YYYY": lambda m, _: f"{m.year:04d}",
    "YY": lambda m, _: f"{m.year % 100:02d}",
    "Y": lambda m, _: str(m.year),
    "Q": lambda m, _: str((m.month - 1) // 3 + 1),
    "Qo": lambda m, _: ordinal((m.month - 1) // 3 + 1),
    "M": lambda m, _: str(m.month),
    "MM": lambda m, _: f"{m.month:02d}",
    "Mo": lambda m, _: ordinal(m.month),
    "MMM": lambda m, _: _MONTHS[m.month - 1][:3],
    "MMMM": lambda m, _: _MONTHS[m.month - 1],
    "D": lambda m, _: str(m.day),
    "DD": lambda m, _: f"{m.day:02d}",
    "Do": lambda m, _: ordinal(m.day),
    "DDD": lambda m, _: str(m.timetuple().tm_yday),
    "DDDD": lambda m, _: f"{m.timetuple().tm_yday:03d}",
    "DDDo": lambda m, _: ordinal(m.timetuple().tm_yday),
    "d": lambda m, _: str(weekday(m)),
    "do": lambda m, _: ordinal(weekday(m)),
    "dd": lambda m, _: _DAYS[weekday(m)][:2],
    "ddd": lambda m, _: _DAYS[weekday(m)][:3],
    "dddd": lambda m, _: _DAYS[weekday(m)],
    "e": lambda m, w: str((weekday(m) - w.dow) % 7),
    "E": lambda m, _: str(m.isoweekday()),
    "w": lambda m, w: str(week_of_year(m, w)[1]),
    "ww": lambda m, w: f"{week_of_year(m, w)[1]:02d}",
    "wo": lambda m, w: ordinal(week_of_year(m, w)[1]),
    "gg": lambda m, w: f"{week_of_year(m, w)[0] % 100:02d}",
    "gggg": lambda m, w: f"{week_of_year(m, w)[0]:04d}",
    "ggggg": lambda m, w: f"{week_of_year(m, w)[0]:05d}",
    "W": lambda m, _: str(_iso(m)[1]),
    "WW": lambda m, _: f"{_iso(m)[1]:02d}",
    "Wo": lambda m, _: ordinal(_iso(m)[1]),
    "GG": lambda m, _: f"{_iso(m)[0] % 100:02d}",
    "GGGG": lambda m, _: f"{_iso(m)[0]:04d}",
    "GGGGG": lambda m, _: f"{_iso(m)[0]:05d}",
    "H": lambda m, _: str(m.hour),
    "HH": lambda m, _: f"{m.hour:02d}",
    "h": lambda m, _: str(_hour12(m)),
    "hh": lambda m, _: f"{_hour12(m):02d}",
    "k": lambda m, _: str(m.hour or 24),
    "kk": lambda m, _: f"{m.hour or 24:02d}",
    "m": lambda m, _: str(m.minute),
    "mm": lambda m, _: f"{m.minute:02d}",
    "s": lambda m, _: str(m.second),
    "ss": lambda m, _: f"{m.second:02d}",
    "A": lambda m, _: "AM" if m.hour < 12 else "PM",
    "a": lambda m, _: "am" if m.hour < 12 else "pm",
    "X": lambda m, _: str(int(m.timestamp())),
    "x": lambda m, _: str(int(m.timestamp() * 1000)),
}


def format_moment(moment: dt.datetime | dt.date, pattern: str, week: WeekSpec = LOCALE_EN) -> str:
    """`moment` formatted with the moment.js `pattern`; locale week tokens count by `week`."""
    if not isinstance(moment, dt.datetime):
        moment = dt.datetime(moment.year, moment.month, moment.day)
    out: list[str] = []
    for match in _TOKENS.finditer(pattern):
        token = match.group()
        if token.startswith("[") and token.endswith("]") and len(token) >= 2:
            out.append(token[1:-1])
        elif token.startswith("\\") and len(token) == 2:
            out.append(token[1])
        else:
            formatter = _FORMATTERS.get(token)
            out.append(formatter(moment, week) if formatter else token)
    return "".join(out)
