"""``Emulator``: the public facade that owns the mailbox, tokens, faults, log and HTTP server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from . import seed as seed_module
from .api import ApiContext
from .auth import DEFAULT_SCOPES, TokenStore
from .control import handle_control
from .dispatch import Dispatcher
from .faults import Fault, FaultSet
from .http_types import ApiRequest, ApiResponse
from .mailbox import DEFAULT_EMAIL, DEFAULT_NAME, Mailbox
from .request_log import RequestLog, RequestRecord
from .server import EmulatorHTTPServer
from .uploads import UploadSessions


class Emulator:
    """A fake Gmail API v1 server on 127.0.0.1.

    ``seed``: load the deterministic seed mailbox (see ``gmail_emulator.seed``).
    ``now``: fix the mailbox clock (epoch seconds) used for ``newer_than:`` and the
    ``internalDate`` of sent messages; default is the real clock.
    """

    def __init__(
        self,
        seed: bool = True,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency: float = 0.0,
        now: float | None = None,
        email_address: str = DEFAULT_EMAIL,
        display_name: str = DEFAULT_NAME,
    ) -> None:
        self._host = host
        self._port = port
        self._latency = float(latency)
        self._fixed_now = now
        self.mailbox = Mailbox(email_address, display_name, clock=self._now)
        self.tokens = TokenStore()
        self._faults = FaultSet()
        self._log = RequestLog()
        self._uploads = UploadSessions()
        self.internal_errors: list[str] = []
        self._server: EmulatorHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._base_url: str | None = None
        self._dispatcher: Dispatcher | None = None
        self.seeded: dict[str, str] = {}
        self.seeded_drafts: dict[str, str] = {}
        if seed:
            self.seeded, self.seeded_drafts = seed_module.populate(self.mailbox)

    def _now(self) -> float:
        return self._fixed_now if self._fixed_now is not None else time.time()

    def set_now(self, now: float | None) -> None:
        """Fix (or with None, release) the mailbox clock."""
        self._fixed_now = now

    # ----- lifecycle -------------------------------------------------------------------------
    def start(self) -> Emulator:
        with self._start_lock:
            if self._server is not None:
                return self
            server = EmulatorHTTPServer((self._host, self._port), self)
            port = server.server_address[1]
            self._base_url = f"http://{self._host}:{port}/"
            self._dispatcher = Dispatcher(
                ApiContext(self.mailbox, self._uploads, self._base_url),
                self.tokens,
                self._faults,
                self._log,
                self.internal_errors,
            )
            self._server = server
            self._thread = threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="gmail-emulator", daemon=True
            )
            self._thread.start()
            return self

    def stop(self) -> None:
        with self._start_lock:
            server, thread = self._server, self._thread
            self._server, self._thread = None, None
        if server is None:
            return
        server.shutdown()
        server.close_all_connections()
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise RuntimeError("Emulator not started: call start() first")
        return self._base_url

    @property
    def port(self) -> int:
        return int(self.base_url.rstrip("/").rsplit(":", 1)[1])

    @property
    def token_uri(self) -> str:
        return self.base_url + "token"

    @property
    def auth_uri(self) -> str:
        """Authorization endpoint stand-in: GET redirects to ``redirect_uri?state=..&code=..``."""
        return self.base_url + "o/oauth2/auth"

    # ----- credentials -----------------------------------------------------------------------
    def issue_token(self, scopes: Iterable[str] = DEFAULT_SCOPES) -> dict[str, Any]:
        """An authorized-user token dict (starts the server if needed, for ``token_uri``)."""
        self.start()
        return self.tokens.issue_token(scopes, self.token_uri)

    def issue_auth_code(self, scopes: Iterable[str] = DEFAULT_SCOPES) -> str:
        return self.tokens.issue_auth_code(scopes)

    def expire_access_token(self, access_token: str) -> None:
        self.tokens.expire_access_token(access_token)

    def revoke_refresh_token(self, refresh_token: str) -> None:
        self.tokens.revoke_refresh_token(refresh_token)

    # ----- faults, latency -------------------------------------------------------------------
    def add_fault(self, fault: Fault) -> None:
        self._faults.add(fault)

    def clear_faults(self) -> None:
        self._faults.clear()

    def faults(self) -> list[Fault]:
        return self._faults.active()

    def set_latency(self, seconds: float) -> None:
        self._latency = max(0.0, float(seconds))

    # ----- request log -----------------------------------------------------------------------
    @property
    def requests(self) -> list[RequestRecord]:
        return self._log.snapshot()

    def request_log(self) -> list[RequestRecord]:
        return self._log.snapshot()

    def clear_requests(self) -> None:
        self._log.clear()

    def request_counts(self, *, include_batch_parts: bool = False) -> dict[str, int]:
        """Route -> number of HTTP round trips (batch parts excluded unless asked)."""
        return self._log.counts(include_batch_parts=include_batch_parts)

    # ----- mailbox shortcuts -----------------------------------------------------------------
    def add_message(
        self,
        rfc822: bytes,
        label_ids: Iterable[str] = ("INBOX", "UNREAD"),
        thread_id: str | None = None,
        internal_date_ms: int | None = None,
    ) -> str:
        return self.mailbox.add_message(rfc822, label_ids, thread_id, internal_date_ms)

    # ----- server backend protocol -----------------------------------------------------------
    def dispatch(self, req: ApiRequest) -> ApiResponse:
        if self._dispatcher is None:
            raise RuntimeError("Emulator not started")
        return self._dispatcher.handle(req)

    def control(self, req: ApiRequest) -> ApiResponse:
        return handle_control(self, req)

    def current_latency(self) -> float:
        return self._latency

    def record_internal_error(self, text: str) -> None:
        self.internal_errors.append(text)
