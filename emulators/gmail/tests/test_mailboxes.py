"""Several accounts in one emulator: tokens bound to mailboxes, profile, isolation, request log."""

from __future__ import annotations

import base64
import json
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from gmail_emulator import Emulator
from googleapiclient.errors import HttpError

MODIFY = "https://www.googleapis.com/auth/gmail.modify"


def rfc822(subject: str, sender: str = "Ann <ann@example.org>", to: str = "work@example.com") -> bytes:
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\nbody\r\n"
    ).encode()


def test_tokens_pick_the_mailbox_and_profile_answers_it(emu: Emulator, build: Callable[..., Any]) -> None:
    work = emu.add_mailbox("work", "ann@work.example", "Ann Work")
    assert emu.add_mailbox("work", "ann@work.example") is work  # idempotent
    emu.add_message(rfc822("hello work"), mailbox="work")
    a = build(emu)  # default token -> default mailbox
    b = build(emu, emu.issue_token([MODIFY], mailbox="work"))
    profile_a = a.users().getProfile(userId="me").execute()
    profile_b = b.users().getProfile(userId="me").execute()
    assert profile_a["emailAddress"] == "me@example.com" and profile_a["messagesTotal"] == len(emu.seeded)
    assert profile_b == {
        "emailAddress": "ann@work.example",
        "messagesTotal": 1,
        "threadsTotal": 1,
        "historyId": profile_b["historyId"],
    }
    assert int(profile_b["historyId"]) > 0
    assert [r.mailbox for r in emu.request_log()] == ["default", "work"]
    # the user id may be the token's own address, never another account's
    assert b.users().getProfile(userId="ann@work.example").execute()["emailAddress"] == "ann@work.example"
    with pytest.raises(HttpError) as err:
        b.users().getProfile(userId="me@example.com").execute()
    assert err.value.resp.status == 403 and "Delegation denied" in err.value.reason


def test_mailbox_created_on_first_use(emu: Emulator, build: Callable[..., Any]) -> None:
    svc = build(emu, emu.issue_token(mailbox="bob@corp.example"))
    profile = svc.users().getProfile(userId="me").execute()
    assert profile["emailAddress"] == "bob@corp.example" and profile["messagesTotal"] == 0
    assert svc.users().messages().list(userId="me").execute() == {"resultSizeEstimate": 0}
    assert emu.mailbox_for("shop").email_address == "shop@example.com"
    with pytest.raises(ValueError):
        emu.add_mailbox("other", "bob@corp.example")  # an address belongs to one mailbox
    seeded = emu.add_mailbox("copy", "copy@example.com", seed=True)
    assert set(emu.seeded_ids("copy")) == set(emu.seeded) and len(seeded) == len(emu.mailbox)
    assert emu.seeded_ids("copy") != emu.seeded  # ids are per mailbox
    assert emu.seeded_ids("shop") == {}


def test_actions_on_b_never_touch_a(emu: Emulator, build: Callable[..., Any]) -> None:
    emu.add_mailbox("work", "ann@work.example")
    mid_b = emu.add_message(rfc822("only in work"), mailbox="work")
    b = build(emu, emu.issue_token([MODIFY], mailbox="work"))
    before_a = {mid: emu.label_ids(mid) for mid in emu.message_ids()}
    labels_a = emu.mailbox.list_labels()
    emu.clear_requests()

    # B cannot see A's messages or labels, even by id
    with pytest.raises(HttpError) as err:
        b.users().messages().get(userId="me", id=emu.seeded["status"]).execute()
    assert err.value.resp.status == 404
    with pytest.raises(HttpError) as err:
        b.users().labels().get(userId="me", id="Label_1").execute()
    assert err.value.resp.status == 404
    with pytest.raises(HttpError) as err:
        b.users().messages().batchModify(
            userId="me", body={"ids": [emu.seeded["status"]], "addLabelIds": ["STARRED"]}
        ).execute()
    assert err.value.resp.status == 404
    # B works on its own mailbox
    created = b.users().labels().create(userId="me", body={"name": "Projects"}).execute()  # A has one too
    assert created["id"] == "Label_1"
    b.users().messages().modify(userId="me", id=mid_b, body={"addLabelIds": ["Label_1", "STARRED"]}).execute()
    b.users().messages().trash(userId="me", id=mid_b).execute()
    sent = b.users().messages().send(userId="me", body={"raw": base64.urlsafe_b64encode(rfc822("out")).decode()})
    sent_id = sent.execute()["id"]

    assert {mid: emu.label_ids(mid) for mid in emu.message_ids()} == before_a
    assert emu.mailbox.list_labels() == labels_a
    assert sent_id in emu.message_ids("SENT", mailbox="work") and sent_id not in emu.message_ids()
    assert emu.label_ids(mid_b, mailbox="work") == ["UNREAD", "Label_1", "STARRED", "TRASH"]
    assert {r.mailbox for r in emu.request_log()} == {"work"}
    assert emu.requests_for("default") == []
    assert len(emu.requests_for("work")) == 7


def test_refresh_and_code_exchange_keep_the_binding(emu: Emulator, build: Callable[..., Any]) -> None:
    emu.add_mailbox("work", "ann@work.example")
    tok = emu.issue_token([MODIFY], mailbox="work")
    svc = build(emu, tok)
    emu.expire_access_token(tok["token"])
    assert svc.users().getProfile(userId="me").execute()["emailAddress"] == "ann@work.example"
    assert [(r.route, r.status, r.mailbox) for r in emu.request_log()] == [
        ("profile", 401, "work"),
        ("token", 200, None),
        ("profile", 200, "work"),
    ]
    code = emu.issue_auth_code([MODIFY], mailbox="work")
    form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code}).encode()
    with urllib.request.urlopen(emu.token_uri, data=form, timeout=5) as resp:
        access = json.loads(resp.read())["access_token"]
    req = urllib.request.Request(
        emu.base_url + "gmail/v1/users/me/profile", headers={"Authorization": f"Bearer {access}"}
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        assert json.loads(resp.read())["emailAddress"] == "ann@work.example"


def test_login_hint_picks_the_mailbox_of_the_auth_stand_in(emu: Emulator) -> None:
    emu.add_mailbox("work", "ann@work.example")
    query = urllib.parse.urlencode(
        {"redirect_uri": "http://127.0.0.1:9/cb", "scope": MODIFY, "login_hint": "ann@work.example"}
    )

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as err:
        opener.open(emu.auth_uri + "?" + query, timeout=5)
    location = err.value.headers["Location"]
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code}).encode()
    with urllib.request.urlopen(emu.token_uri, data=form, timeout=5) as resp:
        access = json.loads(resp.read())["access_token"]
    assert emu.tokens.mailbox_of(f"Bearer {access}") == "work"


def test_batch_parts_use_their_own_tokens_mailbox(emu: Emulator, build: Callable[..., Any]) -> None:
    emu.add_mailbox("work", "ann@work.example")
    mid_b = emu.add_message(rfc822("batch me"), mailbox="work")
    b = build(emu, emu.issue_token([MODIFY], mailbox="work"))
    results: dict[str, Any] = {}
    batch = b.new_batch_http_request(callback=lambda rid, resp, exc: results.__setitem__(rid, (resp, exc)))
    batch.add(b.users().messages().get(userId="me", id=mid_b, format="minimal"), request_id="b")
    batch.add(b.users().messages().get(userId="me", id=emu.seeded["status"], format="minimal"), request_id="a")
    batch.execute()
    assert results["b"][0]["id"] == mid_b
    assert isinstance(results["a"][1], HttpError) and results["a"][1].resp.status == 404
    assert {r.mailbox for r in emu.request_log()} == {"work"}


def test_control_api_takes_a_mailbox(emu: Emulator) -> None:
    def control(method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            emu.base_url + "_emulator/" + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            return json.loads(resp.read())

    emu.start()
    assert control("POST", "mailboxes", {"name": "work", "emailAddress": "ann@work.example"}) == {
        "name": "work",
        "emailAddress": "ann@work.example",
    }
    assert {"name": "work", "emailAddress": "ann@work.example"} in control("GET", "mailboxes")["mailboxes"]
    tok = control("POST", "token", {"mailbox": "work"})
    assert emu.tokens.mailbox_of("Bearer " + tok["token"]) == "work"
    raw = rfc822("planted in work")
    planted = control("POST", "messages", {"mailbox": "work", "raw": base64.urlsafe_b64encode(raw).decode()})
    assert emu.message_ids(mailbox="work") == [planted["id"]]
    got = control("GET", f"messages/{planted['id']}/raw?mailbox=work")
    assert base64.urlsafe_b64decode(got["raw"]) == raw
    assert control("GET", "seeded?mailbox=work") == {"messages": {}, "drafts": {}}


def test_listing_pages_and_trash_by_query_in_a_big_mailbox(emu: Emulator, build: Callable[..., Any]) -> None:
    """1100 matching messages: list pages of at most 500, then batchModify chunks of at most 1000."""
    emu.add_mailbox("big", "big@example.com")
    for i in range(1100):
        emu.add_message(rfc822(f"newsletter {i}", sender="news@shop.example", to="big@example.com"), mailbox="big")
    emu.add_message(rfc822("keep me", to="big@example.com"), mailbox="big")
    svc = build(emu, emu.issue_token([MODIFY], mailbox="big"))
    ids: list[str] = []
    token = None
    while True:
        page = svc.users().messages().list(userId="me", q="from:news@shop.example", maxResults=500, pageToken=token)
        resp = page.execute()
        assert len(resp["messages"]) <= 500 and resp["resultSizeEstimate"] == 1100
        ids += [m["id"] for m in resp["messages"]]
        token = resp.get("nextPageToken")
        if not token:
            break
    assert len(ids) == len(set(ids)) == 1100
    with pytest.raises(HttpError) as err:
        svc.users().messages().batchModify(userId="me", body={"ids": ids, "addLabelIds": ["TRASH"]}).execute()
    assert err.value.resp.status == 400  # over 1000 ids
    for start in range(0, len(ids), 1000):
        body = {"ids": ids[start : start + 1000], "addLabelIds": ["TRASH"], "removeLabelIds": ["INBOX"]}
        svc.users().messages().batchModify(userId="me", body=body).execute()
    assert svc.users().messages().list(userId="me", q="from:news@shop.example").execute() == {"resultSizeEstimate": 0}
    in_trash = svc.users().messages().list(userId="me", q="in:trash", maxResults=1).execute()
    assert in_trash["resultSizeEstimate"] == 1100
    listed = svc.users().messages().list(userId="me", includeSpamTrash=True, maxResults=500).execute()
    assert listed["resultSizeEstimate"] == 1101 and len(listed["messages"]) == 500
    assert [m["id"] for m in svc.users().messages().list(userId="me").execute()["messages"]] == emu.search(
        "keep", mailbox="big"
    )
    assert emu.message_ids("TRASH") == [emu.seeded["trash"]]  # the default mailbox is untouched
