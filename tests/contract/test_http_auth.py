"""HTTP: nothing without the bearer token, Host/Origin checked, loopback by default, a private token file."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.contract.harness import REPO, HttpServer, server_env

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.transport_independent(reason="starts its own HTTP servers; runs once"),
]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def obsidian_http(vault: Path, folder: Path, *args: str) -> HttpServer:
    args = ("--vault", str(vault), "--index-dir", str(folder / "index"), *args)
    return HttpServer.python("obsidian_mcp", list(args), folder)


@pytest.fixture
def server(vault: Path, tmp_path: Path) -> Iterator[HttpServer]:
    running = obsidian_http(vault, tmp_path)
    yield running
    assert running.stop() == 0
    running.assert_clean()


def tool_calls_logged(server: HttpServer) -> int:
    return sum(1 for record in server.records() if record["message"] == "tool call")


def other_servers_token(tmp_path: Path) -> str:
    """A valid token of the other server (gmail-mcp http-token with its own file)."""
    env = server_env({"GMAIL_MCP_HTTP_TOKEN_FILE": str(tmp_path / "gmail" / "http-token")})
    done = subprocess.run(
        [sys.executable, "-m", "gmail_mcp", "http-token"], env=env, cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


async def test_without_the_exact_token_every_request_is_401_and_runs_nothing(
    server: HttpServer, vault: Path, tmp_path: Path
) -> None:
    token = server.token
    basic = base64.b64encode(f"user:{token}".encode()).decode()
    refused: list[dict[str, str]] = [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Bearer {token[:20]}"},  # a prefix
        {"Authorization": f"Bearer {token[:-1]}"},  # one character short
        {"Authorization": f"Bearer {token}x"},  # one character more
        {"Authorization": f"Bearer {token} x"},  # something after a space
        {"Authorization": f"Bearer {token.swapcase()}"},
        {"Authorization": f"Bearer {other_servers_token(tmp_path)}"},
        {"Authorization": f"Basic {basic}"},
        {"Authorization": f"Token {token}"},
        {"Authorization": token},  # no scheme
        {"X-Api-Key": token},
    ]
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))
    call = {"name": "write_note", "arguments": {"path": "Pwned", "content": "x"}}
    write = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
    async with httpx2.AsyncClient(timeout=10) as http:
        # A live session, opened with the token: the refused requests below name it.
        bearer = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
        opened = await http.post(server.url, json=INITIALIZE, headers=bearer)
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-06-18"}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(server.url, json=initialized, headers={**bearer, **session})).status_code == 202
        listed = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "list_notes", "arguments": {}}}
        assert (await http.post(server.url, json=listed, headers={**bearer, **session})).status_code == 200
        assert tool_calls_logged(server) == 1
        for headers in refused:
            for body in (INITIALIZE, write):
                answer = await http.post(server.url, json=body, headers={**MCP_HEADERS, **session, **headers})
                assert answer.status_code == 401, (headers, answer.text)
                challenge = answer.headers["www-authenticate"]
                assert challenge.startswith('Bearer realm="obsidian-mcp"') and "resource_metadata" not in challenge
                assert token not in answer.text
        # Two Authorization headers, one of them right: refused too.
        both = [("Authorization", "Bearer x"), ("Authorization", f"Bearer {token}")]
        twice = httpx2.Headers([*MCP_HEADERS.items(), *session.items(), *both])
        assert (await http.post(server.url, json=write, headers=twice)).status_code == 401
        # Every path, not only /mcp: the OAuth discovery routes an OAuth-aware client may try included.
        for path in ("/", "/mcp/", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"):
            url = server.url.replace("/mcp", path)
            assert (await http.get(url)).status_code == 401, path
            assert (await http.get(url, headers={"Authorization": f"Bearer {token}"})).status_code != 401, path
    assert tool_calls_logged(server) == 1, "a refused request reached a tool"
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == before
    reasons = {r.get("reason") for r in server.records() if r["message"] == "http request refused"}
    assert {"no_authorization", "not_bearer", "wrong_token", "several_authorization_headers"} <= reasons


async def test_the_scheme_is_case_insensitive_and_the_token_is_not(server: HttpServer) -> None:
    # RFC 9110 §11.1: "bearer" is the Bearer scheme. The token compares exactly, in constant time.
    token = server.token
    async with httpx2.AsyncClient(timeout=10) as http:
        for scheme in ("bearer", "BEARER", "Bearer"):
            headers = {**MCP_HEADERS, "Authorization": f"{scheme} {token}"}
            assert (await http.post(server.url, json=INITIALIZE, headers=headers)).status_code == 200, scheme


async def test_host_and_origin_must_name_this_server(vault: Path, tmp_path: Path) -> None:
    server = obsidian_http(vault, tmp_path, "--allowed-host", "notes.example.com")
    try:
        bearer = {**MCP_HEADERS, "Authorization": f"Bearer {server.token}"}
        local = f"127.0.0.1:{server.port}"
        cases = [
            ({"Host": f"evil.example:{server.port}"}, 421),
            ({"Host": "notes.example.com.evil.example"}, 421),
            ({"Host": f"localhost:{server.port + 1}"}, 421),
            ({"Origin": "http://evil.example"}, 403),
            ({"Origin": f"http://{local}.evil.example"}, 403),
            ({"Host": local}, 200),
            ({"Host": f"localhost:{server.port}", "Origin": f"http://localhost:{server.port}"}, 200),
            ({"Host": "notes.example.com", "Origin": "https://notes.example.com"}, 200),  # --allowed-host
        ]
        async with httpx2.AsyncClient(timeout=10) as http:
            for headers, status in cases:
                answer = await http.post(server.url, json=INITIALIZE, headers={**bearer, **headers})
                assert answer.status_code == status, (headers, answer.status_code, answer.text)
        assert tool_calls_logged(server) == 0
    finally:
        assert server.stop() == 0
    server.assert_clean()


def listening_addresses(port: int) -> set[str]:
    """The local addresses with a socket in LISTEN on `port`, from the kernel's socket tables."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        with open(table, encoding="ascii") as lines:
            next(lines)
            for line in lines:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:  # 0A: TCP_LISTEN
                    found.add(address)
    return found


def test_by_default_only_loopback_listens(server: HttpServer) -> None:
    assert server.host == "127.0.0.1"
    assert listening_addresses(server.port) == {"0100007F"}  # 127.0.0.1, little-endian hex; not 0.0.0.0


def http_token(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = server_env({"OBSIDIAN_MCP_HTTP_TOKEN_FILE": str(tmp_path / "cfg" / "obsidian-mcp" / "http-token")})
    argv = [sys.executable, "-m", "obsidian_mcp", "http-token", *args]
    return subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=60, check=True)


def test_http_token_creates_a_private_file_prints_it_and_rotates_it(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "obsidian-mcp" / "http-token"
    first = http_token(tmp_path)
    token = first.stdout.strip()
    assert first.stdout == token + "\n" and len(token) >= 43  # 256 random bits, URL-safe base64
    assert path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700
    assert http_token(tmp_path).stdout.strip() == token  # stable until rotated
    rotated = http_token(tmp_path, "--rotate").stdout.strip()
    assert rotated != token and path.read_text().strip() == rotated
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["http-token"]  # no temp file left behind
    assert token not in first.stderr and rotated not in first.stderr


async def test_a_rotated_token_applies_at_once_to_a_running_server(vault: Path, tmp_path: Path) -> None:
    server = obsidian_http(vault, tmp_path)
    try:
        old = server.token
        env = server_env({"OBSIDIAN_MCP_HTTP_TOKEN_FILE": str(server.token_file)})
        argv = [sys.executable, "-m", "obsidian_mcp", "http-token", "--rotate"]
        new = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
        async with httpx2.AsyncClient(timeout=10) as http:
            for token, status in ((old, 401), (new.stdout.strip(), 200)):
                headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
                assert (await http.post(server.url, json=INITIALIZE, headers=headers)).status_code == status
        assert old not in server.stderr_path.read_text()
    finally:
        assert server.stop() == 0
    server.assert_clean()


@pytest.mark.parametrize("problem", ["open to others", "too short", "cannot be created"])
def test_without_a_usable_token_file_http_does_not_start(problem: str, vault: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "cfg" / "http-token"
    token_file.parent.mkdir(mode=0o700)
    if problem == "open to others":
        token_file.write_text("a" * 43 + "\n")
        token_file.chmod(0o644)
    elif problem == "too short":
        token_file.write_text("secret\n")
        token_file.chmod(0o600)
    else:
        token_file = tmp_path / "cfg" / "a-file" / "http-token"
        token_file.parent.write_text("a file where the folder should be")
    env = server_env({"OBSIDIAN_MCP_HTTP_TOKEN_FILE": str(token_file)})
    argv = [sys.executable, "-m", "obsidian_mcp", "--vault", str(vault), "--transport", "http", "--port", "0"]
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    records: list[dict[str, Any]] = [json.loads(line) for line in done.stderr.splitlines()]
    assert records[-1]["level"] == "CRITICAL" and "http token file" in records[-1]["message"]
    assert "secret" not in done.stderr
