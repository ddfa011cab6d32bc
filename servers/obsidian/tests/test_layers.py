"""The package reads top-down: each layer imports only the layers below it.

models → errors → the domain (warnings, structure, dataview, vault, index) → tools → server → cli. The one
exception is by design: `errors` maps the domain's exceptions, so it imports `vault.errors` and
`dataview.errors`, which are leaves (they import nothing of the package) and so belong with it.
`structure` (how a note's text reads: prose, code, comments, headings) imports nothing of the
package; `dataview` is the pure query engine and `semantic` the pure engine of search by meaning:
each imports nothing of the rest of the package but `structure`. Within the domain, `vault` never
imports `index`; the operations of `index` (search, tags, backlinks, move, check, retag) share
pieces through small modules (graph, text, progress, results) instead of importing each other;
tool modules share only `tools.common` and `tools.worker`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "obsidian_mcp"
# low to high
LAYERS = [
    "models",
    "errors",
    "warnings",
    "structure",
    "dataview",
    "semantic",
    "vault",
    "index",
    "tools",
    "server",
    "cli",
]
LEAF_EXCEPTIONS = ("vault.errors", "dataview.errors")
INDEX_OPERATIONS = {"search", "tags", "backlinks", "move", "check", "retag"}
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
    folder = PACKAGE / layer
    return sorted(folder.glob("*.py")) if folder.is_dir() else [PACKAGE / f"{layer}.py"]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_layers_below_it(layer: str) -> None:
    above = set(LAYERS[LAYERS.index(layer) + 1 :])
    for path in modules(layer):
        upward = {
            name for name in imports(path) if name.split(".")[0] in above and not name.startswith(LEAF_EXCEPTIONS)
        }
        assert not upward, f"{path.relative_to(PACKAGE)} imports {sorted(upward)}"


def test_the_domain_exceptions_are_a_leaf() -> None:
    assert imports(PACKAGE / "vault" / "errors.py") == set()
    assert imports(PACKAGE / "dataview" / "errors.py") == set()


def test_the_note_structure_imports_only_itself() -> None:
    for path in modules("structure"):
        assert all(name.startswith("structure") for name in imports(path)), path.name


def test_the_query_engine_imports_only_itself_and_the_note_structure() -> None:
    for path in modules("dataview"):
        assert all(name.startswith(("dataview", "structure")) for name in imports(path)), path.name


def test_the_engine_of_search_by_meaning_imports_only_itself_and_the_note_structure() -> None:
    for path in modules("semantic"):
        assert all(name.startswith(("semantic", "structure")) for name in imports(path)), path.name


def test_index_operations_do_not_import_each_other() -> None:
    for name in INDEX_OPERATIONS:
        sideways = {m for m in imports(PACKAGE / "index" / f"{name}.py") if m.split(".")[-1] in INDEX_OPERATIONS}
        assert not sideways, f"index/{name}.py imports {sorted(sideways)}"


def test_tool_modules_share_only_common_and_worker() -> None:
    for path in modules("tools"):
        sideways = {m for m in imports(path) if m.startswith("tools.") and m.split(".")[1] not in SHARED_TOOL_MODULES}
        assert not sideways, f"tools/{path.name} imports {sorted(sideways)}"
