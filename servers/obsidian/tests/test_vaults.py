"""Several vaults in one server (interface.md §6): three fixture vaults with same-named notes, each
with a word no other vault has, behind one server in process (the SDK's in-memory client).

Every tool is called with and without `vault`: the answer, and every file it writes, concern that
vault (the default one without `vault`) and no other; no unique word of another vault reaches the
answer, through any tool, resource, prompt or completion. Per-vault exclusions, templates and daily
note settings; moves and tag renames that rewrite one vault only; `*` for search_notes alone; an
unknown vault; `list_vaults`; a vault nobody asks about stays unopened, and the first search of a
vault opened late is complete.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError as ProtocolError
from mcp_types import PromptReference, ResourceTemplateReference, TextContent
from obsidian_mcp.search import search_every_vault
from obsidian_mcp.search.results import SearchResult
from obsidian_mcp.semantic import HashingEmbedder
from obsidian_mcp.server import Assembled, Config, assemble
from obsidian_mcp.vault.setup import parse_setup

pytestmark = pytest.mark.anyio

WORDS = {"work": "zebrafinch", "home": "quokkaberry", "archive": "narwhalite"}
DAILY = {"work": "WorkDaily", "home": "HomeDaily", "archive": "ArchiveDaily"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def make_vault(root: Path, name: str) -> None:
    """A vault whose notes have the same names as the other vaults' and say `WORDS[name]`."""
    word = WORDS[name]
    files = {
        "Plan.md": f"---\ntags: [plan]\n---\n# Plan\n\nThe {word} plan. #alpha\n\n- [ ] ship {word}\n\n"
        "See [[Ideas]].\n",
        "Ideas.md": f"# Ideas\n\n{word} ideas; back to [[Plan]].\n",
        f"{word.title()} Log.md": f"# Log\n\n{word} log #alpha\n",
        "Private/Secret.md": f"# Secret\n\n{word} secret\n",
        "Templates/Meeting.md": f"# Meeting\n\n{word} agenda\n",
        ".obsidian/daily-notes.json": json.dumps({"folder": DAILY[name], "format": "YYYY-MM-DD"}),
        ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


@pytest.fixture
def roots(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for name in WORDS:
        made[name] = tmp_path / f"{name}-folder"
        make_vault(made[name], name)
    return made


def setup_of(roots: dict[str, Path], **options: Any) -> Config:
    entries = [f"{name}={root}" for name, root in roots.items()]
    vaults = parse_setup(entries, exclude=["home:Private/"])  # home's Private/ is private, work's is not
    return Config(vaults=vaults, index_dir=roots["work"].parent / "index", **options)


@asynccontextmanager
async def serving(config: Config, *, started: bool = False) -> AsyncIterator[tuple[Client, Assembled]]:
    assembled = assemble(config, embedder=HashingEmbedder())
    if started:
        assembled.start()
    try:
        async with Client(assembled.server, mode="legacy") as client:
            yield client, assembled
    finally:
        assembled.stop()


@pytest.fixture
async def server(roots: dict[str, Path]) -> AsyncIterator[tuple[Client, Assembled]]:
    async with serving(setup_of(roots)) as served:
        yield served


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


async def answer(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    [content] = result.content
    assert isinstance(content, TextContent)
    payload: dict[str, Any] = json.loads(content.text)
    assert not result.is_error, payload
    return payload


async def failure(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    [content] = result.content
    assert isinstance(content, TextContent)
    payload: dict[str, Any] = json.loads(content.text)
    return payload


# Every tool, with arguments that work in every vault (each has the same note names).
CALLS: dict[str, dict[str, Any]] = {
    "read_note": {"path": "Plan"},
    "list_notes": {},
    "write_note": {"path": "New", "template": "Meeting"},
    "append_to_note": {"path": "Plan", "content": "- more\n"},
    "replace_section": {"path": "Plan", "heading": "Plan", "content": "Rewritten.\n"},
    "update_frontmatter": {"path": "Plan", "set": {"status": "done"}},
    "delete_note": {"path": "Ideas"},
    "daily_note": {"date": "2026-01-05"},
    "search_notes": {"query": "plan", "mode": "keyword"},
    "similar_notes": {"path": "Plan"},
    "list_tags": {},
    "get_backlinks": {"path": "Plan"},
    "check_links": {},
    "move_note": {"path": "Plan", "new_path": "Moved/Plan"},
    "rename_tag": {"tag": "alpha", "new_tag": "beta"},
    "query_notes": {"query": "LIST FROM #alpha"},
    "update_task": {"path": "Plan", "line": 8, "expected_text": "- [ ] ship {word}", "status": "x"},
}


async def test_every_tool_but_list_vaults_is_called_here(server: tuple[Client, Assembled]) -> None:
    client, _ = server
    listed = {tool.name for tool in (await client.list_tools()).tools}
    assert listed == set(CALLS) | {"list_vaults"}
    for tool in (await client.list_tools()).tools:
        if tool.name != "list_vaults":
            assert "vault" in tool.input_schema["properties"], tool.name


@pytest.mark.parametrize("vault", [None, "home", "archive"])
@pytest.mark.parametrize("tool", sorted(CALLS))
async def test_every_tool_works_on_the_vault_named_and_no_other(
    roots: dict[str, Path], tool: str, vault: str | None
) -> None:
    target = vault or "work"  # the default: the first configured
    word = WORDS[target]
    arguments = {
        key: value.format(word=word) if isinstance(value, str) else value for key, value in CALLS[tool].items()
    }
    if vault is not None:
        arguments["vault"] = vault
    before = {name: tree(root) for name, root in roots.items()}
    async with serving(setup_of(roots)) as (client, assembled):
        payload = await answer(client, tool, arguments)
        opened = {name for name in WORDS if assembled.spaces.opened(name) is not None}
    text = json.dumps(payload, ensure_ascii=False)
    for other, other_word in WORDS.items():
        if other != target:
            assert other_word not in text, f"{tool} on {target} answered with {other}'s word"
            assert tree(roots[other]) == before[other], f"{tool} on {target} changed {other}"
    assert opened == {"work", target}  # the default opens at assembly; a vault nobody named stays closed
    if tool in ("read_note", "search_notes", "list_notes", "write_note", "query_notes", "get_backlinks"):
        assert word in text or word.title() in text or tool in ("get_backlinks", "write_note")
    if target == "home":  # home excludes Private/: its secret is never in an answer
        assert "Secret" not in text


async def test_writes_land_in_the_vault_named(roots: dict[str, Path], server: tuple[Client, Assembled]) -> None:
    client, _ = server
    written = await answer(client, "write_note", {"path": "New", "template": "Meeting", "vault": "home"})
    assert written["path"] == "New.md"
    assert "quokkaberry agenda" in (roots["home"] / "New.md").read_text()  # home's own template
    assert not (roots["work"] / "New.md").exists()
    daily = await answer(client, "daily_note", {"date": "2026-01-05", "vault": "archive"})
    assert daily["path"] == "ArchiveDaily/2026-01-05.md"  # archive's own daily-note settings
    assert (roots["archive"] / "ArchiveDaily" / "2026-01-05.md").is_file()
    default = await answer(client, "daily_note", {"date": "2026-01-05"})
    assert default["path"] == "WorkDaily/2026-01-05.md"


async def test_a_move_rewrites_links_in_its_own_vault_only(
    roots: dict[str, Path], server: tuple[Client, Assembled]
) -> None:
    client, _ = server
    moved = await answer(client, "move_note", {"path": "Plan", "new_path": "Moved/Scheme", "vault": "home"})
    assert moved["updated_notes"] == ["Ideas.md"]
    assert "back to [[Scheme]]" in (roots["home"] / "Ideas.md").read_text()
    for other in ("work", "archive"):
        assert "back to [[Plan]]" in (roots[other] / "Ideas.md").read_text()
        assert (roots[other] / "Plan.md").is_file()
    backlinks = await answer(client, "get_backlinks", {"path": "Plan"})  # work's Plan, still linked from work
    assert [link["path"] for link in backlinks["backlinks"]] == ["Ideas.md"]
    retagged = await answer(client, "rename_tag", {"tag": "alpha", "new_tag": "beta", "vault": "archive"})
    assert retagged["updated_notes"] == ["Narwhalite Log.md", "Plan.md"]
    assert "#alpha" in (roots["work"] / "Plan.md").read_text()
    assert "#alpha" in (roots["home"] / "Quokkaberry Log.md").read_text()


async def test_exclusions_are_per_vault(server: tuple[Client, Assembled]) -> None:
    client, _ = server
    assert (await answer(client, "read_note", {"path": "Private/Secret"}))["content"].endswith("zebrafinch secret\n")
    hidden = await failure(client, "read_note", {"path": "Private/Secret", "vault": "home"})
    assert hidden["error"] == "not_found"
    refused = await failure(client, "write_note", {"path": "Private/New", "content": "x", "vault": "home"})
    assert refused["details"]["reason"] == "excluded"
    listed = await answer(client, "list_notes", {"vault": "home"})
    assert "Private/Secret.md" not in [note["path"] for note in listed["notes"]]
    found = await answer(client, "search_notes", {"query": "secret", "vault": "*", "mode": "keyword"})
    assert {(hit["vault"], hit["path"]) for hit in found["results"]} == {
        ("work", "Private/Secret.md"),
        ("archive", "Private/Secret.md"),
    }


async def test_search_of_every_vault_is_one_ranking_naming_each_vault(server: tuple[Client, Assembled]) -> None:
    client, assembled = server
    found = await answer(client, "search_notes", {"query": "plan", "vault": "*", "mode": "keyword"})
    assert {hit["vault"] for hit in found["results"]} == set(WORDS)
    assert [hit["score"] for hit in found["results"]] == sorted(
        (hit["score"] for hit in found["results"]), reverse=True
    )
    totals = 0
    for name in WORDS:
        totals += (await answer(client, "search_notes", {"query": "plan", "vault": name, "mode": "keyword"}))["total"]
    assert found["total"] == totals
    one = await answer(client, "search_notes", {"query": "plan", "vault": "home", "mode": "keyword"})
    assert all("vault" not in hit for hit in one["results"])  # `vault` only in a search of every vault
    limited = await answer(client, "search_notes", {"query": "plan", "vault": "*", "limit": 2})
    assert len(limited["results"]) == 2
    hybrid = await answer(client, "search_notes", {"query": "quokkaberry", "vault": "*"})
    assert {hit["vault"] for hit in hybrid["results"]} == {"home"}
    for warning in hybrid["warnings"]:  # e.g. SEMANTIC_NOT_READY while a vault's vectors build
        assert warning["vault"] in WORDS and warning["message"].startswith(f"vault '{warning['vault']}': ")
    assert all(assembled.spaces.opened(name) is not None for name in WORDS)  # '*' opened every vault


async def test_search_of_every_vault_skips_the_vaults_without_the_folder(roots: dict[str, Path]) -> None:
    (roots["archive"] / "Only").mkdir()
    (roots["archive"] / "Only" / "Plan.md").write_text("# Plan\n\nnarwhalite plan\n")
    async with serving(setup_of(roots)) as (client, _):
        found = await answer(client, "search_notes", {"query": "plan", "folder": "Only", "vault": "*"})
        assert [(hit["vault"], hit["path"]) for hit in found["results"]] == [("archive", "Only/Plan.md")]
        nowhere = await failure(client, "search_notes", {"query": "plan", "folder": "Nowhere", "vault": "*"})
        assert nowhere["error"] == "not_found" and nowhere["details"]["resource"] == "folder"


async def test_warnings_of_a_search_of_every_vault_name_their_vault(
    roots: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from obsidian_mcp import warnings
    from obsidian_mcp.search import notes

    real = notes.search_notes

    def not_ready_in_home(index: Any, *args: Any) -> SearchResult:
        result = real(index, *args)
        if index.vault.root == roots["home"].resolve():
            result.warnings.append(warnings.semantic_not_ready(1, 4))
        return result

    monkeypatch.setattr(notes, "search_notes", not_ready_in_home)
    assembled = assemble(setup_of(roots), embedder=HashingEmbedder())
    try:
        spaces = assembled.spaces.every()
        result = search_every_vault([(s.name, s.index) for s in spaces], "plan", mode="hybrid")
        [warning] = result.warnings
        assert warning.code == "SEMANTIC_NOT_READY" and warning.model_extra == {"done": 1, "total": 4, "vault": "home"}
        assert warning.message.startswith("vault 'home': search by meaning is not ready yet")
    finally:
        assembled.stop()


async def test_an_unknown_vault_and_every_vault_where_it_means_nothing(server: tuple[Client, Assembled]) -> None:
    client, _ = server
    unknown = await failure(client, "list_notes", {"vault": "Work"})  # names are exact
    assert unknown["error"] == "not_found"
    assert unknown["details"]["resource"] == "vault" and unknown["details"]["vaults"] == list(WORDS)
    for tool, arguments in CALLS.items():
        if tool == "search_notes":
            continue
        refused = await failure(client, tool, {**arguments, "vault": "*"})
        assert (refused["error"], refused["details"]["field"]) == ("parse_error", "vault"), tool


async def test_list_vaults_counts_notes_without_opening_a_vault(
    roots: dict[str, Path], server: tuple[Client, Assembled]
) -> None:
    client, assembled = server
    listed = await answer(client, "list_vaults", {})
    assert listed["vaults"] == [
        {"name": "work", "default": True, "notes": 5, "indexed": False},
        {"name": "home", "default": False, "notes": 4, "indexed": False},  # Private/Secret.md is excluded
        {"name": "archive", "default": False, "notes": 5, "indexed": False},
    ]
    assert assembled.spaces.opened("home") is None and assembled.spaces.opened("archive") is None
    await answer(client, "list_tags", {"vault": "home"})
    listed = await answer(client, "list_vaults", {})
    assert [entry["indexed"] for entry in listed["vaults"]] == [False, True, False]


async def test_the_default_vault_is_chosen(roots: dict[str, Path]) -> None:
    entries = [f"{name}={root}" for name, root in roots.items()]
    config = Config(vaults=parse_setup(entries, default="archive"), index_dir=roots["work"].parent / "index")
    async with serving(config) as (client, _):
        read = await answer(client, "read_note", {"path": "Plan"})
        assert "narwhalite" in read["content"]
        listed = await answer(client, "list_vaults", {})
        assert [entry["name"] for entry in listed["vaults"] if entry["default"]] == ["archive"]


# -- a vault opened late ---------------------------------------------------------------------------


def test_a_vault_opened_late_answers_its_first_search_completely(roots: dict[str, Path]) -> None:
    many = 1200  # enough notes for the build to answer calls while it runs (build.PARTIAL_MIN)
    folder = roots["archive"] / "Bulk"
    folder.mkdir()
    for number in range(many):
        word = "cormorant" if number % 7 == 0 else "gull"
        (folder / f"Note {number:04d}.md").write_text(f"# Note {number}\n\nA {word} at dawn, number {number}.\n")
    assembled = assemble(setup_of(roots), embedder=HashingEmbedder())
    assembled.start()  # serving: the default vault builds now, the others on their first call
    try:
        assert assembled.spaces.opened("archive") is None
        space = assembled.spaces.get("archive")
        assert space.index.background  # opened after start-up: it builds in the background at once
        from obsidian_mcp import search

        first = search.search_notes(space.index, "cormorant", limit=100)
        assert first.warnings == [] and first.total == len(range(0, many, 7))
    finally:
        assembled.stop()


# -- resources, completion, prompts --------------------------------------------------------------


async def read_text(client: Client, uri: str) -> str:
    result = await client.read_resource(uri)
    [content] = result.contents
    text = getattr(content, "text", None)
    assert isinstance(text, str)
    return text


async def test_notes_of_every_vault_as_resources(server: tuple[Client, Assembled]) -> None:
    client, _ = server
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["obsidian://note/{path}", "obsidian://{vault}/note/{path}"]
    assert "zebrafinch" in await read_text(client, "obsidian://note/Plan.md")  # the default vault
    assert "quokkaberry" in await read_text(client, "obsidian://home/note/Plan.md")
    assert "narwhalite" in await read_text(client, "obsidian://archive/note/Templates/Meeting.md")
    with pytest.raises(ProtocolError) as unknown:
        await client.read_resource("obsidian://office/note/Plan.md")
    assert unknown.value.error.data["details"]["resource"] == "vault"  # type: ignore[index]
    with pytest.raises(ProtocolError) as every:
        await client.read_resource("obsidian://*/note/Plan.md")
    assert every.value.error.code == -32002  # '*' names no vault here
    with pytest.raises(ProtocolError) as excluded:
        await client.read_resource("obsidian://home/note/Private/Secret.md")
    assert excluded.value.error.data["error"] == "not_found"  # type: ignore[index]
    listed = (await client.list_resources()).resources  # the default vault's recent notes
    assert listed and all(str(r.uri).startswith("obsidian://note/") for r in listed)
    assert not any("Quokkaberry" in str(r.uri) or "Narwhalite" in str(r.uri) for r in listed)


async def test_completion_offers_vault_names_then_paths_in_the_vault_chosen(server: tuple[Client, Assembled]) -> None:
    client, _ = server
    template = ResourceTemplateReference(uri="obsidian://{vault}/note/{path}")
    names = (await client.complete(template, {"name": "vault", "value": ""})).completion
    assert names.values == list(WORDS)
    assert (await client.complete(template, {"name": "vault", "value": "HO"})).completion.values == ["home"]
    paths = (await client.complete(template, {"name": "path", "value": "log"}, {"vault": "home"})).completion
    assert paths.values == ["Quokkaberry Log.md"]
    default = (await client.complete(template, {"name": "path", "value": "log"})).completion
    assert default.values == ["Zebrafinch Log.md"]
    nowhere = (await client.complete(template, {"name": "path", "value": "log"}, {"vault": "office"})).completion
    assert nowhere.values == []
    prompt = PromptReference(name="summarize_note")
    assert (await client.complete(prompt, {"name": "vault", "value": "a"})).completion.values == ["archive"]
    in_archive = (await client.complete(prompt, {"name": "path", "value": "log"}, {"vault": "archive"})).completion
    assert in_archive.values == ["Narwhalite Log.md"]


async def test_the_prompts_take_a_vault(server: tuple[Client, Assembled]) -> None:
    client, _ = server
    summary = await client.get_prompt("summarize_note", {"path": "Quokkaberry Log", "vault": "home"})
    text = summary.messages[0].content.text  # type: ignore[union-attr]
    assert '"Quokkaberry Log.md"' in text and 'vault="home"' in text
    with pytest.raises(ProtocolError):
        await client.get_prompt("summarize_note", {"path": "Quokkaberry Log"})  # not in the default vault's
    review = await client.get_prompt("daily_review", {"date": "2026-01-05", "vault": "archive"})
    text = review.messages[0].content.text  # type: ignore[union-attr]
    assert 'daily_note(date="2026-01-05", create=false, vault="archive")' in text
    plain = await client.get_prompt("daily_review", {"date": "2026-01-05"})
    assert "vault=" not in plain.messages[0].content.text  # type: ignore[union-attr]
    with pytest.raises(ProtocolError) as unknown:
        await client.get_prompt("daily_review", {"vault": "office"})
    assert unknown.value.error.data["details"]["resource"] == "vault"  # type: ignore[index]


def test_the_unopened_vaults_cost_nothing(roots: dict[str, Path]) -> None:
    assembled = assemble(setup_of(roots), embedder=HashingEmbedder())
    try:
        assert [name for name in WORDS if assembled.spaces.opened(name) is not None] == ["work"]
        index_files = list((roots["work"].parent / "index").glob("*"))
        assert len(index_files) <= 1  # at most the default vault's folder, nothing of the others
    finally:
        assembled.stop()
