"""The exact success JSON of the tools, in process: a copy of the sample vault behind the real
server (`build_server`), driven by the SDK's own client over its in-memory transport.

Whole payloads are pinned, not key subsets: a field that appears, vanishes or changes its form
fails here before it reaches a client. Only what varies from run to run is replaced, visibly, by
`stable` (etags and file times). Every tool has at least one success here; test_wire_errors.py
pins one error of each. A failure here is a change of the wire: update the snapshot and
specs/contracts in the same change. The subprocess suite in tests/contract keeps guarding the wire
itself (stdio framing, errors, logs); this one is the quick guard of the answers' shapes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import TextContent
from obsidian_mcp.semantic import HashingEmbedder
from obsidian_mcp.server import Config, assemble

Connect = Callable[..., AbstractAsyncContextManager[Client]]  # the `connected` fixture (conftest.py)
Copier = Callable[[Path], Path]  # the `sample_copy` fixture (conftest.py)
SAM_RIVERA = Path(__file__).resolve().parents[3] / "examples" / "vault" / "People" / "Sam Rivera.md"

pytestmark = pytest.mark.anyio

PLACEHOLDERS = {"etag": "<etag>", "modified": "<modified>"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def vault(tmp_path: Path, sample_copy: Copier) -> Path:
    """A private copy of the sample vault, for a test that changes it."""
    return sample_copy(tmp_path)


@pytest.fixture
async def client(vault: Path, tmp_path: Path, connected: Connect) -> AsyncIterator[Client]:
    """A client of a server on the test's own copy of the sample vault."""
    async with connected(vault, tmp_path / "index") as client:
        yield client


@pytest.fixture(scope="module")
async def reader(
    tmp_path_factory: pytest.TempPathFactory,
    sample_copy: Copier,
    connected: Connect,
) -> AsyncIterator[Client]:
    """A client shared by the tests that only read: one server and index build for all of them."""
    folder = tmp_path_factory.mktemp("reading")
    async with connected(sample_copy(folder), folder / "index") as client:
        yield client


def stable(value: Any) -> Any:
    """`value` with the inherently variable fields (PLACEHOLDERS' keys) replaced by placeholders."""
    if isinstance(value, dict):
        return {key: PLACEHOLDERS.get(key, stable(item)) for key, item in value.items()}
    if isinstance(value, list):
        return [stable(item) for item in value]
    return value


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A successful call's payload, after checking its wire form: one compact JSON text, the same
    object as structuredContent, no isError."""
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result
    [content] = result.content
    assert isinstance(content, TextContent)
    payload = json.loads(content.text)
    assert content.text == json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    assert result.structured_content == payload
    stabilised: dict[str, Any] = stable(payload)
    return stabilised


def assert_exact(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """Equal, and with the keys in the same order at every level (the order clients see)."""
    assert actual == expected
    assert json.dumps(actual, ensure_ascii=False) == json.dumps(expected, ensure_ascii=False)


def wikilink(target: str, line: int) -> dict[str, Any]:
    """A plain `[[target]]` as read_note lists it."""
    return {
        "target": target,
        "alias": None,
        "heading": None,
        "block": None,
        "embed": False,
        "kind": "wikilink",
        "line": line,
    }


# -- reading -------------------------------------------------------------------------------------


async def test_read_note(reader: Client) -> None:
    assert_exact(
        await call(reader, "read_note", {"path": "People/Sam Rivera"}),
        {
            "path": "People/Sam Rivera.md",
            "content": (Path(__file__).resolve().parents[3] / "examples/vault/People/Sam Rivera.md").read_text(
                encoding="utf-8"
            ),
            "frontmatter": {
                "title": "Sam Rivera",
                "aliases": ["Sam"],
                "tags": ["person", "work"],
                "role": "Product Designer",
                "company": "Fernhill",
                "birthday": "1991-03-08",
            },
            "tags": ["person", "work"],
            "links": [
                wikilink("Alpha", 15),
                wikilink("Reading List", 19),
                wikilink("Café Recipes", 20),
                wikilink("Website Redesign", 21),
            ],
            "etag": "<etag>",
            "size": 512,
            "truncated": False,
            "next_offset": None,
            "warnings": [],
        },
    )


async def test_read_note_paged_has_a_truncation_warning(reader: Client) -> None:
    assert_exact(
        await call(reader, "read_note", {"path": "Projects/Alpha", "max_chars": 120}),
        {
            "path": "Projects/Alpha.md",
            "content": "---\ntitle: Project Alpha\naliases:\n  - Project Alpha\n  - Sync Engine Rewrite\n"
            "tags:\n  - project\n  - work\nstatus: active\ncr",
            "frontmatter": {
                "title": "Project Alpha",
                "aliases": ["Project Alpha", "Sync Engine Rewrite"],
                "tags": ["project", "work"],
                "status": "active",
                "created": "2026-09-14",
                "due": "2027-01-29",
                "owner": "Nora Lindqvist",
                "budget": {"currency": "EUR", "approved": 12000, "spent": 4350},
            },
            "tags": ["project", "work", "project/alpha", "project/alpha/beta"],
            "links": [
                wikilink("Priya Natarajan", 23),
                wikilink("Sam Rivera", 23),
                wikilink("Projects/Meeting Notes", 60),
                wikilink("Areas/Work/Meeting Notes", 60),
            ],
            "etag": "<etag>",
            "size": 2128,
            "truncated": True,
            "next_offset": 120,
            "warnings": [
                {
                    "code": "CONTENT_TRUNCATED",
                    "message": "returned 120 of 2128 characters; call again with offset=120 for more",
                    "next_offset": 120,
                }
            ],
        },
    )


async def test_read_note_with_broken_frontmatter_has_a_warning(client: Client, vault: Path) -> None:
    (vault / "Broken.md").write_text("---\ntitle: [unclosed\n---\n# Broken\n", encoding="utf-8")
    assert_exact(
        await call(client, "read_note", {"path": "Broken"}),
        {
            "path": "Broken.md",
            "content": "---\ntitle: [unclosed\n---\n# Broken\n",
            "frontmatter": {},
            "tags": [],
            "links": [],
            "etag": "<etag>",
            "size": 34,
            "truncated": False,
            "next_offset": None,
            "warnings": [
                {
                    "code": "FRONTMATTER_INVALID",
                    "message": "the frontmatter is not valid YAML; it is returned as text in content "
                    "and as {} in frontmatter",
                    "line": 3,
                    "problem": "invalid YAML frontmatter: while parsing a flow sequence; "
                    "did not find expected ',' or ']'",
                }
            ],
        },
    )


async def test_list_notes(reader: Client) -> None:
    assert_exact(
        await call(reader, "list_notes", {"folder": "People"}),
        {
            "notes": [
                {"path": "People/Jonas Weber.md", "size": 318, "modified": "<modified>"},
                {"path": "People/Priya Natarajan.md", "size": 520, "modified": "<modified>"},
                {"path": "People/Ruth Lindqvist.md", "size": 482, "modified": "<modified>"},
                {"path": "People/Sam Rivera.md", "size": 513, "modified": "<modified>"},
            ],
            "next_cursor": None,
        },
    )


# -- the index -----------------------------------------------------------------------------------


async def test_search_notes(reader: Client) -> None:
    assert_exact(
        await call(reader, "search_notes", {"query": "roofing felt", "limit": 3, "mode": "keyword"}),
        {
            "results": [
                {
                    "path": "Inbox.md",
                    "title": "Inbox",
                    "score": 5.46729,
                    "line": 5,
                    "heading": "Inbox",
                    "snippet": "- [ ] Ask [[Jonas Weber]] whether he still has the spare roofing felt",
                    "match": "words",
                },
                {
                    "path": "Daily/2026-11-23.md",
                    "title": "2026-11-23",
                    "score": 5.45668,
                    "line": 25,
                    "heading": "Gratitude",
                    "snippet": "- Jonas dropped off the roofing felt without being asked.",
                    "match": "words",
                },
                {
                    "path": "Projects/Garden Shed.md",
                    "title": "Garden Shed",
                    "score": 5.12352,
                    "line": 31,
                    "heading": "Materials",
                    "snippet": "| Roofing felt | 1 roll | 0 (Jonas) |",
                    "match": "words",
                },
            ],
            "total": 3,
            "warnings": [],
        },
    )


async def test_list_tags(reader: Client) -> None:
    assert_exact(
        await call(reader, "list_tags", {"folder": "Projects"}),
        {
            "tags": [
                {"tag": "project", "count": 4},
                {"tag": "project/alpha", "count": 2},
                {"tag": "area/health", "count": 1},
                {"tag": "health", "count": 1},
                {"tag": "home", "count": 1},
                {"tag": "meeting", "count": 1},
                {"tag": "personal", "count": 1},
                {"tag": "project/alpha/beta", "count": 1},
                {"tag": "work", "count": 1},
            ]
        },
    )


async def test_list_vaults(client: Client, vault: Path) -> None:
    notes = sum(1 for _ in vault.rglob("*.md") if not any(part.startswith(".") for part in _.parts))
    entry = {"name": "vault", "default": True, "notes": notes, "indexed": False}
    assert notes == 30
    # nothing is built before a call
    assert_exact(await call(client, "list_vaults", {}), {"vaults": [entry], "warnings": []})
    await call(client, "list_tags", {})
    assert_exact(await call(client, "list_vaults", {}), {"vaults": [{**entry, "indexed": True}], "warnings": []})


async def test_get_backlinks(reader: Client) -> None:
    assert_exact(
        await call(reader, "get_backlinks", {"path": "Projects/Meeting Notes"}),
        {
            "path": "Projects/Meeting Notes.md",
            "backlinks": [
                {
                    "path": "Areas/Work/Meeting Notes.md",
                    "line": 11,
                    "context": "The Monday meeting for the whole mobile team. For the Alpha project sync see "
                    "[[Projects/Meeting Notes]].",
                    "embed": False,
                },
                {
                    "path": "Projects/Alpha.md",
                    "line": 60,
                    "context": "Weekly sync notes live in [[Projects/Meeting Notes]]. Decisions from the wider team "
                    "meeting are in [[Areas/Work/Meeting Notes]].",
                    "embed": False,
                },
            ],
            "ambiguous": [
                {
                    "path": "Daily/2026-11-23.md",
                    "line": 14,
                    "context": "- [x] Team meeting — notes in [[Meeting Notes]]",
                    "embed": False,
                    "candidates": ["Areas/Work/Meeting Notes.md", "Projects/Meeting Notes.md"],
                }
            ],
        },
    )


async def test_similar_notes(vault: Path, tmp_path: Path) -> None:
    # HashingEmbedder: scores that depend on no model file; the vectors are complete before the call
    assembled = assemble(Config.one_vault(vault, index_dir=tmp_path / "index"), embedder=HashingEmbedder())
    try:
        async with Client(assembled.server, mode="legacy") as client:
            await call(client, "list_tags", {})  # the first call builds the index, then its vectors
            assert assembled.index.vectors.wait(60)
            assert_exact(
                await call(client, "similar_notes", {"path": "Projects/Garden Shed", "limit": 3}),
                {
                    "path": "Projects/Garden Shed.md",
                    "results": [
                        {
                            "path": "Projects/Website Redesign.md",
                            "title": "Website Redesign",
                            "score": 0.567105,
                            "snippet": "Rebuilding my personal site as a small static site: a short bio, a few essays, "
                            "and a page of projects. On hold until the Garden Shed has a roof. Decisions…",
                        },
                        {
                            "path": "Daily/2026-11-21.md",
                            "title": "Saturday, 21 November",
                            "score": 0.566842,
                            "snippet": "Shed day. Jonas Weber came over at nine; we got the floor joists level and "
                            "the first two wall frames up before the rain. Material costs are in Garden Shed…",
                        },
                        {
                            "path": "Resources/Long Essay.md",
                            "title": "Compost, Not Archive: Ten Years of Keeping Notes",
                            "score": 0.560112,
                            "snippet": "Ten years of keeping notes, and what I got wrong for most of them. A shoebox "
                            "of notebooks: There is a shoebox on the top shelf of my wardrobe that holds every…",
                        },
                    ],
                    "warnings": [],
                },
            )
    finally:
        assembled.index.close()


def table_row(path: str, status: str, due: str | None) -> dict[str, Any]:
    return {"path": path, "values": [path, status, due]}


async def test_query_notes(reader: Client) -> None:
    query = "TABLE status, due FROM #project WHERE status SORT file.name"
    assert_exact(
        await call(reader, "query_notes", {"query": query}),
        {
            "type": "table",
            "columns": ["File", "status", "due"],
            "show_id": True,
            "rows": [
                table_row("Projects/Alpha.md", "active", "2027-01-29"),
                table_row("Projects/Garden Shed.md", "active", "2026-12-15"),
                table_row("Projects/Half Marathon.md", "planning", None),
                table_row("Projects/Website Redesign.md", "on-hold", None),
            ],
            "tasks": [],
            "total": 4,
            "truncated": False,
            "warnings": [],
        },
    )


# -- writing -------------------------------------------------------------------------------------


async def test_write_note_create(client: Client) -> None:
    arguments = {"path": "Ideas/Done List", "content": "# Done list\n\n- shipped the shed\n"}
    assert_exact(
        await call(client, "write_note", arguments),
        {"path": "Ideas/Done List.md", "etag": "<etag>", "created": True, "warnings": []},
    )


async def test_write_note_from_a_template(client: Client, vault: Path) -> None:
    (vault / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}', encoding="utf-8")
    (vault / "Templates" / "Scripted.md").write_text("# {{title}}\n<% tp.file.title %>\n", encoding="utf-8")
    arguments = {"path": "Meetings/Kickoff", "template": "Meeting", "content": "- agenda\n"}
    assert_exact(
        await call(client, "write_note", arguments),
        {"path": "Meetings/Kickoff.md", "etag": "<etag>", "created": True, "warnings": []},
    )
    text = (vault / "Meetings" / "Kickoff.md").read_text(encoding="utf-8")
    assert text.startswith('---\ntitle: "Kickoff"\ndate: "20') and text.endswith(
        "\n# Kickoff\n\nAttendees:\n\n## Notes\n\n## Action items\n\n- agenda\n"
    )
    assert_exact(
        await call(client, "write_note", {"path": "Scripted Note", "template": "Scripted"}),
        {
            "path": "Scripted Note.md",
            "etag": "<etag>",
            "created": True,
            "warnings": [
                {
                    "code": "TEMPLATE_UNSUPPORTED_SYNTAX",
                    "message": "the template 'Templates/Scripted.md' uses Templater syntax (<% ... %>), which this "
                    "server does not run; it was copied into the note as written",
                    "template": "Templates/Scripted.md",
                    "lines": [2],
                }
            ],
        },
    )


async def test_update_frontmatter(client: Client) -> None:
    arguments = {"path": "People/Sam Rivera", "set": {"status": "helping", "since": "2026-11-21"}, "remove": ["role"]}
    assert_exact(
        await call(client, "update_frontmatter", arguments),
        {
            "path": "People/Sam Rivera.md",
            "etag": "<etag>",
            "frontmatter": {
                "title": "Sam Rivera",
                "aliases": ["Sam"],
                "tags": ["person", "work"],
                "company": "Fernhill",
                "birthday": "1991-03-08",
                "status": "helping",
                "since": "2026-11-21",
            },
        },
    )


async def test_daily_note_for_a_fixed_date(client: Client) -> None:
    assert_exact(
        await call(client, "daily_note", {"date": "2026-11-22"}),
        {
            "path": "Daily/2026-11-22.md",
            "created": True,
            "content": '---\ndate: "2026-11-22"\ntags:\n  - daily\n---\n\n# 2026-11-22\n\n'
            "## Plan\n\n- [ ] Process the inbox\n\n## Log\n\n## Gratitude\n\n",
            "warnings": [],
        },
    )


async def test_daily_note_with_unusable_settings_has_warnings(client: Client, vault: Path) -> None:
    settings = vault / ".obsidian" / "daily-notes.json"
    settings.write_text('{"folder": 7, "template": "Templates/Gone"}', encoding="utf-8")
    assert_exact(
        await call(client, "daily_note", {"date": "2026-11-22"}),
        {
            "path": "2026-11-22.md",
            "created": True,
            "content": "",
            "warnings": [
                {
                    "code": "DAILY_SETTINGS_IGNORED",
                    "message": "'folder' in the daily notes settings file is not text and was ignored",
                },
                {
                    "code": "TEMPLATE_MISSING",
                    "message": "the daily note template 'Templates/Gone' was not found; the note was created empty",
                },
            ],
        },
    )


async def test_daily_note_of_a_week_from_the_periodic_notes_settings(client: Client, vault: Path) -> None:
    plugin = vault / ".obsidian" / "plugins" / "periodic-notes"
    plugin.mkdir(parents=True)
    settings = {"weekly": {"enabled": True, "folder": "Weekly", "format": "GGGG-[W]WW", "template": "Templates/Week"}}
    (plugin / "data.json").write_text(json.dumps(settings), encoding="utf-8")
    (vault / "Templates" / "Week.md").write_text(
        "# {{title}}\n\n{{monday:ddd D MMM}} – {{sunday:ddd D MMM}}\n", encoding="utf-8"
    )
    assert_exact(
        await call(client, "daily_note", {"date": "2027-01-03", "period": "week"}),
        {
            "path": "Weekly/2026-W53.md",
            "created": True,
            "content": "# 2026-W53\n\nMon 28 Dec – Sun 3 Jan\n",
            "warnings": [],
        },
    )
    assert_exact(
        await call(client, "daily_note", {"date": "2026-12-28", "period": "week", "create": False}),
        {
            "path": "Weekly/2026-W53.md",
            "created": False,
            "content": "# 2026-W53\n\nMon 28 Dec – Sun 3 Jan\n",
            "warnings": [],
        },
    )


async def test_append_to_note_under_a_heading(client: Client, vault: Path) -> None:
    arguments = {"path": "Projects/Garden Shed", "heading": "Plan", "content": "- [ ] Fit the gutter\n"}
    assert_exact(
        await call(client, "append_to_note", arguments),
        {"path": "Projects/Garden Shed.md", "etag": "<etag>", "created": False},
    )
    text = (vault / "Projects" / "Garden Shed.md").read_text(encoding="utf-8")
    assert "- [ ] Move bikes in — see [[Bike Maintenance]] for the winter checklist\n- [ ] Fit the gutter\n" in text


async def test_replace_section(client: Client, vault: Path) -> None:
    arguments = {"path": "Projects/Garden Shed", "heading": "## Notes", "content": "Nothing yet.\n"}
    assert_exact(
        await call(client, "replace_section", arguments),
        {"path": "Projects/Garden Shed.md", "etag": "<etag>", "created": False},
    )
    assert (vault / "Projects" / "Garden Shed.md").read_text(encoding="utf-8").endswith("\n## Notes\nNothing yet.\n")


async def test_delete_note(client: Client, vault: Path) -> None:
    assert_exact(
        await call(client, "delete_note", {"path": "Inbox"}),
        {"path": "Inbox.md", "trashed_to": ".trash/Inbox.md"},
    )
    assert not (vault / "Inbox.md").exists() and (vault / ".trash" / "Inbox.md").is_file()


async def test_update_task(client: Client) -> None:
    arguments = {
        "path": "Projects/Garden Shed",
        "line": 20,
        "expected_text": "- [ ] Remaining wall frames and door opening",
        "status": "/",
    }
    assert_exact(
        await call(client, "update_task", arguments),
        {
            "path": "Projects/Garden Shed.md",
            "line": 20,
            "text": "- [/] Remaining wall frames and door opening",
            "etag": "<etag>",
            "next_created": False,
            "next_text": None,
            "warnings": [],
        },
    )


async def test_check_links(reader: Client) -> None:
    first = await call(reader, "check_links", {"limit": 2})
    cursor = first.pop("next_cursor")
    assert isinstance(cursor, str)
    assert_exact(
        first,
        {
            "unresolved": [
                {"path": "Areas/Finances.md", "line": 30, "target": "Kitchen Renovation"},
                {"path": "Inbox.md", "line": 6, "target": "Kitchen Renovation"},
            ],
            "orphans": ["Daily/2026-11-20.md", "Daily/2026-11-21.md"],
            "ambiguous": [
                {
                    "path": "Daily/2026-11-23.md",
                    "line": 14,
                    "target": "Meeting Notes",
                    "candidates": ["Areas/Work/Meeting Notes.md", "Projects/Meeting Notes.md"],
                }
            ],
            "totals": {"notes": 30, "unresolved": 2, "orphans": 4, "ambiguous": 1},
        },
    )
    assert_exact(
        await call(reader, "check_links", {"limit": 2, "cursor": cursor}),
        {
            "unresolved": [],
            "orphans": ["Templates/Daily.md", "Templates/Meeting.md"],
            "ambiguous": [],
            "totals": {"notes": 30, "unresolved": 2, "orphans": 4, "ambiguous": 1},
            "next_cursor": None,
        },
    )


async def test_rename_tag(client: Client, vault: Path) -> None:
    alpha = (vault / "Projects" / "Alpha.md").read_text(encoding="utf-8")
    assert_exact(
        await call(client, "rename_tag", {"tag": "#project/alpha", "new_tag": "alpha"}),
        {
            "updated_notes": ["Daily/2026-11-20.md", "Projects/Alpha.md", "Projects/Meeting Notes.md"],
            "occurrences": 4,
            "warnings": [],
        },
    )
    renamed = (vault / "Projects" / "Alpha.md").read_text(encoding="utf-8")
    assert renamed == alpha.replace("#project/alpha", "#alpha")
    tags = await call(client, "list_tags", {"folder": "Projects"})
    assert {"tag": "alpha", "count": 2} in tags["tags"] and {"tag": "alpha/beta", "count": 1} in tags["tags"]


async def test_move_note(client: Client) -> None:
    assert_exact(
        await call(client, "move_note", {"path": "Projects/Garden Shed", "new_path": "Archive/Shed Build"}),
        {
            "path": "Projects/Garden Shed.md",
            "new_path": "Archive/Shed Build.md",
            "updated_notes": [
                "Areas/Finances.md",
                "Areas/Home Maintenance.md",
                "Daily/2026-11-21.md",
                "Home.md",
                "People/Jonas Weber.md",
                "Projects/Website Redesign.md",
                "Resources/Bike Maintenance.md",
            ],
            "warnings": [],
        },
    )
    assert_exact(
        await call(client, "move_note", {"path": "Projects/Meeting Notes", "new_path": "Projects/Alpha Sync"}),
        {
            "path": "Projects/Meeting Notes.md",
            "new_path": "Projects/Alpha Sync.md",
            "updated_notes": ["Areas/Work/Meeting Notes.md", "Projects/Alpha.md"],
            "warnings": [
                {
                    "code": "AMBIGUOUS_LINKS",
                    "message": "these links could mean the moved note or another note of the same name; "
                    "they were left unchanged",
                    "links": [{"path": "Daily/2026-11-23.md", "line": 14, "target": "Meeting Notes"}],
                }
            ],
        },
    )


# -- tools/list ----------------------------------------------------------------------------------

READ = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
WRITE = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}
OVERWRITE = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}
DAILY = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
TOOLS = {
    "read_note": READ,
    "list_notes": READ,
    "write_note": OVERWRITE,
    "append_to_note": WRITE,
    "replace_section": OVERWRITE,
    "update_frontmatter": WRITE,
    "delete_note": OVERWRITE,
    "daily_note": DAILY,
    "search_notes": READ,
    "similar_notes": READ,
    "list_tags": READ,
    "list_vaults": READ,
    "get_backlinks": READ,
    "check_links": READ,
    "move_note": WRITE,
    "rename_tag": OVERWRITE,
    "query_notes": READ,
    "update_task": DAILY,  # a write, but asking again for the same status changes nothing more
}


# tools/list leaves out hints equal to the MCP specification's defaults; a client applies these.
HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


async def annotated_tools(client: Client) -> dict[str, Any]:
    """Each tool's effective hints: what it lists, over the specification's defaults."""
    listed = (await client.list_tools()).tools
    return {
        tool.name: HINT_DEFAULTS | tool.model_dump(mode="json", by_alias=True, exclude_none=True)["annotations"]
        for tool in listed
    }


async def test_tools_list_names_and_annotations(reader: Client) -> None:
    assert_exact(await annotated_tools(reader), TOOLS)


async def test_tools_list_in_read_only_mode_keeps_the_reading_tools(
    vault: Path, tmp_path: Path, connected: Connect
) -> None:
    async with connected(vault, tmp_path / "index", read_only=True) as client:
        listed = await annotated_tools(client)
    # write tools are not listed; daily_note stays (it then only finds notes)
    kept = {name: hints for name, hints in TOOLS.items() if hints["readOnlyHint"] or name == "daily_note"}
    assert_exact(listed, kept)
