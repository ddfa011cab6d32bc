"""The batch endpoint as googleapiclient's BatchHttpRequest uses it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from googleapiclient.errors import HttpError

Results = dict[str, tuple[Any, Exception | None]]


def collect(results: Results) -> Callable[[str, Any, Exception | None], None]:
    def callback(request_id: str, response: Any, exception: Exception | None) -> None:
        results[request_id] = (response, exception)

    return callback


def all_ids(emu: Emulator) -> list[str]:
    return emu.mailbox.message_ids()


def test_batch_of_20_gets_is_one_round_trip(emu: Emulator, svc: Any) -> None:
    ids = all_ids(emu)[:20]
    results: Results = {}
    batch = svc.new_batch_http_request(callback=collect(results))
    for mid in ids:
        batch.add(
            svc.users().messages().get(userId="me", id=mid, format="metadata", metadataHeaders=["Subject"]),
            request_id=mid,
        )
    batch.execute()
    assert set(results) == set(ids)
    for mid, (resp, exc) in results.items():
        assert exc is None and resp["id"] == mid
        assert [h["name"] for h in resp["payload"]["headers"]] == ["Subject"]
    log = emu.request_log()
    outer = [r for r in log if not r.in_batch]
    # The packaged discovery document says batchPath "batch": googleapiclient posts to <rootUrl>batch.
    assert [(r.route, r.path, r.method, r.status) for r in outer] == [("batch", "/batch", "POST", 200)]
    assert svc._rootDesc["batchPath"] == "batch"
    parts = [r for r in log if r.in_batch]
    assert len(parts) == 20 and {r.route for r in parts} == {"messages.get"}
    assert parts[0].query["metadataHeaders"] == ["Subject"]
    assert emu.request_counts() == {"batch": 1}
    assert emu.request_counts(include_batch_parts=True) == {"batch": 1, "messages.get": 20}


def test_search_is_two_round_trips(emu: Emulator, svc: Any) -> None:
    listing = svc.users().messages().list(userId="me", q="label:projects").execute()
    results: Results = {}
    batch = svc.new_batch_http_request(callback=collect(results))
    for m in listing["messages"]:
        batch.add(svc.users().messages().get(userId="me", id=m["id"], format="full"))
    batch.execute()
    subjects = sorted(
        next(h["value"] for h in r["payload"]["headers"] if h["name"] == "Subject") for r, _e in results.values()
    )
    assert subjects[0] == "Atlas status update - week 47" and len(subjects) == 6
    assert emu.request_counts() == {"messages.list": 1, "batch": 1}


def test_faults_hit_individual_parts(emu: Emulator, svc: Any) -> None:
    emu.add_fault(Fault(route="messages.get", status=429, reason="rateLimitExceeded", times=3, retry_after=2))
    results: Results = {}
    batch = svc.new_batch_http_request(callback=collect(results))
    for mid in all_ids(emu)[:10]:
        batch.add(svc.users().messages().get(userId="me", id=mid, format="minimal"))
    batch.execute()
    failed = [exc for _r, exc in results.values() if exc is not None]
    assert len(failed) == 3 and len(results) == 10
    for exc in failed:
        assert isinstance(exc, HttpError)
        assert exc.resp.status == 429 and exc.resp["retry-after"] == "2"
        assert exc.error_details[0] == {
            "message": "Rate Limit Exceeded",
            "domain": "usageLimits",
            "reason": "rateLimitExceeded",
        }
    assert sum(1 for r in emu.request_log() if r.in_batch and r.status == 429) == 3


def test_mixed_methods_in_one_batch(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["promo"]
    results: Results = {}
    batch = svc.new_batch_http_request(callback=collect(results))
    batch.add(svc.users().messages().modify(userId="me", id=mid, body={"removeLabelIds": ["UNREAD"]}), request_id="m")
    batch.add(svc.users().messages().get(userId="me", id="0000000000000000"), request_id="missing")
    batch.add(svc.users().labels().get(userId="me", id="INBOX"), request_id="label")
    batch.execute()
    assert "UNREAD" not in results["m"][0]["labelIds"]
    missing_exc = results["missing"][1]
    assert isinstance(missing_exc, HttpError) and missing_exc.resp.status == 404
    assert results["label"][0]["id"] == "INBOX"
    assert "UNREAD" not in emu.mailbox.label_ids(mid)


def test_expired_token_inside_batch_is_refreshed_and_parts_redone(
    emu: Emulator, service_for: Callable[..., Any]
) -> None:
    tok = emu.issue_token()
    svc = service_for(token=tok)
    emu.expire_access_token(tok["token"])
    results: Results = {}
    batch = svc.new_batch_http_request(callback=collect(results))
    for mid in all_ids(emu)[:3]:
        batch.add(svc.users().messages().get(userId="me", id=mid, format="minimal"))
    batch.execute()
    assert all(exc is None for _r, exc in results.values())
    assert [r.route for r in emu.request_log() if not r.in_batch] == ["batch", "token", "batch"]


def test_batch_limits_and_outer_faults(emu: Emulator, svc: Any) -> None:
    batch = svc.new_batch_http_request()
    for _ in range(101):
        batch.add(svc.users().getProfile(userId="me"))
    with pytest.raises(HttpError) as err:
        batch.execute()
    assert err.value.resp.status == 400
    emu.add_fault(Fault(route="batch", status=503))
    batch = svc.new_batch_http_request()
    batch.add(svc.users().getProfile(userId="me"))
    with pytest.raises(HttpError) as err:
        batch.execute()
    assert err.value.resp.status == 503
    assert not [r for r in emu.request_log() if r.in_batch]
