"""The CLI (one JSON line, then serve until SIGTERM / stdin EOF) and raw batch framing."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import urllib.request
from typing import Any

from gmail_emulator import Emulator


def _start_cli(*args: str) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gmail_emulator", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, json.loads(line)


def _profile(base_url: str, token: str) -> dict[str, Any]:
    req = urllib.request.Request(base_url + "gmail/v1/users/me/profile", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        result: dict[str, Any] = json.loads(resp.read())
        return result


def test_cli_prints_one_line_and_stops_on_stdin_close() -> None:
    proc, info = _start_cli("--latency", "0")
    try:
        assert info["base_url"].startswith("http://127.0.0.1:") and info["base_url"].endswith("/")
        assert info["token"]["token_uri"] == info["base_url"] + "token"
        assert _profile(info["base_url"], info["token"]["token"])["messagesTotal"] == 26
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=5) == 0
        assert proc.stdout is not None and proc.stdout.read() == b""
        assert proc.stderr is not None and proc.stderr.read() == b""
    finally:
        proc.kill()


def test_cli_stops_on_sigterm() -> None:
    proc, info = _start_cli("--no-seed")
    try:
        assert _profile(info["base_url"], info["token"]["token"])["messagesTotal"] == 0
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
    finally:
        proc.kill()


def test_raw_batch_framing_on_api_specific_path(emu: Emulator) -> None:
    token = emu.issue_token()["token"]
    mid = emu.seeded["status"]
    body = (
        "--XYZ\r\nContent-Type: application/http\r\nContent-ID: <abc + 1>\r\n\r\n"
        f"GET /gmail/v1/users/me/messages/{mid}?format=minimal HTTP/1.1\r\n\r\n"
        "--XYZ\r\nContent-Type: application/http\r\nContent-ID: <abc + 2>\r\n\r\n"
        "POST /gmail/v1/users/me/labels HTTP/1.1\r\nContent-Type: application/json\r\n"
        'Authorization: Bearer wrong\r\n\r\n{"name": "X"}\r\n'
        "--XYZ--\r\n"
    ).encode()
    conn = http.client.HTTPConnection("127.0.0.1", emu.port, timeout=5)
    conn.request(
        "POST",
        "/batch/gmail/v1",
        body=body,
        headers={"Content-Type": 'multipart/mixed; boundary="XYZ"', "Authorization": f"Bearer {token}"},
    )
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    assert resp.status == 200
    boundary = resp.getheader("Content-Type", "").split("boundary=")[1]
    parts = [p for p in text.split("--" + boundary) if p.strip() not in ("", "--")]
    assert len(parts) == 2
    assert "Content-ID: <response-abc + 1>" in parts[0] and "HTTP/1.1 200 OK\r\n" in parts[0]
    assert json.loads(parts[0].split("\r\n\r\n", 2)[2])["id"] == mid
    assert "Content-ID: <response-abc + 2>" in parts[1] and "HTTP/1.1 401 Unauthorized\r\n" in parts[1]
    assert emu.mailbox.label_id("X") is None  # the part's own (bad) Authorization won
    assert [(r.route, r.in_batch) for r in emu.requests] == [
        ("messages.get", True),
        ("labels.create", True),
        ("batch", False),
    ]
