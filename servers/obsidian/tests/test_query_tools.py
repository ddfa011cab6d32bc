"""query_notes and update_task through the SDK's in-memory client, on a copy of the Dataview
fixture vault behind the real server (`build_server`): exact answers, freshness, hidden folders,
errors, and task edits compared byte for byte."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import TextContent
from obsidian_mcp.server import Config, build_server

pytestmark = pytest.mark.anyio

FIXTURE = Path(__file__).parent / "fixtures" / "dataview_vault"
NO_TASKS: list[Any] = []


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture
async def client(vault: Path, tmp_path: Path) -> AsyncIterator[Client]:
    server = build_server(Config.one_vault(vault, index_dir=tmp_path / "index"))
    async with Client(server, mode="legacy") as connected:
        yield connected


async def answer(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON payload of a call, success or error (`error` key), after checking its wire form."""
    result = await client.call_tool(name, arguments)
    [content] = result.content
    assert isinstance(content, TextContent)
    payload: dict[str, Any] = json.loads(content.text)
    if result.is_error:
        assert result.structured_content is None and "error" in payload
    else:
        assert result.structured_content == payload and "error" not in payload
    return payload


async def query(client: Client, text: str, **arguments: Any) -> dict[str, Any]:
    payload = await answer(client, "query_notes", {"query": text, **arguments})
    assert "error" not in payload, payload
    return payload


def task(path: str, line: int, text: str, **fields: Any) -> dict[str, Any]:
    """A task as query_notes answers it: an open, undated, untagged one unless `fields` say otherwise."""
    base: dict[str, Any] = {
        "path": path,
        "line": line,
        "text": text,
        "status": " ",
        "completed": False,
        "section": None,
        "tags": [],
        "due": None,
        "scheduled": None,
        "start": None,
        "completion": None,
        "created": None,
        "priority": None,
        "recurrence": None,
        "parent": None,
        "children": [],
    }
    return base | fields


# -- query_notes ---------------------------------------------------------------------------------------


async def test_a_table_from_a_tag_sorted(client: Client) -> None:
    assert await query(
        client, 'TABLE status AS "State", due, owner FROM #project AND -#project/alpha SORT due DESC'
    ) == {
        "type": "table",
        "columns": ["File", "State", "due", "owner"],
        "show_id": True,
        "rows": [
            {"path": "Projects/Beta.md", "values": ["Projects/Beta.md", "Blocked", "2024-04-30", "People/Carol.md"]},
            {"path": "Projects/Gamma.md", "values": ["Projects/Gamma.md", "done", "2024-03-31", None]},
            {
                "path": "Projects/Archive/Omega.md",
                "values": ["Projects/Archive/Omega.md", "archived", "2023-12-31", None],
            },
            {"path": "Projects/Delta.md", "values": ["Projects/Delta.md", "active", None, None]},
        ],
        "tasks": NO_TASKS,
        "total": 4,
        "truncated": False,
        "warnings": [],
    }


async def test_a_list_with_a_value_and_a_limit(client: Client) -> None:
    assert await query(client, 'LIST role FROM "People" SORT file.name', limit=1) == {
        "type": "list",
        "columns": ["role"],
        "show_id": True,
        "rows": [{"path": "People/Bob.md", "values": ["engineer"]}],
        "tasks": NO_TASKS,
        "total": 2,
        "truncated": True,
        "warnings": [],
    }


async def test_grouped_rows_have_their_key_and_no_member_list(client: Client) -> None:
    payload = await query(client, 'TABLE WITHOUT ID key AS role, rows.file.name AS who FROM "People" GROUP BY role')
    assert payload["columns"] == ["role", "who"] and payload["show_id"] is False
    assert payload["rows"] == [
        {"key": "engineer", "values": ["engineer", ["Bob"]]},
        {"key": "manager", "values": ["manager", ["Carol"]]},
    ]


async def test_tasks_with_emoji_fields_subtasks_and_groups(client: Client) -> None:
    payload = await query(client, 'TASK FROM "Tasks/Tasks Plugin" WHERE priority')
    assert payload["type"] == "task" and payload["rows"] == [] and payload["total"] == 4
    assert payload["tasks"][:2] == [
        task(
            "Tasks/Tasks Plugin.md",
            2,
            "Write report 📅 2024-05-03 ⏫",
            section="Sprint",
            due="2024-05-03",
            priority="high",
        ),
        task(
            "Tasks/Tasks Plugin.md",
            3,
            "Review PR ⏳ 2024-05-01 🛫 2024-04-29 🔼",
            section="Sprint",
            scheduled="2024-05-01",
            start="2024-04-29",
            priority="medium",
        ),
    ]
    nested = await query(client, 'TASK FROM "Tasks/Nested" WHERE !completed')
    clean = nested["tasks"][0]
    assert (clean["line"], clean["text"], [child["line"] for child in clean["children"]]) == (
        5,
        "Clean up the house",
        [6, 7, 8],
    )
    grouped = await query(client, 'TASK FROM "Tasks" WHERE due GROUP BY file.name')
    assert [(group["key"], len(group["tasks"])) for group in grouped["tasks"]] == [
        ("Dataview Tasks", 4),
        ("Nested", 1),
        ("Tasks Plugin", 5),
    ]


async def test_a_note_edited_on_disk_is_reflected_in_the_next_query(client: Client, vault: Path) -> None:
    people = 'TABLE WITHOUT ID file.name, role FROM "People" SORT file.name'
    assert [row["values"] for row in (await query(client, people))["rows"]] == [
        ["Bob", "engineer"],
        ["Carol", "manager"],
    ]
    (vault / "People" / "Bob.md").write_text("---\nrole: designer\n---\nBob.\n", encoding="utf-8")
    (vault / "People" / "Dana.md").write_text("---\nrole: writer\n---\n", encoding="utf-8")
    assert [row["values"] for row in (await query(client, people))["rows"]] == [
        ["Bob", "designer"],
        ["Carol", "manager"],
        ["Dana", "writer"],
    ]
    (vault / "People" / "Carol.md").unlink()
    assert [row["values"][0] for row in (await query(client, people))["rows"]] == ["Bob", "Dana"]


async def test_hidden_folders_are_never_queried(client: Client, vault: Path) -> None:
    for folder in (".trash", ".hidden"):
        (vault / folder).mkdir(exist_ok=True)
        (vault / folder / "Secret.md").write_text("---\nrole: spy\n---\n#project\n- [ ] secret task\n")
    assert (vault / ".obsidian" / "hidden.md").exists()
    everything = await query(client, "LIST", limit=1000)
    assert not [row for row in everything["rows"] if row["path"].startswith(".")]
    assert everything["total"] == 22
    assert (await query(client, 'LIST WHERE role = "spy"'))["rows"] == []
    assert not [t for t in (await query(client, "TASK", limit=1000))["tasks"] if "secret" in t["text"]]


async def test_warnings_have_codes(client: Client) -> None:
    payload = await query(client, 'TABLE WITHOUT ID status - 1 AS bad FROM "Projects/Alpha"')
    assert payload["rows"] == [{"path": "Projects/Alpha.md", "values": [None]}]
    assert payload["warnings"] == [
        {
            "code": "QUERY_CELL_FAILED",
            "message": "column 'bad' is null where it failed (1 row(s)), e.g.: cannot apply '-' to string and number",
            "column": "bad",
            "count": 1,
            "example": "cannot apply '-' to string and number",
        }
    ]
    unresolved = await query(client, "LIST FROM [[Nobody]]")
    assert [w["code"] for w in unresolved["warnings"]] == ["QUERY_LINK_UNRESOLVED"]
    dropped = await query(client, "LIST FROM #project WHERE due - 1 > 0")
    assert [(w["code"], w["command"], w["count"]) for w in dropped["warnings"]] == [("QUERY_ROWS_DROPPED", "WHERE", 4)]


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("TABLE status FROM", 17, "expected a source"),
        ("LIST WHERE (", 12, "expected an expression"),
        ("CALENDAR file.day", 0, "CALENDAR"),
        ('LIST FROM "Projects/Alpha" WHERE due - 1', 27, "every row failed in WHERE"),
    ],
)
async def test_a_query_that_cannot_run_is_a_parse_error_with_its_position(
    client: Client, text: str, position: int, expected: str
) -> None:
    error = await answer(client, "query_notes", {"query": text})
    assert error["error"] == "parse_error" and error["details"]["field"] == "query"
    assert error["details"]["reason"] == "invalid_query" and error["details"]["position"] == position
    assert expected in error["message"] and f"(at position {position})" in error["message"]


async def test_limit_is_checked(client: Client) -> None:
    for limit in (0, 1001):
        error = await answer(client, "query_notes", {"query": "LIST", "limit": limit})
        assert (error["error"], error["details"]["field"]) == ("parse_error", "limit")


# -- update_task --------------------------------------------------------------------------------------


def today_stamps() -> set[str]:
    """Today as the server sees it (and tomorrow, should the test straddle midnight)."""
    return {date.today().isoformat(), (date.today() + timedelta(days=1)).isoformat()}


async def test_completing_a_plain_task_changes_one_byte(client: Client, vault: Path) -> None:
    note = vault / "Tasks" / "Dataview Tasks.md"
    before = note.read_bytes()
    done = await answer(
        client,
        "update_task",
        {"path": "Tasks/Dataview Tasks", "line": 3, "expected_text": "Someday task", "status": "x"},
    )
    after = note.read_bytes()
    assert after == before.replace(b"- [ ] Someday task", b"- [x] Someday task")
    assert done["path"] == "Tasks/Dataview Tasks.md" and done["line"] == 3 and done["text"] == "- [x] Someday task"
    assert done["next_created"] is False and done["next_text"] is None and done["warnings"] == []
    read = await answer(client, "read_note", {"path": "Tasks/Dataview Tasks"})
    assert read["etag"] == done["etag"]
    # The index sees the write at once: the task is no longer open.
    open_tasks = await query(client, 'TASK FROM "Tasks/Dataview Tasks" WHERE !completed')
    assert "Someday task" not in [t["text"] for t in open_tasks["tasks"]]


async def test_crlf_nested_task_by_its_whole_line(client: Client, vault: Path) -> None:
    note = vault / "Tasks" / "Nested.md"
    original = note.read_bytes()
    note.write_bytes(original.replace(b"\n", b"\r\n"))
    before = note.read_bytes()
    done = await answer(
        client, "update_task", {"path": "Tasks/Nested.md", "line": 6, "expected_text": "\t- [ ] Kitchen", "status": "/"}
    )
    assert done["text"] == "\t- [/] Kitchen"
    assert note.read_bytes() == before.replace(b"\t- [ ] Kitchen\r\n", b"\t- [/] Kitchen\r\n")


async def test_a_tasks_plugin_task_gets_its_done_date_and_loses_it_when_reopened(client: Client, vault: Path) -> None:
    note = vault / "Tasks" / "Tasks Plugin.md"
    before = note.read_text(encoding="utf-8")
    done = await answer(
        client,
        "update_task",
        {"path": "Tasks/Tasks Plugin", "line": 2, "expected_text": "Write report 📅 2024-05-03 ⏫", "status": "x"},
    )
    stamp = done["text"][-10:]
    assert stamp in today_stamps()
    assert done["text"] == f"- [x] Write report 📅 2024-05-03 ⏫ ✅ {stamp}"
    assert note.read_text(encoding="utf-8") == before.replace("- [ ] Write report 📅 2024-05-03 ⏫", done["text"])
    reopened = await answer(
        client, "update_task", {"path": "Tasks/Tasks Plugin", "line": 2, "expected_text": done["text"], "status": " "}
    )
    assert reopened["text"] == "- [ ] Write report 📅 2024-05-03 ⏫"
    assert note.read_text(encoding="utf-8") == before
    # Reopening a task that was done with a date removes that date too.
    shipped = await answer(
        client,
        "update_task",
        {
            "path": "Tasks/Tasks Plugin",
            "line": 4,
            "expected_text": "- [x] Ship release ✅ 2024-04-28 📅 2024-04-27",
            "status": " ",
        },
    )
    assert shipped["text"] == "- [ ] Ship release 📅 2024-04-27"


async def test_completing_a_recurring_task_writes_the_next_occurrence_above(client: Client, vault: Path) -> None:
    note = vault / "Tasks" / "Tasks Plugin.md"
    before = note.read_text(encoding="utf-8")
    done = await answer(
        client,
        "update_task",
        {
            "path": "Tasks/Tasks Plugin",
            "line": 5,
            "expected_text": "Water plants 🔁 every week 📅 2024-05-08",
            "status": "x",
        },
    )
    stamp = done["text"][-10:]
    assert done["next_created"] is True and done["line"] == 6
    assert done["next_text"] == "- [ ] Water plants 🔁 every week 📅 2024-05-15"
    assert done["text"] == f"- [x] Water plants 🔁 every week 📅 2024-05-08 ✅ {stamp}"
    assert note.read_text(encoding="utf-8") == before.replace(
        "- [ ] Water plants 🔁 every week 📅 2024-05-08\n", f"{done['next_text']}\n{done['text']}\n"
    )
    again = await query(client, 'TASK FROM "Tasks/Tasks Plugin" WHERE recurrence')
    assert [(t["line"], t["status"], t["due"]) for t in again["tasks"]] == [
        (5, " ", "2024-05-15"),
        (6, "x", "2024-05-08"),
    ]


async def test_an_unsupported_rule_completes_without_a_next_occurrence(client: Client, vault: Path) -> None:
    (vault / "Odd.md").write_text("- [ ] Pay rent 🔁 every month on the 1st 📅 2024-05-01\n", encoding="utf-8")
    done = await answer(
        client,
        "update_task",
        {"path": "Odd", "line": 1, "expected_text": "Pay rent 🔁 every month on the 1st 📅 2024-05-01", "status": "x"},
    )
    assert done["next_created"] is False and done["line"] == 1
    assert [w["code"] for w in done["warnings"]] == ["RECURRENCE_NOT_CREATED"]
    assert done["warnings"][0]["rule"] == "every month on the 1st"
    assert (vault / "Odd.md").read_text(encoding="utf-8").count("\n") == 1


async def test_a_changed_line_is_refused_and_nothing_is_written(client: Client, vault: Path) -> None:
    note = vault / "Tasks" / "Dataview Tasks.md"
    before = note.read_bytes()
    error = await answer(
        client, "update_task", {"path": "Tasks/Dataview Tasks", "line": 3, "expected_text": "Someday", "status": "x"}
    )
    assert error["error"] == "permission_denied"
    assert error["details"]["reason"] == "changed" and error["details"]["line"] == 3
    assert error["details"]["current_text"] == "- [ ] Someday task"
    assert note.read_bytes() == before


async def test_a_line_that_is_not_a_task_is_a_parse_error_on_line(client: Client, vault: Path) -> None:
    cases = [
        ("Projects/Alpha", 10, "# Alpha"),  # a heading
        ("Projects/Alpha", 2, "status: active"),  # frontmatter
        ("Tasks/Nested", 12, "- Notes bullet"),  # a plain list item
    ]
    for path, line, text in cases:
        error = await answer(client, "update_task", {"path": path, "line": line, "expected_text": text, "status": "x"})
        assert (error["error"], error["details"]["field"], error["details"]["reason"]) == (
            "parse_error",
            "line",
            "not_a_task",
        ), (path, line)
    (vault / "Code.md").write_text("```\n- [ ] not a task\n```\n", encoding="utf-8")
    error = await answer(
        client, "update_task", {"path": "Code", "line": 2, "expected_text": "- [ ] not a task", "status": "x"}
    )
    assert error["details"]["reason"] == "not_a_task"
    error = await answer(client, "update_task", {"path": "Code", "line": 9, "expected_text": "", "status": "x"})
    assert (error["details"]["field"], error["details"]["reason"]) == ("line", "out_of_range")
    for bad in ("", "xx"):
        error = await answer(client, "update_task", {"path": "Code", "line": 2, "expected_text": "", "status": bad})
        assert (error["error"], error["details"]["field"]) == ("parse_error", "status")
    missing = await answer(client, "update_task", {"path": "Nope", "line": 1, "expected_text": "", "status": "x"})
    assert missing["error"] == "not_found"


async def test_update_task_is_hidden_in_read_only_mode(vault: Path, tmp_path: Path) -> None:
    server = build_server(Config.one_vault(vault, index_dir=tmp_path / "index", read_only=True))
    async with Client(server, mode="legacy") as reader:
        names = {tool.name for tool in (await reader.list_tools()).tools}
        assert "query_notes" in names and "update_task" not in names
        refused = await answer(reader, "update_task", {"path": "Odd", "line": 1, "expected_text": "", "status": "x"})
        assert (refused["error"], refused["details"]["reason"]) == ("permission_denied", "read_only")
