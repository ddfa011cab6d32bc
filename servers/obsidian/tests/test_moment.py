"""moment.js dates: tokens, locale weeks vs ISO weeks at year boundaries, week 53, periods, offsets.

Every expected value below is what moment 2.29.4 answers (`moment.utc(day).format(pattern)`,
`startOf`, `weeksInYear`), English locale unless a `WeekSpec` says otherwise.
"""

from __future__ import annotations

import datetime as dt

import pytest
from obsidian_mcp.vault.moment import (
    ISO,
    LOCALE_EN,
    WeekSpec,
    format_moment,
    ordinal,
    shifted,
    start_of,
    week_of_year,
    week_spec_of,
    weeks_in_year,
)

NOW = dt.datetime(2026, 11, 23, 9, 5, 7)  # a Monday: locale week 48, ISO week 48
MONDAY_START = WeekSpec(dow=1, doy=6)  # the Calendar plugin's "start week on Monday" over the en locale


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("YYYY-MM-DD", "2026-11-23"),
        ("YY.M.D", "26.11.23"),
        ("DDD DDDD DDDo", "327 327 327th"),
        ("ddd, MMM Do", "Mon, Nov 23rd"),
        ("dddd, MMMM D, YYYY", "Monday, November 23, 2026"),
        ("[Week] ww, gggg", "Week 48, 2026"),
        ("GGGG-[W]WW-E", "2026-W48-1"),
        ("W w Wo wo", "48 48 48th 48th"),
        ("Q Qo [quarter]", "4 4th quarter"),
        ("YYYY/MM/YYYY-MM-DD", "2026/11/2026-11-23"),
        ("[YYYY] \\D", "YYYY D"),
        ("d do dd e E", "1 1st Mo 1 1"),
        ("HH:mm:ss A h a k", "09:05:07 AM 9 am 9"),
        ("gg GG ggggg", "26 26 02026"),
    ],
)
def test_tokens(pattern: str, expected: str) -> None:
    assert format_moment(NOW, pattern) == expected


@pytest.mark.parametrize(
    ("day", "locale_week", "iso_week", "locale_e_iso_e"),
    [
        # a Thursday: locale week 1 of next year (it holds Jan 1st), ISO week 53
        ("2020-12-31", "2021-W01", "2020-W53", "4 4"),
        ("2021-01-03", "2021-W02", "2020-W53", "0 7"),  # a Sunday starts locale week 2
        ("2022-01-01", "2022-W01", "2021-W52", "6 6"),
        ("2022-12-31", "2022-W53", "2022-W52", "6 6"),  # locale week 53
        ("2023-01-01", "2023-W01", "2022-W52", "0 7"),
        ("2026-11-22", "2026-W48", "2026-W47", "0 7"),  # Sunday: already next locale week, still ISO 47
        ("2026-12-27", "2027-W01", "2026-W52", "0 7"),
        ("2026-12-31", "2027-W01", "2026-W53", "4 4"),
        ("2027-01-01", "2027-W01", "2026-W53", "5 5"),
        ("2027-01-04", "2027-W02", "2027-W01", "1 1"),
        ("2016-12-31", "2016-W53", "2016-W52", "6 6"),
        ("2015-12-31", "2016-W01", "2015-W53", "4 4"),
    ],
)
def test_locale_and_iso_weeks_at_year_boundaries(
    day: str, locale_week: str, iso_week: str, locale_e_iso_e: str
) -> None:
    date = dt.date.fromisoformat(day)
    assert format_moment(date, "gggg-[W]ww") == locale_week
    assert format_moment(date, "GGGG-[W]WW") == iso_week
    assert format_moment(date, "e E") == locale_e_iso_e


@pytest.mark.parametrize(
    ("year", "locale", "iso"),
    [(2015, 52, 53), (2016, 53, 52), (2020, 52, 53), (2022, 53, 52), (2026, 52, 53), (2027, 52, 52), (2033, 53, 52)],
)
def test_weeks_in_year(year: int, locale: int, iso: int) -> None:
    assert (weeks_in_year(year, LOCALE_EN), weeks_in_year(year, ISO)) == (locale, iso)


def test_iso_spec_agrees_with_the_iso_calendar_for_forty_years() -> None:
    day = dt.date(1999, 12, 20)
    for _ in range(366 * 40):
        iso = day.isocalendar()
        assert week_of_year(day, ISO) == (iso.year, iso.week), day
        day += dt.timedelta(days=1)


@pytest.mark.parametrize(
    ("day", "expected"),
    [("2000-01-09", "2000-W02 6"), ("2000-01-10", "2000-W03 0"), ("1999-12-30", "2000-W01 3")],
)
def test_a_week_starting_on_monday_in_the_english_locale(day: str, expected: str) -> None:
    assert format_moment(dt.date.fromisoformat(day), "gggg-[W]ww e", MONDAY_START) == expected


@pytest.mark.parametrize(
    ("day", "period", "week", "expected"),
    [
        ("2026-11-23", "day", LOCALE_EN, "2026-11-23"),
        ("2026-11-23", "week", LOCALE_EN, "2026-11-22"),  # Sunday
        ("2026-11-23", "week", ISO, "2026-11-23"),  # Monday
        ("2026-11-22", "week", ISO, "2026-11-16"),
        ("2027-01-01", "week", LOCALE_EN, "2026-12-27"),
        ("2027-01-01", "week", ISO, "2026-12-28"),
        ("2026-11-23", "month", LOCALE_EN, "2026-11-01"),
        ("2026-11-23", "quarter", LOCALE_EN, "2026-10-01"),
        ("2026-03-31", "quarter", LOCALE_EN, "2026-01-01"),
        ("2026-11-23", "year", LOCALE_EN, "2026-01-01"),
    ],
)
def test_start_of_a_period(day: str, period: str, week: WeekSpec, expected: str) -> None:
    assert start_of(dt.date.fromisoformat(day), period, week).isoformat() == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pattern", "spec"),
    [
        ("gggg-[W]ww", LOCALE_EN),
        ("GGGG-[W]WW", ISO),
        ("YYYY-[W]WW", ISO),
        ("YYYY/[Week] W", ISO),
        ("GGGG-[W]ww", LOCALE_EN),  # mixed: moment's locale weeks decide
        ("YYYY-MM-DD", LOCALE_EN),
        ("[W]YYYY", LOCALE_EN),  # W in brackets is text
    ],
)
def test_the_week_system_of_a_format(pattern: str, spec: WeekSpec) -> None:
    assert week_spec_of(pattern) == spec


@pytest.mark.parametrize(
    ("amount", "unit", "expected"),
    [
        (1, "d", "2026-01-31 10:00"),
        (1, "M", "2026-02-28 10:00"),  # clamped to the month's length
        (-2, "m", "2026-01-30 09:58"),
        (1, "Q", "2026-04-30 10:00"),
        (1, "q", "2026-01-30 10:00"),  # not a unit to moment: nothing is added
        (1, "D", "2026-01-31 10:00"),
        (1, "W", "2026-02-06 10:00"),
        (-1, "y", "2025-01-30 10:00"),
        (2, "w", "2026-02-13 10:00"),
        (3, "h", "2026-01-30 13:00"),
        (1_000_000, "y", "2026-01-30 10:00"),  # beyond the calendar: unchanged
    ],
)
def test_offsets(amount: int, unit: str, expected: str) -> None:
    moment = dt.datetime(2026, 1, 30, 10, 0)
    assert shifted(moment, amount, unit).strftime("%Y-%m-%d %H:%M") == expected


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip
