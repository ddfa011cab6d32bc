"""The one-shot transport: exactly one attempt per request, and "never sent" told apart from "sent".

httplib2 re-sends a request whose response was lost (`RemoteDisconnected` on the first try),
whatever `httplib2.RETRIES` says. The emulator's `drop_connection` resets the socket (RST),
which httplib2 happens not to retry, so this file uses its own tiny server that reads the
request and closes the connection politely (FIN) without answering: the case httplib2 repeats.
"""

from __future__ import annotations

import http.client
import http.server
import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httplib2
import pytest
from gmail_emulator import Emulator
from gmail_mcp.api.classify import Verdict, judge
from gmail_mcp.api.client import ClientSettings, GmailClient
from gmail_mcp.api.errors import RequestNotSent
from gmail_mcp.api.transport import OneShotHttp


class SilentServer:
    """Accepts connections, reads one HTTP request from each, counts it, and closes without answering."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.requests: list[bytes] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                while len(body) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    body += chunk
                if head:
                    self.requests.append(head.split(b"\r\n", 1)[0])
                conn.shutdown(socket.SHUT_RDWR)  # a polite close: the client sees RemoteDisconnected

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_stock_httplib2_resends_a_post_whose_answer_was_lost(silent: SilentServer) -> None:
    # The pitfall itself, so that the test below proves something.
    with pytest.raises(http.client.HTTPException):
        httplib2.Http(timeout=5).request(silent.url + "send", "POST", body=b"{}")
    assert len(silent.requests) == 2


def test_one_shot_http_sends_exactly_once(silent: SilentServer) -> None:
    with pytest.raises(http.client.RemoteDisconnected) as caught:
        OneShotHttp(timeout=5).request(silent.url + "send", "POST", body=b"{}")
    assert len(silent.requests) == 1
    # it went out: whether it took effect is unknown
    assert judge(caught.value, "message", "", {}).verdict is Verdict.AMBIGUOUS


def test_one_shot_http_reports_a_refused_connection_as_not_sent() -> None:
    with pytest.raises(RequestNotSent) as caught:
        OneShotHttp(timeout=5).request(f"http://127.0.0.1:{free_port()}/send", "POST", body=b"{}")
    assert judge(caught.value, "message", "", {}).verdict is Verdict.NOT_SENT


class KeepAliveHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keeps connections open between requests

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        return


class CountingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    connections = 0

    def process_request(self, request: Any, client_address: Any) -> None:
        self.connections += 1
        super().process_request(request, client_address)


def test_one_shot_http_opens_a_fresh_connection_per_request() -> None:
    server = CountingServer(("127.0.0.1", 0), KeepAliveHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/send"
    try:
        stock = httplib2.Http(timeout=5)
        for _ in range(3):
            assert stock.request(url, "POST", body=b"{}")[0].status == 200
        assert server.connections == 1  # httplib2 reuses a kept-alive connection...
        one_shot = OneShotHttp(timeout=5)
        for _ in range(3):
            assert one_shot.request(url, "POST", body=b"{}")[0].status == 200
        assert server.connections == 4  # ...the one-shot transport never does: a stale one can't fail it
    finally:
        server.shutdown()
        server.server_close()


def test_the_client_send_path_makes_one_attempt_where_the_read_path_makes_two(
    silent: SilentServer, emu: Emulator, tmp_path: Path
) -> None:
    token_file = tmp_path / "token.json"
    token_file.write_text(json.dumps(emu.issue_token()))
    os.chmod(token_file, 0o600)
    client = GmailClient(ClientSettings(token_file=token_file, api_endpoint=silent.url, max_attempts=1))

    def send(users: object) -> object:
        return users.messages().send(userId="me", body={"raw": "eA"})  # type: ignore[attr-defined]

    with pytest.raises(http.client.RemoteDisconnected):
        client.execute_once(send)
    assert len(silent.requests) == 1
    assert silent.requests[0].startswith(b"POST /gmail/v1/users/me/messages/send")

    silent.requests.clear()
    with pytest.raises(http.client.HTTPException):
        client.service().users().messages().send(userId="me", body={"raw": "eA"}).execute(num_retries=0)
    assert len(silent.requests) == 2  # why sends must never take the ordinary path
