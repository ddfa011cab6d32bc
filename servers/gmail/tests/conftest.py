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
from gmail_mcp.delivery import Delivery

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
def delivery(client: GmailClient) -> Delivery:
    return Delivery(client)


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
