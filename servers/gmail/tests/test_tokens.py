"""The token store and refresh path against the emulator's token endpoint, through the real google-auth."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator
from gmail_mcp.api.client import ClientSettings, GmailClient
from gmail_mcp.api.errors import AuthRequired


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator() as emu:
        yield emu


def write_token(path: Path, token: dict[str, Any], mode: int = 0o600) -> None:
    path.write_text(json.dumps(token))
    os.chmod(path, mode)


def client_for(path: Path, emulator: Emulator) -> GmailClient:
    return GmailClient(
        ClientSettings(token_file=path, api_endpoint=emulator.base_url, timeout_seconds=5, backoff_base_seconds=0.01)
    )


def list_labels(client: GmailClient) -> dict[str, Any]:
    return client.execute(lambda users: users.labels().list(userId="me"), "label")


def test_an_expired_token_is_refreshed_and_saved_back_privately(tmp_path: Path, emulator: Emulator) -> None:
    path = tmp_path / "token.json"
    token = emulator.issue_token() | {"expiry": "2001-01-01T00:00:00.000000Z"}
    write_token(path, token)
    assert list_labels(client_for(path, emulator))["labels"]
    saved = json.loads(path.read_text())
    assert saved["token"] != token["token"], "the refreshed access token must be persisted"
    assert saved["refresh_token"] == token["refresh_token"] and saved["token_uri"] == emulator.token_uri
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name != "token.json"], "no temp file left beside the token"


def test_a_401_refreshes_once_and_persists(tmp_path: Path, emulator: Emulator) -> None:
    path = tmp_path / "token.json"
    token = emulator.issue_token()
    write_token(path, token)
    emulator.expire_access_token(token["token"])
    assert list_labels(client_for(path, emulator))["labels"]
    assert json.loads(path.read_text())["token"] != token["token"]


def test_token_uri_from_the_file_is_honoured(tmp_path: Path, emulator: Emulator) -> None:
    # Regression guard: google-auth's from_authorized_user_info ignores token_uri and would call Google.
    path = tmp_path / "token.json"
    write_token(path, emulator.issue_token() | {"expiry": "2001-01-01T00:00:00.000000Z"})
    emulator.clear_requests()
    list_labels(client_for(path, emulator))
    assert any(r.route == "token" for r in emulator.request_log())


def test_a_revoked_refresh_token_is_auth_required_revoked(tmp_path: Path, emulator: Emulator) -> None:
    path = tmp_path / "token.json"
    token = emulator.issue_token() | {"expiry": "2001-01-01T00:00:00.000000Z"}
    write_token(path, token)
    emulator.revoke_refresh_token(token["refresh_token"])
    with pytest.raises(AuthRequired) as caught:
        list_labels(client_for(path, emulator))
    assert caught.value.reason == "revoked"


@pytest.mark.parametrize("content", ["{not json", "[]", "", '{"client_id": "x"}'])
def test_a_corrupt_token_file_is_auth_required(tmp_path: Path, emulator: Emulator, content: str) -> None:
    path = tmp_path / "token.json"
    path.write_text(content)
    os.chmod(path, 0o600)
    with pytest.raises(AuthRequired) as caught:
        list_labels(client_for(path, emulator))
    assert caught.value.reason == "no_token"


def test_a_world_readable_token_file_is_fixed_and_reported(
    tmp_path: Path, emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "token.json"
    write_token(path, emulator.issue_token(), mode=0o644)
    with caplog.at_level(logging.WARNING):
        assert list_labels(client_for(path, emulator))["labels"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert any("0600" in r.getMessage() for r in caplog.records)


def test_no_token_or_secret_reaches_the_log(
    tmp_path: Path, emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "token.json"
    token = emulator.issue_token() | {"expiry": "2001-01-01T00:00:00.000000Z"}
    write_token(path, token)
    with caplog.at_level(logging.DEBUG):
        list_labels(client_for(path, emulator))
    saved = json.loads(path.read_text())
    logged = "\n".join(r.getMessage() + str(r.__dict__) for r in caplog.records)
    for secret in (token["token"], saved["token"], token["refresh_token"], token["client_secret"]):
        assert secret not in logged
