"""Gmail v1 REST routes: path/method -> route name -> handler (transport-independent)."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ApiError, invalid
from .http_types import ApiRequest, ApiResponse
from .mailbox import FORMATS, MAX_PAGE, ListParams, Mailbox
from .payload import b64url_decode
from .uploads import Upload, UploadSessions, is_upload_path, strip_upload_prefix


@dataclass
class ApiContext:
    """What a handler works on: the mailbox of the request's token, uploads, the base URL."""

    mailbox: Mailbox
    uploads: UploadSessions
    base_url: str


Handler = Callable[[ApiContext, ApiRequest, dict[str, str]], ApiResponse]


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    name: str
    handler: Handler
    upload: bool = False


_USER = r"/gmail/v1/users/(?P<user>[^/]+)"


# ----- parameter parsing ------------------------------------------------------------------------
def _int_param(req: ApiRequest, name: str, default: int, maximum: int) -> int:
    value = req.param(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise invalid(f'Invalid value for "{name}": {value!r} is not an integer', location=name) from None
    if number < 0:
        raise invalid(f'Invalid value for "{name}": must not be negative', location=name)
    return min(number, maximum) if number else default


def _bool_param(req: ApiRequest, name: str) -> bool:
    value = (req.param(name) or "false").lower()
    if value not in ("true", "false", "1", "0"):
        raise invalid(f'Invalid value for "{name}": {value!r}', location=name)
    return value in ("true", "1")


def _format_param(req: ApiRequest, default: str = "full") -> str:
    fmt = (req.param("format") or default).lower()
    if fmt not in FORMATS:
        raise invalid(f"Invalid value at 'format' ({fmt})", location="format")
    return fmt


def _list_params(req: ApiRequest) -> ListParams:
    return ListParams(
        q=req.param("q") or "",
        label_ids=req.params("labelIds"),
        include_spam_trash=_bool_param(req, "includeSpamTrash"),
        max_results=_int_param(req, "maxResults", 100, MAX_PAGE),
        page_token=req.param("pageToken") or None,
    )


def _decode_raw(value: Any) -> bytes:
    if not isinstance(value, str) or not value:
        raise invalid("'raw' RFC822 payload message string or uploading message via /upload/* URL required")
    try:
        return b64url_decode(value)
    except ValueError as exc:
        raise invalid(f"Invalid value for ByteString: {exc}") from exc


def _message_input(upload: Upload, meta: dict[str, Any]) -> tuple[bytes, str | None]:
    raw = upload.media if upload.media is not None else _decode_raw(meta.get("raw"))
    thread = meta.get("threadId")
    return raw, (str(thread) if thread else None)


def _upload(ctx: ApiContext, req: ApiRequest) -> Upload | ApiResponse:
    return ctx.uploads.resolve(req, ctx.base_url)


def _label_list(body: dict[str, Any], key: str) -> list[str]:
    value = body.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise invalid(f'Invalid value for "{key}"')
    return list(value)


# ----- handlers ---------------------------------------------------------------------------------
def h_profile(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.profile())


def h_messages_list(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.list_messages(_list_params(req)))


def h_messages_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    fmt = _format_param(req)
    return ApiResponse.json(ctx.mailbox.get_message(p["id"], fmt, req.params("metadataHeaders")))


def h_attachment_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.get_attachment(p["messageId"], p["id"]))


def h_messages_send(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    upload = _upload(ctx, req)
    if isinstance(upload, ApiResponse):
        return upload
    raw, thread = _message_input(upload, upload.metadata)
    return ApiResponse.json(ctx.mailbox.send(raw, thread))


def h_messages_insert(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return _insert(ctx, req, "receivedTime", apply_filters=False)


def h_messages_import(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return _insert(ctx, req, "dateHeader", apply_filters=True)


def _insert(ctx: ApiContext, req: ApiRequest, date_source: str, *, apply_filters: bool) -> ApiResponse:
    upload = _upload(ctx, req)
    if isinstance(upload, ApiResponse):
        return upload
    raw, thread = _message_input(upload, upload.metadata)
    labels = _label_list(upload.metadata, "labelIds")
    source = req.param("internalDateSource") or date_source
    return ApiResponse.json(ctx.mailbox.insert(raw, labels, thread, source, apply_filters=apply_filters))


def h_messages_modify(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    body = req.json_body()
    add, remove = _label_list(body, "addLabelIds"), _label_list(body, "removeLabelIds")
    return ApiResponse.json(ctx.mailbox.modify(p["id"], add, remove))


def h_messages_batch_modify(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    body = req.json_body()
    ids = _label_list(body, "ids")
    ctx.mailbox.batch_modify(ids, _label_list(body, "addLabelIds"), _label_list(body, "removeLabelIds"))
    return ApiResponse.no_content()


def h_messages_trash(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.trash(p["id"]))


def h_messages_untrash(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.untrash(p["id"]))


def h_not_supported(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    raise ApiError(
        405,
        "methodNotAllowed",
        "Permanent deletion is not supported by the Gmail emulator (and must never be used).",
    )


def h_threads_list(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.list_threads(_list_params(req)))


def h_threads_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    fmt = _format_param(req)
    return ApiResponse.json(ctx.mailbox.get_thread(p["id"], fmt, req.params("metadataHeaders")))


def h_threads_modify(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    body = req.json_body()
    add, remove = _label_list(body, "addLabelIds"), _label_list(body, "removeLabelIds")
    return ApiResponse.json(ctx.mailbox.modify_thread(p["id"], add, remove))


def h_threads_trash(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.trash_thread(p["id"]))


def h_threads_untrash(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.untrash_thread(p["id"]))


def h_labels_list(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.list_labels())


def h_labels_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.get_label(p["id"]))


def h_labels_create(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.create_label_resource(req.json_body()))


def h_labels_patch(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.patch_label(p["id"], req.json_body()))


def h_labels_update(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.update_label(p["id"], req.json_body()))


def h_labels_delete(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    ctx.mailbox.delete_label(p["id"])
    return ApiResponse.no_content()


def h_filters_list(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.list_filters())


def h_filters_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.get_filter(p["id"]))


def h_filters_create(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.create_filter(req.json_body()))


def h_filters_delete(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    ctx.mailbox.delete_filter(p["id"])
    return ApiResponse.no_content()


def h_send_as_list(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.list_send_as())


def h_send_as_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.get_send_as(p["sendAsEmail"]))


def h_forwarding_list(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.list_forwarding_addresses())


def h_forwarding_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.get_forwarding_address(p["forwardingEmail"]))


def _draft_message(upload: Upload) -> tuple[bytes, str | None]:
    message = upload.metadata.get("message") or {}
    if not isinstance(message, dict):
        raise invalid('Invalid value for "message"')
    return _message_input(upload, message)


def h_drafts_list(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.list_drafts(_list_params(req)))


def h_drafts_get(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    return ApiResponse.json(ctx.mailbox.get_draft(p["id"], _format_param(req)))


def h_drafts_create(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    upload = _upload(ctx, req)
    if isinstance(upload, ApiResponse):
        return upload
    raw, thread = _draft_message(upload)
    return ApiResponse.json(ctx.mailbox.create_draft(raw, thread))


def h_drafts_update(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    upload = _upload(ctx, req)
    if isinstance(upload, ApiResponse):
        return upload
    raw, thread = _draft_message(upload)
    return ApiResponse.json(ctx.mailbox.update_draft(p["id"], raw, thread))


def h_drafts_send(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    upload = _upload(ctx, req)
    if isinstance(upload, ApiResponse):
        return upload
    draft_id = upload.metadata.get("id")
    if not draft_id or not isinstance(draft_id, str):
        raise invalid("Invalid draft id: the 'id' field is required")
    raw: bytes | None = None
    thread: str | None = None
    message = upload.metadata.get("message")
    if upload.media is not None or (isinstance(message, dict) and message.get("raw")):
        raw, thread = _draft_message(upload)
    return ApiResponse.json(ctx.mailbox.send_draft(draft_id, raw, thread))


def h_drafts_delete(ctx: ApiContext, req: ApiRequest, p: dict[str, str]) -> ApiResponse:
    ctx.mailbox.delete_draft(p["id"])
    return ApiResponse.no_content()


def _route(method: str, path: str, name: str, handler: Handler, upload: bool = False) -> Route:
    return Route(method, re.compile("^" + _USER + path + "$"), name, handler, upload)


ROUTES: list[Route] = [
    _route("GET", "/profile", "profile", h_profile),
    _route("GET", "/messages", "messages.list", h_messages_list),
    _route("POST", "/messages", "messages.insert", h_messages_insert, upload=True),
    _route("POST", "/messages/send", "messages.send", h_messages_send, upload=True),
    _route("POST", "/messages/import", "messages.import", h_messages_import, upload=True),
    _route("POST", "/messages/batchModify", "messages.batchModify", h_messages_batch_modify),
    _route("POST", "/messages/batchDelete", "messages.batchDelete", h_not_supported),
    _route(
        "GET", "/messages/(?P<messageId>[^/]+)/attachments/(?P<id>[^/]+)", "messages.attachments.get", h_attachment_get
    ),
    _route("POST", "/messages/(?P<id>[^/]+)/modify", "messages.modify", h_messages_modify),
    _route("POST", "/messages/(?P<id>[^/]+)/trash", "messages.trash", h_messages_trash),
    _route("POST", "/messages/(?P<id>[^/]+)/untrash", "messages.untrash", h_messages_untrash),
    _route("GET", "/messages/(?P<id>[^/]+)", "messages.get", h_messages_get),
    _route("DELETE", "/messages/(?P<id>[^/]+)", "messages.delete", h_not_supported),
    _route("GET", "/threads", "threads.list", h_threads_list),
    _route("POST", "/threads/(?P<id>[^/]+)/modify", "threads.modify", h_threads_modify),
    _route("POST", "/threads/(?P<id>[^/]+)/trash", "threads.trash", h_threads_trash),
    _route("POST", "/threads/(?P<id>[^/]+)/untrash", "threads.untrash", h_threads_untrash),
    _route("GET", "/threads/(?P<id>[^/]+)", "threads.get", h_threads_get),
    _route("DELETE", "/threads/(?P<id>[^/]+)", "threads.delete", h_not_supported),
    _route("GET", "/labels", "labels.list", h_labels_list),
    _route("POST", "/labels", "labels.create", h_labels_create),
    _route("GET", "/labels/(?P<id>[^/]+)", "labels.get", h_labels_get),
    _route("PATCH", "/labels/(?P<id>[^/]+)", "labels.patch", h_labels_patch),
    _route("PUT", "/labels/(?P<id>[^/]+)", "labels.update", h_labels_update),
    _route("DELETE", "/labels/(?P<id>[^/]+)", "labels.delete", h_labels_delete),
    _route("GET", "/settings/filters", "settings.filters.list", h_filters_list),
    _route("POST", "/settings/filters", "settings.filters.create", h_filters_create),
    _route("GET", "/settings/filters/(?P<id>[^/]+)", "settings.filters.get", h_filters_get),
    _route("DELETE", "/settings/filters/(?P<id>[^/]+)", "settings.filters.delete", h_filters_delete),
    _route("GET", "/settings/sendAs", "settings.sendAs.list", h_send_as_list),
    _route("GET", "/settings/sendAs/(?P<sendAsEmail>[^/]+)", "settings.sendAs.get", h_send_as_get),
    _route("GET", "/settings/forwardingAddresses", "settings.forwardingAddresses.list", h_forwarding_list),
    _route(
        "GET",
        "/settings/forwardingAddresses/(?P<forwardingEmail>[^/]+)",
        "settings.forwardingAddresses.get",
        h_forwarding_get,
    ),
    _route("GET", "/drafts", "drafts.list", h_drafts_list),
    _route("POST", "/drafts", "drafts.create", h_drafts_create, upload=True),
    _route("POST", "/drafts/send", "drafts.send", h_drafts_send, upload=True),
    _route("GET", "/drafts/(?P<id>[^/]+)", "drafts.get", h_drafts_get),
    _route("PUT", "/drafts/(?P<id>[^/]+)", "drafts.update", h_drafts_update, upload=True),
    _route("DELETE", "/drafts/(?P<id>[^/]+)", "drafts.delete", h_drafts_delete),
]


@dataclass
class Match:
    route: Route
    params: dict[str, str]


def resolve(method: str, path: str) -> Match | None:
    """Find the route for ``method path`` (upload paths map to their method's route)."""
    upload = is_upload_path(path)
    plain = strip_upload_prefix(path) if upload else path
    for route in ROUTES:
        if route.method != method or (upload and not route.upload):
            continue
        m = route.pattern.match(plain)
        if m:
            params = {k: urllib.parse.unquote(v) for k, v in m.groupdict().items() if v is not None}
            return Match(route, params)
    return None


def path_known(path: str) -> bool:
    """True if some route has this path with another method (-> 405 rather than 404)."""
    plain = strip_upload_prefix(path)
    return any(route.pattern.match(plain) for route in ROUTES)


def check_user(ctx: ApiContext, user: str) -> None:
    """``userId`` must be ``me`` or the token's own address: another account's is refused."""
    if user != "me" and user.casefold() != ctx.mailbox.email_address.casefold():
        raise ApiError(403, "forbidden", f"Delegation denied for {ctx.mailbox.email_address}")
