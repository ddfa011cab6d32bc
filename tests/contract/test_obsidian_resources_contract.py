"""obsidian-mcp's resources, completions and prompts through `uv run obsidian-mcp` (stdio, or HTTP with
CONTRACT_TRANSPORT=http): notes as `obsidian://note/{path}`, the recent notes, path completion, the
`daily_review` and `summarize_note` prompts, and every failure as a JSON-RPC error carrying the contract
object (interface.md §5)."""

from __future__ import annotations

import datetime as dt
import functools
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from mcp.shared.exceptions import MCPError as McpProtocolError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, Completion, PromptReference, ResourceTemplateReference

from tests.contract import checks, harness
from tests.contract.checks import assert_protocol_error
from tests.contract.harness import Session, running

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"
NOT_FOUND = -32002
TEMPLATE = ResourceTemplateReference(uri="obsidian://note/{path}")


def obsidian(vault: Path, *flags: str) -> list[str]:
    """obsidian-mcp on `vault`, with its index in the folder beside the vault."""
    return harness.obsidian(vault, "--index-dir", str(vault.parent / "index"), *flags)


read_error = functools.partial(checks.read_error, server=SERVER)
prompt_error = functools.partial(checks.prompt_error, server=SERVER)


async def complete(session: Session, ref: Any, value: str, argument: str = "path") -> Completion:
    return (await session.client.complete(ref, {"name": argument, "value": value})).completion


async def read_text(session: Session, uri: str) -> str:
    result = await session.client.read_resource(uri)
    assert len(result.contents) == 1
    content = result.contents[0]
    assert content.uri == uri and content.mime_type == "text/markdown"
    text = getattr(content, "text", None)
    assert isinstance(text, str), content
    return text


def touch(path: Path, when: dt.datetime) -> None:
    os.utime(path, (when.timestamp(), when.timestamp()))


# --- resources -------------------------------------------------------------------------------------------


async def test_the_note_template_and_the_most_recent_notes(vault: Path) -> None:
    for number in range(60):  # more notes than the listing holds
        (vault / "Many").mkdir(exist_ok=True)
        (vault / "Many" / f"Note {number:02d}.md").write_text(f"# Many {number}\n")
    (vault / ".trash").mkdir(exist_ok=True)
    (vault / ".trash" / "Gone.md").write_text("# Trashed\n")
    base = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for number, path in enumerate(sorted(vault.rglob("*.md"))):
        touch(path, base + dt.timedelta(minutes=number))
    touch(vault / "Projects" / "Alpha.md", base + dt.timedelta(days=30))  # the newest, by far
    touch(vault / "Resources" / "Café Recipes.md", base + dt.timedelta(days=29))
    async with running(obsidian(vault)) as session:
        templates = (await session.client.list_resource_templates()).resource_templates
        assert [(t.uri_template, t.name, t.mime_type) for t in templates] == [
            ("obsidian://note/{path}", "note", "text/markdown"),
            ("obsidian://{vault}/note/{path}", "vault_note", "text/markdown"),  # several vaults (interface.md §6)
        ]
        listed = (await session.client.list_resources()).resources
        assert len(listed) == 50
        assert listed[0].uri == "obsidian://note/Projects/Alpha.md"
        assert (listed[0].name, listed[0].title, listed[0].size) == (
            "Projects/Alpha.md",
            "Project Alpha",  # its frontmatter title
            (vault / "Projects" / "Alpha.md").stat().st_size,
        )
        assert listed[1].uri == "obsidian://note/Resources/Caf%C3%A9%20Recipes.md"
        assert listed[1].name == "Resources/Café Recipes.md"
        stamps = [r.annotations.last_modified for r in listed if r.annotations]
        assert len(stamps) == 50 and stamps == sorted(stamps, reverse=True)
        assert stamps[0] == "2026-01-31T00:00:00.000Z"
        assert all(r.mime_type == "text/markdown" and r.uri == "obsidian://note/" + quote(r.name) for r in listed)
        assert not any(".trash" in r.name or ".obsidian" in r.name for r in listed)
        for resource in listed[:3]:  # every listed URI reads
            assert await read_text(session, resource.uri) == (vault / resource.name).read_text(encoding="utf-8")
        records = [r for r in session.log_records() if r.get("message") == "resource list"]
        assert records and records[-1]["error_code"] is None and records[-1]["request_id"]


async def test_a_note_reads_as_its_text_fresh_from_the_disk(vault: Path) -> None:
    alpha = vault / "Projects" / "Alpha.md"
    async with running(obsidian(vault)) as session:
        text = alpha.read_text(encoding="utf-8")
        assert await read_text(session, "obsidian://note/Projects/Alpha.md") == text
        assert await read_text(session, "obsidian://note/Projects/Alpha") == text  # '.md' optional
        assert await read_text(session, "obsidian://note/Projects%2FAlpha.md") == text  # RFC 6570's own form
        cafe = await read_text(session, "obsidian://note/Resources/Caf%C3%A9%20Recipes.md")
        assert cafe == (vault / "Resources" / "Café Recipes.md").read_text(encoding="utf-8")
        alpha.write_text(text + "\nWritten by another program.\n", encoding="utf-8")
        assert (await read_text(session, "obsidian://note/Projects/Alpha.md")).endswith("another program.\n")
        record = [r for r in session.log_records() if r.get("message") == "resource read"][-1]
        assert record["uri"] == "obsidian://note/Projects/Alpha.md" and record["error_code"] is None
        assert isinstance(record["duration_ms"], float) and record["request_id"]


async def test_a_note_that_may_not_be_read_does_not_exist(vault: Path) -> None:
    outside = vault.parent / "outside.md"
    outside.write_text("secret outside the vault\n")
    os.symlink(outside, vault / "Escape.md")
    async with running(obsidian(vault)) as session:
        await read_error(session, "obsidian://note/Projects/No Such Note.md", NOT_FOUND, "not_found", resource="note")
        for hidden in ("obsidian://note/.obsidian/app.json", "obsidian://note/.obsidian/daily-notes"):
            await read_error(session, hidden, NOT_FOUND, "not_found", resource="note")
        await read_error(session, "obsidian://note/Escape.md", NOT_FOUND, "not_found", resource="note")
        for outside_uri in (
            "obsidian://note/../outside.md",
            "obsidian://note/Projects/../../outside.md",
            "obsidian://note/%2E%2E%2Foutside.md",
            "obsidian://note/%2Fetc%2Fpasswd",
        ):
            details = await read_error(session, outside_uri, NOT_FOUND, "not_found", resource="resource")
            assert "secret" not in str(details)
        await read_error(session, "gmail://message/abc", NOT_FOUND, "not_found", resource="resource")


async def test_a_vanished_vault_is_mcp_unavailable_for_every_request(vault: Path) -> None:
    async with running(obsidian(vault)) as session:
        assert await read_text(session, "obsidian://note/Home.md")
        moved = vault.with_name("vault-unmounted")
        vault.rename(moved)
        try:
            await read_error(
                session, "obsidian://note/Home.md", INTERNAL_ERROR, "mcp_unavailable", service="vault", retryable=True
            )
            for request in (session.client.list_resources(), complete(session, TEMPLATE, "Ho")):
                with pytest.raises(McpProtocolError) as raised:
                    await request
                assert_protocol_error(session, raised.value, INTERNAL_ERROR, "mcp_unavailable", server=SERVER)
        finally:
            moved.rename(vault)
        assert await read_text(session, "obsidian://note/Home.md")


async def test_read_only_mode_changes_nothing_here(vault: Path) -> None:
    async with running(obsidian(vault, "--read-only")) as session:
        assert await read_text(session, "obsidian://note/Home.md")
        assert len((await session.client.list_resources()).resources) > 10
        assert {p.name for p in (await session.client.list_prompts()).prompts} == {"daily_review", "summarize_note"}
        assert (await complete(session, TEMPLATE, "alph")).values == ["Projects/Alpha.md"]
        await read_error(session, "obsidian://note/Nope.md", NOT_FOUND, "not_found", resource="note")


# --- completion ------------------------------------------------------------------------------------------


async def test_path_completion_prefix_then_fuzzy_best_first(vault: Path) -> None:
    (vault / "Many").mkdir()
    for number in range(70):
        (vault / "Many" / f"Entry {number:02d}.md").write_text("x\n")
    (vault / ".obsidian" / "Alpha hidden.md").write_text("never offered\n")
    async with running(obsidian(vault)) as session:
        prefixed = (await complete(session, TEMPLATE, "Projects/Al")).values
        assert prefixed == ["Projects/Alpha.md", "Projects/Half Marathon.md"]  # the prefix, then a fuzzy match
        assert (await complete(session, TEMPLATE, "alpha")).values == ["Projects/Alpha.md"]  # a component starts so
        assert (await complete(session, TEMPLATE, "prjalp")).values[0] == "Projects/Alpha.md"  # fuzzy
        assert (await complete(session, TEMPLATE, "cafe rec")).values == ["Resources/Café Recipes.md"]  # accents
        projects = (await complete(session, TEMPLATE, "proj")).values
        assert len(projects) == 5 and all(v.startswith("Projects/") for v in projects)
        meeting = (await complete(session, TEMPLATE, "meeting")).values
        assert set(meeting[:3]) == {"Areas/Work/Meeting Notes.md", "Projects/Meeting Notes.md", "Templates/Meeting.md"}
        many = await complete(session, TEMPLATE, "many/entry")
        assert len(many.values) == 50 and many.total == 70 and many.has_more is True
        everything = await complete(session, TEMPLATE, "")
        assert len(everything.values) == 50 and everything.total is not None and everything.total > 100
        assert not any(v.startswith(".") or "/." in v for v in everything.values)
        assert (await complete(session, TEMPLATE, "hidden")).values == []
        assert (await complete(session, TEMPLATE, "zzzqqq")).values == []
        # The summarize_note prompt's path completes the same way; other arguments and references do not.
        assert (await complete(session, PromptReference(name="summarize_note"), "alpha")).values == [
            "Projects/Alpha.md"
        ]
        assert (await complete(session, PromptReference(name="daily_review"), "2026", "date")).values == []
        assert (await complete(session, ResourceTemplateReference(uri="obsidian://x/{path}"), "alpha")).values == []
        timings = [r["duration_ms"] for r in session.log_records() if r.get("message") == "completion"]
        assert len(timings) == 13 and all(r < 1000 for r in timings[1:]), timings  # milliseconds, index warm


# --- prompts ---------------------------------------------------------------------------------------------


async def test_the_prompts_and_their_arguments(vault: Path) -> None:
    async with running(obsidian(vault)) as session:
        prompts = {p.name: p for p in (await session.client.list_prompts()).prompts}
        assert set(prompts) == {"daily_review", "summarize_note"}
        shapes = {name: [(a.name, a.required) for a in p.arguments or []] for name, p in prompts.items()}
        assert shapes == {
            "daily_review": [("date", False), ("vault", False)],
            "summarize_note": [("path", True), ("vault", False)],
        }
        assert all(p.description and p.title for p in prompts.values())

        review = await session.client.get_prompt("daily_review", {"date": "2026-11-25"})
        text = single_user_text(review)
        for expected in ('daily_note(date="2026-11-25", create=false)', "query_notes(", "date(2026-11-25)"):
            assert expected in text
        today = single_user_text(await session.client.get_prompt("daily_review", {}))
        assert f'daily_note(date="{dt.date.today().isoformat()}"' in today

        summary = single_user_text(await session.client.get_prompt("summarize_note", {"path": "Projects/Alpha"}))
        for expected in ('read_note(path="Projects/Alpha.md")', 'get_backlinks(path="Projects/Alpha.md")'):
            assert expected in summary
        assert "Do not change the note" in summary
        # Claude Code cuts "Projects/Meeting Notes" at the space: the closest notes are offered instead.
        cut = single_user_text(await session.client.get_prompt("summarize_note", {"path": "Projects/Meeting"}))
        assert cut.startswith('No note is at "Projects/Meeting"') and '"Projects/Meeting Notes.md"' in cut
        assert "read_note(path=<its path>)" in cut


async def test_bad_prompt_arguments_are_invalid_params_with_the_contract_object(vault: Path) -> None:
    async with running(obsidian(vault, "--read-only")) as session:
        await prompt_error(session, "summarize_note", {}, INVALID_PARAMS, "parse_error", field="path", reason="missing")
        await prompt_error(
            session, "summarize_note", {"path": "Home", "colour": "blue"}, INVALID_PARAMS, "parse_error",
            field="colour", reason="unexpected_argument",
        )  # fmt: skip
        await prompt_error(
            session, "daily_review", {"date": "next tuesday"}, INVALID_PARAMS, "parse_error", field="date"
        )
        await prompt_error(session, "summarize_note", {"path": "Qqzzx Wwvv"}, INVALID_PARAMS, "not_found",
                           resource="note")  # fmt: skip
        await prompt_error(session, "summarize_note", {"path": ".obsidian/app"}, INVALID_PARAMS, "not_found")
        await prompt_error(session, "summarize_note", {"path": "../outside"}, INVALID_PARAMS, "not_found")
        details = await prompt_error(session, "no_such_prompt", {}, INVALID_PARAMS, "not_found", resource="prompt")
        assert details["id"] == "no_such_prompt"
        records = [r for r in session.log_records() if r.get("message") == "prompt"]
        assert len(records) == 7 and all(r["error_code"] and r["request_id"] for r in records)


async def test_a_crashing_prompt_is_internal_error(vault: Path) -> None:
    async with running(obsidian(vault), {"OBSIDIAN_MCP_CRASH_TOOLS": "daily_review"}) as session:
        details = await prompt_error(session, "daily_review", {}, INTERNAL_ERROR, "internal_error")
        assert details["request_id"] in [r.get("request_id") for r in session.log_records() if r.get("exception")]
        assert single_user_text(await session.client.get_prompt("summarize_note", {"path": "Home"}))


def single_user_text(result: Any) -> str:
    assert len(result.messages) == 1 and result.messages[0].role == "user"
    text = result.messages[0].content.text
    assert isinstance(text, str) and text
    return text
