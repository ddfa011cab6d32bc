"""A Dataview Query Language (DQL) engine over in-memory pages: a pure domain module (no MCP).

    result = execute_query("TABLE status, due FROM #project WHERE !done SORT due", pages, today=date(2024, 5, 1))

`parse_query` checks a query without running it; both raise `QueryError(message, position)`.
`extract_fields` / `extract_tasks` / `extract_list_items` read a note body; `load_vault` builds pages
from a folder of notes (tests and tools; the server builds `Page`s from its index and keeps the
same `Page` objects between queries, since what is derived from a page is cached on it, in
`Page.derived`). A source that is also `IndexedPages` (path order, tag, folder and inlink lookups)
answers FROM without reading every page; its whole-vault starting rows are kept between queries
while its page list stays the same object. Warnings are `QueryWarning`s (`kind`, `message`, context).

Known differences from Dataview (each also documented where it is implemented):
- Field lookup falls back to the canonical key, so `STATUS` finds `Status`; function names are
  case-insensitive. `from`, `where`, `limit`, `flatten` are keywords, never field names (as in Dataview).
- `and`/`or` short-circuit. Arithmetic with a null operand, and division by zero, give null
  (Dataview fails the row / gives Infinity). sum, product and average skip nulls.
- A failing TABLE/LIST cell is null with a warning (Dataview drops the row). Rows that fail in
  WHERE/SORT/GROUP BY/FLATTEN are dropped with a warning; a step where every row fails is a QueryError.
- Without SORT, rows come in path order and tasks in line order.
- Dates are naive local datetimes (zones converted to local time). Durations are calendar months
  plus exact seconds; they compare with a month as 30 days, and display without rolling days up
  into months. Strings order case-insensitively first (approximating `localeCompare`); null
  concatenates as `-`.
- Task `line`, `parent` and `children` are 1-based file lines (Dataview: 0-based). A task's
  `children` in the output are its subtasks (plain bullets are left out). Besides Dataview's emoji
  dates, the Tasks plugin's priority (🔺⏫🔼🔽⏬), recurrence (🔁, or `[repeat:: ...]`) and ❌
  cancelled date are read.
- Fields, tags and links inside `code spans`, fenced or indented code, comments and `$$` math are
  ignored; setext headings are sections like ATX ones; page fields keep line order.
- `FROM [[note]]` for a note that does not exist matches nothing (with a warning).
- Refused with a QueryError: CALENDAR, DataviewJS, inline `= expr` queries, `csv()` sources,
  durationformat, currencyformat, hash, elink, date(text, format). `file.starred` is not provided.
  `dateformat` knows the common luxon tokens (English names); regular expressions are Python's.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from obsidian_mcp.dataview.errors import QueryError
    from obsidian_mcp.dataview.executor import execute_query
    from obsidian_mcp.dataview.extract import extract_fields, extract_list_items, extract_tasks
    from obsidian_mcp.dataview.inline_fields import InlineField
    from obsidian_mcp.dataview.list_items import ListItem, parse_task_line
    from obsidian_mcp.dataview.loader import load_vault
    from obsidian_mcp.dataview.page import IndexedPages, Page, PageList, PageSource, Resolver
    from obsidian_mcp.dataview.parser import parse_query
    from obsidian_mcp.dataview.result import (
        QueryResult,
        QueryWarning,
        ResultGroup,
        ResultRow,
        TaskGroup,
        TaskItem,
    )

# The package is imported lazily (PEP 562): the server imports `dataview.errors` at start-up, and
# the engine (parser, lark, functions) only on the first query. Start-up time is benchmarked.
_HOMES = {
    "QueryError": "errors",
    "execute_query": "executor",
    "extract_fields": "extract",
    "extract_list_items": "extract",
    "extract_tasks": "extract",
    "InlineField": "inline_fields",
    "ListItem": "list_items",
    "parse_task_line": "list_items",
    "load_vault": "loader",
    "IndexedPages": "page",
    "Page": "page",
    "PageList": "page",
    "PageSource": "page",
    "Resolver": "page",
    "parse_query": "parser",
    "QueryResult": "result",
    "QueryWarning": "result",
    "ResultGroup": "result",
    "ResultRow": "result",
    "TaskGroup": "result",
    "TaskItem": "result",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "IndexedPages",
    "InlineField",
    "ListItem",
    "Page",
    "PageList",
    "PageSource",
    "QueryError",
    "QueryResult",
    "QueryWarning",
    "Resolver",
    "ResultGroup",
    "ResultRow",
    "TaskGroup",
    "TaskItem",
    "execute_query",
    "extract_fields",
    "extract_list_items",
    "extract_tasks",
    "load_vault",
    "parse_query",
    "parse_task_line",
]
