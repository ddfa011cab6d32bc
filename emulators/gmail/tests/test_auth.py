"""Bearer/scope checks, the token endpoint (refresh, invalid_grant, authorization_code), the
authorization-endpoint stand-in."""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from gmail_emulator import Emulator
from google.auth.exceptions import RefreshError
from googleapiclient.errors import HttpError

MODIFY = "https://www.googleapis.com/auth/gmail.modify"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
COMPOSE = "https://www.googleapis.com/auth/gmail.compose"
METADATA = "https://www.googleapis.com/auth/gmail.metadata"
FULL = "https://mail.google.com/"


def call(
    emu: Emulator, method: str, path: str, *, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", emu.port, timeout=5)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def token_post(emu: Emulator, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
    status, _h, body = call(
        emu,
        "POST",
        "/token",
        body=urllib.parse.urlencode(form).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    return status, json.loads(body)


def test_issued_token_shape(emu: Emulator) -> None:
    tok = emu.issue_token()
    assert set(tok) == {
        "token",
        "refresh_token",
        "token_uri",
        "client_id",
        "client_secret",
        "scopes",
        "expiry",
        "universe_domain",
        "account",
    }
    assert tok["token_uri"] == emu.base_url + "token" == emu.token_uri
    assert tok["scopes"] == [MODIFY]
    expiry = datetime.strptime(tok["expiry"].rstrip("Z").split(".")[0], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    assert 3500 < expiry.timestamp() - time.time() < 3700


def test_missing_or_unknown_bearer_is_401(emu: Emulator) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-token"}):
        status, hdrs, body = call(emu, "GET", "/gmail/v1/users/me/messages", headers=headers)
        err = json.loads(body)["error"]
        assert status == 401 and err["code"] == 401 and err["status"] == "UNAUTHENTICATED"
        assert err["errors"][0]["reason"] == "authError"
        assert hdrs["www-authenticate"].startswith("Bearer")


def test_expired_access_token_is_refreshed_by_the_client(emu: Emulator, service_for: Callable[..., Any]) -> None:
    tok = emu.issue_token()
    svc = service_for(token=tok)
    emu.expire_access_token(tok["token"])
    assert svc.users().getProfile(userId="me").execute()["emailAddress"] == "me@example.com"
    assert [(r.route, r.status) for r in emu.request_log()] == [("profile", 401), ("token", 200), ("profile", 200)]


def test_revoked_refresh_token_gives_invalid_grant(emu: Emulator, service_for: Callable[..., Any]) -> None:
    tok = emu.issue_token()
    svc = service_for(token=tok)
    emu.expire_access_token(tok["token"])
    emu.revoke_refresh_token(tok["refresh_token"])
    with pytest.raises(RefreshError, match="invalid_grant"):
        svc.users().getProfile(userId="me").execute()
    status, body = token_post(
        emu,
        {
            "grant_type": "refresh_token",
            "refresh_token": tok["refresh_token"],
            "client_id": tok["client_id"],
            "client_secret": tok["client_secret"],
        },
    )
    assert (status, body) == (
        400,
        {"error": "invalid_grant", "error_description": "Token has been expired or revoked."},
    )


def test_refresh_grant_shape(emu: Emulator) -> None:
    tok = emu.issue_token([READONLY])
    status, body = token_post(
        emu,
        {
            "grant_type": "refresh_token",
            "refresh_token": tok["refresh_token"],
            "client_id": tok["client_id"],
            "client_secret": tok["client_secret"],
        },
    )
    assert status == 200
    assert set(body) == {"access_token", "expires_in", "scope", "token_type"}
    assert (body["expires_in"], body["scope"], body["token_type"]) == (3599, READONLY, "Bearer")
    status, _h, _b = call(
        emu, "GET", "/gmail/v1/users/me/profile", headers={"Authorization": "Bearer " + body["access_token"]}
    )
    assert status == 200
    status, body = token_post(emu, {"grant_type": "refresh_token", "refresh_token": "1//unknown"})
    assert status == 400 and body["error"] == "invalid_grant"


def test_readonly_scope_cannot_mutate(emu: Emulator, service_for: Callable[..., Any]) -> None:
    svc = service_for((READONLY,))
    assert svc.users().messages().list(userId="me", maxResults=1).execute()["messages"]
    mid = emu.seeded["status"]
    calls = [
        svc.users().messages().modify(userId="me", id=mid, body={"removeLabelIds": ["UNREAD"]}),
        svc.users().messages().trash(userId="me", id=mid),
        svc.users().messages().send(userId="me", body={"raw": "eA=="}),
        svc.users().drafts().create(userId="me", body={"message": {"raw": "eA=="}}),
    ]
    for request in calls:
        with pytest.raises(HttpError) as err:
            request.execute()
        assert err.value.resp.status == 403
        error = json.loads(err.value.content)["error"]
        assert error["status"] == "PERMISSION_DENIED"
        assert error["errors"][0]["reason"] == "insufficientPermissions"
        assert error["message"] == "Request had insufficient authentication scopes."
    assert "UNREAD" in emu.mailbox.label_ids(mid)


def test_compose_metadata_and_full_scopes(emu: Emulator, service_for: Callable[..., Any]) -> None:
    compose = service_for((COMPOSE,))
    assert compose.users().drafts().list(userId="me").execute()["resultSizeEstimate"] == 1
    with pytest.raises(HttpError) as err:
        compose.users().messages().list(userId="me").execute()
    assert err.value.resp.status == 403

    meta = service_for((METADATA,))
    mid = emu.seeded["status"]
    assert meta.users().messages().get(userId="me", id=mid, format="metadata").execute()["payload"]["headers"]
    for request in (
        meta.users().messages().get(userId="me", id=mid),
        meta.users().messages().list(userId="me", q="from:alice"),
    ):
        with pytest.raises(HttpError) as err:
            request.execute()
        assert err.value.resp.status == 403

    full = service_for((FULL,))
    full.users().messages().modify(userId="me", id=mid, body={"removeLabelIds": ["UNREAD"]}).execute()
    assert "UNREAD" not in emu.mailbox.label_ids(mid)


def test_authorization_code_exchange(emu: Emulator) -> None:
    code = emu.issue_auth_code([MODIFY])
    status, body = token_post(
        emu, {"grant_type": "authorization_code", "code": code, "redirect_uri": "http://127.0.0.1:1/"}
    )
    assert status == 200 and body["scope"] == MODIFY and body["refresh_token"] and body["access_token"]
    status, body = token_post(emu, {"grant_type": "authorization_code", "code": code})
    assert status == 400 and body["error"] == "invalid_grant"  # codes are single use


def test_installed_app_flow_against_the_stand_in(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    from google_auth_oauthlib.flow import Flow

    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")  # oauthlib insists on https otherwise
    config = {
        "installed": {
            "client_id": "cid",
            "client_secret": "secret",
            "auth_uri": emu.auth_uri,
            "token_uri": emu.token_uri,
            "redirect_uris": ["http://127.0.0.1"],
        }
    }
    flow = Flow.from_client_config(config, scopes=[MODIFY], redirect_uri="http://127.0.0.1:9/callback")
    url, state = flow.authorization_url()
    status, headers, _ = call(emu, "GET", url.removeprefix(emu.base_url.rstrip("/")))
    assert status == 302
    location = urllib.parse.urlparse(headers["location"])
    assert location.path == "/callback"
    params = urllib.parse.parse_qs(location.query)
    assert params["state"] == [state]
    flow.fetch_token(code=params["code"][0])
    creds = flow.credentials
    assert creds.refresh_token and creds.token
    status, _h, _b = call(emu, "GET", "/gmail/v1/users/me/profile", headers={"Authorization": f"Bearer {creds.token}"})
    assert status == 200
