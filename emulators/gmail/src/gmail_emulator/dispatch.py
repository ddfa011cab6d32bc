"""The request pipeline shared by top-level requests and batch parts:
route -> bearer/scope check -> fault injection -> handler -> request log."""

from __future__ import annotations

import time
import traceback
import urllib.parse
from collections.abc import Callable
from http import HTTPStatus

from . import api, batch
from .auth import TokenStore
from .errors import ApiError, not_found
from .faults import Fault, FaultSet
from .http_types import ApiRequest, ApiResponse, DropConnection
from .request_log import RequestLog, RequestRecord, flatten_query

TOKEN_PATHS = ("/token", "/oauth2/v4/token", "/o/oauth2/token")
AUTHORIZE_PATHS = ("/o/oauth2/auth", "/o/oauth2/v2/auth", "/authorize")
BATCH_PATHS = ("/batch/gmail/v1", "/batch")

Runner = Callable[[], ApiResponse]


class Dispatcher:
    def __init__(
        self,
        ctx: api.ApiContext,
        tokens: TokenStore,
        faults: FaultSet,
        log: RequestLog,
        internal_errors: list[str],
    ) -> None:
        self.ctx = ctx
        self.tokens = tokens
        self.faults = faults
        self.log = log
        self.internal_errors = internal_errors

    # ----- entry point ---------------------------------------------------------------------
    def handle(self, req: ApiRequest) -> ApiResponse:
        """Answer ``req`` (raises ``DropConnection`` when a fault says to drop the socket)."""
        started = time.time()
        route, runner, needs_auth = self._resolve(req)
        fault_desc: list[str] = []
        status = 0
        try:
            resp = self._run(route, req, runner, needs_auth, fault_desc)
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
                    fault=fault_desc[0] if fault_desc else None,
                )
            )

    # ----- routing -------------------------------------------------------------------------
    def _resolve(self, req: ApiRequest) -> tuple[str, Runner, bool]:
        path = req.path
        if path in TOKEN_PATHS and req.method == "POST":
            return "token", lambda: self._token(req), False
        if path in AUTHORIZE_PATHS and req.method == "GET":
            return "authorize", lambda: self._authorize(req), False
        if path in BATCH_PATHS and req.method == "POST" and not req.in_batch:
            return "batch", lambda: batch.handle(req, self.handle), False
        method = req.method
        upload_id = req.param("upload_id")
        if upload_id:
            method = self.ctx.uploads.method_for(upload_id) or method
        match = api.resolve(method, path)
        if match is None:
            if api.path_known(path):
                err = ApiError(405, "methodNotAllowed", f"Method {req.method} is not allowed for {path}")
            else:
                err = not_found(f"The requested URL {path} was not found on this server.")
            return "unknown", lambda: ApiResponse.from_error(err), False
        route = match.route

        def run() -> ApiResponse:
            api.check_user(self.ctx, match.params.get("user", "me"))
            return route.handler(self.ctx, req, match.params)

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

    def _run(self, route: str, req: ApiRequest, runner: Runner, needs_auth: bool, fault_desc: list[str]) -> ApiResponse:
        if needs_auth:
            auth_header = req.header("authorization")
            if auth_header is None and req.param("access_token"):
                auth_header = "Bearer " + (req.param("access_token") or "")
            try:
                self.tokens.authorize(auth_header, route, req.param("format"), bool(req.param("q")))
            except ApiError as err:
                return ApiResponse.from_error(err)
        if route == "unknown":
            return self._execute(runner)
        fault = self.faults.take(route)
        if fault is None:
            return self._execute(runner)
        fault_desc.append(fault.describe())
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
        code = self.tokens.issue_auth_code(scopes)
        params = {"code": code, "scope": " ".join(scopes)}
        state = req.param("state")
        if state is not None:
            params = {"state": state, **params}
        sep = "&" if "?" in redirect else "?"
        location = redirect + sep + urllib.parse.urlencode(params)
        return ApiResponse(
            int(HTTPStatus.FOUND), b"", {"Location": location, "Content-Type": "text/html; charset=utf-8"}
        )
