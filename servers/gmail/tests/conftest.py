"""Fixtures for the write-side tests: a fresh seeded emulator and a real GmailClient pointed at it.

(pytest runs with --import-mode=importlib, so test modules cannot import from here: shared
helpers are fixtures.)"""

from __future__ import annotations

import email
import email.policy
import json
import os
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from gmail_emulator import Emulator
from gmail_mcp.api.client import ClientSettings, GmailClient
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.config import Settings
from gmail_mcp.delivery import Delivery
from gmail_mcp.guard.gate import ConfirmMode, Gate
from gmail_mcp.guard.known import AccountAddress, KnownRecipients, Trusted
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.sendas import SendAs
from gmail_mcp.server import build_server

MODIFY = "https://www.googleapis.com/auth/gmail.modify"


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as e:
        yield e
    assert e.internal_errors == []


@pytest.fixture
def make_client(emu: Emulator, tmp_path: Path) -> Callable[..., GmailClient]:
    """`make_client(timeout=5.0, scopes=(MODIFY,), backoff=0.01)` → a GmailClient for the emulator."""

    def make(timeout: float = 5.0, scopes: tuple[str, ...] = (MODIFY,), backoff: float = 0.01) -> GmailClient:
        token_file = tmp_path / f"token-{len(list(tmp_path.glob('token-*')))}.json"
        token_file.write_text(json.dumps(emu.issue_token(scopes)))
        os.chmod(token_file, 0o600)
        return GmailClient(
            ClientSettings(
                token_file=token_file,
                api_endpoint=emu.base_url,
                timeout_seconds=timeout,
                backoff_base_seconds=backoff,
            )
        )

    return make


@pytest.fixture
def client(make_client: Callable[..., GmailClient]) -> GmailClient:
    return make_client()


@pytest.fixture
def make_server(emu: Emulator, client: GmailClient, tmp_path: Path) -> Callable[..., ContractServer]:
    """`make_server(read_only=False, confirm=NEVER)` → the assembled server (as `gmail-mcp` builds it) for the
    emulator; its audit log is `tmp_path / "audit.jsonl"`. Tests of the send guard pass their own `confirm`."""

    def make(read_only: bool = False, confirm: ConfirmMode = ConfirmMode.NEVER, trusted: str = "") -> ContractServer:
        settings = Settings(
            credentials_file=tmp_path / "credentials.json",
            token_file=client.settings.token_file,
            api_endpoint=emu.base_url,
            download_dir=tmp_path / "downloads",
            read_only=read_only,
            timeout_seconds=5,
            backoff_base_seconds=0.01,
            confirm=confirm,
            trusted_recipients=trusted,
            audit_log=tmp_path / "audit.jsonl",
        )
        return build_server(settings)

    return make


@pytest.fixture
def mailbox(client: GmailClient) -> MailboxApi:
    return MailboxApi(client)


@pytest.fixture
def delivery(mailbox: MailboxApi) -> Delivery:
    return Delivery(mailbox)


@pytest.fixture
def stored() -> Callable[[Emulator, str], EmailMessage]:
    """`stored(emu, gmail_id)` → the message as the emulator stored it, parsed."""

    def parse(emu: Emulator, message_id: str) -> EmailMessage:
        message = email.message_from_bytes(emu.mailbox.get_raw(message_id), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        return message

    return parse


@pytest.fixture
def routes(emu: Emulator) -> Callable[[], list[str]]:
    """The routes the emulator has seen so far (batch parts included), in order."""
    return lambda: [record.route for record in emu.request_log()]


def copies(emu: Emulator, message_id: str) -> int:
    return len(emu.mailbox.sent_messages_with_header("Message-ID", message_id))


@pytest.fixture
def sent_copies(emu: Emulator) -> Callable[[str], int]:
    """`sent_copies(message_id)` → how many messages in Sent carry this Message-ID."""
    return lambda message_id: copies(emu, message_id)


@pytest.fixture
def ungated(mailbox: MailboxApi) -> Gate:
    """A gate that asks nothing (--confirm never), for tests about composing and delivering; the gate's own
    tests (test_send_guard*.py) build theirs."""
    return Gate(ConfirmMode.NEVER, KnownRecipients(mailbox, SendAs(mailbox), Trusted()), AccountAddress(mailbox))
