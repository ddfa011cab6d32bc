"""The out-of-process control API under ``/_emulator/`` (no bearer token needed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ApiError, invalid
from .faults import Fault
from .http_types import ApiRequest, ApiResponse
from .payload import b64url, b64url_decode

if TYPE_CHECKING:
    from .emulator import Emulator


def _scopes(body: dict[str, Any]) -> list[str] | None:
    scopes = body.get("scopes")
    if scopes is None:
        return None
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise invalid("'scopes' must be a list of strings")
    return scopes


def handle_control(emu: Emulator, req: ApiRequest) -> ApiResponse:
    try:
        return _route(emu, req)
    except ApiError as err:
        return ApiResponse.from_error(err)
    except (TypeError, ValueError) as exc:
        return ApiResponse.from_error(invalid(str(exc)))


def _route(emu: Emulator, req: ApiRequest) -> ApiResponse:
    path = req.path.removeprefix("/_emulator/").rstrip("/")
    method = req.method
    if path == "faults":
        if method == "POST":
            fault = Fault.from_dict(req.json_body())
            emu.add_fault(fault)
            return ApiResponse.json({"ok": True, "fault": fault.to_dict()})
        if method == "DELETE":
            emu.clear_faults()
            return ApiResponse.json({"ok": True})
        if method == "GET":
            return ApiResponse.json({"faults": [f.to_dict() for f in emu.faults()]})
    if path == "requests":
        if method == "GET":
            return ApiResponse.json(
                {"requests": [r.to_dict() for r in emu.request_log()], "counts": emu.request_counts()}
            )
        if method == "DELETE":
            emu.clear_requests()
            return ApiResponse.json({"ok": True})
    if path == "token" and method == "POST":
        scopes = _scopes(req.json_body())
        return ApiResponse.json(emu.issue_token(scopes) if scopes is not None else emu.issue_token())
    if path == "auth_code" and method == "POST":
        scopes = _scopes(req.json_body())
        code = emu.issue_auth_code(scopes) if scopes is not None else emu.issue_auth_code()
        return ApiResponse.json({"code": code})
    if path == "expire_token" and method == "POST":
        emu.expire_access_token(str(req.json_body().get("access_token", "")))
        return ApiResponse.json({"ok": True})
    if path == "revoke_token" and method == "POST":
        emu.revoke_refresh_token(str(req.json_body().get("refresh_token", "")))
        return ApiResponse.json({"ok": True})
    if path == "latency" and method == "POST":
        emu.set_latency(float(req.json_body().get("seconds", 0.0)))
        return ApiResponse.json({"ok": True})
    if path == "messages" and method == "POST":
        body = req.json_body()
        raw = b64url_decode(str(body.get("raw", "")))
        labels = body.get("labelIds", ["INBOX", "UNREAD"])
        internal = body.get("internalDate")
        mid = emu.add_message(
            raw,
            label_ids=list(labels),
            thread_id=body.get("threadId"),
            internal_date_ms=int(internal) if internal is not None else None,
        )
        return ApiResponse.json({"id": mid, "threadId": emu.mailbox.thread_id(mid)})
    if path == "sent" and method == "GET":
        name, value = req.param("header") or "Message-ID", req.param("value") or ""
        return ApiResponse.json({"ids": emu.mailbox.sent_messages_with_header(name, value)})
    if path.startswith("messages/") and path.endswith("/raw") and method == "GET":
        mid = path.split("/")[1]
        try:
            return ApiResponse.json({"id": mid, "raw": b64url(emu.mailbox.get_raw(mid))})
        except KeyError:
            raise ApiError(404, "notFound", f"No message {mid}") from None
    if path == "seeded" and method == "GET":
        return ApiResponse.json({"messages": emu.seeded, "drafts": emu.seeded_drafts})
    raise ApiError(404, "notFound", f"Unknown control endpoint {method} /_emulator/{path}")
