"""The send guard from outside (interface.md §6), over stdio and over HTTP: a real client that declares
elicitation (or not) answers as the person; the emulator shows what went out; the audit log says why.

Each error path of the guard is checked against specs/contracts (the errorSchema, and the form the
contract's `confirmation` names), with nothing sent or changed.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from gmail_emulator import Emulator

from tests.contract.checks import assert_error, tool_spec
from tests.contract.harness import running

pytestmark = pytest.mark.anyio
SERVER = "gmail-mcp"
STRANGER = "exfil@attacker.test"  # nobody sends to it here but the one test whose person says yes (to YES)
YES = "yes@attacker.test"  # the emulator lives for the module: once sent to, an address is known
SETTINGS = "https://www.googleapis.com/auth/gmail.settings.basic"
MODIFY = "https://www.googleapis.com/auth/gmail.modify"


class Person:
    """Answers every elicitation with `action` (and `value` for the form's one boolean); keeps the questions."""

    def __init__(self, action: str, value: bool = True) -> None:
        self.action, self.value = action, value
        self.questions: list[types.ElicitRequestFormParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.questions.append(params)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
        key = next(iter(params.requested_schema["properties"]))
        return types.ElicitResult(action="accept", content={key: self.value})


@pytest.fixture
def guarded_env(gmail_env: dict[str, str]) -> dict[str, str]:
    """The default guard (new-recipients), which the suite's gmail_env switches off."""
    return {**gmail_env, "GMAIL_MCP_CONFIRM": "new-recipients"}


def audit(env: dict[str, str]) -> list[dict[str, Any]]:
    path = Path(env["GMAIL_MCP_AUDIT_LOG"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    return [json.loads(line) for line in path.read_text().splitlines()]


def sent_to(emulator: Emulator, address: str, subject: str) -> list[str]:
    return emulator.mailbox.search(f'in:sent to:{address} subject:"{subject}"')


def assert_form_of_contract(person: Person, tool: str) -> None:
    form = tool_spec(SERVER, tool)["confirmation"]["elicitation"]["requestedSchema"]
    [question] = person.questions
    schema = question.requested_schema
    assert schema["type"] == form["type"] and schema["required"] == form["required"]
    assert {k: v["type"] for k, v in schema["properties"].items()} == {
        k: v["type"] for k, v in form["properties"].items()
    }


@pytest.mark.parametrize("action,value", [("decline", True), ("cancel", True), ("accept", False)])
async def test_a_no_sends_nothing(action: str, value: bool, guarded_env: dict[str, str], emulator: Emulator) -> None:
    person = Person(action, value)
    subject = f"guard {action} {value}"
    async with running([SERVER], guarded_env, elicitation=person) as session:
        answer = await session.call("send_email", {"to": STRANGER, "subject": subject, "body": "the numbers"})
        assert_error(session, answer, "permission_denied", server=SERVER, tool="send_email", reason="declined")
    assert_form_of_contract(person, "send_email")
    assert STRANGER in person.questions[0].message and subject in person.questions[0].message
    assert sent_to(emulator, STRANGER, subject) == []
    assert emulator.mailbox.search(f'in:drafts subject:"{subject}"') == []
    [line] = audit(guarded_env)
    assert (line["outcome"], line["confirmation"], line["recipients"]) == ("declined", "declined", [STRANGER])


async def test_a_yes_sends_once_and_a_known_recipient_needs_none(
    guarded_env: dict[str, str], emulator: Emulator
) -> None:
    person = Person("accept", True)
    async with running([SERVER], guarded_env, elicitation=person) as session:
        new = await session.call("send_email", {"to": YES, "subject": "guard yes", "body": "x"})
        assert new.error is None, new.payload
        known = await session.call("send_email", {"to": "bob@example.com", "subject": "guard known", "body": "x"})
        assert known.error is None, known.payload
    assert len(person.questions) == 1  # the known correspondent was not asked about
    assert len(sent_to(emulator, YES, "guard yes")) == 1
    assert [line["confirmation"] for line in audit(guarded_env)] == ["accepted", "known"]


async def test_without_elicitation_the_mail_waits_as_a_draft(guarded_env: dict[str, str], emulator: Emulator) -> None:
    async with running([SERVER], guarded_env) as session:
        answer = await session.call(
            "forward_email", {"message_id": emulator.seeded["invoice_pdf"], "to": STRANGER, "body": "as asked"}
        )
        details = assert_error(
            session, answer, "permission_denied", server=SERVER, tool="forward_email", reason="confirmation_required"
        )
        assert details["new_recipients"] == [STRANGER] and details["draft_id"]
        assert "draft" in answer.payload["message"] and "Gmail" in answer.payload["message"]
        drafts = await session.call("list_drafts", {})
        assert details["draft_id"] in [d["draft_id"] for d in drafts.payload["drafts"]]
    assert emulator.mailbox.search(f"in:sent to:{STRANGER}") == []
    [line] = audit(guarded_env)
    assert (line["outcome"], line["confirmation"]) == ("confirmation_required", "unavailable")
    assert details["draft_id"] in line["ids"]


async def test_no_argument_answers_for_the_person(guarded_env: dict[str, str], emulator: Emulator) -> None:
    async with running([SERVER], guarded_env) as session:
        for extra in ({"send": True}, {"confirmation": "accepted"}):
            answer = await session.call("send_email", {"to": STRANGER, "subject": "forged", "body": "x", **extra})
            assert_error(session, answer, "parse_error", server=SERVER, tool="send_email", reason="unexpected_argument")
    assert emulator.mailbox.search('subject:"forged"') == []


async def test_filter_create_is_asked_and_a_no_creates_nothing(
    guarded_env: dict[str, str], emulator: Emulator, tmp_path: Path
) -> None:
    token = Path(guarded_env["GMAIL_MCP_TOKEN_FILE"])
    token.write_text(json.dumps(emulator.issue_token((MODIFY, SETTINGS))))
    os.chmod(token, 0o600)
    before = len(emulator.mailbox.filter_resources())
    person = Person("decline")
    arguments = {"action": "create", "criteria": {"from": "guard@example.com"}, "archive": True}
    async with running([SERVER], guarded_env, elicitation=person) as session:
        answer = await session.call("manage_filter", arguments)
        assert_error(session, answer, "permission_denied", server=SERVER, tool="manage_filter", reason="declined")
    async with running([SERVER], guarded_env) as session:
        answer = await session.call("manage_filter", arguments)
        assert_error(
            session, answer, "permission_denied", server=SERVER, tool="manage_filter", reason="confirmation_required"
        )
    assert_form_of_contract(person, "manage_filter")
    assert "guard@example.com" in person.questions[0].message
    assert len(emulator.mailbox.filter_resources()) == before


@pytest.mark.parametrize("action,sent", [("accept", True), ("decline", False)])
async def test_a_2026_session_asks_through_input_required(
    action: str, sent: bool, guarded_env: dict[str, str], emulator: Emulator
) -> None:
    """Today's Claude Code speaks 2026-07-28 (server/discover, no handshake), where no request can reach the
    client during a call: the question rides InputRequiredResult and the answer the client's retry."""
    person = Person(action)
    subject = f"guard 2026 {action}"
    address = f"{action}-2026@attacker.test"
    async with running([SERVER], guarded_env, elicitation=person, protocol="2026-07-28") as session:
        answer = await session.call("send_email", {"to": address, "subject": subject, "body": "x"})
        if not sent:
            assert_error(session, answer, "permission_denied", server=SERVER, tool="send_email", reason="declined")
    assert_form_of_contract(person, "send_email")
    assert len(sent_to(emulator, address, subject)) == int(sent)
    [line] = audit(guarded_env)
    assert line["confirmation"] == ("accepted" if sent else "declined")
