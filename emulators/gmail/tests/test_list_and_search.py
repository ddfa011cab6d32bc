"""messages.list / threads.list through the real googleapiclient: paging, labelIds, q operators."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from gmail_emulator import Emulator
from googleapiclient.errors import HttpError

HIDDEN = {"spam", "trash"}


def list_all(svc: Any, **kwargs: Any) -> list[str]:
    ids: list[str] = []
    token = None
    while True:
        resp = svc.users().messages().list(userId="me", pageToken=token, **kwargs).execute()
        ids += [m["id"] for m in resp.get("messages", [])]
        token = resp.get("nextPageToken")
        if not token:
            return ids


def keys_of(emu: Emulator, ids: list[str]) -> set[str]:
    by_id = {v: k for k, v in emu.seeded.items()}
    return {by_id[i] for i in ids}


def test_default_list_is_newest_first_and_hides_spam_and_trash(emu: Emulator, svc: Any) -> None:
    resp = svc.users().messages().list(userId="me").execute()
    ids = [m["id"] for m in resp["messages"]]
    assert resp["resultSizeEstimate"] == len(emu.seeded) - 2 == len(ids)
    assert "nextPageToken" not in resp
    assert keys_of(emu, ids) == set(emu.seeded) - HIDDEN
    dates = [
        int(svc.users().messages().get(userId="me", id=i, format="minimal").execute()["internalDate"]) for i in ids
    ]
    assert dates == sorted(dates, reverse=True)
    assert ids[0] == emu.seeded["status"]
    assert all(set(m) == {"id", "threadId"} for m in resp["messages"])


def test_paging_covers_everything_once(emu: Emulator, svc: Any) -> None:
    first = svc.users().messages().list(userId="me", maxResults=10).execute()
    assert len(first["messages"]) == 10
    assert first["resultSizeEstimate"] == 24
    assert first["nextPageToken"]
    paged = list_all(svc, maxResults=10)
    assert len(paged) == len(set(paged)) == 24
    assert paged == [m["id"] for m in svc.users().messages().list(userId="me").execute()["messages"]]


def test_include_spam_trash_and_label_ids(emu: Emulator, svc: Any) -> None:
    assert keys_of(emu, list_all(svc, includeSpamTrash=True)) == set(emu.seeded)
    unread_inbox = list_all(svc, labelIds=["INBOX", "UNREAD"])
    assert keys_of(emu, unread_inbox) == {
        "atlas_4",
        "receipt_html",
        "japanese",
        "flight",
        "lunch_3",
        "security",
        "promo",
        "status",
    }
    assert keys_of(emu, list_all(svc, labelIds=["TRASH"])) == {"trash"}
    empty = svc.users().messages().list(userId="me", q="nothing-matches-this-zzz").execute()
    assert empty == {"resultSizeEstimate": 0}


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("from:alice", {"atlas_1", "atlas_3", "status"}),
        ("from:zoe@example.de", {"invoice_pdf", "munich_1"}),
        ("from:me", {"atlas_2", "munich_2", "dinner_1", "lunch_2", "draft_notes"}),
        ("to:bob@example.com", {"atlas_1", "atlas_2", "atlas_3", "lunch_2", "draft_notes"}),
        ("subject:atlas", {"atlas_1", "atlas_2", "atlas_3", "atlas_4", "status"}),
        ("subject:(atlas status)", {"status"}),
        ('subject:"status update"', {"status"}),
        ("label:projects", {"atlas_1", "atlas_2", "atlas_3", "atlas_4", "notes_attachment", "status"}),
        ("label:travel-2026", {"munich_1", "munich_2", "flight"}),
        ("label:Travel/2026", {"munich_1", "munich_2", "flight"}),
        ("label:inbox label:receipts", {"receipt_html", "invoice_pdf"}),
        ("is:unread", {"atlas_4", "receipt_html", "japanese", "flight", "lunch_3", "security", "promo", "status"}),
        ("is:starred", {"atlas_1", "munich_1"}),
        ("is:read label:receipts", {"invoice_pdf", "invoice_114"}),
        ("in:sent", {"atlas_2", "munich_2", "dinner_1", "lunch_2"}),
        ("in:inbox is:important", {"atlas_1", "flight", "status"}),
        ("in:trash", {"trash"}),
        ("in:spam", {"spam"}),
        ("in:anywhere prize", {"spam"}),
        ("prize", set()),
        ("in:draft", {"draft_notes"}),
        ("has:attachment", {"notes_attachment", "invoice_pdf"}),
        ("filename:pdf", {"invoice_pdf"}),
        ("filename:notes.txt", {"notes_attachment"}),
        ("rfc822msgid:<lunch_1@seed.example.com>", {"lunch_1"}),
        ("rfc822msgid:lunch_1@seed.example.com", {"lunch_1"}),
        ("after:2026/11/10 before:2026/11/13", {"lunch_1", "lunch_2", "lunch_3"}),
        ("before:2026/10/03", {"atlas_1", "atlas_2"}),
        ("pretzels", {"digest_alt"}),
        ("CRITICAL", {"logs_large"}),
        ("rechnung", {"invoice_pdf"}),
        ("MÜNCHEN", {"munich_1", "munich_2"}),
        ("議事録", {"japanese"}),
        ("crème brûlée", {"latin1"}),
        ("croissant", {"receipt_html"}),
        ('"book a table"', {"lunch_3"}),
        ('"table a book"', set()),
        ("ramen", {"lunch_1", "lunch_2"}),
        ("ramen -from:me", {"lunch_1"}),
        ("from:sam OR from:carol", {"dinner_2", "notes_attachment"}),
        ("{from:sam from:carol}", {"dinner_2", "notes_attachment"}),
        ("(from:sam OR from:carol) -has:attachment", {"dinner_2"}),
        ("category:promotions", {"promo"}),
        ("larger:100K", {"logs_large"}),
        ("meet", set()),  # word match, not substring ("meeting" does not match "meet")
    ],
)
def test_query_operators(emu: Emulator, svc: Any, q: str, expected: set[str]) -> None:
    assert keys_of(emu, list_all(svc, q=q)) == expected


def test_relative_dates_use_the_emulator_clock(build: Callable[..., Any]) -> None:
    now = datetime(2026, 11, 21, tzinfo=UTC).timestamp()
    with Emulator(now=now) as emu:
        svc = build(emu)
        assert keys_of(emu, list_all(svc, q="newer_than:2d")) == {"status", "draft_notes"}
        assert keys_of(emu, list_all(svc, q="older_than:50d in:anywhere")) == {"trash"}


def test_threads_list_and_get(emu: Emulator, svc: Any) -> None:
    resp = svc.users().threads().list(userId="me").execute()
    assert resp["resultSizeEstimate"] == len(resp["threads"]) == 17  # 19 threads minus spam and trash
    atlas_thread = emu.mailbox.thread_id(emu.seeded["atlas_1"])
    found = svc.users().threads().list(userId="me", q="subject:atlas").execute()["threads"]
    assert [t["id"] for t in found] == [emu.mailbox.thread_id(emu.seeded["status"]), atlas_thread]
    assert found[1]["snippet"].startswith("Timeline draft is ready")
    assert set(found[1]) == {"id", "snippet", "historyId"}

    thread = svc.users().threads().get(userId="me", id=atlas_thread).execute()
    assert thread["id"] == atlas_thread
    msgs = thread["messages"]
    assert [m["id"] for m in msgs] == [emu.seeded[k] for k in ("atlas_1", "atlas_2", "atlas_3", "atlas_4")]
    assert {m["threadId"] for m in msgs} == {atlas_thread}
    heads = [{h["name"]: h["value"] for h in m["payload"]["headers"]} for m in msgs]
    assert heads[3]["In-Reply-To"] == "<atlas_3@seed.example.com>"
    assert heads[3]["References"].split() == [f"<atlas_{i}@seed.example.com>" for i in (1, 2, 3)]

    meta = (
        svc.users().threads().get(userId="me", id=atlas_thread, format="metadata", metadataHeaders=["From"]).execute()
    )
    assert [m["payload"]["headers"] for m in meta["messages"]][1] == [
        {"name": "From", "value": "Mia Example <me@example.com>"}
    ]
    minimal = svc.users().threads().get(userId="me", id=atlas_thread, format="minimal").execute()
    assert all("payload" not in m for m in minimal["messages"])

    with pytest.raises(HttpError) as err:
        svc.users().threads().get(userId="me", id="deadbeefdeadbeef").execute()
    assert err.value.resp.status == 404


def _raw_get(emu: Emulator, path: str) -> tuple[int, dict[str, Any]]:
    token = emu.issue_token()["token"]
    req = urllib.request.Request(emu.base_url + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize(
    "path",
    [
        "gmail/v1/users/me/messages?maxResults=abc",
        "gmail/v1/users/me/messages?pageToken=bogus",
        "gmail/v1/users/me/messages?includeSpamTrash=maybe",
        "gmail/v1/users/me/threads?maxResults=-1",
    ],
)
def test_bad_list_params_are_400_invalid_argument(emu: Emulator, path: str) -> None:
    status, body = _raw_get(emu, path)
    assert status == 400
    assert body["error"]["code"] == 400
    assert body["error"]["status"] == "INVALID_ARGUMENT"
    assert body["error"]["errors"][0]["reason"] == "invalidArgument"


def test_max_results_is_capped_at_500(emu: Emulator) -> None:
    for i in range(510):
        emu.add_message(f"From: a@b.c\r\nTo: me@example.com\r\nSubject: bulk {i}\r\n\r\nx\r\n".encode(), ["INBOX"])
    status, body = _raw_get(emu, "gmail/v1/users/me/messages?maxResults=1000")
    assert status == 200
    assert len(body["messages"]) == 500
    assert body["resultSizeEstimate"] == 510 + 24


@pytest.mark.parametrize("q", ["(", ")", "OR", "-", '"unterminated', "from:", "subject:(", "a OR", "{}", "-(", "((a)"])
def test_odd_queries_do_not_break(emu: Emulator, svc: Any, q: str) -> None:
    resp = svc.users().messages().list(userId="me", q=q).execute()
    assert resp["resultSizeEstimate"] >= 0
    assert emu.request_log()[-1].status == 200
