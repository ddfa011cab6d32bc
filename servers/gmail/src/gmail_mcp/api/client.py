"""The Gmail API client: google-api-python-client built from its packaged discovery document.

The document's root is replaced by `GMAIL_MCP_API_ENDPOINT`, so REST, batch and
media-upload requests all go to the same place (client_options would only move
REST calls). httplib2 objects are not thread-safe and tools run on worker
threads, so each thread gets its own service and Http. Google's libraries are
imported on first use, never at start-up.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from gmail_mcp.api.access import can_read
from gmail_mcp.api.classify import blame, classify
from gmail_mcp.api.errors import ApiUnavailable, AuthRequired, GmailFailure, RateLimited
from gmail_mcp.api.tokens import TokenStore

if TYPE_CHECKING:
    from google.oauth2.credentials import Credentials

T = TypeVar("T")
Build = Callable[[Any], Any]
"""Receives this thread's `service.users()` and returns the googleapiclient HttpRequest to execute."""


@dataclass(frozen=True)
class ClientSettings:
    token_file: Path
    api_endpoint: str
    timeout_seconds: float = 30.0
    max_attempts: int = 4
    backoff_base_seconds: float = 0.5
    max_wait_seconds: float = 20.0


@dataclass(frozen=True)
class BatchOutcome:
    """What a batch did, key by key: every key asked for is in exactly one of the two, in the order asked."""

    succeeded: dict[str, dict[str, Any]]  # Gmail's answer
    failed: dict[str, GmailFailure]  # the part's failure, after the retries transient failures get


class CachedResource:
    """A googleapiclient resource whose collections are built once.

    Each `users.messages()` call makes googleapiclient build every method of the collection from
    the discovery document again (~5 ms); a 20-part batch paid that twenty times. Calls without
    arguments (collections) are cached; calls with arguments (methods) pass straight through.
    """

    def __init__(self, resource: Any) -> None:
        self._resource = resource
        self._collections: dict[str, CachedResource] = {}

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._resource, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            if args or kwargs:
                return attribute(*args, **kwargs)
            if name not in self._collections:
                self._collections[name] = CachedResource(attribute())
            return self._collections[name]

        return call


class GmailClient:
    def __init__(self, settings: ClientSettings) -> None:
        self.settings = settings
        self.tokens = TokenStore(settings.token_file)
        self._local = threading.local()
        self._creds_lock = threading.Lock()
        self._creds: Credentials | None = None
        self._saved_token: str | None = None
        self._discovery: dict[str, Any] | None = None

    # -- credentials ---------------------------------------------------------------------------
    def credentials(self) -> Credentials:
        """The loaded credentials (read once, re-read after a failure so a fresh `auth` is picked up)."""
        with self._creds_lock:
            if self._creds is None:
                creds = self.tokens.load()
                if not can_read(creds.scopes):
                    raise AuthRequired("insufficient_scope", "the stored authorisation does not allow reading mail")
                self._creds, self._saved_token = creds, creds.token
            return self._creds

    def granted_scopes(self) -> list[str] | None:
        """The scopes the token file lists now (None: it lists none); `AuthRequired` when there is no usable file."""
        return self.tokens.facts().scopes

    def forget_credentials(self) -> None:
        with self._creds_lock:
            self._creds = None
            self._local.__dict__.clear()

    def _persist_refresh(self) -> None:
        with self._creds_lock:
            creds = self._creds
            if creds is not None and creds.token != self._saved_token:
                self.tokens.save(creds)
                self._saved_token = creds.token

    # -- service -------------------------------------------------------------------------------
    def service(self) -> Any:
        creds = self.credentials()
        local = self._local
        if getattr(local, "creds", None) is not creds:
            import google_auth_httplib2
            import httplib2
            from googleapiclient.discovery import build_from_document

            http = google_auth_httplib2.AuthorizedHttp(creds, http=httplib2.Http(timeout=self.settings.timeout_seconds))
            local.service = build_from_document(self._document(), http=http)
            local.users = CachedResource(local.service.users())
            local.creds = creds
        return local.service

    def _document(self) -> dict[str, Any]:
        if self._discovery is None:
            ref = importlib.resources.files("googleapiclient") / "discovery_cache/documents/gmail.v1.json"
            doc = json.loads(ref.read_text(encoding="utf-8"))
            root = self.settings.api_endpoint.rstrip("/") + "/"
            doc["rootUrl"] = doc["mtlsRootUrl"] = root
            self._discovery = doc
        return self._discovery

    def users(self) -> Any:
        """This thread's `service.users()`, with its collections (messages, labels, ...) built once."""
        self.service()
        return self._local.users

    def one_shot_service(self) -> Any:
        """A per-thread service whose transport makes exactly one attempt per request (`OneShotHttp`).

        For requests that must not be repeated by any layer: messages.send, drafts.send, drafts.create.
        """
        creds = self.credentials()
        local = self._local
        if getattr(local, "one_shot_creds", None) is not creds:
            import google_auth_httplib2
            from googleapiclient.discovery import build_from_document

            from gmail_mcp.api.transport import OneShotHttp

            http = google_auth_httplib2.AuthorizedHttp(creds, http=OneShotHttp(timeout=self.settings.timeout_seconds))
            local.one_shot_service = build_from_document(self._document(), http=http)
            local.one_shot_creds = creds
        return local.one_shot_service

    # -- calls ---------------------------------------------------------------------------------
    def execute(
        self,
        build: Build,
        resource: str = "resource",
        ident: str = "",
        arguments: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Execute an idempotent request — a read, or a write idempotent in effect (modify, batchModify,
        trash, drafts.delete) — retrying transient failures with jittered backoff.

        Repeating such a request changes nothing the first attempt did not. An empty answer (204) is
        `{}`; a 200 whose body is not a JSON object counts as the API being unavailable. `arguments`
        maps the request parameters that came from the caller to the names the caller gave them, in
        order of suspicion: a 400 blames the one Gmail names, else the first.
        """
        result = self._with_retries(
            lambda: build(self.users()).execute(num_retries=0), resource, ident, arguments or {}
        )
        if result is None or result == "":
            return {}
        if not isinstance(result, dict):
            raise ApiUnavailable("Gmail answered with a malformed body")
        return result

    def execute_once(self, build: Build) -> Any:
        """Execute a request that must not be repeated: one attempt, fresh connection, no retry by any layer.

        Exceptions propagate unclassified, so the caller can tell `RequestNotSent` (nothing left the
        machine) from a failure after the request went out (`classify.judge`). A refused
        authorisation is forgotten, as on the retried path.
        """
        try:
            result = build(self.one_shot_service().users()).execute(num_retries=0)
        except Exception as exc:
            if isinstance(classify(exc), AuthRequired):
                self.forget_credentials()
            raise
        self._persist_refresh()
        return result

    def backoff(self, attempt: int) -> float:
        """A full-jitter wait before another attempt."""
        return random.uniform(0, self.settings.backoff_base_seconds * 2 ** (attempt - 1))

    def _with_retries(
        self, call: Callable[[], T], resource: str, ident: str, arguments: Mapping[str, str] | None = None
    ) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                result = call()
                self._persist_refresh()
                return result
            except Exception as exc:
                failure = classify(exc, resource, ident)
                if failure is None:
                    raise
                if isinstance(failure, AuthRequired):
                    self.forget_credentials()
                    raise failure from None
                failure = blame(failure, arguments or {})
                wait = self._retry_wait(failure, attempt)
                if wait is None:
                    raise failure from None
                time.sleep(wait)

    def _retry_wait(self, failure: GmailFailure, attempt: int) -> float | None:
        """Seconds to wait before another attempt, or None to give up now."""
        if attempt >= self.settings.max_attempts or not isinstance(failure, RateLimited | ApiUnavailable):
            return None
        backoff = self.backoff(attempt)
        if isinstance(failure, RateLimited):
            if failure.retry_after_seconds > self.settings.max_wait_seconds:
                return None
            return max(float(failure.retry_after_seconds), backoff)
        return backoff

    def batch(
        self, requests: Iterable[tuple[str, Build]], resource: str, arguments: Mapping[str, str] | None = None
    ) -> BatchOutcome:
        """Run idempotent requests in multipart batches of up to 100, retrying the parts that failed transiently.

        The outcome holds every key, in the order given: Gmail's answer, or the part's failure (a
        part Gmail gave no answer for is `ApiUnavailable`). One policy for authorisation: a part
        answered `AuthRequired` fails the whole call, since every other part would fail alike.
        What any other failed part means (left out, shown without details, reported) is the caller's.
        A part's 400 blames one of `arguments`, as `classify.blame` says.
        """
        pending = dict(requests)
        order = list(pending)
        answers: dict[str, dict[str, Any]] = {}
        failures: dict[str, GmailFailure] = {}
        attempt = 0
        while pending:
            attempt += 1
            failures = {}
            users = self.users()
            keys = list(pending)
            for start in range(0, len(keys), 100):
                chunk = keys[start : start + 100]
                run = functools.partial(self._run_batch, users, chunk, pending, resource, answers, failures)
                self._with_retries(run, resource, "", arguments)
            failures = {key: blame(failure, arguments or {}) for key, failure in failures.items()}
            refused = next((f for f in failures.values() if isinstance(f, AuthRequired)), None)
            if refused is not None:
                self.forget_credentials()
                raise refused
            waits = [self._retry_wait(f, attempt) for f in failures.values()]
            if not failures or any(w is None for w in waits):
                break
            time.sleep(max(w or 0.0 for w in waits))
            pending = {key: pending[key] for key in failures}
        unanswered = ApiUnavailable("Gmail gave no answer for this part")
        return BatchOutcome(
            succeeded={key: answers[key] for key in order if key in answers},
            failed={key: failures.get(key, unanswered) for key in order if key not in answers},
        )

    def _run_batch(
        self,
        users: Any,
        chunk: list[str],
        pending: dict[str, Build],
        resource: str,
        answers: dict[str, dict[str, Any]],
        failures: dict[str, GmailFailure],
    ) -> None:
        def on_part(part_id: str, response: Any, exception: BaseException | None) -> None:
            key = chunk[int(part_id)]
            if exception is not None:
                failure = classify(exception, resource, key)
                if failure is None:
                    raise exception
                failures[key] = failure
            elif not isinstance(response, dict):
                failures[key] = ApiUnavailable("Gmail answered with a malformed body")
            else:
                answers[key] = response

        # Part ids are positions, never the caller's ids: they travel as Content-ID headers, and an
        # odd id there makes the library's answer unreadable (BatchError with resp=None).
        batch = self.service().new_batch_http_request(callback=on_part)
        for position, key in enumerate(chunk):
            batch.add(pending[key](users), request_id=str(position))
        batch.execute()
