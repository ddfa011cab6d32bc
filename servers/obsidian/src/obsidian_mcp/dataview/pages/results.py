"""What `query_notes` answers: the typed result of a Dataview query over the vault's pages.

The same rules as `vault.results`: exactly the tool's JSON, warnings attached, and no model has a
docstring.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from obsidian_mcp.models import ToolWarning


# One note's row in dql.query_notes (LIST, TABLE).
class QueryRow(BaseModel):
    path: str = Field(description="the note")
    values: list[JsonValue] = Field(
        description="one value per column (dates ISO 8601, durations ISO 8601, links as paths)"
    )


# One GROUP BY group's row in dql.query_notes: its key and the columns computed over its notes.
class QueryGroup(BaseModel):
    key: JsonValue = Field(description="the group's key")
    values: list[JsonValue] = Field(description="one value per column, computed over the group (e.g. length(rows))")


# One task in dql.query_notes (TASK); `line` and `text` are what update_task needs.
class QueryTask(BaseModel):
    path: str
    line: int = Field(description="1-based line of the task in the note")
    text: str = Field(description="the task's text after the checkbox")
    status: str = Field(description="the character in the checkbox: ' ' open, 'x' done, or another")
    completed: bool
    section: str | None = Field(description="the heading the task is under")
    tags: list[str]
    due: JsonValue
    scheduled: JsonValue
    start: JsonValue
    completion: JsonValue = Field(description="the done date")
    created: JsonValue
    priority: JsonValue = Field(description="highest, high, medium, low or lowest (Tasks emoji), or as written")
    recurrence: JsonValue = Field(description="the recurrence rule, e.g. 'every week'")
    parent: int | None = Field(description="line of the parent task or list item")
    children: list[QueryTask] = Field(description="its subtasks")


class QueryTaskGroup(BaseModel):
    key: JsonValue = Field(description="the group's key")
    tasks: list[QueryTask | QueryTaskGroup]


# dql.query_notes: rows (LIST, TABLE) or tasks (TASK), at most `limit` of them.
class QueryNotesResult(BaseModel):
    type: Literal["list", "table", "task"]
    columns: list[str] = Field(description="column names; with show_id the first is the note (File) or group key")
    show_id: bool = Field(description="false for WITHOUT ID")
    rows: list[QueryRow | QueryGroup] = Field(description="LIST and TABLE results; groups after GROUP BY")
    tasks: list[QueryTask | QueryTaskGroup] = Field(description="TASK results; groups after GROUP BY")
    total: int = Field(description="rows (or top-level tasks, or groups) before the limit")
    truncated: bool = Field(description="true when the limit cut some")
    warnings: list[ToolWarning] = Field(default_factory=list)
