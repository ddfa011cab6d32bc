"""Media upload protocols of Google APIs: ``uploadType=media``, ``multipart`` and ``resumable``."""

from __future__ import annotations

import json
import re
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from .errors import ApiError, invalid
from .http_types import ApiRequest, ApiResponse

UPLOAD_PREFIXES = ("/upload/", "/resumable/upload/")


def is_upload_path(path: str) -> bool:
    return path.startswith(UPLOAD_PREFIXES)


def strip_upload_prefix(path: str) -> str:
    for prefix in UPLOAD_PREFIXES:
        if path.startswith(prefix):
            return "/" + path[len(prefix) :]
    return path


def boundary_param(content_type: str) -> str | None:
    m = re.search(r'boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))', content_type, re.IGNORECASE)
    if not m:
        return None
    return m.group(1) or m.group(2)


def split_multipart(body: bytes, boundary: str) -> list[tuple[dict[str, str], bytes]]:
    """Split a multipart body into (lower-cased headers, exact body bytes) pairs."""
    delim = b"--" + boundary.encode("latin-1")
    segments = body.split(delim)
    parts: list[tuple[dict[str, str], bytes]] = []
    for seg in segments[1:]:
        if seg.startswith(b"--"):
            break
        if seg.startswith(b"\r\n"):
            seg = seg[2:]
        elif seg.startswith(b"\n"):
            seg = seg[1:]
        if seg.endswith(b"\r\n"):
            seg = seg[:-2]
        elif seg.endswith(b"\n"):
            seg = seg[:-1]
        m = re.match(rb"((?:[^\r\n]+\r?\n)*)\r?\n", seg)
        if m is None:
            headers_blob, content = seg, b""
        else:
            headers_blob, content = m.group(1), seg[m.end() :]
        headers: dict[str, str] = {}
        for line in headers_blob.decode("latin-1").splitlines():
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        parts.append((headers, content))
    return parts


@dataclass
class Upload:
    """The resolved input of an upload-capable method: JSON metadata and optional media bytes."""

    metadata: dict[str, Any]
    media: bytes | None


@dataclass
class _Session:
    method: str
    path: str
    metadata: dict[str, Any]
    total: int | None
    data: bytearray = field(default_factory=bytearray)


class UploadSessions:
    """Resumable upload sessions (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}

    def method_for(self, upload_id: str) -> str | None:
        with self._lock:
            session = self._sessions.get(upload_id)
            return session.method if session else None

    def resolve(self, req: ApiRequest, base_url: str) -> Upload | ApiResponse:
        """Turn a request into an ``Upload`` or, mid-resumable-upload, the response to send."""
        if not is_upload_path(req.path):
            return Upload(req.json_body(), None)
        upload_type = (req.param("uploadType") or "").lower()
        upload_id = req.param("upload_id")
        if upload_id:
            return self._continue(upload_id, req)
        if upload_type == "media":
            return Upload({}, req.body)
        if upload_type == "multipart":
            return self._multipart(req)
        if upload_type == "resumable":
            return self._start(req, base_url)
        raise invalid("Invalid uploadType: " + (upload_type or "(missing)"), location="uploadType")

    @staticmethod
    def _multipart(req: ApiRequest) -> Upload:
        boundary = boundary_param(req.header("content-type") or "")
        if not boundary:
            raise invalid("Multipart upload without a boundary")
        parts = split_multipart(req.body, boundary)
        if len(parts) != 2:
            raise invalid(f"Multipart upload must have 2 parts (metadata and media), got {len(parts)}")
        meta_raw = parts[0][1]
        try:
            metadata = json.loads(meta_raw.decode("utf-8")) if meta_raw.strip() else {}
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ApiError(400, "parseError", f"Invalid JSON payload received. {exc}") from exc
        if not isinstance(metadata, dict):
            raise ApiError(400, "parseError", "Invalid JSON payload received.")
        return Upload(metadata, parts[1][1])

    def _start(self, req: ApiRequest, base_url: str) -> ApiResponse:
        metadata = req.json_body()
        total_header = req.header("x-upload-content-length")
        total = int(total_header) if total_header and total_header.isdigit() else None
        upload_id = "ADPycd" + secrets.token_urlsafe(18)
        with self._lock:
            self._sessions[upload_id] = _Session(req.method, req.path, metadata, total)
        location = f"{base_url}{req.path.lstrip('/')}?uploadType=resumable&upload_id={upload_id}"
        return ApiResponse(200, b"", {"Location": location, "X-GUploader-UploadID": upload_id})

    def _continue(self, upload_id: str, req: ApiRequest) -> Upload | ApiResponse:
        with self._lock:
            session = self._sessions.get(upload_id)
            if session is None:
                raise ApiError(404, "notFound", "Upload session not found or expired.")
            content_range = req.header("content-range") or ""
            m = re.fullmatch(r"bytes\s+(?:(\d+)-(\d+)|\*)/(\d+|\*)", content_range.strip())
            if m and m.group(3) != "*":
                session.total = int(m.group(3))
            if m and m.group(1) is not None:
                start = int(m.group(1))
                del session.data[start:]
                session.data += req.body
            elif not m:
                session.data += req.body
            done = session.total is not None and len(session.data) >= session.total
            if not done:
                headers = {"Range": f"bytes=0-{len(session.data) - 1}"} if session.data else {}
                return ApiResponse(308, b"", headers)
            del self._sessions[upload_id]
            return Upload(session.metadata, bytes(session.data))
