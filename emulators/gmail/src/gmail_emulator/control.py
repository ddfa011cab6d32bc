"""The out-of-process control API under ``/_emulator/`` (no bearer token needed).

Endpoints that act on a mailbox take ``mailbox`` (JSON body field or query parameter; default
``"default"``)."""

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


def _mailbox(body: dict[str, Any] | None, req: ApiRequest) -> str:
    value = (body or {}).get("mailbox") or req.param("mailbox") or "default"
    if not isinstance(value, str):
        raise invalid("'mailbox' must be a string")
    return value


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
        body = req.json_body()
        scopes = _scopes(body)
        mailbox = _mailbox(body, req)
        if scopes is None:
            return ApiResponse.json(emu.issue_token(mailbox=mailbox))
        return ApiResponse.json(emu.issue_token(scopes, mailbox=mailbox))
    if path == "auth_code" and method == "POST":
        body = req.json_body()
        scopes = _scopes(body)
        mailbox = _mailbox(body, req)
        code = (
            emu.issue_auth_code(scopes, mailbox=mailbox) if scopes is not None else emu.issue_auth_code(mailbox=mailbox)
        )
        return ApiResponse.json({"code": code})
    if path == "mailboxes":
        if method == "POST":
            body = req.json_body()
            mb = emu.add_mailbox(
                str(body.get("name") or ""),
                body.get("emailAddress"),
                body.get("displayName"),
                seed=bool(body.get("seed", False)),
            )
            return ApiResponse.json({"name": mb.name, "emailAddress": mb.email_address})
        if method == "GET":
            boxes = [{"name": mb.name, "emailAddress": mb.email_address} for mb in emu.mailboxes.values()]
            return ApiResponse.json({"mailboxes": boxes})
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
        mailbox = _mailbox(body, req)
        raw = b64url_decode(str(body.get("raw", "")))
        labels = body.get("labelIds", ["INBOX", "UNREAD"])
        internal = body.get("internalDate")
        mid = emu.add_message(
            raw,
            label_ids=list(labels),
            thread_id=body.get("threadId"),
            internal_date_ms=int(internal) if internal is not None else None,
            mailbox=mailbox,
        )
        return ApiResponse.json({"id": mid, "threadId": emu.thread_id(mid, mailbox=mailbox)})
    if path == "sent" and method == "GET":
        name, value = req.param("header") or "Message-ID", req.param("value") or ""
        ids = emu.sent_messages_with_header(name, value, mailbox=_mailbox(None, req))
        return ApiResponse.json({"ids": ids})
    if path.startswith("messages/") and path.endswith("/raw") and method == "GET":
        mid = path.split("/")[1]
        try:
            return ApiResponse.json({"id": mid, "raw": b64url(emu.get_raw(mid, mailbox=_mailbox(None, req)))})
        except KeyError:
            raise ApiError(404, "notFound", f"No message {mid}") from None
    if path == "seeded" and method == "GET":
        mailbox = _mailbox(None, req)
        return ApiResponse.json({"messages": emu.seeded_ids(mailbox), "drafts": emu.seeded_draft_ids(mailbox)})
    raise ApiError(404, "notFound", f"Unknown control endpoint {method} /_emulator/{path}")
