"""The exact error JSON of the tools, in process: one representative failure of every tool, on a
copy of the sample vault behind the real server, driven by the SDK's own client over its in-memory
transport (the companion of test_wire_snapshots.py, which pins the successes).

Each error is pinned whole, `{"error", "message", "details"}` with its details in the order clients
see them, and travels the contract's way: the JSON as the only text content, `isError` true and no
structuredContent. Only what varies from run to run is replaced, after checking its form: the
request id (16 hex characters) and etags. A failure here is a change of the wire: update the
snapshot and specs/contracts (interface.md, obsidian-tools.json) in the same change.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import TextContent

pytestmark = pytest.mark.anyio

REQUEST_ID = re.compile(r"[0-9a-f]{16}")
ETAG = re.compile(r"[0-9a-f]{32}")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def reader(
    tmp_path_factory: pytest.TempPathFactory,
    sample_copy: Callable[[Path], Path],
    connected: Callable[..., AbstractAsyncContextManager[Client]],
) -> AsyncIterator[Client]:
    """A client shared by the tests: every call here fails, so none of them changes the vault."""
    folder = tmp_path_factory.mktemp("failing")
    async with connected(sample_copy(folder), folder / "index") as client:
        yield client


async def error(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A failed call's payload, after checking its wire form: one compact JSON text, isError,
    no structuredContent, a request id of 16 hex characters (replaced by `<request_id>`), and any
    etag 32 hex characters (replaced by `<etag>`)."""
    result = await client.call_tool(name, arguments)
    assert result.is_error is True, result
    assert result.structured_content is None
    [content] = result.content
    assert isinstance(content, TextContent)
    payload: dict[str, Any] = json.loads(content.text)
    assert content.text == json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    details = payload["details"]
    assert REQUEST_ID.fullmatch(details["request_id"]), details
    details["request_id"] = "<request_id>"
    if "current_etag" in details:
        assert ETAG.fullmatch(details["current_etag"]), details
        details["current_etag"] = "<etag>"
    return payload


def assert_exact(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """Equal, and with the keys in the same order at every level (the order clients see)."""
    assert actual == expected
    assert json.dumps(actual, ensure_ascii=False) == json.dumps(expected, ensure_ascii=False)


def refused(reason: str, message: str) -> dict[str, Any]:
    """A path refusal: its reason, never the refused path itself."""
    return {
        "error": "permission_denied",
        "message": message,
        "details": {"reason": reason, "retryable": False, "request_id": "<request_id>"},
    }


def note_not_found(path: str) -> dict[str, Any]:
    return {
        "error": "not_found",
        "message": f"note not found: {path}",
        "details": {"resource": "note", "path": path, "retryable": False, "request_id": "<request_id>"},
    }


def exists(path: str) -> dict[str, Any]:
    return {
        "error": "permission_denied",
        "message": f"a note already exists at {path} (use mode='overwrite' to replace it)",
        "details": {"reason": "exists", "path": path, "retryable": False, "request_id": "<request_id>"},
    }


def bad_argument(field: str, reason: str, message: str) -> dict[str, Any]:
    return {
        "error": "parse_error",
        "message": message,
        "details": {"field": field, "reason": reason, "retryable": False, "request_id": "<request_id>"},
    }


OUTSIDE = "the path leads outside the vault; use a vault-relative path like 'Folder/Note.md'"
HIDDEN = "hidden files and folders (.obsidian, .git, .trash, any dot-folder) are not accessible"


# -- notes ---------------------------------------------------------------------------------------


async def test_read_note_of_a_missing_note(reader: Client) -> None:
    assert_exact(await error(reader, "read_note", {"path": "Nowhere"}), note_not_found("Nowhere.md"))


async def test_list_notes_with_a_limit_out_of_range(reader: Client) -> None:
    assert_exact(
        await error(reader, "list_notes", {"limit": 0}),
        bad_argument(
            "limit", "greater_than_equal", "invalid argument 'limit': Input should be greater than or equal to 1"
        ),
    )


async def test_write_note_over_an_existing_note(reader: Client) -> None:
    assert_exact(await error(reader, "write_note", {"path": "Inbox", "content": "# Inbox\n"}), exists("Inbox.md"))


async def test_append_to_note_under_a_missing_heading(reader: Client) -> None:
    assert_exact(
        await error(reader, "append_to_note", {"path": "Inbox", "heading": "Someday", "content": "- idea\n"}),
        {
            "error": "not_found",
            "message": "heading not found in Inbox.md: Someday",
            "details": {
                "resource": "heading",
                "path": "Inbox.md",
                "heading": "Someday",
                "retryable": False,
                "request_id": "<request_id>",
            },
        },
    )


async def test_replace_section_with_a_stale_etag(reader: Client) -> None:
    arguments = {"path": "Projects/Garden Shed", "heading": "Notes", "content": "-\n", "expected_etag": "0" * 32}
    assert_exact(
        await error(reader, "replace_section", arguments),
        {
            "error": "permission_denied",
            "message": "Projects/Garden Shed.md changed since it was read; read it again and retry",
            "details": {
                "reason": "etag_mismatch",
                "path": "Projects/Garden Shed.md",
                "current_etag": "<etag>",
                "retryable": False,
                "request_id": "<request_id>",
            },
        },
    )


async def test_update_frontmatter_with_set_not_an_object(reader: Client) -> None:
    assert_exact(
        await error(reader, "update_frontmatter", {"path": "Inbox", "set": "status"}),
        bad_argument("set", "dict_type", "invalid argument 'set': Input should be a valid dictionary"),
    )


async def test_delete_note_in_a_hidden_folder(reader: Client) -> None:
    assert_exact(await error(reader, "delete_note", {"path": ".obsidian/app"}), refused("hidden_path", HIDDEN))


async def test_daily_note_of_a_date_not_in_the_calendar(reader: Client) -> None:
    assert_exact(
        await error(reader, "daily_note", {"date": "2026-13-40"}),
        bad_argument("date", "invalid_date", "'date' is not a real calendar date"),
    )


async def test_update_task_whose_line_changed(reader: Client) -> None:
    arguments = {"path": "Inbox", "line": 5, "expected_text": "- [ ] Call the plumber", "status": "x"}
    assert_exact(
        await error(reader, "update_task", arguments),
        {
            "error": "permission_denied",
            "message": "line 5 of Inbox.md is no longer the expected text; query the task again",
            "details": {
                "reason": "changed",
                "path": "Inbox.md",
                "line": 5,
                "current_text": "- [ ] Ask [[Jonas Weber]] whether he still has the spare roofing felt",
                "retryable": False,
                "request_id": "<request_id>",
            },
        },
    )


# -- the index -----------------------------------------------------------------------------------


async def test_search_notes_with_an_unexpected_argument(reader: Client) -> None:
    assert_exact(
        await error(reader, "search_notes", {"query": "shed", "sort": "date"}),
        bad_argument("sort", "unexpected_argument", "unexpected argument 'sort'"),
    )


async def test_similar_notes_of_a_missing_note(reader: Client) -> None:
    assert_exact(
        await error(reader, "similar_notes", {"path": "Projects/Nowhere"}), note_not_found("Projects/Nowhere.md")
    )


async def test_list_tags_of_a_vault_gone(
    tmp_path: Path, sample_copy: Callable[[Path], Path], connected: Callable[..., AbstractAsyncContextManager[Client]]
) -> None:
    vault = sample_copy(tmp_path)
    async with connected(vault, tmp_path / "index") as client:
        shutil.rmtree(vault)  # unmounted, say, before the first call
        assert_exact(
            await error(client, "list_tags", {}),
            {
                "error": "mcp_unavailable",
                "message": "the vault folder is not available (No such file or directory); "
                "check that it is mounted and readable",
                "details": {"service": "vault", "retryable": True, "request_id": "<request_id>"},
            },
        )


async def test_get_backlinks_of_an_absolute_path(reader: Client) -> None:
    assert_exact(await error(reader, "get_backlinks", {"path": "/etc/passwd"}), refused("outside_vault", OUTSIDE))


async def test_check_links_with_a_made_up_cursor(reader: Client) -> None:
    assert_exact(
        await error(reader, "check_links", {"cursor": "garbage"}),
        bad_argument("cursor", "invalid", "the cursor is not valid; check again without a cursor"),
    )


async def test_move_note_onto_an_existing_note(reader: Client) -> None:
    assert_exact(
        await error(reader, "move_note", {"path": "Inbox", "new_path": "Projects/Alpha"}), exists("Projects/Alpha.md")
    )


async def test_rename_tag_on_a_read_only_server(
    tmp_path: Path, sample_copy: Callable[[Path], Path], connected: Callable[..., AbstractAsyncContextManager[Client]]
) -> None:
    async with connected(sample_copy(tmp_path), tmp_path / "index", read_only=True) as client:
        assert_exact(
            await error(client, "rename_tag", {"tag": "project", "new_tag": "projects"}),
            refused("read_only", "rename_tag is not available: the server is read-only"),
        )


async def test_query_notes_with_a_syntax_error(reader: Client) -> None:
    assert_exact(
        await error(reader, "query_notes", {"query": "TABLE status FROM #project WHERE ("}),
        {
            "error": "parse_error",
            "message": "the query cannot run: expected an expression but the query ended (at position 34)",
            "details": {
                "field": "query",
                "reason": "invalid_query",
                "position": 34,
                "retryable": False,
                "request_id": "<request_id>",
            },
        },
    )


# -- the vaults ---------------------------------------------------------------------------------


async def test_list_vaults_with_an_unexpected_argument(reader: Client) -> None:
    assert_exact(
        await error(reader, "list_vaults", {"vault": "vault"}),
        bad_argument("vault", "unexpected_argument", "unexpected argument 'vault'"),
    )


async def test_a_vault_the_server_does_not_serve(reader: Client) -> None:
    assert_exact(
        await error(reader, "read_note", {"path": "Inbox", "vault": "work"}),
        {
            "error": "not_found",
            "message": "no vault is named 'work'; the vaults are: vault (list_vaults lists them)",
            "details": {
                "resource": "vault",
                "id": "work",
                "vaults": ["vault"],
                "retryable": False,
                "request_id": "<request_id>",
            },
        },
    )


async def test_every_vault_is_for_search_only(reader: Client) -> None:
    assert_exact(
        await error(reader, "list_tags", {"vault": "*"}),
        bad_argument(
            "vault", "every_vault", "vault '*' (every vault) is for search_notes only; name one vault (see list_vaults)"
        ),
    )


# -- no such tool --------------------------------------------------------------------------------


async def test_an_unknown_tool(reader: Client) -> None:
    assert_exact(
        await error(reader, "edit_note", {"path": "Inbox"}),
        {
            "error": "not_found",
            "message": "unknown tool: edit_note",
            "details": {"resource": "tool", "id": "edit_note", "retryable": False, "request_id": "<request_id>"},
        },
    )


async def test_every_tool_has_its_error_pinned_here(reader: Client) -> None:
    """A new tool gets its representative error in this module."""
    called = set(re.findall(r'await error\(\w+, "(\w+)"', Path(__file__).read_text(encoding="utf-8")))
    listed = {tool.name for tool in (await reader.list_tools()).tools}
    assert called - {"edit_note"} == listed and len(listed) == 18
