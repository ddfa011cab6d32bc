"""Schema-driven fuzzing of every tool of both real servers over stdio.

The default run is short; `make fuzz` sets FUZZ_EXAMPLES for a long one.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.contract.fuzzing import arguments, check_result
from tests.contract.harness import REPO
from tests.contract.raw import RawServer, tool_call

pytestmark = pytest.mark.stdio_only(reason="RawServer drives stdio directly (both transports serve the same tools)")

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=list(HealthCheck),
)


class Target:
    """A live server and what must never leak from it."""

    def __init__(
        self,
        server: RawServer,
        secrets: list[str],
        forbidden: list[str],
        stderr: Path,
        hints: dict[str, list[Any]] | None = None,
    ) -> None:
        self.server, self.secrets, self.forbidden, self.stderr = server, secrets, forbidden, stderr
        self.hints = hints or {}
        self.tools = {
            t["name"]: t for t in server.request({"jsonrpc": "2.0", "id": 0, "method": "tools/list"})["result"]["tools"]
        }
        self.next_id = 1
        self.outcomes: Counter[str] = Counter()
        self.unblamed: list[tuple[str, dict[str, Any], str]] = []  # parse_error without `field`: (tool, args, message)

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        reply = self.server.request(tool_call(self.next_id, name, args), timeout=60)
        payload = check_result(reply, self.secrets, self.forbidden)
        self.outcomes[str(payload.get("error", "success"))] += 1
        if payload.get("error") == "parse_error" and "field" not in payload["details"]:
            self.unblamed.append((name, args, str(payload["message"])[:200]))
        return payload

    def finish(self) -> None:
        assert self.server.proc.poll() is None, "the server died"
        assert self.server.close() == 0
        for line in self.stderr.read_text().splitlines():
            record = json.loads(line)
            for secret in self.secrets:
                assert secret not in line
            assert "request_id" in record


@pytest.fixture(scope="module")
def obsidian(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    root = tmp_path_factory.mktemp("fuzz-obsidian")
    vault = root / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault)
    (root / "outside.md").write_text("outside the vault\n")
    stderr = root / "stderr.log"
    server = RawServer(
        "obsidian_mcp", ["--vault", str(vault)], {"OBSIDIAN_MCP_INDEX_DIR": str(root / "index")}, stderr_path=stderr
    )
    server.initialize()
    notes = ["Home", "Projects/Alpha", "Inbox", "Resources/Long Essay", "Daily/2026-11-20", "New/Fuzzed note"]
    hints = {
        "path": notes,
        "new_path": notes,
        "folder": ["", "Projects", "Daily"],
        "heading": ["Tasks", "Milestones"],
        "query": ["garden", "alpha launch", "café"],
        "content": ["hello\n", "- [ ] task\n"],
        "date": ["2026-11-20", "2026-11-22"],
    }
    target = Target(server, [], [str(root), "/etc/passwd"], stderr, hints)
    yield target
    target.finish()


@pytest.fixture(scope="module")
def gmail(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    root = tmp_path_factory.mktemp("fuzz-gmail")
    with Emulator() as emulator:
        token = emulator.issue_token()
        (root / "token.json").write_text(json.dumps(token))
        os.chmod(root / "token.json", 0o600)
        stderr = root / "stderr.log"
        server = RawServer(
            "gmail_mcp",
            [],
            {
                "GMAIL_MCP_TOKEN_FILE": str(root / "token.json"),
                "GMAIL_MCP_API_ENDPOINT": emulator.base_url,
                "GMAIL_MCP_DOWNLOAD_DIR": str(root / "downloads"),
                "GMAIL_MCP_BACKOFF_SECONDS": "0.01",
            },
            stderr_path=stderr,
        )
        server.initialize()
        ids = list(emulator.seeded.values())
        hints = {
            "message_id": ids,
            "message_ids": [ids[:3], ids[3:4]],
            "query": ["is:unread", "from:bob", "has:attachment"],
            "to": ["bob@example.com", ["a@example.com", "b@example.com"]],
            "add_labels": [["Projects"], ["STARRED"]],
            "remove_labels": [["UNREAD"], ["INBOX"]],
            "subject": ["Hi", "Grüße"],
            "body": ["hello"],
        }
        secrets = [token["token"], token["refresh_token"], token["client_secret"]]
        target = Target(server, secrets, [], stderr, hints)
        yield target
        target.finish()


@pytest.fixture(scope="module")
def gmail_without_token(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    root = tmp_path_factory.mktemp("fuzz-gmail-none")
    stderr = root / "stderr.log"
    server = RawServer(
        "gmail_mcp",
        [],
        {"GMAIL_MCP_TOKEN_FILE": str(root / "absent.json"), "GMAIL_MCP_API_ENDPOINT": "http://127.0.0.1:9/"},
        stderr_path=stderr,
    )
    server.initialize()
    target = Target(server, [], [], stderr)
    yield target
    target.finish()


def fuzz(target: Target) -> None:
    names = sorted(target.tools)

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from([*names, "no_such_tool"]))
        schema = target.tools[name]["inputSchema"] if name in target.tools else {"type": "object"}
        target.call(name, data.draw(arguments(schema, target.hints)))

    run()


def test_fuzz_obsidian(obsidian: Target) -> None:
    fuzz(obsidian)
    assert obsidian.outcomes["success"] and obsidian.outcomes["parse_error"], obsidian.outcomes


def test_fuzz_gmail(gmail: Target) -> None:
    fuzz(gmail)
    assert gmail.outcomes["success"] and gmail.outcomes["parse_error"], gmail.outcomes
    # Every parse_error names the argument it blames, a Gmail 400 included (issue 26).
    assert not gmail.unblamed, gmail.unblamed[:5]


def test_fuzz_gmail_without_a_token_is_always_auth_required_or_parse_error(gmail_without_token: Target) -> None:
    fuzz(gmail_without_token)
    outcomes = gmail_without_token.outcomes
    assert outcomes["auth_required"], outcomes
    # An unknown tool is not_found; arguments are validated before the token is needed.
    assert set(outcomes) <= {"auth_required", "parse_error", "not_found"}, outcomes
