"""`dateformat(date, "yyyy-MM-dd")`: the common subset of luxon's format tokens.

Supported: y yy yyyy, M MM MMM MMMM, d dd, E EEE EEEE, H HH, h hh, m mm, s ss, S SSS, a, o ooo,
W WW, kk kkkk, q, and 'quoted text'. Any other letter run is an error (rather than a silent guess).
English names only (luxon follows the user's locale).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from obsidian_mcp.dataview.dates import DAY_NAMES, MONTH_NAMES
from obsidian_mcp.dataview.errors import EvalError

_TOKEN = re.compile(r"'([^']*)'|([A-Za-z])\2*|[^A-Za-z']+")


def _hour12(moment: datetime) -> int:
    return moment.hour % 12 or 12


_FORMATTERS: dict[str, Callable[[datetime], str]] = {
    "y": lambda d: str(d.year),
    "yy": lambda d: f"{d.year % 100:02d}",
    "yyyy": lambda d: f"{d.year:04d}",
    "M": lambda d: str(d.month),
    "MM": lambda d: f"{d.month:02d}",
    "MMM": lambda d: MONTH_NAMES[d.month - 1][:3],
    "MMMM": lambda d: MONTH_NAMES[d.month - 1],
    "d": lambda d: str(d.day),
    "dd": lambda d: f"{d.day:02d}",
    "E": lambda d: str(d.isoweekday()),
    "EEE": lambda d: DAY_NAMES[d.weekday()][:3],
    "EEEE": lambda d: DAY_NAMES[d.weekday()],
    "H": lambda d: str(d.hour),
    "HH": lambda d: f"{d.hour:02d}",
    "h": lambda d: str(_hour12(d)),
    "hh": lambda d: f"{_hour12(d):02d}",
    "m": lambda d: str(d.minute),
    "mm": lambda d: f"{d.minute:02d}",
    "s": lambda d: str(d.second),
    "ss": lambda d: f"{d.second:02d}",
    "S": lambda d: str(d.microsecond // 1000),
    "SSS": lambda d: f"{d.microsecond // 1000:03d}",
    "a": lambda d: "AM" if d.hour < 12 else "PM",
    "o": lambda d: str(d.timetuple().tm_yday),
    "ooo": lambda d: f"{d.timetuple().tm_yday:03d}",
    "W": lambda d: str(d.isocalendar().week),
    "WW": lambda d: f"{d.isocalendar().week:02d}",
    "kk": lambda d: f"{d.isocalendar().year % 100:02d}",
    "kkkk": lambda d: f"{d.isocalendar().year:04d}",
    "q": lambda d: str((d.month - 1) // 3 + 1),
}


def format_date(moment: datetime, pattern: str) -> str:
    out: list[str] = []
    for match in _TOKEN.finditer(pattern):
        quoted, letter = match.group(1), match.group(2)
        if quoted is not None:
            out.append(quoted)
        elif letter is None:
            out.append(match.group(0))
        else:
            formatter = _FORMATTERS.get(match.group(0))
            if formatter is None:
                raise EvalError(f"dateformat token {match.group(0)!r} is not supported")
            out.append(formatter(moment))
    return "".join(out)
