"""The Dataview pages of the index (`index.pages`): the same answers as pages read from disk, kept
fresh by each sync, rebuilt only where something changed, never holding hidden notes."""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from obsidian_mcp.dataview import Page, QueryError, QueryResult, execute_query
from obsidian_mcp.dataview.pages import dql
from obsidian_mcp.dataview.pages.vault_pages import VaultPages
from obsidian_mcp.dataview.records import record_of
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.vault.paths import Vault


def _engine_cases() -> Any:
    """The engine's own query cases (test_dataview_queries), loaded by path: tests are no package."""
    spec = importlib.util.spec_from_file_location(
        "dataview_cases", Path(__file__).with_name("test_dataview_queries.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


engine_cases = _engine_cases()
FIXTURE = Path(__file__).parent / "fixtures" / "dataview_vault"
TODAY = date(2024, 5, 1)


def make(root: Path) -> VaultPages:
    """Pages over a private index of `root` that lists the whole vault before every call."""
    return VaultPages(VaultIndex(Vault(root), None, rescan_seconds=0, watch=False))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "vault")
    return tmp_path / "vault"


def run(pages: VaultPages, query: str) -> QueryResult:
    def op(snapshot: Any) -> QueryResult:
        source = pages.current(snapshot)
        return execute_query(query, source, resolver=source.resolve, today=TODAY, limit=None)

    return pages.index.run(op)


def paths(pages: VaultPages, query: str) -> list[str]:
    return [row.path for row in run(pages, query).rows]  # type: ignore[union-attr]


def state(pages: VaultPages) -> dict[str, tuple[object, ...]]:
    """Everything a page holds but its times, by path."""
    pages.index.run(pages.current)
    return {
        page.path: (
            dict(page.frontmatter),
            page.metadata,
            page.size,
            page.outlinks,
            page.inlinks,
            page.tags,
            page.aliases,
            page.body_start_line,
        )
        for page in pages
    }


@pytest.mark.parametrize(("query", "expected"), engine_cases.CASES, ids=[query for query, _ in engine_cases.CASES])
def test_index_pages_answer_like_pages_read_from_disk(
    index_pages: VaultPages, query: str, expected: list[object]
) -> None:
    """The engine's whole case list, on pages built from the index: tags, links (resolved by the
    index's resolver), fields and tasks agree with the loader's pages."""
    try:
        got = engine_cases.shapes(run(index_pages, query))
    except QueryError as exc:  # a few cases expect errors; they must be the same ones
        with pytest.raises(QueryError) as caught:
            engine_cases.run(engine_cases.load_vault(FIXTURE), query)
        assert str(caught.value) == str(exc)
        return
    assert got == expected


@pytest.fixture(scope="module")
def index_pages(tmp_path_factory: pytest.TempPathFactory) -> VaultPages:
    root = tmp_path_factory.mktemp("pages") / "vault"
    shutil.copytree(FIXTURE, root)
    return make(root)


def test_hidden_folders_and_the_trash_are_never_pages(vault: Path) -> None:
    for folder in (".trash", ".hidden", "Projects/.drafts"):
        (vault / folder).mkdir(parents=True, exist_ok=True)
        (vault / folder / "Secret.md").write_text("---\nstatus: active\n---\n#project\n- [ ] hidden task\n")
    pages = make(vault)
    found = paths(pages, 'LIST WHERE status = "active" OR contains(file.tags, "#project")')
    assert found and not [path for path in found if "Secret" in path]
    assert not [task for task in run(pages, "TASK").tasks if "Secret" in getattr(task, "path", "")]
    assert pages.get(".trash/Secret.md") is None


def test_a_note_changed_by_another_program_is_seen_by_the_next_query(vault: Path) -> None:
    pages = make(vault)
    assert paths(pages, 'LIST WHERE status = "active"') == ["Projects/Alpha.md", "Projects/Delta.md"]
    beta = vault / "Projects" / "Beta.md"
    beta.write_text(beta.read_text().replace("Status: Blocked", "Status: active"))
    assert paths(pages, 'LIST WHERE status = "active"') == [
        "Projects/Alpha.md",
        "Projects/Beta.md",
        "Projects/Delta.md",
    ]
    (vault / "Projects" / "New.md").write_text("---\nstatus: active\n---\n#project\n")
    assert "Projects/New.md" in paths(pages, "LIST FROM #project")
    (vault / "Projects" / "New.md").unlink()
    assert "Projects/New.md" not in paths(pages, "LIST FROM #project")


def test_links_follow_notes_that_appear_move_and_vanish(vault: Path) -> None:
    pages = make(vault)
    assert paths(pages, "LIST FROM [[Missing Note]]") == []
    (vault / "Missing Note.md").write_text("now here\n")
    assert paths(pages, "LIST FROM [[Missing Note]]") == ["Home.md"]
    assert pages.get("Missing Note.md").inlinks == ("Home.md",)  # type: ignore[union-attr]
    os.rename(vault / "Missing Note.md", vault / "Notes" / "Missing Note.md")
    assert paths(pages, "LIST FROM [[Missing Note]]") == ["Home.md"]
    assert pages.get("Home.md").outlinks[-1] == "Notes/Missing Note.md"  # type: ignore[union-attr]
    (vault / "Projects" / "Missing Note.md").write_text("a second one\n")  # now ambiguous: resolves to neither
    assert paths(pages, "LIST FROM [[Missing Note]]") == []
    assert pages.get("Notes/Missing Note.md").inlinks == ()  # type: ignore[union-attr]
    (vault / "Projects" / "Missing Note.md").unlink()
    (vault / "Notes" / "Missing Note.md").unlink()
    assert "Missing Note" not in str(pages.get("Home.md").outlinks)  # type: ignore[union-attr]


def test_only_changed_pages_are_rebuilt_and_the_rest_keep_their_derived_data(vault: Path) -> None:
    pages = make(vault)
    run(pages, "TASK")
    before = {page.path: page for page in pages}
    nested = vault / "Tasks" / "Nested.md"
    nested.write_text(nested.read_text() + "\n- [ ] one more\n")
    run(pages, "TASK")
    after = {page.path: page for page in pages}
    assert {path for path in after if after[path] is not before[path]} == {"Tasks/Nested.md"}
    # A link change rebuilds the linking note and its targets' pages; their text-derived data is reused.
    carol = vault / "People" / "Carol.md"
    carol.write_text(carol.read_text() + "\nSee [[Delta]].\n")
    delta_before = pages.get("Projects/Delta.md")
    run(pages, "LIST")
    delta_after = pages.get("Projects/Delta.md")
    assert delta_after is not delta_before and "People/Carol.md" in delta_after.inlinks  # type: ignore[union-attr]
    assert record_of(delta_after).body is record_of(delta_before).body  # type: ignore[arg-type]


def test_incremental_pages_equal_pages_built_from_scratch(vault: Path) -> None:
    """Random creates, edits, renames and deletes; after each sync the pages kept up to date equal
    pages built afresh from the same vault."""
    rng = random.Random(5)
    pages = make(vault)
    state(pages)
    names = ["Alpha", "Beta", "Gamma", "Ghost", "Bob", "Carol", "Zed"]
    for step in range(25):
        notes = sorted(p for p in vault.rglob("*.md") if ".obsidian" not in p.parts)
        action = rng.choice(["create", "edit", "rename", "delete"])
        if action == "create" or len(notes) < 5:
            folder = rng.choice(["", "Projects", "Notes", "Fresh"])
            (vault / folder).mkdir(exist_ok=True)
            target = vault / folder / f"{rng.choice(names)}.md"
            target.write_text(
                f"---\ntags: [t{step}]\nrel: '[[{rng.choice(names)}]]'\n---\nLinks [[{rng.choice(names)}]]\n"
            )
        elif action == "edit":
            note = rng.choice(notes)
            note.write_text(note.read_text() + f"\n[[{rng.choice(names)}]] #edit{step} field{step}:: {step}\n")
        elif action == "rename":
            note = rng.choice(notes)
            target = note.with_name(f"{rng.choice(names)}{step}.md")
            os.rename(note, target)
        else:
            rng.choice(notes).unlink()
        assert state(pages) == state(make(vault)), f"step {step}: {action}"


def test_query_notes_maps_the_engine_result(vault: Path) -> None:
    pages = make(vault)
    result = dql.query_notes(pages, 'TABLE length(rows) AS n FROM "Projects" GROUP BY status', today=TODAY)
    assert [(group.key, group.values) for group in result.rows] == [  # type: ignore[union-attr]
        ("active", ["active", 2]),
        ("archived", ["archived", 1]),
        ("Blocked", ["Blocked", 1]),
        ("done", ["done", 1]),
    ]
    with pytest.raises(QueryError) as caught:
        dql.query_notes(pages, "TABLE status FROM", today=TODAY)
    assert caught.value.position == 17


def test_pages_are_dataview_pages(vault: Path) -> None:
    pages = make(vault)
    pages.index.run(pages.current)
    alpha = pages.get("Projects/Alpha.md")
    assert isinstance(alpha, Page)
    assert alpha.tags == ("#project", "#project/alpha", "#work")
    assert alpha.aliases == ("A1",) and alpha.frontmatter["status"] == "active"
    assert alpha.body == "" and alpha.body_start_line == 10  # no text: fields and lists come from the tables
    assert alpha.metadata is not None
    assert alpha.size == (vault / "Projects" / "Alpha.md").stat().st_size


def test_from_a_tag_reads_only_the_tagged_pages(vault: Path) -> None:
    """FROM is answered from the pages' indexes: a page outside it is never even looked at."""
    pages = make(vault)
    assert paths(pages, "LIST FROM #project AND -#project/alpha WHERE status") == [
        "Projects/Archive/Omega.md",
        "Projects/Beta.md",
        "Projects/Delta.md",
        "Projects/Gamma.md",
    ]
    touched = {page.path for page in pages if page.derived is not None}  # the set algebra left out the rest
    assert touched == {"Projects/Archive/Omega.md", "Projects/Beta.md", "Projects/Delta.md", "Projects/Gamma.md"}
    assert paths(pages, 'LIST FROM "People"') == ["People/Bob.md", "People/Carol.md"]
    now = {page.path for page in pages if page.derived is not None}
    assert now == touched | {"People/Bob.md", "People/Carol.md"}
