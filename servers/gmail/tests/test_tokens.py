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


def test_the_recorded_address_survives_a_refresh(tmp_path: Path, emulator: Emulator) -> None:
    path = tmp_path / "token.json"
    write_token(path, emulator.issue_token() | {"expiry": "2001-01-01T00:00:00.000000Z", "email": "me@example.com"})
    assert list_labels(client_for(path, emulator))["labels"]
    saved = json.loads(path.read_text())
    assert saved["email"] == "me@example.com" and saved["expiry"] != "2001-01-01T00:00:00.000000Z"


def test_the_default_token_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gmail_mcp.config import Settings

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("GMAIL_MCP_TOKEN_FILE", raising=False)
    monkeypatch.delenv("GMAIL_MCP_TOKEN_DIR", raising=False)
    config = tmp_path / ".config" / "gmail-mcp"
    assert Settings.from_env().token_file == config / "tokens" / "default.json"
    assert Settings.from_env().token_dir == config / "tokens"
    (config / "token.json").parent.mkdir(parents=True)
    (config / "token.json").write_text("{}")  # version 1's token, alone: still the default account's
    assert Settings.from_env().token_file == config / "token.json"
    (config / "tokens").mkdir()
    (config / "tokens" / "default.json").write_text("{}")  # authorised again since: that one
    assert Settings.from_env().token_file == config / "tokens" / "default.json"
    monkeypatch.setenv("GMAIL_MCP_TOKEN_FILE", str(tmp_path / "elsewhere.json"))
    assert Settings.from_env().token_file == tmp_path / "elsewhere.json"
    monkeypatch.setenv("GMAIL_MCP_ACCOUNT", " work ")
    assert Settings.from_env().account == "work"


def test_the_token_folder_lists_the_accounts_files(tmp_path: Path) -> None:
    from gmail_mcp.api.token_folder import TokenFolder

    folder = TokenFolder(tmp_path / "token.json", tmp_path / "tokens")
    assert folder.names() == [] and folder.implicit([]) == "default"  # no folder yet: no account
    (tmp_path / "tokens").mkdir()
    for name in ("work.json", "Zed.json", ".work.json.1234.tmp", ".hidden.json", "bad name.json", "x.txt"):
        (tmp_path / "tokens" / name).write_text("{}")
    (tmp_path / "tokens" / "default.json").write_text("{}")  # shadowed: the default account's file is token.json
    assert folder.names() == ["work", "Zed"]
    (tmp_path / "token.json").write_text("{}")
    assert folder.names() == ["default", "work", "Zed"]
    assert folder.path_for("default") == tmp_path / "token.json"
    assert folder.path_for("work") == tmp_path / "tokens" / "work.json"
    for bad in ("../x", "a/b", "", ".hidden", "x y"):
        with pytest.raises(ValueError):
            folder.path_for(bad)
    assert folder.implicit(["work"]) == "work" and folder.implicit(["default", "work"]) == "default"
    assert TokenFolder(tmp_path / "token.json", None, chosen="work").implicit(["default"]) == "work"
