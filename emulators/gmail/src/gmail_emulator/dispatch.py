"""The request pipeline shared by top-level requests and batch parts:
route -> bearer/scope check (which also picks the token's mailbox) -> fault injection -> handler
-> request log."""

from __future__ import annotations

import time
import traceback
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus

from . import api, batch
from .auth import DEFAULT_MAILBOX, TokenStore
from .errors import ApiError, not_found
from .faults import Fault, FaultSet
from .http_types import ApiRequest, ApiResponse, DropConnection
from .mailbox import Mailbox
from .request_log import RequestLog, RequestRecord, flatten_query
from .uploads import UploadSessions

TOKEN_PATHS = ("/token", "/oauth2/v4/token", "/o/oauth2/token")
AUTHORIZE_PATHS = ("/o/oauth2/auth", "/o/oauth2/v2/auth", "/authorize")
BATCH_PATHS = ("/batch/gmail/v1", "/batch")

Runner = Callable[[], ApiResponse]
Handler = Callable[[str], ApiResponse]  # called with the name of the token's mailbox


@dataclass
class _Seen:
    """What the pipeline learned about one request, for its log record."""

    fault: str | None = None
    mailbox: str | None = None


class Dispatcher:
    def __init__(
        self,
        mailboxes: Callable[[str], Mailbox],
        uploads: UploadSessions,
        base_url: str,
        tokens: TokenStore,
        faults: FaultSet,
        log: RequestLog,
        internal_errors: list[str],
        find_mailbox: Callable[[str], str | None] = lambda hint: None,
    ) -> None:
        """``mailboxes(name)`` gives the mailbox a token is bound to; ``find_mailbox(login_hint)``
        picks the mailbox the authorization-endpoint stand-in issues its code for."""
        self.mailboxes = mailboxes
        self.uploads = uploads
        self.base_url = base_url
        self.tokens = tokens
        self.faults = faults
        self.log = log
        self.internal_errors = internal_errors
        self.find_mailbox = find_mailbox

    # ----- entry point ---------------------------------------------------------------------
    def handle(self, req: ApiRequest) -> ApiResponse:
        """Answer ``req`` (raises ``DropConnection`` when a fault says to drop the socket)."""
        started = time.time()
        route, handler, needs_auth = self._resolve(req)
        seen = _Seen()
        status = 0
        try:
            resp = self._run(route, req, handler, needs_auth, seen)
            status = resp.status
            return resp
        finally:
            self.log.append(
                RequestRecord(
                    method=req.method,
                    path=req.path,
                    route=route,
                    query=flatten_query(req.query),
                    status=status,
                    timestamp=started,
                    body_bytes=len(req.body),
                    in_batch=req.in_batch,
                    fault=seen.fault,
                    mailbox=seen.mailbox,
                )
            )

    # ----- routing -------------------------------------------------------------------------
    def _resolve(self, req: ApiRequest) -> tuple[str, Handler, bool]:
        path = req.path
        if path in TOKEN_PATHS and req.method == "POST":
            return "token", lambda _mailbox: self._token(req), False
        if path in AUTHORIZE_PATHS and req.method == "GET":
            return "authorize", lambda _mailbox: self._authorize(req), False
        if path in BATCH_PATHS and req.method == "POST" and not req.in_batch:
            return "batch", lambda _mailbox: batch.handle(req, self.handle), False
        method = req.method
        upload_id = req.param("upload_id")
        if upload_id:
            method = self.uploads.method_for(upload_id) or method
        match = api.resolve(method, path)
        if match is None:
            if api.path_known(path):
                err = ApiError(405, "methodNotAllowed", f"Method {req.method} is not allowed for {path}")
            else:
                err = not_found(f"The requested URL {path} was not found on this server.")
            return "unknown", lambda _mailbox: ApiResponse.from_error(err), False
        route = match.route

        def run(mailbox: str) -> ApiResponse:
            ctx = api.ApiContext(self.mailboxes(mailbox), self.uploads, self.base_url)
            api.check_user(ctx, match.params.get("user", "me"))
            return route.handler(ctx, req, match.params)

        return route.name, run, True

    # ----- pipeline ------------------------------------------------------------------------
    def _execute(self, runner: Runner) -> ApiResponse:
        try:
            return runner()
        except ApiError as err:
            return ApiResponse.from_error(err)
        except DropConnection:
            raise
        except Exception as exc:  # a bug in the emulator: answer like Google's 500 and keep it
            self.internal_errors.append(traceback.format_exc())
            return ApiResponse.from_error(ApiError(500, "backendError", f"Emulator internal error: {exc}"))

    def _run(self, route: str, req: ApiRequest, handler: Handler, needs_auth: bool, seen: _Seen) -> ApiResponse:
        auth_header = req.header("authorization")
        if auth_header is None and req.param("access_token"):
            auth_header = "Bearer " + (req.param("access_token") or "")
        seen.mailbox = self.tokens.mailbox_of(auth_header)
        if needs_auth:
            try:
                seen.mailbox = self.tokens.authorize(auth_header, route, req.param("format"), bool(req.param("q")))
            except ApiError as err:
                return ApiResponse.from_error(err)
        mailbox = seen.mailbox or DEFAULT_MAILBOX

        def runner() -> ApiResponse:
            return handler(mailbox)

        if route == "unknown":
            return self._execute(runner)
        fault = self.faults.take(route)
        if fault is None:
            return self._execute(runner)
        seen.fault = fault.describe()
        return self._apply_fault(fault, route, runner)

    def _apply_fault(self, fault: Fault, route: str, runner: Runner) -> ApiResponse:
        if fault.delay > 0:
            time.sleep(fault.delay)
        committed: ApiResponse | None = None
        if fault.after_commit:
            committed = self._execute(runner)
        if fault.drop_connection:
            raise DropConnection()
        error = fault.error_response(route)
        if error is not None:
            return error
        return committed if committed is not None else self._execute(runner)

    # ----- OAuth endpoints -----------------------------------------------------------------
    def _token(self, req: ApiRequest) -> ApiResponse:
        try:
            form_text = req.body.decode("utf-8")
        except UnicodeDecodeError:
            form_text = ""
        form = {k: v[-1] for k, v in urllib.parse.parse_qs(form_text, keep_blank_values=True).items()}
        status, body = self.tokens.token_endpoint(form)
        return ApiResponse.json(body, status, {"Cache-Control": "no-cache, no-store, max-age=0, must-revalidate"})

    def _authorize(self, req: ApiRequest) -> ApiResponse:
        redirect = req.param("redirect_uri")
        if not redirect:
            return ApiResponse(400, b"Missing required parameter: redirect_uri", {"Content-Type": "text/plain"})
        scopes = (req.param("scope") or "").split()
        mailbox = self.find_mailbox(req.param("login_hint") or "") or DEFAULT_MAILBOX
        code = self.tokens.issue_auth_code(scopes, mailbox)
        params = {"code": code, "scope": " ".join(scopes)}
        state = req.param("state")
        if state is not None:
            params = {"state": state, **params}
        sep = "&" if "?" in redirect else "?"
        location = redirect + sep + urllib.parse.urlencode(params)
        return ApiResponse(
            int(HTTPStatus.FOUND), b"", {"Location": location, "Content-Type": "text/html; charset=utf-8"}
        )
