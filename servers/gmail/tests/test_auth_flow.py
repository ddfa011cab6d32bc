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


def run_auth(tmp_path: Path, emulator: Emulator, *flags: str) -> tuple[int, str, str, Path]:
    token = tmp_path / "cfg" / "token.json"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {
        "GMAIL_MCP_CREDENTIALS_FILE": str(client_file(tmp_path, emulator)),
        "GMAIL_MCP_TOKEN_FILE": str(token),
        # The stand-in speaks http on loopback; Google's real endpoints are https.
        "OAUTHLIB_INSECURE_TRANSPORT": "1",
    }
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
    with urllib.request.urlopen(url, timeout=20) as response:  # the "browser": follows the redirect home
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
    assert stored["scopes"] == ["https://www.googleapis.com/auth/gmail.modify"]
    assert stored["token"] not in output and stored["refresh_token"] not in output


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
