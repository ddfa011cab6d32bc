"""Fault injection through the real client: errors, fail-N-then-succeed, delays, malformed bodies,
dropped connections (before and after commit), latency, and the HTTP control API."""

from __future__ import annotations

import base64
import json
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from google.auth.exceptions import RefreshError
from googleapiclient.errors import HttpError


def raw_message(msgid: str) -> dict[str, str]:
    raw = f"To: bob@example.com\r\nSubject: fault test\r\nMessage-ID: {msgid}\r\n\r\nhi\r\n".encode()
    return {"raw": base64.urlsafe_b64encode(raw).decode()}


def wait_for(predicate: Callable[[], bool], timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_status_reason_and_retry_after(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="messages.list", status=403, reason="userRateLimitExceeded", retry_after=30))
    with pytest.raises(HttpError) as err:
        svc.users().messages().list(userId="me").execute()
    assert err.value.resp.status == 403 and err.value.resp["retry-after"] == "30"
    assert json.loads(err.value.content) == {
        "error": {
            "code": 403,
            "message": "User-rate limit exceeded.",
            "errors": [
                {"message": "User-rate limit exceeded.", "domain": "usageLimits", "reason": "userRateLimitExceeded"}
            ],
            "status": "PERMISSION_DENIED",
        }
    }
    assert svc.users().messages().list(userId="me", maxResults=1).execute()["messages"]  # times=1: exhausted

    emu.add_fault(Fault(route="messages.get", status=500, message="boom"))
    with pytest.raises(HttpError) as err:
        svc.users().messages().get(userId="me", id=emu.seeded["status"]).execute()
    body = json.loads(err.value.content)["error"]
    assert (body["message"], body["status"], body["errors"][0]["reason"]) == ("boom", "INTERNAL", "backendError")


def test_fail_n_times_then_succeed(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="messages.get", status=503, times=2))
    request = svc.users().messages().get(userId="me", id=emu.seeded["status"], format="minimal")
    request._sleep = lambda _seconds: None  # skip googleapiclient's backoff sleeps
    assert request.execute(num_retries=3)["id"] == emu.seeded["status"]
    assert [r.status for r in emu.request_log()] == [503, 503, 200]
    assert [r.fault for r in emu.request_log()] == ["messages.get 503", "messages.get 503", None]


def test_forever_any_route_and_clear(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="*", status=502, times=None))
    for request in (svc.users().getProfile(userId="me"), svc.users().labels().list(userId="me")):
        with pytest.raises(HttpError) as err:
            request.execute()
        assert err.value.resp.status == 502
    assert len(emu.faults()) == 1
    emu.clear_faults()
    assert svc.users().getProfile(userId="me").execute()["emailAddress"] == "me@example.com"


def test_delay_provokes_client_timeout(emu: Emulator, service_for: Callable[..., Any]) -> None:
    svc = service_for(timeout=0.3)
    emu.add_fault(Fault(route="messages.list", delay=0.8))
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        svc.users().messages().list(userId="me").execute()
    assert time.monotonic() - started < 0.7
    # delay-only faults then serve the request normally (it is logged when it finishes)
    assert wait_for(lambda: any(r.route == "messages.list" for r in emu.request_log()))
    assert emu.request_log()[0].status == 200


def test_timed_out_send_still_commits(emu: Emulator, service_for: Callable[..., Any]) -> None:
    svc = service_for(timeout=0.3)
    emu.add_fault(Fault(route="messages.send", delay=0.6))
    with pytest.raises(TimeoutError):
        svc.users().messages().send(userId="me", body=raw_message("<slow-1@client>")).execute()
    assert wait_for(lambda: len(emu.mailbox.sent_messages_with_header("Message-ID", "<slow-1@client>")) == 1)


def test_malformed_body(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="messages.list", malformed_body=True))
    result = svc.users().messages().list(userId="me").execute()
    assert isinstance(result, str)  # googleapiclient hands back the undecodable text
    with pytest.raises(json.JSONDecodeError):
        json.loads(result)
    assert emu.request_log()[-1].status == 200


def test_drop_connection_before_commit_stores_nothing(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="messages.send", drop_connection=True))
    with pytest.raises(ConnectionError):
        svc.users().messages().send(userId="me", body=raw_message("<drop-0@client>")).execute()
    assert emu.mailbox.sent_messages_with_header("Message-ID", "<drop-0@client>") == []
    assert emu.request_log()[-1].status == 0


def test_drop_connection_after_commit_stores_exactly_once(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="messages.send", drop_connection=True, after_commit=True))
    with pytest.raises(ConnectionError):
        svc.users().messages().send(userId="me", body=raw_message("<drop-1@client>")).execute()
    stored = emu.mailbox.sent_messages_with_header("Message-ID", "<drop-1@client>")
    assert len(stored) == 1  # committed, and httplib2 did not silently resend the POST
    assert [r.route for r in emu.request_log()] == ["messages.send"]
    found = svc.users().messages().list(userId="me", q="rfc822msgid:drop-1@client in:sent").execute()
    assert [m["id"] for m in found["messages"]] == stored


def test_server_error_after_commit(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="messages.send", status=500, after_commit=True))
    with pytest.raises(HttpError) as err:
        svc.users().messages().send(userId="me", body=raw_message("<commit-500@client>")).execute()
    assert err.value.resp.status == 500
    assert len(emu.mailbox.sent_messages_with_header("Message-ID", "<commit-500@client>")) == 1


def test_token_endpoint_fault(emu: Emulator, service_for: Callable[..., Any]) -> None:
    tok = emu.issue_token()
    svc = service_for(token=tok)
    emu.expire_access_token(tok["token"])
    emu.add_fault(Fault(route="token", status=400, reason="invalid_grant", message="Bad Request"))
    with pytest.raises(RefreshError, match="invalid_grant"):
        svc.users().getProfile(userId="me").execute()
    assert svc.users().getProfile(userId="me").execute()["emailAddress"] == "me@example.com"


def test_latency(emu: Emulator, svc: Any) -> None:
    emu.set_latency(0.25)
    started = time.monotonic()
    svc.users().getProfile(userId="me").execute()
    assert time.monotonic() - started >= 0.25
    emu.set_latency(0)


def _control(emu: Emulator, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        emu.base_url + "_emulator/" + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_http_control_api(emu: Emulator, svc: Any) -> None:
    status, tok = _control(emu, "POST", "token", {"scopes": ["https://www.googleapis.com/auth/gmail.readonly"]})
    assert status == 200 and tok["scopes"] == ["https://www.googleapis.com/auth/gmail.readonly"]
    status, _ = _control(emu, "POST", "faults", {"route": "profile", "status": 429, "times": 1})
    assert status == 200
    assert len(_control(emu, "GET", "faults")[1]["faults"]) == 1
    with pytest.raises(HttpError) as err:
        svc.users().getProfile(userId="me").execute()
    assert err.value.resp.status == 429
    _control(emu, "POST", "faults", {"route": "profile", "status": 500, "times": None})
    assert _control(emu, "DELETE", "faults")[0] == 200
    svc.users().getProfile(userId="me").execute()
    status, log = _control(emu, "GET", "requests")
    assert [(r["route"], r["status"]) for r in log["requests"]] == [("profile", 429), ("profile", 200)]
    assert log["counts"] == {"profile": 2}
    assert _control(emu, "DELETE", "requests")[0] == 200
    assert emu.request_log() == []
    status, body = _control(emu, "POST", "faults", {"route": "x", "bogus": 1})
    assert status == 400 and "bogus" in body["error"]["message"]


def test_http_control_api_mailbox_and_tokens(emu: Emulator) -> None:
    raw = b"From: x@example.org\r\nTo: me@example.com\r\nSubject: planted\r\nMessage-ID: <p-1@x>\r\n\r\nhi\r\n"
    status, planted = _control(
        emu,
        "POST",
        "messages",
        {"raw": base64.urlsafe_b64encode(raw).decode(), "labelIds": ["INBOX"], "internalDate": 1790000000000},
    )
    assert status == 200 and emu.mailbox.get_raw(planted["id"]) == raw
    status, got = _control(emu, "GET", f"messages/{planted['id']}/raw")
    assert base64.urlsafe_b64decode(got["raw"]) == raw
    assert _control(emu, "GET", "messages/0000/raw")[0] == 404
    assert _control(emu, "GET", "sent?header=Message-ID&value=%3Cdinner_1%40seed.example.com%3E")[1] == {
        "ids": [emu.seeded["dinner_1"]]
    }
    assert _control(emu, "GET", "seeded")[1]["messages"] == emu.seeded
    assert _control(emu, "POST", "auth_code", {})[1]["code"].startswith("4/")
    tok = _control(emu, "POST", "token", {})[1]
    assert _control(emu, "POST", "expire_token", {"access_token": tok["token"]})[0] == 200
    assert _control(emu, "POST", "revoke_token", {"refresh_token": tok["refresh_token"]})[0] == 200
    assert _control(emu, "POST", "latency", {"seconds": 0.05})[0] == 200
    assert emu.current_latency() == 0.05
    assert _control(emu, "GET", "nope")[0] == 404
