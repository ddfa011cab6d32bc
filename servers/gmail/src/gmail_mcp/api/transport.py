"""An httplib2 transport that makes exactly one attempt per request, for requests that must not repeat.

httplib2's `Http._conn_request` re-sends a request when the connection breaks: once more on
a socket or protocol error while sending, and — whatever `httplib2.RETRIES` says — once more
when the response is lost (`BadStatusLine` / `RemoteDisconnected` on the first try). For
`messages.send` such a silent re-send is a duplicate email. `OneShotHttp` replaces that method
with a single attempt on a fresh connection and tells "never sent" apart from "sent, answer
unknown":

* every request opens its own connection, so a stale kept-alive socket can never make a request
  fail (or be re-sent) after nothing went out;
* a failure to connect (refused, DNS, TLS handshake, connect timeout) raises `RequestNotSent`:
  not one byte of the request left the machine;
* any failure after the connection was made propagates unchanged: the request may have
  reached Gmail, and only the caller can find out whether it took effect.

Redirects are not followed (that would be a second request).
"""

from __future__ import annotations

import http.client
from typing import Any

import httplib2

from gmail_mcp.api.errors import RequestNotSent


class OneShotHttp(httplib2.Http):  # type: ignore[misc]  # httplib2 is untyped
    def __init__(self, timeout: float | None) -> None:
        super().__init__(timeout=timeout)
        self.follow_redirects = False
        self.redirect_codes = httplib2.REDIRECT_CODES - {308}  # as googleapiclient's build_http does

    def _conn_request(
        self, conn: Any, request_uri: str, method: str, body: Any, headers: dict[str, str]
    ) -> tuple[httplib2.Response, bytes]:
        conn.close()  # never reuse a kept-alive socket: it may have gone stale
        try:
            conn.connect()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise RequestNotSent("could not connect to the server") from exc
        try:
            conn.request(method, request_uri, body, headers)
            raw = conn.getresponse()
            content = b"" if method == "HEAD" else raw.read()
        except BaseException:
            conn.close()
            raise
        response = httplib2.Response(raw)
        if method == "HEAD":
            conn.close()
            return response, content
        return response, httplib2._decompressContent(response, content, self.limit_kwargs)
