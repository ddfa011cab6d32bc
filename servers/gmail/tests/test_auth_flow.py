"""`gmail-mcp auth` end to end against a loopback stand-in for Google's authorisation and token endpoints."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from gmail_emulator import Emulator

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator() as emu:
        yield emu


def client_file(tmp_path: Path, emulator: Emulator) -> Path:
    path = tmp_path / "credentials.json"
    path.write_text(
        json.dumps(
            {
                "installed": {
                    "client_id": "test-client.apps.googleusercontent.com",
                    "client_secret": "test-secret",
                    "auth_uri": emulator.auth_uri,
                    "token_uri": emulator.token_uri,
                    "redirect_uris": ["http://localhost"],
                }
            }
        )
    )
    return path


def auth_env(tmp_path: Path, emulator: Emulator) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {
        "GMAIL_MCP_CREDENTIALS_FILE": str(client_file(tmp_path, emulator)),
        "GMAIL_MCP_TOKEN_FILE": str(tmp_path / "cfg" / "token.json"),
        "GMAIL_MCP_TOKEN_DIR": str(tmp_path / "cfg" / "tokens"),
        "GMAIL_MCP_API_ENDPOINT": emulator.base_url,  # the address is asked of the emulator after the flow
        # The stand-in speaks http on loopback; Google's real endpoints are https.
        "OAUTHLIB_INSECURE_TRANSPORT": "1",
    }


def run_auth(tmp_path: Path, emulator: Emulator, *flags: str, mailbox: str = "") -> tuple[int, str, str, Path]:
    """`gmail-mcp auth FLAGS`, its URL opened by a "browser" signed in to the emulator's `mailbox` (login_hint)."""
    token = tmp_path / "cfg" / "token.json"
    if "--account" in flags:
        token = tmp_path / "cfg" / "tokens" / f"{flags[flags.index('--account') + 1]}.json"
    env = auth_env(tmp_path, emulator)
    proc = subprocess.Popen(
        [os.environ.get("UV", "uv"), "run", "--quiet", "gmail-mcp", "auth", "--no-browser", *flags],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = ""
    for line in proc.stdout:
        if line.startswith("http"):
            url = line.strip()
            break
    assert url.startswith(emulator.auth_uri), url
    opened = url + (f"&login_hint={mailbox}" if mailbox else "")
    with urllib.request.urlopen(opened, timeout=20) as response:  # the "browser": follows the redirect home
        assert b"authorised" in response.read()
    out, err = proc.communicate(timeout=60)
    return proc.returncode, url, out + err, token


def test_auth_stores_a_private_token_with_the_modify_scope(tmp_path: Path, emulator: Emulator) -> None:
    code, url, output, token = run_auth(tmp_path, emulator)
    assert code == 0, output
    assert "gmail.modify" in url and "mail.google.com" not in url
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert stat.S_IMODE(token.parent.stat().st_mode) == 0o700
    stored = json.loads(token.read_text())
    assert stored["refresh_token"] and stored["token_uri"] == emulator.token_uri
    assert stored["scopes"] == [
        "https://www.googleapis.com/auth/gmail.modify",
        "https://www.googleapis.com/auth/gmail.settings.basic",  # filters need it; gmail.modify is not enough
    ]
    assert stored["email"] == "me@example.com"  # asked of Gmail (users.getProfile) with the new token
    assert stored["token"] not in output and stored["refresh_token"] not in output
    assert "prompt=select_account+consent" in url  # a second Google account can be picked, a refresh token given


def test_auth_of_another_account_goes_to_its_own_file(tmp_path: Path, emulator: Emulator) -> None:
    emulator.add_mailbox("work", "work@example.com")
    code, _, output, token = run_auth(tmp_path, emulator, "--account", "work", mailbox="work")
    assert code == 0, output
    assert token == tmp_path / "cfg" / "tokens" / "work.json" and token.exists()
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert stat.S_IMODE(token.parent.stat().st_mode) == 0o700
    assert json.loads(token.read_text())["email"] == "work@example.com"
    assert "work@example.com" in output and "'work'" in output
    assert not (tmp_path / "cfg" / "token.json").exists()  # the default account is untouched
    listed = subprocess.run(
        [os.environ.get("UV", "uv"), "run", "--quiet", "gmail-mcp", "accounts"],
        cwd=REPO,
        env=auth_env(tmp_path, emulator),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert "* work\twork@example.com\tread-write" in listed.stdout  # the only account is the default one


def test_an_account_name_that_is_no_file_name_is_refused(tmp_path: Path, emulator: Emulator) -> None:
    proc = subprocess.run(
        [os.environ.get("UV", "uv"), "run", "--quiet", "gmail-mcp", "auth", "--no-browser", "--account", "../x"],
        cwd=REPO,
        env=auth_env(tmp_path, emulator),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and "account name" in proc.stderr
    assert [path.name for path in tmp_path.glob("**/*.json")] == ["credentials.json"]  # no token written


def test_read_only_auth_asks_for_gmail_readonly(tmp_path: Path, emulator: Emulator) -> None:
    code, url, output, token = run_auth(tmp_path, emulator, "--read-only")
    assert code == 0, output
    assert re.search(r"scope=[^&]*gmail\.readonly", url) and "gmail.modify" not in url
    assert json.loads(token.read_text())["scopes"] == ["https://www.googleapis.com/auth/gmail.readonly"]


def test_auth_without_a_client_file_says_what_to_do(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {
        "GMAIL_MCP_CREDENTIALS_FILE": str(tmp_path / "absent.json"),
        "GMAIL_MCP_TOKEN_FILE": str(tmp_path / "t.json"),
    }
    proc = subprocess.run(
        [os.environ.get("UV", "uv"), "run", "--quiet", "gmail-mcp", "auth", "--no-browser"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "GMAIL_MCP_CREDENTIALS_FILE" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "t.json").exists()
