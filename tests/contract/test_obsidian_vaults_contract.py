"""One obsidian-mcp serving two vaults (interface.md §6, "several vaults") through `uv run obsidian-mcp
--vault work=PATH --vault home=PATH` (stdio, or HTTP with CONTRACT_TRANSPORT=http), and the configurations
it refuses to start with (exit 2, one log line saying what to change)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest
from mcp.shared.exceptions import MCPError as McpProtocolError
from mcp_types import ResourceTemplateReference

from tests.contract.checks import assert_error, assert_protocol_error, spec, tool_spec
from tests.contract.harness import REPO, UV, running, server_env

pytestmark = pytest.mark.anyio
SERVER = "obsidian-mcp"
HOME_WORD = "quokkaberry"  # in the home vault only


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A second vault whose notes share names with the sample vault's."""
    root = tmp_path / "home"
    (root / "Projects").mkdir(parents=True)
    (root / "Projects" / "Alpha.md").write_text(f"# Home Alpha\n\n{HOME_WORD} garden plans for alpha\n")
    (root / "Inbox.md").write_text(f"# Inbox\n\n{HOME_WORD} errands, see [[Projects/Alpha]]\n")
    return root


def two_vaults(work: Path, home: Path, *flags: str) -> list[str]:
    return [
        "obsidian-mcp",
        "--vault",
        f"work={work}",
        "--vault",
        f"home={home}",
        "--index-dir",
        str(work.parent / "index"),
        *flags,
    ]


def valid_output(tool: str, payload: dict[str, object]) -> None:
    schema = dict(tool_spec(SERVER, tool)["outputSchema"])
    schema.setdefault("$defs", {}).update(spec(SERVER).get("$defs", {}))
    jsonschema.validate(payload, schema)


async def test_one_server_serves_two_vaults(vault: Path, home: Path) -> None:
    async with running(two_vaults(vault, home)) as session:
        listed = (await session.call("list_vaults")).payload
        valid_output("list_vaults", listed)
        assert [(v["name"], v["default"]) for v in listed["vaults"]] == [("work", True), ("home", False)]

        read = (await session.call("read_note", {"path": "Projects/Alpha", "vault": "home"})).payload
        assert HOME_WORD in read["content"]
        default = (await session.call("read_note", {"path": "Projects/Alpha"})).payload
        assert HOME_WORD not in json.dumps(default)

        backlinks = (await session.call("get_backlinks", {"path": "Projects/Alpha", "vault": "home"})).payload
        assert [link["path"] for link in backlinks["backlinks"]] == ["Inbox.md"]

        everywhere = (await session.call("search_notes", {"query": "alpha", "vault": "*", "mode": "keyword"})).payload
        valid_output("search_notes", everywhere)
        assert {hit["vault"] for hit in everywhere["results"]} == {"work", "home"}
        scores = [hit["score"] for hit in everywhere["results"]]
        assert scores == sorted(scores, reverse=True)
        only_home = (await session.call("search_notes", {"query": HOME_WORD, "vault": "*"})).payload
        assert only_home["results"] and {hit["vault"] for hit in only_home["results"]} == {"home"}
        one = (await session.call("search_notes", {"query": "alpha", "mode": "keyword"})).payload
        valid_output("search_notes", one)
        assert one["results"] and all("vault" not in hit for hit in one["results"])

        unknown = await session.call("list_notes", {"vault": "office"})
        assert_error(
            session, unknown, "not_found", server=SERVER, tool="list_notes", resource="vault", vaults=["work", "home"]
        )
        star = await session.call("read_note", {"path": "Inbox", "vault": "*"})
        assert_error(session, star, "parse_error", server=SERVER, tool="read_note", field="vault")


async def test_resources_and_completion_of_a_named_vault(vault: Path, home: Path) -> None:
    async with running(two_vaults(vault, home)) as session:
        templates = (await session.client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["obsidian://note/{path}", "obsidian://{vault}/note/{path}"]
        result = await session.client.read_resource("obsidian://home/note/Projects/Alpha.md")
        assert HOME_WORD in getattr(result.contents[0], "text", "")
        default = await session.client.read_resource("obsidian://note/Projects/Alpha.md")
        assert HOME_WORD not in getattr(default.contents[0], "text", "")
        with pytest.raises(McpProtocolError) as raised:
            await session.client.read_resource("obsidian://office/note/Inbox.md")
        assert_protocol_error(session, raised.value, -32002, "not_found", server=SERVER, resource="vault")
        template = ResourceTemplateReference(uri="obsidian://{vault}/note/{path}")
        names = await session.client.complete(template, {"name": "vault", "value": "h"})
        assert names.completion.values == ["home"]
        paths = await session.client.complete(template, {"name": "path", "value": "alpha"}, {"vault": "home"})
        assert paths.completion.values == ["Projects/Alpha.md"]


# -- configurations refused --------------------------------------------------------------------------


def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = server_env(env)
    environ.pop("OBSIDIAN_VAULT_PATH", None)
    return subprocess.run(
        [UV, "run", "--quiet", "--locked", "obsidian-mcp", *args],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        input="",  # stdin closed at once: a server that starts ends cleanly
    )


@pytest.mark.transport_independent(reason="the server exits before choosing a transport")
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--vault", "note={a}"], "reserved"),
        (["--vault", "x={a}", "--vault", "x={b}"], "two vaults are named 'x'"),
        (["--vault", "x={a}", "--vault", "y={a}/inner"], "overlap"),
        (["--vault", "x={a}", "--default-vault", "y"], "--default-vault 'y' is not one of the vaults: x"),
        (["--vault", "x={a}", "--vault", "y={b}", "--index-dir", "{b}/index"], "outside the vault 'y'"),
        (["--vault", "x={a}", "--exclude", "x:a/**/b/[z-a]"], "vault 'x'"),
    ],
)
def test_a_bad_configuration_exits_2_saying_what_to_change(tmp_path: Path, args: list[str], says: str) -> None:
    (tmp_path / "a" / "inner").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    proc = start([arg.format(a=tmp_path / "a", b=tmp_path / "b") for arg in args])
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    [line] = proc.stderr.strip().splitlines()
    record = json.loads(line)
    assert record["level"] == "CRITICAL" and says in record["message"], record


@pytest.mark.transport_independent(reason="starts the server with subprocess over stdio")
def test_the_vaults_come_from_the_environment_too(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    entries = os.pathsep.join(f"{name}={tmp_path / name}" for name in ("a", "b"))
    proc = start([], {"OBSIDIAN_MCP_VAULTS": entries, "OBSIDIAN_MCP_DEFAULT_VAULT": "b"})
    assert proc.returncode == 0, proc.stderr
    wrong = start([], {"OBSIDIAN_MCP_VAULTS": entries, "OBSIDIAN_MCP_DEFAULT_VAULT": "c"})
    assert wrong.returncode == 2 and "not one of the vaults: a, b" in wrong.stderr
