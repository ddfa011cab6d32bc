"""List items and tasks as Dataview objects (`file.lists`, `file.tasks`, TASK rows).

`line`, `parent` and `children` use 1-based file lines (Dataview: 0-based). A task's `due`,
`completion`, `created` fall back to Dataview's alternative keys (`duetime`, `comptime`, ...);
`priority` and `recurrence` come from the Tasks plugin's emoji or from `[priority:: ...]` /
`[repeat:: ...]`. `fullyCompleted` needs every task below (through plain bullets) done.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from obsidian_mcp.dataview.fields import merge_fields, typed_fields
from obsidian_mcp.dataview.list_items import ListItem
from obsidian_mcp.dataview.page import Page
from obsidian_mcp.dataview.values import Link, Value, normalize_heading

# A task's dates, priority and recurrence: the field keys each is read from, the first found wins
# (Dataview's alternative keys; the Tasks plugin's emoji are fields of the first name).
TASK_FIELDS: dict[str, tuple[str, ...]] = {
    "created": ("created", "ctime", "cday"),
    "due": ("due", "duetime", "dueday"),
    "completion": ("completed", "completion", "comptime", "compday"),
    "start": ("start",),
    "scheduled": ("scheduled",),
    "priority": ("priority",),
    "recurrence": ("recurrence", "repeat"),
}


def _first(fields: Mapping[str, Value], *keys: str) -> Value:
    for key in keys:
        if key in fields:
            value = fields[key]
            return value[0] if isinstance(value, list) and value else value
    return None


def list_objects(page: Page, items: Sequence[ListItem]) -> list[dict[str, Value]]:
    """Dataview's list item objects; `line`, `parent` and `children` use 1-based file lines."""
    shift = page.body_start_line - 1
    by_line = {item.line: item for item in items}
    built: dict[int, dict[str, Value]] = {}

    def completed_tree(item: ListItem) -> bool:
        done = not item.task or item.status in ("x", "X")
        return done and all(completed_tree(by_line[child]) for child in item.children if child in by_line)

    for item in sorted(items, key=lambda i: i.line, reverse=True):  # children before parents
        section = (
            Link(page.path, display=item.section, subpath=normalize_heading(item.section), kind="header")
            if item.section
            else None
        )
        fields = merge_fields(typed_fields(item.fields, page.path))
        data: dict[str, Value] = {
            "symbol": item.symbol,
            "link": Link(page.path, subpath=item.block_id, kind="block")
            if item.block_id
            else section or Link(page.path),
            "section": section or Link(page.path),
            "text": item.text,
            "tags": list(item.tags),
            "line": item.line + shift,
            "lineCount": item.line_count,
            "outlinks": [Link.parse(inner, origin=page.path) for inner in item.links],
            "path": page.path,
            "children": [built[child] for child in item.children if child in built],
            "task": item.task,
            "annotated": bool(item.fields),
            "parent": item.parent + shift if item.parent is not None else None,
            "blockId": item.block_id,
        }
        if item.task:
            completed = item.status in ("x", "X")
            data |= {
                "status": item.status,
                "checked": item.status not in ("", " "),
                "completed": completed,
                "fullyCompleted": completed_tree(item),
            }
            data |= {name: _first(fields, *keys) for name, keys in TASK_FIELDS.items()}
        for key, value in fields.items():
            data.setdefault(key, value)
        built[item.line] = data
    return [built[item.line] for item in items]
