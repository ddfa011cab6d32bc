"""Values and expressions on their own: date and duration arithmetic, ordering, display, JSON,
and functions, evaluated through one-page queries (`date(today)` is 2024-05-01)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from obsidian_mcp.dataview import Page, PageList, execute_query
from obsidian_mcp.dataview.dates import parse_date
from obsidian_mcp.dataview.durations import Duration, between, parse_duration, shift
from obsidian_mcp.dataview.values import Link, sort_key

PAGES = PageList([Page("p.md", {"n": 3, "s": "text", "l": [1, None, 2], "d": "2024-02-29"}), Page("Other.md")])


def value(expression: str) -> object:
    result = execute_query(f'TABLE WITHOUT ID {expression} FROM "p"', PAGES, today=date(2024, 5, 1))
    assert not result.warnings, result.warnings
    [row] = result.rows
    return row.values[0]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # calendar arithmetic across month and year ends, leap years
        ("date(2024-01-31) + dur(1 month)", "2024-02-29"),
        ("date(2024-03-31) + dur(1 month)", "2024-04-30"),
        ("date(2024-02-29) + dur(1 year)", "2025-02-28"),
        ("date(2024-12-31) + dur(1 day)", "2025-01-01"),
        ("date(2024-03-01) - dur(1 day)", "2024-02-29"),
        ("date(2024-01-31) + dur(1 month, 1 day)", "2024-03-01"),
        ("date(2024-05-01) + dur(36 hours)", "2024-05-02T12:00:00"),
        ("dur(1 week) + date(2024-05-01)", "2024-05-08"),
        ("d + dur(1 year)", "2025-02-28"),
        # date - date: whole months first, then the rest
        ("date(2024-03-01) - date(2024-01-31)", "P1M1D"),
        ("date(2024-03-31) - date(2024-02-29)", "P1M2D"),
        ("date(2025-05-01) - date(2024-05-01)", "P1Y"),
        ("date(2024-05-01T12:00:00) - date(2024-05-01)", "PT12H"),
        ("date(2024-05-01) - date(2024-05-01)", "PT0S"),
        ("date(2024-04-01) - date(2024-05-01)", "P-1M"),
        # durations
        ("dur(1 day) + dur(12 hours)", "P1DT12H"),
        ("dur(2 hours) - dur(30 min)", "PT1H30M"),
        ("dur(1 day) * 3", "P3D"),
        ("2 * dur(1 hour)", "PT2H"),
        ("dur(1 day) / 4", "PT6H"),
        ("dur(1 day) / 0", None),
        ("-dur(1 day)", "P-1D"),
        ("dur(1.5 hours)", "PT1H30M"),
        ("dur(2 weeks)", "P14D"),
        ("dur(1 month).days", 30),
        ("dur(36 hours).days", 1.5),
        ("dur(1 day) = dur(24 hours)", True),
        ("dur(1 week) > dur(6 days)", True),
        ('dur("nonsense")', None),
        ("string(dur(1 month) + dur(10 days))", "1 month, 1 week, 3 days"),
        # date parts and shorthands
        ("date(2024-05-05).weekday", 7),
        ("date(2024-05-05).weekyear", 18),
        ("date(2024-05-05).week", 1),
        ("date(2024-05-31T10:20:30).hour", 10),
        ("date(now)", "2024-05-01"),
        ("date(eow)", "2024-05-05T23:59:59.999"),
        ("date(start-of-year)", "2024-01-01"),
        ('date("today") = date(today)', True),
        ('date("2024-05-01T10:00:00Z") = date("2024-05-01T10:00:00+00:00")', True),
        ('date("not a date")', None),
        ('date("2024-05-01 10:00")', None),
        ("date([[2024-04-03]])", "2024-04-03"),
        ("striptime(date(2024-05-01T23:59:59))", "2024-05-01"),
        # arithmetic, null and errors that yield null
        ("n + 1", 4),
        ("n / 2", 1.5),
        ("n * 2.5", 7.5),
        ("7 % 3", 1),
        ("-7 % 3", -1),
        ("1 / 0", None),
        ("n + null", None),
        ("null - null", None),
        ('"a" + null', "a-"),
        ('"n=" + n', "n=3"),
        ('"x" + date(2024-05-01T15:05:00)', "x3:05 PM - May 01, 2024"),
        ('"x" + [[Other]]', "x[[Other.md|Other]]"),
        ('"x" + [1, "a"]', "x1, a"),
        ("missing + 1", None),
        # comparisons: total order, null first
        ("null = null", True),
        ("null < 1", True),
        ('1 = "1"', False),
        ("true > false", True),
        ('"abc" < "abd"', True),
        ('"a" < "B"', True),
        ('"Zebra" > "apple"', True),
        ("[1, 2] = [1, 2]", True),
        ("[1] < [1, 0]", True),
        ("{a: 1} = {a: 1}", True),
        ("[[Other]] = [[Other.md]]", True),
        ("[[Other|shown]] = [[Other]]", True),
        ("[[Other#Head]] = [[Other]]", False),
        ("date(2024-05-01) < date(2024-05-01T00:00:01)", True),
        # precedence: and/or share one level, left to right, as in Dataview
        ("true or false and false", False),
        ("false and false or true", True),
        ("1 + 2 * 3 = 7 and !false", True),
        ("!n = false", True),
        ("n-1", None),
        ("n - 1", 2),
        ("n -1", 2),
        # truthiness
        ('!""', True),
        ("!0", True),
        ("![]", True),
        ("!dur(0 days)", True),
        ("!!s", True),
        ("0 or null", False),
        ('"" or 1', True),
        # vectorised functions and list helpers
        ('lower(["A", "B"])', ["a", "b"]),
        ("default(l, 0)", [1, 0, 2]),
        ("sum(l)", 3),
        ("average(l)", 1.5),
        ("product([2, 3, 4])", 24),
        ("min(l)", 1),
        ("max(l)", 2),
        ("max(3, null, 7, 5)", 7),
        ("sum([])", None),
        ("nonnull(l)", [1, 2]),
        ("firstvalue([null, 2, 3])", 2),
        ("flat([[1, [2]], 3])", [1, [2], 3]),
        ("flat([[1, [2]], 3], 2)", [1, 2, 3]),
        ("slice([1, 2, 3, 4], 1, 3)", [2, 3]),
        ('unique([1, 2, 1, "1"])', [1, 2, "1"]),
        ('reduce([1, 2, 3], "-")', -4),
        ("reduce([1, 2, 3], (a, b) => a * 10 + b)", 123),
        ('minby(["ccc", "a", "bb"], (x) => length(x))', "a"),
        ('maxby(["ccc", "a", "bb"], (x) => length(x))', "ccc"),
        ("sort([3, 1, 2], (x) => -x)", [3, 2, 1]),
        ('extract({a: 1, b: 2, c: 3}, "a", "c")', {"a": 1, "c": 3}),
        ('contains({a: 1}, "a")', True),
        ("contains([1, [2, 3]], 3)", True),
        ("econtains([1, [2, 3]], 3)", False),
        ('contains("text", ["te", "zz"])', [True, False]),
        ('icontains(["Alpha", "beta"], "ALP")', True),
        ('length("hello")', 5),
        ("length(null)", 0),
        ('join(["a", "b"])', "a, b"),
        ('all(1, true, "x")', True),
        ("any()", False),
        ('choice([true, false], "y", "n")', ["y", "n"]),
        ('object("a", 1)', {"a": 1}),
        ("typeof(dur(1 day))", "duration"),
        ("typeof((x) => x)", "function"),
        ("typeof({})", "object"),
        # numbers
        ("round(2.5)", 3),
        ("round(-2.5)", -2),
        ("round(1.005, 2)", 1),
        ("round(3.14159, 3)", 3.142),
        ("trunc(-2.7)", -2),
        ("floor(-2.5)", -3),
        ("ceil(2.1)", 3),
        ('number("-12.5kg")', -12.5),
        ('number("none")', None),
        # strings
        ('regextest("\\\\d+", "ab12")', True),
        ('regexmatch("ab\\\\d+", "ab12")', True),
        ('regexmatch("b", "abc")', False),
        ('regexreplace("2024-05-01", "(\\\\d+)-(\\\\d+)-(\\\\d+)", "$3.$2.$1")', "01.05.2024"),
        ('regexreplace("aaa", "a", "$&$&")', "aaaaaa"),
        ('split("a1b22c", "\\\\d+")', ["a", "b", "c"]),
        ('split("a-b-c", "-", 2)', ["a", "b"]),
        ('startswith(["ab", "cd"], "a")', [True, False]),
        ('endswith("file.md", ".md")', True),
        ('padright("ab", 5, "xy")', "abxyx"),
        ('substring("hello", 3, 1)', "el"),
        ('truncate("hello world", 8, "…")', "hello w…"),
        ('containsword("A quick fox", "QUICK")', True),
        ('containsword("quickly", "quick")', False),
        ('upper(s) + "!"', "TEXT!"),
        ('display("**bold** and [[Note|alias]]")', "bold and alias"),
        ("display([[Other]])", "Other"),
        ("string(date(2024-05-01))", "May 01, 2024"),
        ("string([1, [2, 3]])", "1, [2, 3]"),
        ('string({a: 1, b: "x"})', "{ a: 1, b: x }"),
        (
            "dateformat(date(2024-05-01T09:05:00), \"dd.MM.yy HH:mm a 'at' EEEE, MMMM o W q kkkk\")",
            "01.05.24 09:05 AM at Wednesday, May 122 18 2 2024",
        ),
        # links
        ('link("Other")', "Other.md"),
        ('link("Other", "shown") = [[Other]]', True),
        (
            "meta([[Other#Sec|x]])",
            {"display": "x", "embed": False, "path": "Other.md", "subpath": "Sec", "type": "header"},
        ),
        ("embed([[Other]]) = [[Other]]", True),
        ("[[Other]].file.name", "Other"),
        ("[[Missing]].file.name", None),
        ("[[Missing]]", "Missing"),
        # indexing
        ("s[0]", "t"),
        ("s[10]", None),
        ("l[-1]", None),
        ("l[1.5]", None),
        ('l["x"]', [None, None, None]),
        ("[{a: 1}, {a: 2}].a", [1, 2]),
        ("n[0]", None),
        ("file.day.year", None),
        ('row["n"]', 3),
        ("row.file.name", "p"),
    ],
)
def test_expression(expression: str, expected: object) -> None:
    assert value(expression) == expected


def test_a_failing_expression_is_reported() -> None:
    result = execute_query('TABLE WITHOUT ID s - 1 FROM "p"', PAGES)
    assert result.rows[0].values == [None]
    assert [w.message for w in result.warnings] == [
        "column 's - 1' is null where it failed (1 row(s)), e.g.: cannot apply '-' to string and number"
    ]


@pytest.mark.parametrize(
    "expression",
    [
        '"a" - 1',
        "date(today) + 5",
        "true + true",
        "lower(5)",
        "s.x",
        "file.name.year",
        "{a: 1}[0]",
        '"abc"["x"]',
        "l[true]",
    ],
)
def test_type_errors_fail_the_row(expression: str) -> None:
    result = execute_query(f'TABLE WITHOUT ID {expression} FROM "p"', PAGES)
    assert result.rows[0].values == [None] and len(result.warnings) == 1


def test_dates_and_durations_directly() -> None:
    assert parse_date("2024-05-01T10:00:00+02:00") == datetime(2024, 5, 1, 8, tzinfo=UTC).astimezone().replace(
        tzinfo=None
    )
    assert parse_date("2024-05-01T10:00+02:00") is None  # a zone needs seconds, as in Dataview
    assert parse_date("2024-05-01T10:00:00[Europe/Paris]") is not None
    assert parse_date("2024-05-01T10:00:00[Nowhere/City]") is None
    assert parse_duration("3 h, 4 m") == Duration(seconds=3 * 3600 + 240)
    assert shift(datetime(2024, 1, 31), Duration(months=1.5)) == datetime(2024, 3, 15)
    assert between(datetime(2024, 5, 1), datetime(2023, 2, 28, 12)) == Duration(14, 2 * 86_400 + 12 * 3600)
    assert Duration(months=-1, seconds=86_400).iso() == "P-1M1D"
    assert Duration(seconds=0.25).iso() == "PT0.25S"
    assert Duration(seconds=90061.5).human() == "1 day, 1 hour, 1 minute, 1 second, 500 milliseconds"


def test_sort_key_orders_types_like_dataview() -> None:
    values: list[object] = ["b", 2, None, True, datetime(2024, 1, 1), [1], Duration(1), Link("x"), {"a": 1}]
    ordered = sorted(values, key=lambda v: sort_key(v, lambda link: link.path))  # type: ignore[arg-type]
    assert ordered == [None, [1], True, datetime(2024, 1, 1), Duration(1), Link("x"), 2, {"a": 1}, "b"]


def test_aware_page_times_become_local() -> None:
    moment = datetime(2024, 5, 1, 12, tzinfo=timezone(timedelta(hours=5)))
    pages = PageList([Page("p.md", ctime=moment, mtime=moment, size=42)])
    result = execute_query("TABLE WITHOUT ID file.ctime = file.mtime, file.size, typeof(file.cday)", pages)
    assert result.rows[0].values == [True, 42, "date"]
    local = moment.astimezone().replace(tzinfo=None)
    assert execute_query("TABLE WITHOUT ID file.mtime", pages).rows[0].values == [local.isoformat()]
