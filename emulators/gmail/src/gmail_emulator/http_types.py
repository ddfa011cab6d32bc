"""Transport-neutral request/response values shared by the server, the batch endpoint and handlers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .errors import ApiError

JSON_CONTENT_TYPE = "application/json; charset=UTF-8"


@dataclass
class ApiRequest:
    """One HTTP request as the API sees it (a top-level request or one part of a batch)."""

    method: str
    path: str
    query: dict[str, list[str]] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased names
    body: bytes = b""
    in_batch: bool = False

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else None

    def params(self, name: str) -> list[str]:
        # googleapiclient sends repeated params as name=a&name=b; accept name[] too.
        return list(self.query.get(name, [])) + list(self.query.get(name + "[]", []))

    def json_body(self) -> dict[str, Any]:
        if not self.body.strip():
            return {}
        try:
            data = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ApiError(400, "parseError", f"Invalid JSON payload received. {exc}") from exc
        if not isinstance(data, dict):
            raise ApiError(400, "parseError", "Invalid JSON payload received. Expected an object.")
        return data


@dataclass
class ApiResponse:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> ApiResponse:
        hdrs = {"Content-Type": JSON_CONTENT_TYPE}
        hdrs.update(headers or {})
        return cls(status, json.dumps(obj, indent=2, ensure_ascii=False).encode("utf-8"), hdrs)

    @classmethod
    def no_content(cls) -> ApiResponse:
        return cls(204, b"", {})

    @classmethod
    def from_error(cls, err: ApiError) -> ApiResponse:
        hdrs = {"Content-Type": JSON_CONTENT_TYPE}
        hdrs.update(err.headers)
        return cls(err.status, err.body_bytes(), hdrs)


class DropConnection(Exception):
    """Signals that the server must close the socket without writing any response."""
