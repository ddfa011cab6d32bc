"""OAuth 2.0 stand-in: access/refresh tokens, authorization codes, the token endpoint, scope checks."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .errors import ApiError

SCOPE_PREFIX = "https://www.googleapis.com/auth/"
FULL_SCOPE = "https://mail.google.com/"
DEFAULT_SCOPES: tuple[str, ...] = (SCOPE_PREFIX + "gmail.modify",)
CLIENT_ID = "emulator-client-id.apps.googleusercontent.com"
CLIENT_SECRET = "emulator-client-secret"
ACCESS_TOKEN_LIFETIME = 3599

DEFAULT_MAILBOX = "default"

_F = ""  # https://mail.google.com/
_READ_META = ("metadata", "modify", "readonly")
_ADDON_READ = (
    "addons.current.message.action",
    "addons.current.message.metadata",
    "addons.current.message.readonly",
)
_SETTINGS_READ = (_F, "modify", "readonly", "settings.basic")

# Route -> scopes (short "gmail.*" names, "" = https://mail.google.com/) that may call it,
# exactly as listed per method in the packaged Gmail v1 discovery document
# (googleapiclient/discovery_cache/documents/gmail.v1.json; a test compares the two). Note that
# settings.filters.create/delete list ONLY gmail.settings.basic: neither gmail.modify nor the
# full https://mail.google.com/ scope may create or delete filters. The permanent-delete routes
# are left out on purpose: any valid token gets the emulator's 405 for them (never a scope error).
_ROUTE_SCOPES_SHORT: dict[str, tuple[str, ...]] = {
    "profile": (_F, "compose", *_READ_META),
    "messages.list": (_F, *_READ_META),
    "messages.get": (_F, *_READ_META, *_ADDON_READ),
    "messages.attachments.get": (_F, "modify", "readonly", *_ADDON_READ[::2]),
    "messages.send": (_F, "compose", "modify", "send", "addons.current.action.compose"),
    "messages.insert": (_F, "insert", "modify"),
    "messages.import": (_F, "insert", "modify"),
    "messages.modify": (_F, "modify"),
    "messages.batchModify": (_F, "modify"),
    "messages.trash": (_F, "modify"),
    "messages.untrash": (_F, "modify"),
    "threads.list": (_F, *_READ_META),
    "threads.get": (_F, *_READ_META, *_ADDON_READ),
    "threads.modify": (_F, "modify"),
    "threads.trash": (_F, "modify"),
    "threads.untrash": (_F, "modify"),
    "labels.list": (_F, "labels", *_READ_META),
    "labels.get": (_F, "labels", *_READ_META),
    "labels.create": (_F, "labels", "modify"),
    "labels.patch": (_F, "labels", "modify"),
    "labels.update": (_F, "labels", "modify"),
    "labels.delete": (_F, "labels", "modify"),
    "drafts.list": (_F, "compose", "modify", "readonly"),
    "drafts.get": (_F, "compose", "modify", "readonly"),
    "drafts.create": (_F, "compose", "modify", "addons.current.action.compose"),
    "drafts.update": (_F, "compose", "modify", "addons.current.action.compose"),
    "drafts.send": (_F, "compose", "modify", "addons.current.action.compose"),
    "drafts.delete": (_F, "compose", "modify", "addons.current.action.compose"),
    "settings.filters.list": _SETTINGS_READ,
    "settings.filters.get": _SETTINGS_READ,
    "settings.filters.create": ("settings.basic",),
    "settings.filters.delete": ("settings.basic",),
    "settings.sendAs.list": _SETTINGS_READ,
    "settings.sendAs.get": _SETTINGS_READ,
    "settings.forwardingAddresses.list": _SETTINGS_READ,
    "settings.forwardingAddresses.get": _SETTINGS_READ,
}

ROUTE_SCOPES: dict[str, frozenset[str]] = {
    route: frozenset(FULL_SCOPE if s == _F else SCOPE_PREFIX + "gmail." + s for s in short)
    for route, short in _ROUTE_SCOPES_SHORT.items()
}

# Routes that carry message content; with only gmail.metadata they are limited.
_METADATA_SCOPE = SCOPE_PREFIX + "gmail.metadata"
_CONTENT_GET_ROUTES = frozenset({"messages.get", "threads.get", "drafts.get"})

_GOOGLE_METHOD_NAMES = {
    "messages.list": "ListMessages",
    "messages.get": "GetMessage",
    "messages.send": "SendMessage",
    "messages.modify": "ModifyMessage",
    "messages.batchModify": "BatchModifyMessages",
    "messages.trash": "TrashMessage",
    "messages.untrash": "UntrashMessage",
    "drafts.create": "CreateDraft",
    "drafts.send": "SendDraft",
    "messages.insert": "InsertMessage",
    "messages.import": "ImportMessage",
    "threads.modify": "ModifyThread",
    "threads.trash": "TrashThread",
    "threads.untrash": "UntrashThread",
    "labels.create": "CreateLabel",
    "labels.patch": "PatchLabel",
    "labels.update": "UpdateLabel",
    "labels.delete": "DeleteLabel",
    "settings.filters.create": "CreateFilter",
    "settings.filters.delete": "DeleteFilter",
}


def _utc_iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


@dataclass
class _AccessToken:
    scopes: tuple[str, ...]
    expires_at: float
    mailbox: str = DEFAULT_MAILBOX
    revoked: bool = False


@dataclass
class _RefreshToken:
    scopes: tuple[str, ...]
    client_id: str
    mailbox: str = DEFAULT_MAILBOX
    revoked: bool = False


class TokenStore:
    """Issues and checks tokens. Thread-safe.

    Every token is bound to a named mailbox (``"default"`` unless told otherwise); a refresh
    or an authorization-code exchange keeps the binding, and ``authorize`` answers it, so one
    emulator can serve several accounts told apart by their tokens."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._access: dict[str, _AccessToken] = {}
        self._refresh: dict[str, _RefreshToken] = {}
        self._codes: dict[str, tuple[tuple[str, ...], str]] = {}

    # ----- issuing -----------------------------------------------------------------------
    def _new_access(self, scopes: tuple[str, ...], mailbox: str) -> str:
        token = "ya29.emu-" + secrets.token_urlsafe(24)
        self._access[token] = _AccessToken(scopes, self._clock() + ACCESS_TOKEN_LIFETIME, mailbox)
        return token

    def _new_refresh(self, scopes: tuple[str, ...], client_id: str, mailbox: str) -> str:
        token = "1//emu-" + secrets.token_urlsafe(24)
        self._refresh[token] = _RefreshToken(scopes, client_id, mailbox)
        return token

    def issue_token(self, scopes: Iterable[str], token_uri: str, mailbox: str = DEFAULT_MAILBOX) -> dict[str, Any]:
        """An authorized-user dict shaped like what google-auth's ``Credentials.to_json()`` writes."""
        scope_tuple = tuple(scopes)
        with self._lock:
            access = self._new_access(scope_tuple, mailbox)
            refresh = self._new_refresh(scope_tuple, CLIENT_ID, mailbox)
            expires_at = self._access[access].expires_at
        return {
            "token": access,
            "refresh_token": refresh,
            "token_uri": token_uri,
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "scopes": list(scope_tuple),
            "universe_domain": "googleapis.com",
            "account": "",
            "expiry": _utc_iso(expires_at),
        }

    def issue_auth_code(self, scopes: Iterable[str], mailbox: str = DEFAULT_MAILBOX) -> str:
        code = "4/emu-" + secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = (tuple(scopes), mailbox)
        return code

    def mailbox_of(self, authorization: str | None) -> str | None:
        """The mailbox a bearer token is bound to (valid or not; None for an unknown token)."""
        token = _bearer(authorization)
        with self._lock:
            entry = self._access.get(token) if token else None
            return entry.mailbox if entry is not None else None

    def expire_access_token(self, access_token: str) -> None:
        with self._lock:
            tok = self._access.get(access_token)
            if tok is not None:
                tok.revoked = True

    def revoke_refresh_token(self, refresh_token: str) -> None:
        with self._lock:
            tok = self._refresh.get(refresh_token)
            if tok is not None:
                tok.revoked = True

    # ----- checking ----------------------------------------------------------------------
    def authorize(self, authorization: str | None, route: str, fmt: str | None, has_q: bool) -> str:
        """The mailbox the bearer token is bound to; raises a Google-style 401/403 ``ApiError``
        unless the token is valid and may call ``route``."""
        token = _bearer(authorization)
        with self._lock:
            entry = self._access.get(token) if token else None
            valid = entry is not None and not entry.revoked and entry.expires_at > self._clock()
            scopes = entry.scopes if entry is not None else ()
            mailbox = entry.mailbox if entry is not None else DEFAULT_MAILBOX
        if not valid:
            raise ApiError(
                401,
                "authError",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, "
                "login cookie or other valid authentication credential. "
                "See https://developers.google.com/identity/sign-in/web/devconsole-project.",
                headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'},
                extra={"location": "Authorization", "locationType": "header"},
            )
        allowed = ROUTE_SCOPES.get(route)
        if allowed is None:
            return mailbox
        granted = allowed.intersection(scopes)
        if not granted:
            raise _insufficient_scope(route)
        if granted == {_METADATA_SCOPE}:
            if has_q:
                raise ApiError(403, "forbidden", "Metadata scope does not support 'q' parameter")
            if fmt in ("full", "raw") or (fmt is None and route in _CONTENT_GET_ROUTES):
                raise ApiError(403, "forbidden", f"Metadata scope doesn't allow format {(fmt or 'full').upper()}")
        return mailbox

    # ----- token endpoint ----------------------------------------------------------------
    def token_endpoint(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        grant = form.get("grant_type", "")
        with self._lock:
            if grant == "refresh_token":
                refresh = form.get("refresh_token", "")
                entry = self._refresh.get(refresh)
                if entry is None or entry.revoked:
                    return 400, {
                        "error": "invalid_grant",
                        "error_description": "Token has been expired or revoked.",
                    }
                client = form.get("client_id")
                if client is not None and client != entry.client_id:
                    return 401, {"error": "invalid_client", "error_description": "The OAuth client was not found."}
                requested = tuple(form.get("scope", "").split())
                if requested and not set(requested) <= set(entry.scopes):
                    return 400, {
                        "error": "invalid_scope",
                        "error_description": "Some requested scopes were invalid.",
                    }
                scopes = requested or entry.scopes
                access = self._new_access(scopes, entry.mailbox)
                return 200, {
                    "access_token": access,
                    "expires_in": ACCESS_TOKEN_LIFETIME,
                    "scope": " ".join(scopes),
                    "token_type": "Bearer",
                }
            if grant == "authorization_code":
                code = form.get("code", "")
                grant_or_none = self._codes.pop(code, None)
                if grant_or_none is None:
                    return 400, {"error": "invalid_grant", "error_description": "Malformed auth code."}
                code_scopes, code_mailbox = grant_or_none
                access = self._new_access(code_scopes, code_mailbox)
                refresh = self._new_refresh(code_scopes, form.get("client_id") or CLIENT_ID, code_mailbox)
                return 200, {
                    "access_token": access,
                    "expires_in": ACCESS_TOKEN_LIFETIME,
                    "refresh_token": refresh,
                    "scope": " ".join(code_scopes),
                    "token_type": "Bearer",
                }
        return 400, {
            "error": "unsupported_grant_type",
            "error_description": f"Invalid grant_type: {grant}",
        }


def _bearer(authorization: str | None) -> str:
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "bearer":
            return value.strip()
    return ""


def _insufficient_scope(route: str) -> ApiError:
    method = _GOOGLE_METHOD_NAMES.get(route, route)
    return ApiError(
        403,
        "insufficientPermissions",
        "Request had insufficient authentication scopes.",
        extra={"message": "Insufficient Permission"},
        headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/", error="insufficient_scope"'},
        details=[
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
                "domain": "googleapis.com",
                "metadata": {
                    "service": "gmail.googleapis.com",
                    "method": f"caribou.api.proto.MailboxService.{method}",
                },
            }
        ],
    )
