"""DQL queries over the fixture vault, each with exactly the rows Dataview's semantics give.

Shapes: a page row is its path (LIST without expression) or `(path, *values)`; a group is
`(key, values, [member shapes])`; a task is `(path, line)` or `(path, line, [child shapes])`; a
task group is `(key, [task shapes])`. `date(today)` is Wednesday 2024-05-01.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from obsidian_mcp.dataview import PageList, QueryResult, ResultGroup, ResultRow, TaskGroup, TaskItem, execute_query
from obsidian_mcp.dataview.loader import load_vault

VAULT = Path(__file__).parent / "fixtures" / "dataview_vault"
TODAY = date(2024, 5, 1)

ALPHA, BETA, GAMMA, DELTA = (f"Projects/{n}.md" for n in ("Alpha", "Beta", "Gamma", "Delta"))
OMEGA = "Projects/Archive/Omega.md"
KICKOFF, STANDUP, REVIEW = (
    "Meetings/2024-04-29 Kickoff.md",
    "Meetings/2024-05-02 Standup.md",
    "Meetings/2024-05-06 Review.md",
)
INLINE, CODE, COMMENTS, MIXED, READING = (
    f"Notes/{n}.md" for n in ("Inline Fields", "Code Samples", "Comments", "Mixed Case", "Reading List")
)
BOB, CAROL = "People/Bob.md", "People/Carol.md"
DAY1, DAY0 = "Daily/2024-05-01.md", "Daily/20240430.md"
HOME, INBOX = "Home.md", "Inbox.md"
DVTASKS, NESTED, TPLUGIN = "Tasks/Dataview Tasks.md", "Tasks/Nested.md", "Tasks/Tasks Plugin.md"
PROJECTS_AND_NOTES = [
    ALPHA,
    BETA,
    GAMMA,
    DELTA,
    OMEGA,
    KICKOFF,
    STANDUP,
    REVIEW,
    INLINE,
    CODE,
    COMMENTS,
    MIXED,
    READING,
]
ALL = sorted([*PROJECTS_AND_NOTES, BOB, CAROL, DAY1, DAY0, HOME, INBOX, DVTASKS, NESTED, TPLUGIN])


@pytest.fixture(scope="module")
def vault() -> PageList:
    return load_vault(VAULT)


def run(vault: PageList, query: str, **options: object) -> QueryResult:
    return execute_query(query, vault, today=TODAY, limit=None, **options)  # type: ignore[arg-type]


def shape(item: ResultRow | ResultGroup | TaskItem | TaskGroup) -> object:
    if isinstance(item, ResultRow):
        return (item.path, *item.values) if item.values else item.path
    if isinstance(item, ResultGroup):
        return (item.key, item.values, [shape(member) for member in item.rows])
    if isinstance(item, TaskGroup):
        return (item.key, [shape(task) for task in item.tasks])
    if item.children:
        return (item.path, item.line, [child.line for child in item.children])
    return (item.path, item.line)


def shapes(result: QueryResult) -> list[object]:
    return [shape(item) for item in (result.tasks if result.type == "task" else result.rows)]


CASES: list[tuple[str, list[object]]] = [
    # --- FROM: folders, single files, tags (nested, case-insensitive), links, negation, and/or ---
    ('LIST FROM "Projects"', [ALPHA, OMEGA, BETA, DELTA, GAMMA]),
    ('LIST FROM "Projects/Alpha"', [ALPHA]),
    ('LIST FROM "Projects/Alpha.md"', [ALPHA]),
    ('LIST FROM "Proj"', []),
    ("LIST FROM #project", [INBOX, ALPHA, OMEGA, BETA, DELTA, GAMMA]),
    ("LIST FROM #project/alpha", [INBOX, ALPHA]),
    ("LIST FROM #PROJECT/Alpha", [INBOX, ALPHA]),
    ('LIST FROM #project AND -"Projects/Archive"', [INBOX, ALPHA, BETA, DELTA, GAMMA]),
    ("LIST FROM #project and -#project/alpha", [OMEGA, BETA, DELTA, GAMMA]),
    ("LIST FROM #reading OR #code", [CODE, READING]),
    ('LIST FROM -"Projects" AND -"Notes" AND -"Tasks" AND !"Meetings"', [DAY1, DAY0, HOME, INBOX, BOB, CAROL]),
    ('LIST FROM ("Meetings" or "People") and [[Alpha]]', [KICKOFF, REVIEW, BOB]),
    ("LIST FROM [[Alpha]]", [DAY1, HOME, KICKOFF, REVIEW, INLINE, BOB, BETA, GAMMA]),
    ("LIST FROM [[Projects/Alpha.md]]", [DAY1, HOME, KICKOFF, REVIEW, INLINE, BOB, BETA, GAMMA]),
    ("LIST FROM outgoing([[Home]])", [ALPHA, BETA, GAMMA]),
    ("LIST FROM #home", [HOME]),
    ("LIST FROM #fake-tag", []),
    # --- WHERE on fields: case-insensitive keys, canonical aliases, null handling ---
    ('LIST WHERE status = "active"', [ALPHA, DELTA]),
    ('LIST WHERE STATUS = "Blocked"', [BETA]),
    ("LIST WHERE Status", [ALPHA, OMEGA, BETA, DELTA, GAMMA]),
    ('LIST WHERE project-status = "Green"', [MIXED]),
    ('TABLE WITHOUT ID due-date, rating, Rating FROM "Notes/Inline Fields"', [(INLINE, "2024-06-01", 8, 8)]),
    ("LIST WHERE due < date(2024-05-01)", [p for p in ALL if p != ALPHA]),
    ("LIST WHERE due AND due < date(2024-05-01)", [OMEGA, BETA, GAMMA]),
    ('LIST WHERE typeof(due) = "date" AND due >= date(today)', [ALPHA]),
    ('LIST WHERE due = date("2024-04-30")', [BETA]),
    ('LIST FROM "Projects" WHERE !due', [DELTA]),
    ("LIST WHERE priority > 1", [ALPHA, GAMMA]),
    ('LIST FROM "Notes" WHERE empty = null AND rating', [INLINE]),
    ("LIST WHERE fake OR indented OR hidden OR secret OR html", []),
    (
        'TABLE WITHOUT ID real, visible, after FROM "Notes" WHERE real OR visible',
        [
            (CODE, "yes", None, None),
            (COMMENTS, None, "yes", GAMMA),
        ],
    ),
    ('TABLE WITHOUT ID row["Project Status"] AS s FROM "Notes/Mixed Case"', [(MIXED, "Green")]),
    # --- arithmetic and strings ---
    ("LIST WHERE budget * 2 > 1000", [ALPHA]),
    ("LIST WHERE budget % 7 = 3", [ALPHA]),
    (
        "TABLE budget / 4 AS quarter, budget - 100 AS less FROM #project WHERE budget",
        [
            (ALPHA, ALPHA, 300, 1100),
            (BETA, BETA, 75.125, 200.5),
        ],
    ),
    ('TABLE WITHOUT ID "Due " + due AS label FROM "Projects/Beta"', [(BETA, "Due April 30, 2024")]),
    (
        'TABLE WITHOUT ID file.name + " (" + status + ")" FROM "Projects" SORT file.name',
        [
            (ALPHA, "Alpha (active)"),
            (BETA, "Beta (Blocked)"),
            (DELTA, "Delta (active)"),
            (GAMMA, "Gamma (done)"),
            (OMEGA, "Omega (archived)"),
        ],
    ),
    (
        'TABLE WITHOUT ID "ab" * 3, replace("a-b-c", "-", "+"), split("a, b,c", ",\\\\s*"), substring("dataview", 4), '
        'padleft("7", 3, "0"), truncate("dataview", 6) FROM "Home"',
        [(HOME, "ababab", "a+b+c", ["a", "b", "c"], "view", "007", "dat...")],
    ),
    ('TABLE WITHOUT ID lower(status), upper(file.name) FROM "Projects/Beta"', [(BETA, "blocked", "BETA")]),
    (
        'TABLE WITHOUT ID number("about 42 items"), string(7) + "x", typeof(due), typeof(owner) FROM "Projects/Alpha"',
        [(ALPHA, 42, "7x", "date", "link")],
    ),
    (
        'TABLE WITHOUT ID [1, 2] + [3], {a: 1, b: "x"}.b, list(1, 2)[1], -budget FROM "Projects/Alpha"',
        [
            (ALPHA, [1, 2, 3], "x", 2, -1200),
        ],
    ),
    # --- functions ---
    ('LIST WHERE contains(file.tags, "#project")', [INBOX, ALPHA, OMEGA, BETA, DELTA, GAMMA]),
    ('LIST WHERE econtains(file.etags, "#project")', [ALPHA, OMEGA, BETA, GAMMA]),
    ('LIST WHERE contains(file.etags, "#proj")', [INBOX, ALPHA, OMEGA, BETA, DELTA, GAMMA]),
    ('LIST WHERE icontains(status, "BLOCK")', [BETA]),
    ('LIST WHERE startswith(file.name, "2024")', [DAY1, DAY0, KICKOFF, STANDUP, REVIEW]),
    ('LIST WHERE regexmatch("2024-.*", file.name)', [DAY1, KICKOFF, STANDUP, REVIEW]),
    ('LIST WHERE containsword(file.name, "kickoff")', [KICKOFF]),
    ("LIST WHERE length(file.inlinks) >= 3", [BOB, ALPHA, BETA, GAMMA]),
    ('LIST WHERE length(file.outlinks) = 0 AND file.folder = "Projects"', [DELTA]),
    ('LIST WHERE file.folder = "Projects/Archive"', [OMEGA]),
    ('LIST WHERE default(priority, 0) = 0 AND contains(file.path, "Projects")', [OMEGA, DELTA]),
    (
        'TABLE WITHOUT ID default(due, "none") AS d FROM "Projects" SORT file.name',
        [
            (ALPHA, "2024-05-10"),
            (BETA, "2024-04-30"),
            (DELTA, "none"),
            (GAMMA, "2024-03-31"),
            (OMEGA, "2023-12-31"),
        ],
    ),
    ('LIST WHERE choice(completed, "yes", "no") = "yes"', [GAMMA]),
    (
        "TABLE WITHOUT ID round(budget / 7, 2) FROM #project WHERE budget SORT budget DESC",
        [
            (ALPHA, 171.43),
            (BETA, 42.93),
        ],
    ),
    ('TABLE WITHOUT ID min(priority, 5), max(budget, 500), min(null, 3) FROM "Projects/Beta"', [(BETA, 1, 500, 3)]),
    (
        'TABLE WITHOUT ID sum(numbers), length(numbers), numbers[0], numbers[5] FROM "Notes/Inline Fields"',
        [
            (INLINE, 6, 3, 1, None),
        ],
    ),
    (
        'TABLE WITHOUT ID join(books, " / "), books[1] FROM #reading',
        [(READING, "Dune / Hyperion / Foundation", "Hyperion")],
    ),
    (
        "TABLE WITHOUT ID filter(books, (b) => length(b) > 4), map(authors, (a) => upper(a)) FROM #reading",
        [
            (READING, ["Hyperion", "Foundation"], ["HERBERT", "SIMMONS"]),
        ],
    ),
    (
        'TABLE WITHOUT ID any(books, (b) => b = "Dune"), all(books, (b) => length(b) > 3), '
        'none(books, (b) => b = "Emma") FROM #reading',
        [(READING, True, True, True)],
    ),
    (
        "TABLE WITHOUT ID sort(books), reverse(books) FROM #reading",
        [
            (READING, ["Dune", "Foundation", "Hyperion"], ["Foundation", "Hyperion", "Dune"]),
        ],
    ),
    # --- links: literals, fields, equality across forms, field access through links ---
    ("LIST WHERE project = [[Alpha]]", [KICKOFF, REVIEW]),
    ("LIST WHERE project = [[Projects/Beta.md]]", [STANDUP]),
    ("LIST WHERE contains(attendees, [[Carol]])", [KICKOFF]),
    ('LIST WHERE owner.role = "engineer"', [ALPHA]),
    ('LIST WHERE [[Alpha]].status = "active" AND file.name = "Home"', [HOME]),
    ("LIST WHERE file.link = [[Beta]]", [BETA]),
    ('LIST WHERE [[Projects/Alpha.md]] = [[Alpha]] AND file.name = "Home"', [HOME]),
    ('TABLE WITHOUT ID link-field = [[Alpha]], link-field FROM "Notes/Inline Fields"', [(INLINE, True, ALPHA)]),
    (
        'TABLE WITHOUT ID file.name, a FROM "Meetings" FLATTEN attendees AS a WHERE a = [[Bob]]',
        [
            (KICKOFF, "2024-04-29 Kickoff", BOB),
            (STANDUP, "2024-05-02 Standup", BOB),
        ],
    ),
    # --- comparisons across types (null first, then type names in order) ---
    (
        'TABLE WITHOUT ID 1 < "a", null < 0, "B" > "a", [1, 2] < [1, 3], date(2024-01-01) < dur(1 day), '
        '"a" = "A" FROM "Home"',
        [(HOME, True, True, True, True, True, False)],
    ),
    # --- dates and durations ---
    (
        "TABLE WITHOUT ID date(today), date(tomorrow), date(yesterday), date(sow), date(eom), date(som), date(eoy) "
        'FROM "Home"',
        [
            (
                HOME,
                "2024-05-01",
                "2024-05-02",
                "2024-04-30",
                "2024-04-29",
                "2024-05-31T23:59:59.999",
                "2024-05-01",
                "2024-12-31T23:59:59.999",
            )
        ],
    ),
    (
        "TABLE WITHOUT ID date(2024-01-31) + dur(1 month), date(2023-01-31) + dur(1 month), "
        'date(2024-03-31) - dur(1 month), date(2024-12-31) + dur(1 day) FROM "Home"',
        [(HOME, "2024-02-29", "2023-02-28", "2024-02-29", "2025-01-01")],
    ),
    (
        'TABLE WITHOUT ID date(2024-03-01) - date(2024-01-31), date(2024-05-01) - date(2024-05-08) FROM "Home"',
        [(HOME, "P1M1D", "P-7D")],
    ),
    (
        'TABLE WITHOUT ID dur(1 week) + dur(2 days), dur("1 day, 2 hours"), dur(90 minutes), dur(1 week).days '
        'FROM "Home"',
        [(HOME, "P9D", "P1DT2H", "PT1H30M", 7)],
    ),
    ("LIST FROM #project WHERE due >= date(today) - dur(1 day) AND due <= date(today) + dur(2 weeks)", [ALPHA, BETA]),
    ('TABLE WITHOUT ID due.year, due.month, due.day, due.weekday FROM "Projects/Alpha"', [(ALPHA, 2024, 5, 10, 5)]),
    (
        'TABLE WITHOUT ID spent, spent + dur(30 minutes), spent > dur(2 hours) FROM "Notes/Inline Fields"',
        [
            (INLINE, "PT3H", "PT3H30M", True),
        ],
    ),
    ('TABLE WITHOUT ID duration FROM "Meetings" WHERE duration', [(REVIEW, "PT1H")]),
    ("LIST WHERE file.day = date(2024-04-30)", [DAY0]),
    ("LIST WHERE date = date(2024-04-29)", [KICKOFF]),
    ('TABLE WITHOUT ID dateformat(due, "yyyy-MM-dd EEE") FROM "Projects/Alpha"', [(ALPHA, "2024-05-10 Fri")]),
    (
        'TABLE WITHOUT ID striptime(date(2024-05-01T10:30:00)), date("2024-05-01T10:30") FROM "Home"',
        [
            (HOME, "2024-05-01", "2024-05-01T10:30:00"),
        ],
    ),
    # --- SORT (null first ascending, several keys, repeated, stable) and LIMIT in order ---
    ("LIST FROM #project SORT due DESC", [ALPHA, BETA, GAMMA, OMEGA, INBOX, DELTA]),
    ("LIST FROM #project SORT status ASC, file.name DESC", [INBOX, DELTA, ALPHA, OMEGA, BETA, GAMMA]),
    (
        'TABLE priority FROM "Projects" SORT priority',
        [
            (OMEGA, OMEGA, None),
            (DELTA, DELTA, None),
            (BETA, BETA, 1),
            (ALPHA, ALPHA, 2),
            (GAMMA, GAMMA, 3),
        ],
    ),
    ('LIST FROM "Projects" LIMIT 2', [ALPHA, OMEGA]),
    ('LIST FROM "Projects" LIMIT 2 SORT file.name DESC', [OMEGA, ALPHA]),
    ('LIST FROM "Projects" SORT file.name DESC LIMIT 2', [OMEGA, GAMMA]),
    ('LIST FROM "Projects" WHERE due WHERE due > date(2024-01-01)', [ALPHA, BETA, GAMMA]),
    ('LIST FROM "Projects" SORT priority DESC SORT status', [ALPHA, DELTA, OMEGA, BETA, GAMMA]),
    # --- query text: lower-case keywords, comments, line breaks ---
    ('list from "People" where role = "manager" sort file.name desc', [CAROL]),
    ('LIST FROM "People" // who\n// a whole-line comment\nWHERE role = "manager"', [CAROL]),
    ('TABLE WITHOUT ID\n  file.name AS Name\nFROM "People"\nWHERE\n  role = "engineer"', [(BOB, "Bob")]),
    ('LIST FROM "People" SORT sort([2, 1])[0] LIMIT 0', []),
    ('LIST FROM "Projects" SORT file.name LIMIT -3', [ALPHA, BETA]),
    # --- LIST with an expression ---
    (
        'LIST status FROM "Projects" SORT file.name',
        [
            (ALPHA, "active"),
            (BETA, "Blocked"),
            (DELTA, "active"),
            (GAMMA, "done"),
            (OMEGA, "archived"),
        ],
    ),
    ('LIST WITHOUT ID file.name FROM "People"', [(BOB, "Bob"), (CAROL, "Carol")]),
    # --- GROUP BY: groups sorted by key, rows keep their order, swizzling, nested groups ---
    (
        'TABLE length(rows) AS n FROM "Projects" GROUP BY status',
        [
            ("active", ["active", 2], [ALPHA, DELTA]),
            ("archived", ["archived", 1], [OMEGA]),
            ("Blocked", ["Blocked", 1], [BETA]),
            ("done", ["done", 1], [GAMMA]),
        ],
    ),
    (
        'LIST rows.file.name FROM "Meetings" GROUP BY type',
        [
            (
                "meeting",
                [["2024-04-29 Kickoff", "2024-05-02 Standup", "2024-05-06 Review"]],
                [KICKOFF, STANDUP, REVIEW],
            ),
        ],
    ),
    (
        'TABLE rows.file.link AS people FROM "People" GROUP BY role',
        [
            ("engineer", ["engineer", [BOB]], [BOB]),
            ("manager", ["manager", [CAROL]], [CAROL]),
        ],
    ),
    (
        "TABLE WITHOUT ID key, length(rows) AS n FROM #project GROUP BY (due.year) AS year",
        [
            (None, [None, 2], [INBOX, DELTA]),
            (2023, [2023, 1], [OMEGA]),
            (2024, [2024, 3], [ALPHA, BETA, GAMMA]),
        ],
    ),
    (
        'TABLE length(rows) AS n FROM "Projects" GROUP BY status GROUP BY length(rows) AS size',
        [
            (1, [1, 3], [("archived", [], [OMEGA]), ("Blocked", [], [BETA]), ("done", [], [GAMMA])]),
            (2, [2, 1], [("active", [], [ALPHA, DELTA])]),
        ],
    ),
    # --- FLATTEN ---
    (
        "TABLE WITHOUT ID book FROM #reading FLATTEN books AS book",
        [
            (READING, "Dune"),
            (READING, "Hyperion"),
            (READING, "Foundation"),
        ],
    ),
    ("TABLE WITHOUT ID authors FROM #reading FLATTEN authors", [(READING, "Herbert"), (READING, "Simmons")]),
    ('TABLE WITHOUT ID x FROM "Projects/Alpha" FLATTEN status AS x', [(ALPHA, "active")]),
    ('LIST FROM "People" FLATTEN file.outlinks AS o', [BOB]),
    (
        'TABLE WITHOUT ID T.text AS t FROM "Tasks/Dataview Tasks" FLATTEN file.tasks AS T WHERE !T.completed',
        [
            (DVTASKS, "Call Bob [due:: 2024-05-02] [[Bob]]"),
            (DVTASKS, "Someday task"),
            (DVTASKS, "Overdue thing [due:: 2024-04-15] #urgent"),
            (DVTASKS, "Numbered task [due:: 2024-05-07]"),
        ],
    ),
    # --- implicit file fields ---
    (
        'TABLE WITHOUT ID file.name, file.folder, file.ext, file.aliases FROM "Projects/Alpha"',
        [
            (ALPHA, "Alpha", "Projects", "md", ["A1"]),
        ],
    ),
    (
        'TABLE WITHOUT ID file.tags, file.etags FROM "Inbox"',
        [
            (INBOX, ["#inbox", "#project/alpha/sub", "#project/alpha", "#project"], ["#inbox", "#project/alpha/sub"]),
        ],
    ),
    ('TABLE WITHOUT ID length(file.tasks), length(file.lists) FROM "Tasks/Nested"', [(NESTED, 8, 9)]),
    (
        'TABLE WITHOUT ID file.frontmatter.area, file.frontmatter["area"], area FROM "Tasks/Nested"',
        [
            (NESTED, "home", "home", "home"),
        ],
    ),
    (
        'TABLE WITHOUT ID file.outlinks, file.inlinks FROM "Projects/Beta"',
        [
            (BETA, [CAROL, ALPHA], [HOME, STANDUP, GAMMA]),
        ],
    ),
    # --- TASK: both plugins' syntaxes, statuses, inherited page fields, subtasks under their parent ---
    (
        "TASK WHERE !completed AND due <= date(today) + dur(7 days)",
        [
            (KICKOFF, 9),
            (DVTASKS, 1),
            (DVTASKS, 3),
            (DVTASKS, 4),
            (DVTASKS, 5),
            (NESTED, 5, [6, 7, 8]),
            (NESTED, 13),
            (TPLUGIN, 2),
            (TPLUGIN, 3),
            (TPLUGIN, 5),
            (TPLUGIN, 6),
            (TPLUGIN, 7),
        ],
    ),
    ("TASK WHERE due AND due < date(today) AND !completed", [(KICKOFF, 9), (DVTASKS, 4)]),
    ('TASK WHERE status = "/"', [(TPLUGIN, 6)]),
    ("TASK WHERE checked AND !completed", [(TPLUGIN, 6), (TPLUGIN, 7), (TPLUGIN, 11)]),
    ('TASK WHERE priority = "high" OR priority = "highest"', [(TPLUGIN, 2), (TPLUGIN, 6)]),
    ("TASK WHERE recurrence", [(TPLUGIN, 5)]),
    ("TASK WHERE completion = date(2024-04-30)", [(DVTASKS, 2)]),
    ("TASK WHERE urgent", [(NESTED, 8)]),
    ('TASK WHERE contains(tags, "#urgent")', [(DVTASKS, 4)]),
    ('TASK FROM "Tasks/Nested" WHERE !completed', [(NESTED, 5, [6, 7, 8]), (NESTED, 13)]),
    ('TASK FROM "Tasks/Nested" WHERE fullyCompleted', [(NESTED, 7), (NESTED, 9, [10, 11])]),
    ('TASK WHERE area = "home" AND !completed LIMIT 2', [(NESTED, 5, [6, 7, 8])]),
    ('TASK WHERE meta(section).subpath = "Later"', [(TPLUGIN, 10), (TPLUGIN, 11)]),
    ('TASK WHERE file.name = "Dataview Tasks" AND due', [(DVTASKS, 1), (DVTASKS, 2), (DVTASKS, 4), (DVTASKS, 5)]),
    ("TASK WHERE start = date(2024-04-29) OR scheduled = date(today)", [(TPLUGIN, 3)]),
    ("TASK WHERE created", [(TPLUGIN, 10)]),
    ('TASK WHERE text = "Someday task"', [(DVTASKS, 3)]),
    ('TASK FROM "Notes"', []),
    ("TASK WHERE line = 13", [(NESTED, 13)]),
    ("TASK WHERE parent = 5 AND !completed", [(NESTED, 6), (NESTED, 8)]),
    ('TASK FROM "Meetings" SORT file.name DESC', [(STANDUP, 8), (KICKOFF, 9)]),
    (
        "TASK WHERE !completed GROUP BY file.link",
        [
            (KICKOFF, [(KICKOFF, 9)]),
            (DVTASKS, [(DVTASKS, 1), (DVTASKS, 3), (DVTASKS, 4), (DVTASKS, 5)]),
            (NESTED, [(NESTED, 5, [6, 7, 8]), (NESTED, 13)]),
            (
                TPLUGIN,
                [(TPLUGIN, 2), (TPLUGIN, 3), (TPLUGIN, 5), (TPLUGIN, 6), (TPLUGIN, 7), (TPLUGIN, 10), (TPLUGIN, 11)],
            ),
        ],
    ),
]


@pytest.mark.parametrize(("query", "expected"), CASES, ids=[query for query, _ in CASES])
def test_query(vault: PageList, query: str, expected: list[object]) -> None:
    assert shapes(run(vault, query)) == expected


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 60


def test_hidden_folders_are_not_pages(vault: PageList) -> None:
    assert [page.path for page in vault] == ALL


@pytest.mark.parametrize(
    ("query", "columns"),
    [
        ("LIST", []),
        ("LIST status", ["status"]),
        ("LIST WITHOUT ID status", ["status"]),
        ("TABLE", ["File"]),
        (
            'TABLE status, file.folder AS Path, due - date(today) AS "Days left"',
            ["File", "status", "Path", "Days left"],
        ),
        ("TABLE WITHOUT ID status, due", ["status", "due"]),
        ("TABLE length(rows) GROUP BY status", ["status", "length(rows)"]),
        ("TABLE length(rows) GROUP BY (due.year) AS year", ["year", "length(rows)"]),
        ("TABLE\n  status,\n  default(due,\n    date(today)) AS d", ["File", "status", "d"]),
        ('TABLE contains(\n  file.name, "a")', ["File", 'contains(file.name, "a")']),
        ("TASK", []),
    ],
)
def test_columns(vault: PageList, query: str, columns: list[str]) -> None:
    assert run(vault, query).columns == columns


def test_table_values_line_up_with_columns(vault: PageList) -> None:
    result = run(vault, 'TABLE status, due AS "Due" FROM "Projects/Alpha"')
    assert result.type == "table" and result.show_id
    assert result.rows == [ResultRow(path=ALPHA, values=[ALPHA, "active", "2024-05-10"])]


def test_group_rows_carry_key_and_rows(vault: PageList) -> None:
    result = run(vault, 'LIST FROM "People" GROUP BY role')
    assert result.columns == []
    assert result.rows == [
        ResultGroup(key="engineer", values=[], rows=[ResultRow(path=BOB, values=[])]),
        ResultGroup(key="manager", values=[], rows=[ResultRow(path=CAROL, values=[])]),
    ]


def test_group_object_has_key_rows_and_name(vault: PageList) -> None:
    result = run(vault, 'TABLE WITHOUT ID key, role, typeof(rows), rows[0].file.name FROM "People" GROUP BY role')
    assert shapes(result) == [
        ("engineer", ["engineer", "engineer", "array", "Bob"], [BOB]),
        ("manager", ["manager", "manager", "array", "Carol"], [CAROL]),
    ]


def test_engine_limit_caps_rows_and_reports_total(vault: PageList) -> None:
    result = execute_query('LIST FROM "Projects" SORT file.name', vault, today=TODAY, limit=2)
    assert shapes(result) == [ALPHA, BETA]
    assert (result.total, result.truncated) == (5, True)
    whole = execute_query('LIST FROM "Projects" LIMIT 3', vault, today=TODAY, limit=10)
    assert (len(whole.rows), whole.total, whole.truncated) == (3, 3, False)


def test_engine_limit_counts_top_level_tasks(vault: PageList) -> None:
    result = execute_query('TASK FROM "Tasks/Nested"', vault, today=TODAY, limit=1)
    assert shapes(result) == [(NESTED, 5, [6, 7, 8])]
    assert (result.total, result.truncated) == (3, True)


def test_task_item_fields(vault: PageList) -> None:
    [water] = run(vault, "TASK WHERE recurrence").tasks
    assert water == TaskItem(
        path=TPLUGIN,
        line=5,
        text="Water plants 🔁 every week 📅 2024-05-08",
        status=" ",
        checked=False,
        completed=False,
        fully_completed=False,
        section="Sprint",
        tags=[],
        due="2024-05-08",
        scheduled=None,
        start=None,
        completion=None,
        created=None,
        priority=None,
        recurrence="every week",
        parent=None,
        children=[],
    )
    [clean] = run(vault, 'TASK WHERE text = "Clean up the house"').tasks
    assert isinstance(clean, TaskItem) and clean.section == "House"
    assert [(c.line, c.parent, c.status, c.text) for c in clean.children] == [
        (6, 5, " ", "Kitchen"),
        (7, 5, "x", "Living room"),
        (8, 5, " ", "Bedroom [urgent:: true]"),
    ]


def test_this_is_the_origin_note(vault: PageList) -> None:
    result = run(vault, 'TABLE WITHOUT ID this.file.name, this.status FROM "People"', origin=ALPHA)
    assert shapes(result) == [(BOB, "Alpha", "active"), (CAROL, "Alpha", "active")]
    assert shapes(run(vault, "LIST FROM [[Bob]] WHERE owner = this.file.link", origin=BOB)) == [ALPHA]
    assert shapes(run(vault, 'TABLE WITHOUT ID this.file.name, typeof(this) FROM "Home"')) == [(HOME, None, "object")]


def test_a_link_to_no_note_matches_nothing_and_says_so(vault: PageList) -> None:
    result = run(vault, "LIST FROM [[Missing Note]]")
    assert result.rows == [] and [(w.kind, w.link, w.message) for w in result.warnings] == [
        (
            "unresolved_link",
            "Missing Note",
            "[[Missing Note]] in FROM does not resolve to a note, so it matches nothing",
        )
    ]


def test_rows_whose_expression_fails_are_dropped_with_a_warning(vault: PageList) -> None:
    result = run(vault, "LIST FROM #project WHERE due - 1")
    assert result.rows == []
    [warning] = result.warnings
    assert (warning.kind, warning.command, warning.count, warning.example) == (
        "rows_dropped",
        "WHERE",
        4,
        "cannot apply '-' to date and number",
    )
    assert (
        warning.message == "WHERE dropped 4 row(s) whose expression failed, e.g.: cannot apply '-' to date and number"
    )


def test_a_failing_cell_is_null_with_a_warning(vault: PageList) -> None:
    result = run(vault, 'TABLE WITHOUT ID status - 1 AS bad, file.name FROM "Projects/Alpha"')
    assert shapes(result) == [(ALPHA, None, "Alpha")]
    [warning] = result.warnings
    assert (warning.kind, warning.column, warning.count) == ("cell_failed", "bad", 1)
    assert (
        warning.message
        == "column 'bad' is null where it failed (1 row(s)), e.g.: cannot apply '-' to string and number"
    )


def test_result_is_json_ready(vault: PageList) -> None:
    result = run(vault, 'TABLE due, spent, owner, file.tasks FROM "Projects/Alpha" OR "Notes/Inline Fields"')
    dumped = result.model_dump(mode="json")
    assert dumped["rows"][0]["values"][:4] == [INLINE, None, "PT3H", None]
    assert dumped["rows"][1]["values"][:4] == [ALPHA, "2024-05-10", None, BOB]
