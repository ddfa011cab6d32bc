"""The HTTP front door: every request must carry `Authorization: Bearer <token>`, or it is answered 401.

One ASGI middleware around the whole app, so no path (not only /mcp) and no MCP code is reached
without the token. The SDK's TokenVerifier/AuthSettings are not used: they guard only /mcp, need
an OAuth issuer URL, and their 401 can point OAuth-aware clients at metadata we do not serve
(specs/spec.md, "HTTP transport").
"""

from __future__ import annotations

import hmac
import json
import logging

from starlette.types import ASGIApp, Receive, Scope, Send

from .http_token import TokenSource

log = logging.getLogger("mcp_contract.http")


class BearerGuard:
    def __init__(self, app: ASGIApp, tokens: TokenSource, realm: str) -> None:
        self.app = app
        self.tokens = tokens
        self.realm = realm

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):  # lifespan: no request, nothing to check
            await self.app(scope, receive, send)
            return
        problem = self.problem(scope)
        if problem is None:
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        path = str(scope.get("path", ""))[:200]
        log.warning("http request refused", extra={"reason": problem, "path": path, "client": client and client[0]})
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await self._unauthorized(problem, send)

    def problem(self, scope: Scope) -> str | None:
        """Why the request may not pass (a short code for the log), or None when it carries the token."""
        values = [value for name, value in scope["headers"] if name == b"authorization"]
        if not values:
            return "no_authorization"
        if len(values) > 1:
            return "several_authorization_headers"
        scheme, _, credentials = values[0].partition(b" ")
        if scheme.lower() != b"bearer":  # auth schemes are case-insensitive (RFC 9110 §11.1)
            return "not_bearer"
        expected = self.tokens.current()
        if expected is None:
            return "token_file_unusable"
        # Constant time; the parser already dropped whitespace around the header value (RFC 9110 §5.5).
        if not hmac.compare_digest(credentials.lstrip(b" "), expected):
            return "wrong_token"
        return None

    async def _unauthorized(self, problem: str, send: Send) -> None:
        challenge = f'Bearer realm="{self.realm}"'
        if problem == "wrong_token":
            challenge += ', error="invalid_token"'
        body = json.dumps(
            {
                "error": "unauthorized",
                "message": f"send Authorization: Bearer <token>; `{self.realm} http-token` prints the token",
            }
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", challenge.encode()),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})
