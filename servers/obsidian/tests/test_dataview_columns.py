"""Columns kept between whole-vault queries (`dataview.columns`): every answer equals the one
computed afresh, and no kept column outlives a change to any page.

Regression guard: a kept column must never carry a value a later query should not see; a note
edited between two queries, `this` (which depends on the note the query is written in), and a
member that fails on rows a FROM left out are the ways it could."""

from __future__ import annotations

import random
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from obsidian_mcp.dataview import QueryError, QueryResult, execute_query
from obsidian_mcp.dataview.columns import MAX_COLUMNS
from obsidian_mcp.dataview.executor import _STARTS
from obsidian_mcp.dataview.loader import load_vault
from obsidian_mcp.dataview.pages.vault_pages import VaultPages
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.vault.paths import Vault

FIXTURE = Path(__file__).parent / "fixtures" / "dataview_vault"
TODAY = date(2024, 5, 1)
# Whole-vault queries of each type first (they keep the starting rows and their columns), then
# FROM queries picking from them, then members that fail on some rows only.
QUERIES = [
    'LIST WHERE status = "active"',
    "TABLE status, file.mtime, file.tags SORT file.name",
    "LIST WHERE owner = [[Bob]]",
    "LIST WHERE owner != [[Bob]] AND status",
    "TASK WHERE !completed AND due",
    "TASK WHERE completed OR priority",
    'TASK FROM #project WHERE !completed AND priority = "high"',
    'TASK FROM "Tasks" WHERE !completed',
    'LIST FROM #project WHERE status = "active"',
    'TABLE status FROM "Projects" AND -#project/alpha WHERE file.tags',
    "TABLE length(rows) AS n GROUP BY status",
    "TABLE length(rows) AS n FROM #project GROUP BY status",
    "LIST WHERE status AND owner = [[Bob]]",
    "LIST WHERE status AND owner != [[Bob]]",
    "LIST FROM #project WHERE owner = [[Bob]]",
    "LIST FROM #project WHERE owner != [[Carol]]",
    "LIST WHERE !status AND status.foo",
    "LIST WHERE !status OR status.foo",
    "LIST FROM #project WHERE status.foo",
    "LIST WHERE file.name.x OR !file.name",
]


def make(root: Path) -> VaultPages:
    return VaultPages(VaultIndex(Vault(root), None, rescan_seconds=0, watch=False))


def answer(source: Any, query: str, resolver: Any = None, origin: str | None = None) -> object:
    """What a query gives (rows, tasks, warnings), or the error it raises."""
    try:
        result: QueryResult = execute_query(query, source, resolver=resolver, origin=origin, today=TODAY, limit=None)
    except QueryError as exc:
        return ("error", str(exc))
    return (
        [(row.model_dump()) for row in result.rows],
        [task.model_dump() for task in result.tasks],
        [warning.message for warning in result.warnings],
    )


def through_index(pages: VaultPages, query: str, origin: str | None = None) -> object:
    def op(snapshot: Any) -> object:
        source = pages.current(snapshot)
        return answer(source, query, source.resolve, origin)

    return pages.index.run(op)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "vault")
    return tmp_path / "vault"


@pytest.mark.parametrize("order", ["as listed", "reversed"])
def test_answers_with_kept_columns_equal_answers_computed_afresh(vault: Path, order: str) -> None:
    """Reversed, a column is first needed for some rows only (an `and`'s later operand, a FROM)."""
    pages = make(vault)
    queries = QUERIES if order == "as listed" else QUERIES[::-1]
    fresh = {query: answer(load_vault(vault), query) for query in queries}
    for attempt in range(3):  # the first pass keeps the columns, the later ones read them
        for query in queries:
            assert through_index(pages, query) == fresh[query], f"pass {attempt}: {query}"


def test_a_kept_column_never_outlives_an_edit(vault: Path) -> None:
    pages = make(vault)
    queries = ['LIST WHERE status = "active"', "TASK WHERE !completed", 'LIST FROM #project WHERE status = "active"']
    for query in queries:
        through_index(pages, query)
    beta = vault / "Projects" / "Beta.md"
    beta.write_text(beta.read_text(encoding="utf-8").replace("Status: Blocked", "Status: active") + "\n- [ ] New\n")
    for query in queries:
        assert through_index(pages, query) == answer(load_vault(vault), query), query


def test_this_is_read_from_the_note_the_query_is_written_in(vault: Path) -> None:
    pages = make(vault)
    query = "LIST WHERE status = this.status AND file.path != this.file.path"
    first = through_index(pages, query, origin="Projects/Alpha.md")
    other = through_index(pages, query, origin="Projects/Beta.md")
    assert first == answer(load_vault(vault), query, origin="Projects/Alpha.md")
    assert other == answer(load_vault(vault), query, origin="Projects/Beta.md")
    assert first != other


SOURCES = [
    "",
    "FROM #project",
    'FROM "Projects"',
    'FROM "Tasks"',
    "FROM [[Alpha]]",
    "FROM #project AND -#project/alpha",
]
TYPES = ["LIST", "TASK", "TABLE status, file.name"]
CONDITIONS = [
    "status",
    "!status",
    'status = "active"',
    "owner = [[Bob]]",
    "owner != [[Bob]]",
    "file.tags",
    'contains(file.tags, "#project")',
    "due",
    "due < date(2024-05-03)",
    "completed",
    "!completed",
    "priority",
    "status.foo",
    "file.name.x",
    "length(file.tasks) > 0",
    "file.mtime",
    "this.status",
]
TAILS = ["", " SORT file.name DESC", " GROUP BY status", " LIMIT 3"]


def random_query(rng: random.Random) -> str:
    where = f" {rng.choice(['AND', 'OR'])} ".join(rng.choice(CONDITIONS) for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.3:
        where = f"({where}) {rng.choice(['AND', 'OR'])} {rng.choice(CONDITIONS)}"
    return f"{rng.choice(TYPES)} {rng.choice(SOURCES)} WHERE {where}{rng.choice(TAILS)}".replace("  ", " ")


def test_random_query_sequences_answer_as_computed_afresh(vault: Path) -> None:
    """Whatever order queries come in, what one keeps never changes what a later one answers."""
    rng = random.Random(14)
    fresh_source = load_vault(vault)
    pages = make(vault)
    notes = sorted(path for path in vault.rglob("*.md") if ".trash" not in path.parts)
    for number in range(300):
        if number % 25 == 24:  # another program edits a note now and then
            note = rng.choice(notes)
            edit = rng.choice(["status:: active\n", "owner:: [[Bob]]\n", "- [ ] new task\n", "#project\n"])
            note.write_text(note.read_text(encoding="utf-8") + "\n" + edit, encoding="utf-8")
            fresh_source = load_vault(vault)
        query = random_query(rng)
        assert through_index(pages, query) == answer(fresh_source, query), f"query {number}: {query}"


def test_the_columns_kept_are_bounded(vault: Path) -> None:
    """Regression guard: an agent asking for ever new fields must not grow the server without end."""
    pages = make(vault)
    for number in range(MAX_COLUMNS + 20):
        through_index(pages, f"LIST WHERE field{number}")
    assert through_index(pages, "LIST WHERE status") == answer(load_vault(vault), "LIST WHERE status")
    kept = [start.rows.columns for start in _STARTS[pages].values()]
    assert kept and all(len(columns) == MAX_COLUMNS for columns in kept)
    assert ("field", "status") in kept[0] and ("field", "field0") not in kept[0]
