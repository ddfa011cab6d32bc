"""moment.js date formatting, the subset Obsidian users put in daily-note formats and templates.

Tokens (English names): `YYYY YY Y`, `Q Qo`, `M MM MMM MMMM Mo`, `D DD Do`, `DDD DDDD DDDo`
(day of year), `d do dd ddd dddd`, `e E`, `w ww wo W WW Wo`, `gg gggg GG GGGG`, `H HH h hh k kk`,
`m mm s ss`, `A a`, `X x`. `[text]` is literal text and `\\x` a literal character; anything else
is copied as is.

Decision: moment's locale weeks (`w`, `gggg`) depend on the locale (en: weeks start on Sunday and
contain January 1st). Obsidian users overwhelmingly mean ISO weeks, and a server has no reliable
locale, so `w`/`ww`/`gggg` are ISO weeks here too, like `W`/`WW`/`GGGG`. Other locale tokens
use moment's English locale (`e`, like `d`, counts from Sunday = 0).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

# Longest tokens first, as in moment's own formatting expression.
_TOKENS = re.compile(
    r"\[[^\[\]]*\]|\\.|YYYY|YY|Y|Qo|Q|MMMM|MMM|Mo|MM|M|DDDD|DDDo|DDD|Do|DD|D|dddd|ddd|dd|do|d|"
    r"wo|ww|w|Wo|WW|W|gggg|gg|GGGG|GG|e|E|HH|H|hh|h|kk|k|mm|m|ss|s|A|a|X|x|.",
    re.DOTALL,
)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ..."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _hour12(moment: dt.datetime) -> int:
    return moment.hour % 12 or 12


_FORMATTERS: dict[str, Callable[[dt.datetime], str]] = {
    "YYYY": lambda m: f"{m.year:04d}",
    "YY": lambda m: f"{m.year % 100:02d}",
    "Y": lambda m: str(m.year),
    "Q": lambda m: str((m.month - 1) // 3 + 1),
    "Qo": lambda m: ordinal((m.month - 1) // 3 + 1),
    "M": lambda m: str(m.month),
    "MM": lambda m: f"{m.month:02d}",
    "Mo": lambda m: ordinal(m.month),
    "MMM": lambda m: _MONTHS[m.month - 1][:3],
    "MMMM": lambda m: _MONTHS[m.month - 1],
    "D": lambda m: str(m.day),
    "DD": lambda m: f"{m.day:02d}",
    "Do": lambda m: ordinal(m.day),
    "DDD": lambda m: str(m.timetuple().tm_yday),
    "DDDD": lambda m: f"{m.timetuple().tm_yday:03d}",
    "DDDo": lambda m: ordinal(m.timetuple().tm_yday),
    "d": lambda m: str(m.isoweekday() % 7),
    "do": lambda m: ordinal(m.isoweekday() % 7),
    "dd": lambda m: _DAYS[m.isoweekday() % 7][:2],
    "ddd": lambda m: _DAYS[m.isoweekday() % 7][:3],
    "dddd": lambda m: _DAYS[m.isoweekday() % 7],
    "e": lambda m: str(m.isoweekday() % 7),
    "E": lambda m: str(m.isoweekday()),
    "w": lambda m: str(m.isocalendar().week),
    "ww": lambda m: f"{m.isocalendar().week:02d}",
    "wo": lambda m: ordinal(m.isocalendar().week),
    "W": lambda m: str(m.isocalendar().week),
    "WW": lambda m: f"{m.isocalendar().week:02d}",
    "Wo": lambda m: ordinal(m.isocalendar().week),
    "gg": lambda m: f"{m.isocalendar().year % 100:02d}",
    "gggg": lambda m: f"{m.isocalendar().year:04d}",
    "GG": lambda m: f"{m.isocalendar().year % 100:02d}",
    "GGGG": lambda m: f"{m.isocalendar().year:04d}",
    "H": lambda m: str(m.hour),
    "HH": lambda m: f"{m.hour:02d}",
    "h": lambda m: str(_hour12(m)),
    "hh": lambda m: f"{_hour12(m):02d}",
    "k": lambda m: str(m.hour or 24),
    "kk": lambda m: f"{m.hour or 24:02d}",
    "m": lambda m: str(m.minute),
    "mm": lambda m: f"{m.minute:02d}",
    "s": lambda m: str(m.second),
    "ss": lambda m: f"{m.second:02d}",
    "A": lambda m: "AM" if m.hour < 12 else "PM",
    "a": lambda m: "am" if m.hour < 12 else "pm",
    "X": lambda m: str(int(m.timestamp())),
    "x": lambda m: str(int(m.timestamp() * 1000)),
}


def format_moment(moment: dt.datetime | dt.date, pattern: str) -> str:
    """`moment` formatted with the moment.js `pattern`."""
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
            out.append(formatter(moment) if formatter else token)
    return "".join(out)
