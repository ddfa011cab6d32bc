"""HTTP transport: a quiet ThreadingHTTPServer that turns sockets into ``ApiRequest``s."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from .http_types import ApiRequest, ApiResponse, DropConnection

CONTROL_PREFIX = "/_emulator/"


class Backend(Protocol):
    def dispatch(self, req: ApiRequest) -> ApiResponse: ...

    def control(self, req: ApiRequest) -> ApiResponse: ...

    def current_latency(self) -> float: ...

    def record_internal_error(self, text: str) -> None: ...


class EmulatorHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False  # stop() must not wait for a handler sleeping in a delay fault

    def __init__(self, address: tuple[str, int], backend: Backend) -> None:
        self.backend = backend
        self._conn_lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._conn_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._conn_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_all_connections(self) -> None:
        with self._conn_lock:
            conns = list(self._connections)
            self._connections.clear()
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Never print to stdout/stderr; keep unexpected errors for inspection.
        text = traceback.format_exc()
        if "ConnectionResetError" in text or "BrokenPipeError" in text or "TimeoutError" in text:
            return
        self.backend.record_internal_error(text)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle on, the body waits for the client's
    # delayed ACK (~40 ms a request), which would swamp any latency a benchmark injects.
    disable_nagle_algorithm = True
    server_version = "ESF"
    sys_version = ""
    timeout = 60
    server: EmulatorHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        return

    def log_error(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def _read_body(self) -> bytes:
        if (self.headers.get("Transfer-Encoding") or "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size_line = self.rfile.readline()
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _build_request(self) -> ApiRequest:
        body = self._read_body()
        split = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(split.query, keep_blank_values=True)
        headers = {k.lower(): v for k, v in self.headers.items()}
        method = self.command.upper()
        override = headers.get("x-http-method-override")
        if override and method == "POST":
            # googleapiclient turns over-long GETs into POST + override with a form body.
            method = override.upper()
            if headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
                for k, v in urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items():
                    query.setdefault(k, []).extend(v)
                body = b""
        return ApiRequest(method, split.path, query, headers, body)

    def _handle(self) -> None:
        try:
            req = self._build_request()
            backend = self.server.backend
            if req.path.startswith(CONTROL_PREFIX):
                resp = backend.control(req)
            else:
                latency = backend.current_latency()
                if latency > 0:
                    time.sleep(latency)
                resp = backend.dispatch(req)
            self._write(resp)
        except DropConnection:
            self._drop()
        except (ConnectionError, TimeoutError, OSError):
            self.close_connection = True

    def _write(self, resp: ApiResponse) -> None:
        self.send_response(resp.status)
        for name, value in resp.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(resp.body)))
        self.end_headers()
        if self.command != "HEAD" and resp.body:
            self.wfile.write(resp.body)
        self.wfile.flush()

    def _drop(self) -> None:
        """Reset the TCP connection without any response bytes (so clients see a reset)."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        try:
            self.rfile.close()
            self.connection.close()
        except OSError:
            pass
