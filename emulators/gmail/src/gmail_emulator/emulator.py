"""``Emulator``: the public facade that owns the mailboxes, tokens, faults, log and HTTP server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any

from . import seed as seed_module
from .auth import DEFAULT_SCOPES, TokenStore
from .control import handle_control
from .dispatch import Dispatcher
from .faults import Fault, FaultSet
from .filters import criteria_to_query
from .http_types import ApiRequest, ApiResponse
from .mailbox import DEFAULT_EMAIL, DEFAULT_MAILBOX, DEFAULT_NAME, Forwarded, Mailbox
from .request_log import RequestLog, RequestRecord
from .server import EmulatorHTTPServer
from .uploads import UploadSessions


class Emulator:
    """A fake Gmail API v1 server on 127.0.0.1.

    ``seed``: load the deterministic seed mailbox (see ``gmail_emulator.seed``).
    ``now``: fix the mailbox clock (epoch seconds) used for ``newer_than:`` and the
    ``internalDate`` of sent messages; default is the real clock.

    Several accounts: every token is bound to a named mailbox (``issue_token(mailbox=...)``);
    every API request acts on its token's mailbox only, and the request log records which one.
    The ``"default"`` mailbox (``self.mailbox``) has ``email_address`` and the seed; others are
    made with ``add_mailbox`` or on first use (``issue_token``/``mailbox_for``/...), empty unless
    ``seed=True``. Test accessors take ``mailbox=`` (default ``"default"``).
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
        self._mailboxes_lock = threading.RLock()
        self._mailboxes: dict[str, Mailbox] = {}
        self._rewrite_message_id = False
        self._keep_original_message_id = True
        self._seeded_by_mailbox: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
        self.mailbox = self._new_mailbox(DEFAULT_MAILBOX, email_address, display_name)
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
        self._seeded_by_mailbox[DEFAULT_MAILBOX] = (self.seeded, self.seeded_drafts)

    def _now(self) -> float:
        return self._fixed_now if self._fixed_now is not None else time.time()

    def set_now(self, now: float | None) -> None:
        """Fix (or with None, release) the mailbox clock."""
        self._fixed_now = now

    # ----- mailboxes (accounts) ------------------------------------------------------------------
    def _new_mailbox(self, name: str, email_address: str, display_name: str) -> Mailbox:
        mb = Mailbox(email_address, display_name, clock=self._now, name=name)
        mb.rewrite_message_id = self._rewrite_message_id
        mb.keep_original_message_id = self._keep_original_message_id
        mb.forward_hook = self._forward
        self._mailboxes[name] = mb
        return mb

    def add_mailbox(
        self,
        name: str,
        email_address: str | None = None,
        display_name: str | None = None,
        *,
        seed: bool = False,
    ) -> Mailbox:
        """Create the mailbox ``name`` (its address defaults to ``name`` when that is an address,
        else ``<name>@example.com``). ``seed``: fill it with the seed messages too (their
        ids: ``seeded_ids(name)``). Adding an existing name with the same address returns it."""
        if not name:
            raise ValueError("a mailbox needs a name")
        address = email_address or (name if "@" in name else f"{name}@example.com")
        with self._mailboxes_lock:
            existing = self._mailboxes.get(name)
            if existing is not None:
                if existing.email_address.casefold() != address.casefold():
                    raise ValueError(f"mailbox {name!r} already exists with address {existing.email_address}")
                return existing
            for other in self._mailboxes.values():
                if other.email_address.casefold() == address.casefold():
                    raise ValueError(f"address {address} already belongs to mailbox {other.name!r}")
            shown = display_name if display_name is not None else address.split("@")[0].replace(".", " ").title()
            mb = self._new_mailbox(name, address, shown)
            messages: dict[str, str] = {}
            drafts: dict[str, str] = {}
            if seed:
                messages, drafts = seed_module.populate(mb)
            self._seeded_by_mailbox[name] = (messages, drafts)
            return mb

    def mailbox_for(self, name: str = DEFAULT_MAILBOX) -> Mailbox:
        """The mailbox ``name``, created (empty) on first use."""
        with self._mailboxes_lock:
            mb = self._mailboxes.get(name)
        return mb if mb is not None else self.add_mailbox(name)

    @property
    def mailboxes(self) -> dict[str, Mailbox]:
        with self._mailboxes_lock:
            return dict(self._mailboxes)

    def _find_mailbox(self, hint: str) -> str | None:
        """The mailbox named ``hint`` or whose address is ``hint`` (login_hint of the auth stand-in)."""
        with self._mailboxes_lock:
            if hint in self._mailboxes:
                return hint
            for mb in self._mailboxes.values():
                if hint and mb.email_address.casefold() == hint.casefold():
                    return mb.name
        return None

    def _forward(self, address: str, raw: bytes) -> None:
        """A filter forwarded ``raw`` to ``address``: a local mailbox with that address gets it
        (its filters run, but nothing is forwarded again); other addresses only leave the record
        in the sender's ``forwarded`` list."""
        name = self._find_mailbox(address) if "@" in address else None
        if name is not None:
            self.mailbox_for(name).add_message(raw, allow_forward=False)

    def seeded_ids(self, mailbox: str = DEFAULT_MAILBOX) -> dict[str, str]:
        """Seed key -> message id in ``mailbox`` (empty for a mailbox made without seed)."""
        self.mailbox_for(mailbox)
        return dict(self._seeded_by_mailbox[mailbox][0])

    def seeded_draft_ids(self, mailbox: str = DEFAULT_MAILBOX) -> dict[str, str]:
        self.mailbox_for(mailbox)
        return dict(self._seeded_by_mailbox[mailbox][1])

    # ----- lifecycle -------------------------------------------------------------------------
    def start(self) -> Emulator:
        with self._start_lock:
            if self._server is not None:
                return self
            server = EmulatorHTTPServer((self._host, self._port), self)
            port = server.server_address[1]
            self._base_url = f"http://{self._host}:{port}/"
            self._dispatcher = Dispatcher(
                self.mailbox_for,
                self._uploads,
                self._base_url,
                self.tokens,
                self._faults,
                self._log,
                self.internal_errors,
                find_mailbox=self._find_mailbox,
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
    def issue_token(self, scopes: Iterable[str] = DEFAULT_SCOPES, mailbox: str = DEFAULT_MAILBOX) -> dict[str, Any]:
        """An authorized-user token dict bound to ``mailbox`` (created on first use; starts the
        server if needed, for ``token_uri``). Refreshing it keeps the binding."""
        self.mailbox_for(mailbox)
        self.start()
        return self.tokens.issue_token(scopes, self.token_uri, mailbox)

    def issue_auth_code(self, scopes: Iterable[str] = DEFAULT_SCOPES, mailbox: str = DEFAULT_MAILBOX) -> str:
        self.mailbox_for(mailbox)
        return self.tokens.issue_auth_code(scopes, mailbox)

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

    def requests_for(self, mailbox: str) -> list[RequestRecord]:
        """The logged requests whose token is bound to ``mailbox``."""
        return self._log.for_mailbox(mailbox)

    # ----- behaviour switches ----------------------------------------------------------------
    def set_rewrite_message_id(self, enabled: bool = True, *, keep_original: bool = True) -> None:
        """Make messages.send / drafts.send replace the client's Message-ID with a new
        ``<...@mail.gmail.com>`` one (in every mailbox), as Gmail is reported to do; with
        ``keep_original`` the client's value goes into ``X-Google-Original-Message-ID``."""
        with self._mailboxes_lock:
            self._rewrite_message_id = enabled
            self._keep_original_message_id = keep_original
            for mb in self._mailboxes.values():
                mb.rewrite_message_id = enabled
                mb.keep_original_message_id = keep_original

    # ----- mailbox shortcuts (all take mailbox=, default "default") ---------------------------
    def add_message(
        self,
        rfc822: bytes,
        label_ids: Iterable[str] = ("INBOX", "UNREAD"),
        thread_id: str | None = None,
        internal_date_ms: int | None = None,
        *,
        mailbox: str = DEFAULT_MAILBOX,
        apply_filters: bool = True,
    ) -> str:
        """Deliver a message to ``mailbox`` as if by SMTP: its filters run on it (see
        ``Mailbox.add_message``)."""
        return self.mailbox_for(mailbox).add_message(
            rfc822, label_ids, thread_id, internal_date_ms, apply_filters=apply_filters
        )

    def message_ids(self, label_id: str | None = None, *, mailbox: str = DEFAULT_MAILBOX) -> list[str]:
        return self.mailbox_for(mailbox).message_ids(label_id)

    def label_ids(self, message_id: str, *, mailbox: str = DEFAULT_MAILBOX) -> list[str]:
        return self.mailbox_for(mailbox).label_ids(message_id)

    def thread_id(self, message_id: str, *, mailbox: str = DEFAULT_MAILBOX) -> str:
        return self.mailbox_for(mailbox).thread_id(message_id)

    def get_raw(self, message_id: str, *, mailbox: str = DEFAULT_MAILBOX) -> bytes:
        return self.mailbox_for(mailbox).get_raw(message_id)

    def label_id(self, name: str, *, mailbox: str = DEFAULT_MAILBOX) -> str | None:
        return self.mailbox_for(mailbox).label_id(name)

    def create_label(self, name: str, *, mailbox: str = DEFAULT_MAILBOX, **fields: Any) -> str:
        return self.mailbox_for(mailbox).create_label(name, **fields)

    def find_by_subject(self, subject: str, *, mailbox: str = DEFAULT_MAILBOX) -> list[str]:
        return self.mailbox_for(mailbox).find_by_subject(subject)

    def sent_messages_with_header(self, name: str, value: str, *, mailbox: str = DEFAULT_MAILBOX) -> list[str]:
        return self.mailbox_for(mailbox).sent_messages_with_header(name, value)

    def messages_with_header(
        self, name: str, value: str, label_id: str | None = None, *, mailbox: str = DEFAULT_MAILBOX
    ) -> list[str]:
        return self.mailbox_for(mailbox).messages_with_header(name, value, label_id)

    def search(self, q: str, *, include_spam_trash: bool = False, mailbox: str = DEFAULT_MAILBOX) -> list[str]:
        """Message ids ``messages.list(q=...)`` would answer (all pages)."""
        return self.mailbox_for(mailbox).search(q, include_spam_trash)

    def add_filter(
        self, criteria: Mapping[str, Any], action: Mapping[str, Any], *, mailbox: str = DEFAULT_MAILBOX
    ) -> dict[str, Any]:
        """Create a filter directly (validated like settings.filters.create); returns the resource."""
        return self.mailbox_for(mailbox).add_filter(dict(criteria), dict(action))

    def filters(self, *, mailbox: str = DEFAULT_MAILBOX) -> list[dict[str, Any]]:
        return self.mailbox_for(mailbox).filter_resources()

    @staticmethod
    def filter_query(criteria: Mapping[str, Any]) -> str:
        """The search query equivalent to filter criteria (see ``filters.criteria_to_query``)."""
        return criteria_to_query(criteria)

    def set_send_as(
        self,
        send_as_email: str,
        *,
        mailbox: str = DEFAULT_MAILBOX,
        display_name: str | None = None,
        reply_to_address: str | None = None,
        signature: str | None = None,
        is_default: bool | None = None,
        treat_as_alias: bool | None = None,
        verification_status: str | None = None,
    ) -> dict[str, Any]:
        """Add or change a send-as address (the primary one included); returns its resource."""
        return self.mailbox_for(mailbox).set_send_as(
            send_as_email,
            display_name=display_name,
            reply_to_address=reply_to_address,
            signature=signature,
            is_default=is_default,
            treat_as_alias=treat_as_alias,
            verification_status=verification_status,
        )

    def remove_send_as(self, send_as_email: str, *, mailbox: str = DEFAULT_MAILBOX) -> None:
        self.mailbox_for(mailbox).remove_send_as(send_as_email)

    def send_as(self, *, mailbox: str = DEFAULT_MAILBOX) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.mailbox_for(mailbox).list_send_as()["sendAs"]
        return result

    def add_forwarding_address(
        self, email: str, verification_status: str = "accepted", *, mailbox: str = DEFAULT_MAILBOX
    ) -> dict[str, str]:
        """A forwarding address filters of ``mailbox`` may forward to (only when ``accepted``)."""
        return self.mailbox_for(mailbox).add_forwarding_address(email, verification_status)

    def forwarded(self, *, mailbox: str = DEFAULT_MAILBOX) -> list[Forwarded]:
        """What filters of ``mailbox`` forwarded: (message_id, to, filter_id) records."""
        mb = self.mailbox_for(mailbox)
        with mb.lock:
            return list(mb.forwarded)

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
