"""The package reads top-down: each layer imports only the layers below it, and no module imports itself
back through others.

From low to high: the foundation (`mail`, the pure reading and writing of mail; `models`, the contract's
shapes; `files`), then `api` (every Gmail request, answered as the typed views of `api.views`), then the
domain (reader, labels, organizer, drafts, delivery, the send guard, ...: it knows Gmail's data through
`api` and nothing of MCP), then `runtime` (the contract on the wire), then `tools` (thin MCP tools over the
domain), then `server` and `cli`. `mail` imports nothing of the package but itself; `api` imports nothing
above the foundation; the domain never imports the MCP SDK; the tools reach `api` only for its failures.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "gmail_mcp"
NAME = "gmail_mcp"
FOUNDATION = {"mail", "models", "files"}
DOMAIN = {
    "accounts", "authorize", "config", "delivery", "documents", "drafts", "errors", "filters", "guard", "labels",
    "organizer", "outgoing", "reader", "results", "sendas", "sender", "warnings",
}  # fmt: skip
# low to high; a module of a layer imports only modules of its own layer or of the layers below it
LAYERS: list[set[str]] = [FOUNDATION, {"api"}, DOMAIN, {"runtime"}, {"tools"}, {"server"}, {"cli", "__main__"}]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(base: str, names: list[str]) -> set[str]:
    """The package modules `from base import names` loads: each name that is a module, else `base` itself."""
    found = {f"{base}.{n}".strip(".") for n in names if f"{base}.{n}".strip(".") in MODULES}
    if len(found) < len(names) and base:
        found.add(base)
    return found


def imports(module: str) -> set[str]:
    """The package modules `module` imports (anywhere in it: lazy imports in functions count too)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".") if package else []
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            elif node.module and (node.module == NAME or node.module.startswith(NAME + ".")):
                base = node.module.removeprefix(NAME).lstrip(".")
            else:
                continue
            found |= _resolve(base, [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix(NAME + ".") for a in node.names if a.name.startswith(NAME + ".")}
    return {m for m in found if m in MODULES and m != module}


def external(module: str) -> set[str]:
    """The top-level names of the packages outside gmail_mcp that `module` imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
    return found - {NAME}


def layer_of(module: str) -> int:
    top = module.split(".")[0]
    return next(i for i, layer in enumerate(LAYERS) if top in layer)


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        if module:
            layer_of(module)  # StopIteration names a module no layer holds


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m))
def test_a_module_imports_only_its_layer_and_those_below(module: str) -> None:
    upward = sorted(m for m in imports(module) if m and layer_of(m) > layer_of(module))
    assert not upward, f"{module} imports {upward}"


def test_mail_imports_only_itself() -> None:
    for module in (m for m in MODULES if m.startswith("mail")):
        assert all(m.startswith("mail") for m in imports(module)), module


def test_api_imports_nothing_of_the_domain_or_above() -> None:
    for module in (m for m in MODULES if m.startswith("api")):
        allowed = {m for m in imports(module) if m.split(".")[0] in FOUNDATION | {"api"}}
        assert imports(module) == allowed, f"{module} imports {sorted(imports(module) - allowed)}"


def test_the_domain_knows_nothing_of_mcp() -> None:
    for module in (m for m in MODULES if m and m.split(".")[0] in DOMAIN | FOUNDATION | {"api"}):
        assert not external(module) & {"mcp", "mcp_types"}, module


def test_the_tools_reach_api_only_for_its_failures() -> None:
    for module in (m for m in MODULES if m.startswith("tools")):
        reached = {m for m in imports(module) if m.startswith("api")}
        assert reached <= {"api.errors"}, f"{module} imports {sorted(reached)}"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back() -> None:
    assert cycles({module: imports(module) for module in MODULES}) == []


def test_api_answers_the_domain_with_typed_views_never_gmails_json() -> None:
    import dataclasses
    import inspect
    import typing

    from gmail_mcp.api import mailbox

    def raw(hint: object) -> bool:
        text = repr(hint)
        return "dict" in text or "typing.Any" in text or "Mapping" in text

    for name, method in inspect.getmembers(mailbox.MailboxApi, inspect.isfunction):
        if not name.startswith("_"):
            answer = typing.get_type_hints(method, vars(mailbox))["return"]
            assert not raw(answer), f"MailboxApi.{name} answers {answer}"
    for field in dataclasses.fields(mailbox.MessagesMetadata):
        assert not raw(typing.get_type_hints(mailbox.MessagesMetadata)[field.name]), field.name
