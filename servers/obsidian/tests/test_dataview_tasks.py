"""Task lines as the Tasks plugin and Dataview write them: status characters, emoji dates,
priorities, recurrence, inline fields, tags, links and block ids."""

from __future__ import annotations

from typing import Any

import pytest
from obsidian_mcp.dataview import Page, PageList, TaskItem, execute_query, extract_tasks, parse_task_line

# line -> the TaskItem fields that differ from an open, undated, untagged task
TASK_LINES: list[tuple[str, dict[str, Any]]] = [
    ("- [ ] Plain task", {"text": "Plain task"}),
    ("- [x] Done task", {"status": "x", "checked": True, "completed": True, "fully_completed": True}),
    ("- [X] Done, upper case", {"status": "X", "checked": True, "completed": True, "fully_completed": True}),
    ("* [ ] Star bullet", {"text": "Star bullet"}),
    ("+ [ ] Plus bullet", {"text": "Plus bullet"}),
    ("1. [ ] Numbered", {"text": "Numbered"}),
    ("2) [ ] Numbered with a parenthesis", {}),
    ("- [/] In progress", {"status": "/", "checked": True}),
    ("- [-] Cancelled ❌ 2024-04-20", {"status": "-", "checked": True}),
    ("- [>] Deferred", {"status": ">", "checked": True}),
    ("- [!] Important", {"status": "!", "checked": True}),
    ("- [?] Question", {"status": "?", "checked": True}),
    ("- [ ] Due 📅 2024-05-03", {"due": "2024-05-03"}),
    ("- [ ] Due, calendar 📆 2024-05-04", {"due": "2024-05-04"}),
    ("- [ ] Due, spiral calendar 🗓️ 2024-05-05", {"due": "2024-05-05"}),
    ("- [ ] Scheduled ⏳ 2024-05-06", {"scheduled": "2024-05-06"}),
    ("- [ ] Scheduled, hourglass ⌛ 2024-05-07", {"scheduled": "2024-05-07"}),
    ("- [ ] Start 🛫 2024-05-08", {"start": "2024-05-08"}),
    (
        "- [x] Done on ✅ 2024-05-09",
        {"status": "x", "checked": True, "completed": True, "fully_completed": True, "completion": "2024-05-09"},
    ),
    ("- [ ] Created ➕ 2024-05-10", {"created": "2024-05-10"}),
    ("- [ ] Highest 🔺", {"priority": "highest"}),
    ("- [ ] High ⏫", {"priority": "high"}),
    ("- [ ] Medium 🔼", {"priority": "medium"}),
    ("- [ ] Low 🔽", {"priority": "low"}),
    ("- [ ] Lowest ⏬", {"priority": "lowest"}),
    (
        "- [ ] Recurring 🔁 every week on Monday 📅 2024-05-13",
        {"recurrence": "every week on Monday", "due": "2024-05-13"},
    ),
    (
        "- [ ] Everything ➕ 2024-05-01 🛫 2024-05-02 ⏳ 2024-05-03 📅 2024-05-04 🔁 every day when done ⏫",
        {
            "created": "2024-05-01",
            "start": "2024-05-02",
            "scheduled": "2024-05-03",
            "due": "2024-05-04",
            "recurrence": "every day when done",
            "priority": "high",
        },
    ),
    ("- [ ] Dataview due [due:: 2024-05-14]", {"due": "2024-05-14"}),
    (
        "- [x] Dataview completion [completion:: 2024-05-15]",
        {"status": "x", "checked": True, "completed": True, "fully_completed": True, "completion": "2024-05-15"},
    ),
    (
        "- [ ] Tasks' Dataview format (priority:: high) [repeat:: every month]",
        {"priority": "high", "recurrence": "every month"},
    ),
    (
        "- [ ] Dated [start:: 2024-05-16] [scheduled:: 2024-05-17] [created:: 2024-05-01]",
        {"start": "2024-05-16", "scheduled": "2024-05-17", "created": "2024-05-01"},
    ),
    ("- [ ] Date and time [due:: 2024-05-18T14:30:00]", {"due": "2024-05-18T14:30:00"}),
    ("- [ ] Tagged #work/urgent and #home", {"tags": ["#work/urgent", "#home"]}),
    ("- [ ] Not a tag: issue #123 or a#b", {}),
    ("- [ ] Link to [[Alpha]] with #tag", {"tags": ["#tag"]}),
    ("- [ ] No space after the emoji📅2024-05-19", {"due": "2024-05-19"}),
    ("- [ ] Not a real date 📅 2024-13-45", {"due": "2024-13-45"}),
    ("- [ ] Emoji and field 📅 2024-05-20 [due:: 2024-05-21]", {"due": "2024-05-20"}),
    ("- [ ] A field in a `[due:: 2024-01-01]` code span is not a field", {}),
    ("  - [ ] Indented 📅 2024-05-22", {"due": "2024-05-22"}),
    ("> - [ ] In a blockquote", {"text": "In a blockquote"}),
    ("- [ ]", {"text": ""}),
]

_OPEN = {
    "status": " ",
    "checked": False,
    "completed": False,
    "fully_completed": False,
    "tags": [],
    "due": None,
    "scheduled": None,
    "start": None,
    "completion": None,
    "created": None,
    "priority": None,
    "recurrence": None,
    "parent": None,
}


def only_task(line: str) -> TaskItem:
    result = execute_query("TASK", PageList([Page("t.md", body=line)]))
    [task] = result.tasks
    assert isinstance(task, TaskItem)
    return task


@pytest.mark.parametrize(("line", "expected"), TASK_LINES, ids=[line for line, _ in TASK_LINES])
def test_task_line(line: str, expected: dict[str, Any]) -> None:
    task = only_task(line)
    wanted = _OPEN | expected
    assert {key: getattr(task, key) for key in wanted} == wanted
    assert (task.path, task.line) == ("t.md", 1)


def test_the_table_is_large_enough() -> None:
    assert len(TASK_LINES) >= 25


@pytest.mark.parametrize(
    "line",
    [
        "- plain bullet",
        "- [] empty brackets",
        "-[ ] no space after the bullet",
        "[ ] no bullet",
        "- [ab] two characters",
        "Text - [ ] in a sentence",
        "---",
    ],
)
def test_not_a_task(line: str) -> None:
    assert parse_task_line(line) is None
    assert execute_query("TASK", PageList([Page("t.md", body=line)])).tasks == []


def test_raw_task_line_metadata() -> None:
    item = parse_task_line("- [ ] Call [[Bob|Robert]] about #work [due:: 2024-05-02] (where:: office) ⏫ ^call-bob")
    assert item is not None
    assert (item.symbol, item.status, item.block_id) == ("-", " ", "call-bob")
    assert item.links == ("Bob|Robert",)
    assert item.tags == ("#work",)
    assert [(f.key, f.value, f.wrapping) for f in item.fields] == [
        ("due", "2024-05-02", "["),
        ("where", "office", "("),
        ("priority", "high", "emoji"),
    ]


def test_task_fields_are_queryable_with_their_types() -> None:
    line = "- [ ] Estimate [estimate:: 3 hours] [points:: 5] [owner:: [[Bob]]] [done:: false]"
    pages = PageList([Page("t.md", body=line), Page("Bob.md")])
    query = "TASK WHERE estimate > dur(2 hours) AND points = 5 AND owner = [[Bob]] AND done = false AND annotated"
    assert [task.line for task in execute_query(query, pages).tasks if isinstance(task, TaskItem)] == [1]


def test_lines_count_from_the_file_start() -> None:
    page = Page("t.md", {"a": 1}, body="intro\n\n- [ ] task\n    - [ ] subtask", body_start_line=4)
    result = execute_query("TASK", PageList([page]))
    [task] = result.tasks
    assert isinstance(task, TaskItem)
    assert (task.line, [(c.line, c.parent) for c in task.children]) == (6, [(7, 6)])


def test_nesting_by_indentation() -> None:
    body = "\n".join(
        [
            "- [ ] a",
            "    - [ ] b",
            "        - [x] c",
            "    - [x] d",
            "- [ ] e",
            "\t- [ ] f",
            "",
            "- [ ] g",
            "  continued text [field:: 1]",
            "- [ ] h",
            "",
            "Paragraph ends the list.",
            "  - [ ] i",
        ]
    )
    tasks = extract_tasks(body)
    assert [(t.line, t.parent, t.children) for t in tasks] == [
        (1, None, (2, 4)),
        (2, 1, (3,)),
        (3, 2, ()),
        (4, 1, ()),
        (5, None, (6,)),
        (6, 5, ()),
        (8, None, ()),
        (10, None, ()),
        (13, None, ()),
    ]
    g = tasks[6]
    assert (g.text, g.line_count, [(f.key, f.value) for f in g.fields]) == (
        "g\ncontinued text [field:: 1]",
        2,
        [("field", "1")],
    )


def test_fully_completed_needs_every_subtask_done() -> None:
    body = "- [x] a\n  - [x] b\n  - [ ] c\n- [x] d\n  - plain\n    - [x] e"
    result = execute_query("TASK WHERE fullyCompleted", PageList([Page("t.md", body=body)]))
    assert [task.line for task in result.tasks if isinstance(task, TaskItem)] == [2, 4]
