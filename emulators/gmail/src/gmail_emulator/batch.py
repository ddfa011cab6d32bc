"""The batch endpoint (``POST /batch/gmail/v1``, ``multipart/mixed`` of ``application/http`` parts),
framed exactly as googleapiclient's ``BatchHttpRequest`` sends and parses it."""

from __future__ import annotations

import re
import secrets
import urllib.parse
from collections.abc import Callable
from http import HTTPStatus

from .errors import ApiError, invalid
from .http_types import ApiRequest, ApiResponse
from .uploads import boundary_param, split_multipart

MAX_PARTS = 100
CRLF = "\r\n"


def _parse_inner(text: bytes, outer: ApiRequest) -> ApiRequest:
    """Parse one ``application/http`` part: request line, headers, blank line, body."""
    m = re.match(rb"([^\r\n]*)\r?\n((?:[^\r\n]+\r?\n)*)(?:\r?\n|$)", text)
    if m is None:
        raise invalid("Invalid batch part: no request line")
    request_line = m.group(1).decode("latin-1").strip()
    pieces = request_line.split(" ")
    if len(pieces) < 2:
        raise invalid(f"Invalid batch part request line: {request_line!r}")
    method, target = pieces[0].upper(), pieces[1]
    headers: dict[str, str] = {}
    for line in m.group(2).decode("latin-1").splitlines():
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    body = text[m.end() :]
    length = headers.get("content-length")
    if length and length.isdigit():
        body = body[: int(length)]
    elif method in ("GET", "DELETE"):
        body = b""
    if "authorization" not in headers and outer.header("authorization"):
        headers["authorization"] = outer.header("authorization") or ""
    parsed = urllib.parse.urlsplit(target)
    query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
    return ApiRequest(method, parsed.path, query, headers, body, in_batch=True)


def _response_id(content_id: str | None) -> str:
    inner = (content_id or "").strip()
    if inner.startswith("<") and inner.endswith(">"):
        inner = inner[1:-1]
    return f"<response-{inner}>"


def _serialize(resp: ApiResponse, content_id: str | None) -> bytes:
    phrase = HTTPStatus(resp.status).phrase if resp.status in HTTPStatus._value2member_map_ else ""
    head = [
        "Content-Type: application/http",
        f"Content-ID: {_response_id(content_id)}",
        "",
        f"HTTP/1.1 {resp.status} {phrase}",
    ]
    headers = dict(resp.headers)
    headers.setdefault("Content-Type", "application/json; charset=UTF-8")
    headers["Content-Length"] = str(len(resp.body))
    head += [f"{k}: {v}" for k, v in headers.items()]
    return (CRLF.join(head) + CRLF + CRLF).encode("utf-8") + resp.body


def handle(req: ApiRequest, dispatch: Callable[[ApiRequest], ApiResponse]) -> ApiResponse:
    """Run every part through ``dispatch`` (as its own route) and frame the answers."""
    ctype = req.header("content-type") or ""
    boundary = boundary_param(ctype)
    if not ctype.lower().startswith("multipart/mixed") or not boundary:
        raise invalid("Batch request must be multipart/mixed with a boundary")
    parts = split_multipart(req.body, boundary)
    if not parts:
        raise invalid("Batch request contains no parts")
    if len(parts) > MAX_PARTS:
        raise ApiError(400, "batchSizeTooLarge", f"A batch request cannot contain more than {MAX_PARTS} requests")
    out_boundary = "batch_" + secrets.token_hex(12)
    chunks: list[bytes] = []
    for headers, content in parts:
        try:
            inner = _parse_inner(content, req)
            resp = dispatch(inner)
        except ApiError as err:
            resp = ApiResponse.from_error(err)
        chunks.append(f"--{out_boundary}{CRLF}".encode() + _serialize(resp, headers.get("content-id")) + CRLF.encode())
    body = b"".join(chunks) + f"--{out_boundary}--{CRLF}".encode()
    return ApiResponse(200, body, {"Content-Type": f"multipart/mixed; boundary={out_boundary}"})
