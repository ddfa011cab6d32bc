"""users.settings.filters: CRUD, Gmail's validation, scopes, criteria -> query, and filters acting on
newly arriving mail (add_message, messages.import; not messages.insert)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from gmail_emulator import Emulator, criteria_to_query
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaIoBaseUpload

BASIC = "https://www.googleapis.com/auth/gmail.settings.basic"
MODIFY = "https://www.googleapis.com/auth/gmail.modify"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
FULL = "https://mail.google.com/"
ARCHIVE_RECEIPTS = {
    "criteria": {"from": "billing@shop.example"},
    "action": {"addLabelIds": ["Label_2"], "removeLabelIds": ["INBOX", "UNREAD"]},
}


def rfc822(subject: str, sender: str = "Billing <billing@shop.example>", extra: str = "", body: str = "hi") -> bytes:
    head = f"From: {sender}\r\nTo: me@example.com\r\nSubject: {subject}\r\n{extra}"
    return (head + "Date: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\n" + body + "\r\n").encode()


@pytest.fixture
def settings(service_for: Callable[..., Any]) -> Any:
    """A service whose token has gmail.modify and gmail.settings.basic."""
    return service_for((MODIFY, BASIC))


def refused(request: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(HttpError) as err:
        request.execute()
    error: dict[str, Any] = json.loads(err.value.content)["error"]
    return err.value.resp.status, error


def test_create_list_get_delete(emu: Emulator, settings: Any) -> None:
    filters = settings.users().settings().filters()
    assert filters.list(userId="me").execute() == {}
    created = filters.create(userId="me", body=ARCHIVE_RECEIPTS).execute()
    assert set(created) == {"id", "criteria", "action"}
    assert (created["criteria"], created["action"]) == (ARCHIVE_RECEIPTS["criteria"], ARCHIVE_RECEIPTS["action"])
    second = filters.create(
        userId="me",
        body={
            "criteria": {"subject": "  Weekly   report ", "hasAttachment": True, "excludeChats": False},
            "action": {"addLabelIds": ["STARRED"]},
        },
    ).execute()
    assert second["criteria"] == {"subject": "Weekly report", "hasAttachment": True}
    assert filters.list(userId="me").execute() == {"filter": [created, second]}
    assert filters.get(userId="me", id=created["id"]).execute() == created
    assert filters.delete(userId="me", id=created["id"]).execute() == ""
    assert filters.list(userId="me").execute() == {"filter": [second]}
    for request in (filters.get(userId="me", id=created["id"]), filters.delete(userId="me", id=created["id"])):
        assert refused(request)[0] == 404
    assert emu.filters() == [second]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"criteria": {"from": "x@y"}, "action": {"addLabelIds": ["Label_99"]}}, "Invalid label: Label_99"),
        ({"criteria": {"from": "x@y"}, "action": {"removeLabelIds": ["Nope"]}}, "Invalid label: Nope"),
        ({"criteria": {"from": "x@y"}, "action": {"addLabelIds": ["SENT"]}}, "Invalid label: SENT"),
        ({"criteria": {"from": "x@y"}, "action": {"addLabelIds": ["SPAM"]}}, None),
        ({"criteria": {"from": "x@y"}, "action": {"addLabelIds": ["Label_1", "Label_2"]}}, None),
        ({"criteria": {}, "action": {"addLabelIds": ["STARRED"]}}, None),
        ({"criteria": {"from": "  ", "hasAttachment": False}, "action": {"addLabelIds": ["STARRED"]}}, None),
        ({"action": {"addLabelIds": ["STARRED"]}}, None),
        ({"criteria": {"from": "x@y"}, "action": {}}, None),
        ({"criteria": {"from": "x@y"}}, None),
        ({"criteria": {"size": 1000}, "action": {"addLabelIds": ["STARRED"]}}, None),
        ({"criteria": {"sizeComparison": "larger"}, "action": {"addLabelIds": ["STARRED"]}}, None),
        ({"criteria": {"size": 10, "sizeComparison": "bigger"}, "action": {"addLabelIds": ["STARRED"]}}, None),
        ({"criteria": {"from": "x@y"}, "action": {"forward": "nobody@elsewhere.example"}}, None),
        ({"criteria": {"sender": "x@y"}, "action": {"addLabelIds": ["STARRED"]}}, None),
    ],
)
def test_invalid_filters_are_400(emu: Emulator, settings: Any, body: dict[str, Any], message: str | None) -> None:
    status, error = refused(settings.users().settings().filters().create(userId="me", body=body))
    assert status == 400 and error["errors"][0]["reason"] == "invalidArgument"
    if message:
        assert error["message"] == message
    assert emu.filters() == []


def test_duplicate_filter_is_refused(emu: Emulator, settings: Any) -> None:
    filters = settings.users().settings().filters()
    filters.create(userId="me", body=ARCHIVE_RECEIPTS).execute()
    same = {
        "criteria": {"from": "Billing@Shop.example"},
        "action": {"removeLabelIds": ["UNREAD", "INBOX"], "addLabelIds": ["Label_2"]},
    }
    status, error = refused(filters.create(userId="me", body=same))
    assert (status, error["message"], error["status"]) == (400, "Filter already exists", "FAILED_PRECONDITION")
    assert error["errors"][0]["reason"] == "failedPrecondition"
    # another action on the same criteria is another filter
    other = {"criteria": ARCHIVE_RECEIPTS["criteria"], "action": {"addLabelIds": ["STARRED"]}}
    filters.create(userId="me", body=other).execute()
    assert len(emu.filters()) == 2


def test_filter_scopes_follow_the_discovery_document(emu: Emulator, service_for: Callable[..., Any]) -> None:
    created = emu.add_filter({"from": "a@b.example"}, {"addLabelIds": ["STARRED"]})
    for scopes in ((MODIFY,), (FULL,), (READONLY,)):
        svc = service_for(scopes)
        filters = svc.users().settings().filters()
        assert filters.list(userId="me").execute() == {"filter": [created]}
        assert filters.get(userId="me", id=created["id"]).execute() == created
        for request in (
            filters.create(userId="me", body=ARCHIVE_RECEIPTS),
            filters.delete(userId="me", id=created["id"]),
        ):
            status, error = refused(request)
            assert status == 403 and error["errors"][0]["reason"] == "insufficientPermissions"
    basic = service_for((BASIC,)).users().settings().filters()
    assert basic.list(userId="me").execute() == {"filter": [created]}
    basic.delete(userId="me", id=created["id"]).execute()
    assert emu.filters() == []


def test_criteria_to_query() -> None:
    assert criteria_to_query({"from": "billing@shop.example"}) == "from:(billing@shop.example)"
    assert Emulator.filter_query(
        {
            "from": "ann OR bob",
            "to": "team@",
            "subject": " Weekly  report ",
            "query": "label:projects OR is:starred",
            "negatedQuery": '"do not file"',
            "hasAttachment": True,
            "excludeChats": True,
            "size": 1048576,
            "sizeComparison": "larger",
        }
    ) == (
        'from:(ann OR bob) to:(team@) subject:"Weekly report" (label:projects OR is:starred) '
        '-("do not file") has:attachment -is:chat larger:1048576'
    )
    assert criteria_to_query({"size": 500, "sizeComparison": "smaller"}) == "smaller:500"


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({"from": "alice"}, {"atlas_1", "atlas_3", "status"}),
        ({"to": "sam@example.net", "subject": "dinner on saturday"}, {"dinner_1"}),
        ({"hasAttachment": True}, {"notes_attachment", "invoice_pdf"}),
        (
            {"query": "label:projects", "negatedQuery": "from:me"},
            {"atlas_1", "atlas_3", "atlas_4", "notes_attachment", "status"},
        ),
        ({"size": 100_000, "sizeComparison": "larger"}, {"logs_large"}),
    ],
)
def test_criteria_match_like_the_equivalent_search(emu: Emulator, criteria: dict[str, Any], expected: set[str]) -> None:
    by_id = {mid: key for key, mid in emu.seeded.items()}
    assert {by_id[mid] for mid in emu.search(criteria_to_query(criteria))} == expected


def test_filters_act_on_new_mail_only(emu: Emulator, settings: Any) -> None:
    filters = settings.users().settings().filters()
    filters.create(userId="me", body=ARCHIVE_RECEIPTS).execute()
    filters.create(
        userId="me", body={"criteria": {"subject": "urgent"}, "action": {"addLabelIds": ["STARRED", "IMPORTANT"]}}
    ).execute()
    filters.create(
        userId="me", body={"criteria": {"from": "spammy@ads.example"}, "action": {"addLabelIds": ["TRASH"]}}
    ).execute()
    before = {mid: emu.label_ids(mid) for mid in emu.message_ids()}

    receipt = emu.add_message(rfc822("Your receipt"))
    both = emu.add_message(rfc822("URGENT: card expired"))
    trashed = emu.add_message(rfc822("Deals!", sender="spammy@ads.example"))
    other = emu.add_message(rfc822("Lunch?", sender="Bob <bob@example.com>"))

    assert emu.label_ids(receipt) == ["Label_2"]  # labelled, archived, marked read
    assert emu.label_ids(both) == ["Label_2", "STARRED", "IMPORTANT"]  # every matching filter applies
    assert emu.label_ids(trashed) == ["UNREAD", "TRASH"]
    assert emu.label_ids(other) == ["INBOX", "UNREAD"]
    assert {mid: emu.label_ids(mid) for mid in before} == before  # existing mail is not re-filtered
    inbox = {m["id"] for m in settings.users().messages().list(userId="me", labelIds=["INBOX"]).execute()["messages"]}
    assert other in inbox and receipt not in inbox and both not in inbox and trashed not in inbox
    assert emu.add_message(rfc822("no filters"), apply_filters=False) in emu.message_ids("INBOX")


def test_spam_arrivals_only_meet_never_spam_filters(emu: Emulator) -> None:
    emu.add_filter({"from": "friend@ok.example"}, {"removeLabelIds": ["SPAM"], "addLabelIds": ["INBOX"]})
    emu.add_filter({"from": "other@ok.example"}, {"addLabelIds": ["STARRED"]})
    rescued = emu.add_message(rfc822("hi", sender="friend@ok.example"), ["SPAM", "UNREAD"])
    left = emu.add_message(rfc822("hi", sender="other@ok.example"), ["SPAM", "UNREAD"])
    assert emu.label_ids(rescued) == ["UNREAD", "INBOX"]
    assert emu.label_ids(left) == ["SPAM", "UNREAD"]


def test_forward_needs_a_verified_address_and_reaches_a_local_mailbox(emu: Emulator, settings: Any) -> None:
    emu.add_mailbox("home", "mia@home.example")
    emu.add_forwarding_address("mia@home.example")
    emu.add_forwarding_address("pending@elsewhere.example", "pending")
    forwarding = settings.users().settings().forwardingAddresses()
    assert forwarding.list(userId="me").execute() == {
        "forwardingAddresses": [
            {"forwardingEmail": "mia@home.example", "verificationStatus": "accepted"},
            {"forwardingEmail": "pending@elsewhere.example", "verificationStatus": "pending"},
        ]
    }
    assert forwarding.get(userId="me", forwardingEmail="mia@home.example").execute()["verificationStatus"] == "accepted"
    assert refused(forwarding.get(userId="me", forwardingEmail="x@y.example"))[0] == 404
    filters = settings.users().settings().filters()
    pending = {"criteria": {"from": "billing@shop.example"}, "action": {"forward": "pending@elsewhere.example"}}
    assert refused(filters.create(userId="me", body=pending))[0] == 400
    rule = filters.create(
        userId="me", body={"criteria": {"from": "billing@shop.example"}, "action": {"forward": "mia@home.example"}}
    ).execute()
    raw = rfc822("Invoice 7")
    mid = emu.add_message(raw)
    assert emu.label_ids(mid) == ["INBOX", "UNREAD"]  # forwarding keeps the original where it was
    assert [(f.message_id, f.to, f.filter_id) for f in emu.forwarded()] == [(mid, "mia@home.example", rule["id"])]
    copies = emu.message_ids(mailbox="home")
    assert len(copies) == 1 and emu.get_raw(copies[0], mailbox="home") == raw
    assert emu.label_ids(copies[0], mailbox="home") == ["INBOX", "UNREAD"]
    assert emu.forwarded(mailbox="home") == []


def test_filters_belong_to_one_mailbox(emu: Emulator, build: Callable[..., Any]) -> None:
    emu.add_mailbox("work", "ann@work.example")
    work = build(emu, emu.issue_token([BASIC], mailbox="work")).users().settings().filters()
    work.create(
        userId="me", body={"criteria": {"from": "billing@shop.example"}, "action": {"addLabelIds": ["STARRED"]}}
    )
    work_filter = work.create(
        userId="me", body={"criteria": {"from": "billing@shop.example"}, "action": {"removeLabelIds": ["INBOX"]}}
    ).execute()
    assert emu.filters() == [] and emu.filters(mailbox="work") == [work_filter]
    assert emu.label_ids(emu.add_message(rfc822("to default"))) == ["INBOX", "UNREAD"]
    assert emu.label_ids(emu.add_message(rfc822("to work"), mailbox="work"), mailbox="work") == ["UNREAD"]


def test_import_runs_filters_insert_does_not(emu: Emulator, service_for: Callable[..., Any]) -> None:
    emu.add_filter(ARCHIVE_RECEIPTS["criteria"], ARCHIVE_RECEIPTS["action"])
    svc = service_for((MODIFY,))
    raw = rfc822("imported receipt")
    imported = (
        svc.users()
        .messages()
        .import_(
            userId="me",
            body={"labelIds": ["INBOX", "UNREAD"]},
            media_body=MediaIoBaseUpload(io.BytesIO(raw), mimetype="message/rfc822"),
        )
        .execute()
    )
    assert imported["labelIds"] == ["Label_2"]
    assert emu.mailbox.get_message(imported["id"], "minimal")["internalDate"] == "1795255200000"  # Date header
    inserted = (
        svc.users()
        .messages()
        .insert(
            userId="me",
            body={"labelIds": ["INBOX", "UNREAD"], "raw": base64.urlsafe_b64encode(rfc822("inserted")).decode()},
        )
        .execute()
    )
    assert inserted["labelIds"] == ["INBOX", "UNREAD"]
    bare = svc.users().messages().insert(userId="me", body={"raw": base64.urlsafe_b64encode(raw).decode()}).execute()
    assert "labelIds" not in bare  # only in All Mail
    assert refused(svc.users().messages().insert(userId="me", body={"raw": "eA==", "labelIds": ["Nope"]}))[0] == 400
    assert [r.route for r in emu.request_log()][:2] == ["messages.import", "messages.insert"]
