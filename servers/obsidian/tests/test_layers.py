"""The package reads top-down: each layer imports only the layers below it.

models → errors → the domain (warnings, structure, dataview, semantic, vault, index, then search,
links and dataview.pages, then spaces: the vaults served) → tools → server → cli. The one exception
is by design: `errors` maps the domain's exceptions, so it imports `vault.errors` and
`dataview.errors`, which are leaves (they import nothing of the package) and so belong with it.
`structure` (how a note's text reads: prose, code, comments, headings) imports nothing of the
package; `dataview` is the pure query engine and `semantic` the pure engine of search by meaning:
each imports nothing of the rest of the package but `structure`. Within the domain, `vault` never
imports `index`; `index` is the machinery that keeps the index and owns every SQL statement (no
`execute` call, no SQL text anywhere else); what asks it questions sits above it and apart: `search`
(by words, by meaning, fused), `links` (backlinks, link checks, moves, tags) and `dataview.pages`
(the engine run on the index's pages) never import each other, and the operations of `links` share
only `index`'s query functions and `links.results`. Nothing of the domain imports `tools`,
`runtime`, `server` or `cli`; tool modules share only `tools.common` and `tools.worker`. And no
module imports itself, through any chain of imports: the import graph (every import, in functions
and under TYPE_CHECKING too) has no cycle; in particular the index's build never imports the index
that runs it (`build.BuildHost`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "obsidian_mcp"
# low to high; a dotted layer is a sub-package of the layer its name starts with, placed higher
LAYERS = [
    "models",
    "errors",
    "warnings",
    "structure",
    "dataview",
    "semantic",
    "vault",
    "index",
    "search",
    "links",
    "dataview.pages",
    "spaces",
    "tools",
    "server",
    "cli",
]
DOMAIN = LAYERS[LAYERS.index("warnings") : LAYERS.index("tools")]
ASKING_THE_INDEX = ("search", "links", "dataview.pages")  # peers: none imports another
ABOVE_THE_DOMAIN = ("tools", "runtime", "server", "cli")
LEAF_EXCEPTIONS = ("vault.errors", "dataview.errors")
LINK_OPERATIONS = {"backlinks", "check", "move", "retag", "tags"}
SHARED_TOOL_MODULES = {"common", "worker"}


def imports(path: Path) -> set[str]:
    """The obsidian_mcp modules `path` imports, as dotted names below the package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("obsidian_mcp"):
            base = node.module.removeprefix("obsidian_mcp").lstrip(".")
            found |= {f"{base}.{alias.name}".strip(".") for alias in node.names}  # a module, or a name in one
            found |= {base} if base else set()
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("obsidian_mcp.") for a in node.names if a.name.startswith("obsidian_mcp.")}
    return found


def modules(layer: str) -> list[Path]:
    """The modules of a layer: the files of its folder (not of its sub-packages), or its one file."""
    folder = PACKAGE.joinpath(*layer.split("."))
    return sorted(folder.glob("*.py")) if folder.is_dir() else [PACKAGE / f"{layer}.py"]


def layer_of(name: str) -> str | None:
    """The layer a dotted name below the package belongs to (the longest layer it starts with)."""
    owners = [layer for layer in LAYERS if name == layer or name.startswith(layer + ".")]
    return max(owners, key=len) if owners else None


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_layers_below_it(layer: str) -> None:
    rank = LAYERS.index(layer)
    for path in modules(layer):
        upward = {
            name
            for name in imports(path)
            if (owner := layer_of(name)) is not None
            and LAYERS.index(owner) > rank
            and not name.startswith(LEAF_EXCEPTIONS)
        }
        assert not upward, f"{path.relative_to(PACKAGE)} imports {sorted(upward)}"


@pytest.mark.parametrize("layer", DOMAIN)
def test_the_domain_imports_nothing_above_it(layer: str) -> None:
    for path in modules(layer):
        above = {name for name in imports(path) if within(name, ABOVE_THE_DOMAIN)}
        assert not above, f"{path.relative_to(PACKAGE)} imports {sorted(above)}"


def test_the_domain_exceptions_are_a_leaf() -> None:
    assert imports(PACKAGE / "vault" / "errors.py") == set()
    assert imports(PACKAGE / "dataview" / "errors.py") == set()


def test_the_note_structure_imports_only_itself() -> None:
    for path in modules("structure"):
        assert all(name.startswith("structure") for name in imports(path)), path.name


def test_the_query_engine_imports_only_itself_and_the_note_structure() -> None:
    for path in modules("dataview"):
        found = imports(path)
        assert all(within(name, ("dataview", "structure")) for name in found), path.name
        assert not any(within(name, ("dataview.pages",)) for name in found), path.name


def test_the_engine_of_search_by_meaning_imports_only_itself_and_the_note_structure() -> None:
    for path in modules("semantic"):
        assert all(name.startswith(("semantic", "structure")) for name in imports(path)), path.name


@pytest.mark.parametrize("layer", ASKING_THE_INDEX)
def test_what_asks_the_index_does_not_import_its_peers(layer: str) -> None:
    peers = tuple(peer for peer in ASKING_THE_INDEX if peer != layer)
    for path in modules(layer):
        sideways = {name for name in imports(path) if within(name, peers)}
        assert not sideways, f"{path.relative_to(PACKAGE)} imports {sorted(sideways)}"


def test_link_operations_do_not_import_each_other() -> None:
    for name in LINK_OPERATIONS:
        found = imports(PACKAGE / "links" / f"{name}.py")
        sideways = {m for m in found if m.startswith("links.") and m.split(".")[1] in LINK_OPERATIONS}
        assert not sideways, f"links/{name}.py imports {sorted(sideways)}"


def test_tool_modules_share_only_common_and_worker() -> None:
    for path in modules("tools"):
        sideways = {m for m in imports(path) if m.startswith("tools.") and m.split(".")[1] not in SHARED_TOOL_MODULES}
        assert not sideways, f"tools/{path.name} imports {sorted(sideways)}"


# -- SQL only in index/ ---------------------------------------------------------------------------

SQL_CALLS = {"execute", "executemany", "executescript"}
SQL_TEXT = re.compile(
    r"\b(?:SELECT\s+\S|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b"
    r"|CREATE\s+(?:TEMP\s+|VIRTUAL\s+|UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)\b|DROP\s+(?:TABLE|INDEX)\b"
    r"|PRAGMA\s+\w|BEGIN\s+(?:IMMEDIATE|EXCLUSIVE)\b|\bMATCH\s+\?)"
)


def sql_outside(root: Path, home: str = "index") -> list[str]:
    """Where the package at `root` runs or spells SQL outside its `home` sub-package: calls of
    `.execute` / `.executemany` / `.executescript`, and string literals (f-string parts too) that
    read as SQL statements. As "file:line what"."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_CALLS:
                found.append(f"{rel}:{node.lineno} .{node.func.attr}()")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_TEXT.search(node.value):
                found.append(f"{rel}:{node.lineno} {node.value.strip()[:40]!r}")
    return found


def test_sql_lives_only_in_the_index() -> None:
    assert sql_outside(PACKAGE) == []


def test_the_sql_check_finds_sql_planted_outside_the_index(tmp_path: Path) -> None:
    """The check can fail: a query run, and SQL spelt (in an f-string too), outside `index/`."""
    package = tmp_path / "pkg"
    (package / "index").mkdir(parents=True)
    (package / "search").mkdir()
    (package / "index" / "table.py").write_text('def q(conn):\n    return conn.execute("SELECT 1")\n')
    (package / "search" / "ranked.py").write_text(
        "def q(conn, table):\n"
        '    conn.executemany("-- nothing", [])\n'
        '    return f"DELETE FROM {table} WHERE path = ?"\n'
        'WORDS = "select a note, then insert a link"  # prose is not SQL\n'
    )
    assert sql_outside(package) == [
        "search/ranked.py:2 .executemany()",
        "search/ranked.py:3 'DELETE FROM'",
    ]


# -- no import cycles -----------------------------------------------------------------------------

ImportGraph = dict[str, set[str]]  # module -> the package's modules it imports (dotted, full names)


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at `path`, `root` being the package's folder."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> ImportGraph:
    """Every module of the package at `root` and the modules of it that it imports anywhere (at
    module level, in functions, under TYPE_CHECKING); relative imports are resolved, and
    `from package import name` counts as importing the module `name` when there is one, else the
    package."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: ImportGraph = {}
    for name, path in paths.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names if alias.name in paths}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    found |= {target} if target in paths else {base} if base in paths else set()
        graph[name] = found - {name}
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """A cycle of `graph` as the modules along it, the first repeated at the end; None if there is none."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = [start]  # the depth-first path from `start`, beside the edges left to walk
        edges = [iter(sorted(graph[start]))]
        while edges:
            following = next(edges[-1], None)
            if following is None:
                done.add(path.pop())
                edges.pop()
            elif following in path:
                return [*path[path.index(following) :], following]
            elif following not in done:
                path.append(following)
                edges.append(iter(sorted(graph.get(following, ()))))
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_check_finds_a_planted_cycle(tmp_path: Path) -> None:
    """The check can fail: a cycle through a function-level import and a TYPE_CHECKING one is found."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("def f() -> None:\n    from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import c\n")
    (package / "c.py").write_text("import pkg.a\n")
    graph = import_graph(package)
    assert graph["pkg.sub.b"] == {"pkg.c"}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]
    (package / "c.py").write_text("")
    assert find_cycle(import_graph(package)) is None


def test_the_build_and_the_index_it_fills_do_not_import_each_other() -> None:
    graph = import_graph(PACKAGE)
    assert "obsidian_mcp.index.vault_index" not in graph["obsidian_mcp.index.build"]
    assert "obsidian_mcp.index.build" in graph["obsidian_mcp.index.vault_index"]


def test_the_cycle_check_finds_a_cycle_planted_in_the_package() -> None:
    graph = import_graph(PACKAGE)
    graph["obsidian_mcp.dataview.values"].add("obsidian_mcp.dataview.context")  # the circle issue 26 cut
    cycle = find_cycle(graph)
    assert cycle is not None and {"obsidian_mcp.dataview.values", "obsidian_mcp.dataview.context"} <= set(cycle)
