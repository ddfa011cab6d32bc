"""Malformed and unsupported queries: a `QueryError` saying what was expected (or what is not
supported) and the 0-based position of the problem; nothing is silently ignored."""

from __future__ import annotations

from datetime import date

import pytest
from obsidian_mcp.dataview import Page, PageList, QueryError, execute_query, parse_query

ANY_SOURCE = 'a source (#tag, "folder", [[note]] or outgoing([[note]]))'
COMMANDS = "a data command (WHERE, SORT, GROUP BY, FLATTEN, LIMIT)"

SYNTAX_ERRORS: list[tuple[str, str, int]] = [
    ("", "expected a query type (TABLE, LIST or TASK) but the query is empty", 0),
    ("   \n ", "expected a query type (TABLE, LIST or TASK) but the query is empty", 0),
    ("SELECT * FROM x", "expected a query type (TABLE, LIST or TASK) but found 'SELECT'", 0),
    ("LIST WHERE", "expected an expression but the query ended", 10),
    ("LIST FROM", f"expected {ANY_SOURCE} but the query ended", 9),
    ("LIST WHERE status = ", "expected an expression but the query ended", 19),
    ('LIST WHERE status = "active', "unterminated string: a closing '\"' is missing", 20),
    ('LIST WHERE x = "a" + "b', "unterminated string: a closing '\"' is missing", 21),
    ("LIST FROM [[Alpha", "unterminated link: a closing ']]' is missing", 10),
    ("LIST WHERE x SORT", "expected an expression but the query ended", 17),
    ("LIST WHERE a b", f"expected an operator, {COMMANDS} or end of query but found 'b'", 13),
    ("TABLE a b", f"expected an operator, {COMMANDS}, ',', AS, FROM or end of query but found 'b'", 8),
    ("LIST SORT a b", f"expected an operator, {COMMANDS}, ',', ASC or DESC or end of query but found 'b'", 12),
    ('LIST WHERE x FROM "a"', "FROM must come right after the query type (and only once)", 13),
    ('LIST FROM "a" FROM "b"', "FROM must come right after the query type (and only once)", 14),
    (
        'TABLE a, FROM "x"',
        "expected an expression but found the keyword 'FROM'; a field named 'FROM' is row[\"FROM\"]",
        9,
    ),
    (
        "LIST WHERE where = 1",
        "expected an expression but found the keyword 'where'; a field named 'where' is row[\"where\"]",
        11,
    ),
    ("LIST SORT file.name ASC DESC", f"expected {COMMANDS}, ',' or end of query but found 'DESC'", 24),
    ("LIST WHERE (a", "expected an operator or ')' but the query ended", 13),
    ("LIST WHERE [1, 2", "expected an operator, ',' or ']' but the query ended", 16),
    ("LIST WHERE contains(a,)", "expected an expression or a lambda but found ')'", 22),
    ("LIST WHERE a = = b", "expected an expression but found '='", 15),
    ("LIST WHERE a @ b", "unexpected character '@'", 13),
    ("LIST WHERE {a 1}", "expected ':' but found '1'", 14),
    ("TASK file.name", f"expected {COMMANDS}, FROM or end of query but found 'file'", 5),
    ("LIST GROUP BY", "expected an expression but the query ended", 13),
    ("TABLE a AS", "expected a name or a string but the query ended", 10),
    ("LIST FROM #tag and", f"expected {ANY_SOURCE} but the query ended", 18),
    ('LIST FROM outgoing("x")', "expected a [[link]] but found '\"x\"'", 19),
    ("LIST FROM #a WHERE x FLATTEN", "expected an expression but the query ended", 28),
    ("LIST WHERE x LIMIT", "expected an expression but the query ended", 18),
    ("LIST WHERE date(2024-02-30) = x", "'2024-02-30' is not a valid date", 16),
    ("LIST WHERE x = date(2024-13-01)", "'2024-13-01' is not a valid date", 20),
    (
        "LIST\nWHERE a\nSORT b c",
        f"expected an operator, {COMMANDS}, ',', ASC or DESC or end of query but found 'c'",
        20,
    ),
]

UNSUPPORTED: list[tuple[str, str, int]] = [
    ("CALENDAR file.ctime", "CALENDAR queries are not supported; use TABLE, LIST or TASK", 0),
    ('LIST FROM csv("data.csv")', 'csv() sources are not supported; query notes by #tag, "folder" or [[link]]', 10),
    ('dv.pages("#x")', "DataviewJS is not supported; write a DQL query (TABLE, LIST or TASK)", 0),
    ("$= dv.current()", "DataviewJS is not supported; write a DQL query (TABLE, LIST or TASK)", 0),
    ("  const x = 1", "DataviewJS is not supported; write a DQL query (TABLE, LIST or TASK)", 2),
    ("TABLE file.name WHERE dv.current()", "DataviewJS (dv.*) is not supported; write a DQL query", 22),
    ("```dataview\nLIST\n```", "pass the query without its ```dataview code fence", 0),
    ("= this.file.name", "inline queries (= expression) are not supported; write TABLE, LIST or TASK", 0),
    ('LIST WHERE durationformat(x, "h")', "durationformat() is not supported", 11),
    ('TABLE currencyformat(price, "EUR")', "currencyformat() is not supported", 6),
    ('LIST WHERE elink("https://x")', "elink() (external links) is not supported", 11),
    ("TABLE hash(file.name)", "hash() is not supported", 6),
    ("LIST WHERE frobnicate(x)", "unknown function 'frobnicate'", 11),
    ("LIST SORT a.b(c).d(frob(x))", "unknown function 'frob'", 19),
    ('LIST WHERE date(x, "yyyy")', "date(text, format) is not supported; use date(text) with an ISO date", 11),
]


@pytest.mark.parametrize(("query", "message", "position"), SYNTAX_ERRORS + UNSUPPORTED)
def test_refused_with_message_and_position(query: str, message: str, position: int) -> None:
    with pytest.raises(QueryError) as caught:
        parse_query(query)
    assert (caught.value.message, caught.value.position) == (message, position)
    assert str(caught.value) == f"{message} (at position {position})"


def test_there_are_enough_error_cases() -> None:
    assert len(SYNTAX_ERRORS + UNSUPPORTED) >= 20


PAGES = PageList(
    [
        Page("a.md", {"status": "open", "n": 1}),
        Page("b.md", {"status": "done", "n": 2}),
    ]
)

RUNTIME_ERRORS: list[tuple[str, str, int]] = [
    ('LIST LIMIT "ten"', "LIMIT needs a number, not a string", 5),
    ("LIST WHERE n LIMIT n", "LIMIT needs a number, not a null", 13),
    ("LIST WHERE status - 1", "every row failed in WHERE: cannot apply '-' to string and number", 5),
    ("LIST SORT status * date(today)", "every row failed in SORT: cannot apply '*' to string and date", 5),
    ("LIST GROUP BY lower(n)", "every row failed in GROUP BY: lower() does not take (number)", 5),
    (
        'LIST WHERE true FLATTEN regexmatch("(", status)',
        "every row failed in FLATTEN: invalid regular expression '(': missing ), unterminated subpattern at position 0",
        16,
    ),
]


@pytest.mark.parametrize(("query", "message", "position"), RUNTIME_ERRORS)
def test_runtime_failures_of_every_row_fail_the_query(query: str, message: str, position: int) -> None:
    with pytest.raises(QueryError) as caught:
        execute_query(query, PAGES, today=date(2024, 5, 1))
    assert (caught.value.message, caught.value.position) == (message, position)


def test_errors_on_empty_input_do_not_fail() -> None:
    """Dataview fails a command only when rows exist and all of them fail."""
    result = execute_query('LIST FROM "nowhere" WHERE status - 1', PAGES)
    assert result.rows == [] and result.warnings == []
