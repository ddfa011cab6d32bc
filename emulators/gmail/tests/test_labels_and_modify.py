"""labels.list/get/create, messages.modify/batchModify/trash/untrash, no permanent delete."""

from __future__ import annotations

from typing import Any

import pytest
from gmail_emulator import Emulator
from googleapiclient.errors import HttpError


def labels_of(svc: Any, mid: str) -> list[str]:
    result: list[str] = svc.users().messages().get(userId="me", id=mid, format="minimal").execute().get("labelIds", [])
    return result


def test_labels_list(svc: Any) -> None:
    labels = svc.users().labels().list(userId="me").execute()["labels"]
    by_id = {lab["id"]: lab for lab in labels}
    for system in (
        "INBOX",
        "SENT",
        "DRAFT",
        "TRASH",
        "SPAM",
        "UNREAD",
        "STARRED",
        "IMPORTANT",
        "CATEGORY_PERSONAL",
        "CATEGORY_SOCIAL",
        "CATEGORY_PROMOTIONS",
        "CATEGORY_UPDATES",
        "CATEGORY_FORUMS",
    ):
        assert by_id[system]["type"] == "system" and by_id[system]["name"] == system
    user = {lab["name"]: lab for lab in labels if lab["type"] == "user"}
    assert set(user) == {"Projects", "Receipts", "Travel", "Travel/2026"}
    assert user["Projects"] == {
        "id": "Label_1",
        "name": "Projects",
        "messageListVisibility": "show",
        "labelListVisibility": "labelShow",
        "type": "user",
    }
    assert "messagesTotal" not in by_id["INBOX"]


def test_label_get_counts(emu: Emulator, svc: Any) -> None:
    projects = svc.users().labels().get(userId="me", id="Label_1").execute()
    assert (projects["messagesTotal"], projects["messagesUnread"]) == (6, 2)
    assert (projects["threadsTotal"], projects["threadsUnread"]) == (3, 2)
    spam = svc.users().labels().get(userId="me", id="SPAM").execute()
    assert (spam["messagesTotal"], spam["messagesUnread"], spam["type"]) == (1, 1, "system")
    with pytest.raises(HttpError) as err:
        svc.users().labels().get(userId="me", id="Label_99").execute()
    assert err.value.resp.status == 404


def test_label_create_and_duplicate(emu: Emulator, svc: Any) -> None:
    created = svc.users().labels().create(userId="me", body={"name": "Follow-up"}).execute()
    assert created["id"] == "Label_5" and created["type"] == "user"
    assert emu.mailbox.label_id("follow-up") == "Label_5"
    with pytest.raises(HttpError) as err:
        svc.users().labels().create(userId="me", body={"name": "projects"}).execute()
    assert err.value.resp.status == 409
    with pytest.raises(HttpError) as err:
        svc.users().labels().create(userId="me", body={"name": "INBOX"}).execute()
    assert err.value.resp.status == 409


def test_modify(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["status"]
    resp = (
        svc.users()
        .messages()
        .modify(userId="me", id=mid, body={"addLabelIds": ["STARRED", "Label_2"], "removeLabelIds": ["UNREAD"]})
        .execute()
    )
    assert resp == {
        "id": mid,
        "threadId": mid,
        "labelIds": ["INBOX", "IMPORTANT", "CATEGORY_PERSONAL", "Label_1", "STARRED", "Label_2"],
    }
    assert emu.mailbox.label_ids(mid) == resp["labelIds"]
    with pytest.raises(HttpError) as err:
        svc.users().messages().modify(userId="me", id=mid, body={"addLabelIds": ["Nope"]}).execute()
    assert err.value.resp.status == 400 and err.value.reason == "Invalid label: Nope"
    assert emu.mailbox.label_ids(mid) == resp["labelIds"]
    with pytest.raises(HttpError) as err:
        svc.users().messages().modify(userId="me", id="0123456789abcdef", body={"addLabelIds": ["STARRED"]}).execute()
    assert err.value.resp.status == 404


def test_batch_modify(emu: Emulator, svc: Any) -> None:
    ids = [emu.seeded[k] for k in ("lunch_1", "lunch_3", "security")]
    result = (
        svc.users()
        .messages()
        .batchModify(userId="me", body={"ids": ids, "addLabelIds": ["Label_3"], "removeLabelIds": ["INBOX", "UNREAD"]})
        .execute()
    )
    assert result == ""  # 204 No Content
    for mid in ids:
        labels = emu.mailbox.label_ids(mid)
        assert "Label_3" in labels and "INBOX" not in labels and "UNREAD" not in labels
    before = emu.mailbox.label_ids(emu.seeded["promo"])
    with pytest.raises(HttpError) as err:
        svc.users().messages().batchModify(
            userId="me", body={"ids": [emu.seeded["promo"], "0123456789abcdef"], "addLabelIds": ["STARRED"]}
        ).execute()
    assert err.value.resp.status == 404
    assert emu.mailbox.label_ids(emu.seeded["promo"]) == before  # all or nothing


def test_trash_and_untrash(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["promo"]
    trashed = svc.users().messages().trash(userId="me", id=mid).execute()
    assert "TRASH" in trashed["labelIds"] and "INBOX" not in trashed["labelIds"]
    ids = [m["id"] for m in svc.users().messages().list(userId="me").execute()["messages"]]
    assert mid not in ids
    assert svc.users().messages().list(userId="me", q="in:trash").execute()["resultSizeEstimate"] == 2
    untrashed = svc.users().messages().untrash(userId="me", id=mid).execute()
    assert "TRASH" not in untrashed["labelIds"] and "INBOX" in untrashed["labelIds"]


def test_no_permanent_delete(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["promo"]
    with pytest.raises(HttpError) as err:
        svc.users().messages().delete(userId="me", id=mid).execute()
    assert err.value.resp.status == 405
    with pytest.raises(HttpError) as err:
        svc.users().messages().batchDelete(userId="me", body={"ids": [mid]}).execute()
    assert err.value.resp.status == 405
    assert mid in emu.mailbox.message_ids()
    counts = emu.request_counts()
    assert counts["messages.delete"] == 1 and counts["messages.batchDelete"] == 1
