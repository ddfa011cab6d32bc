"""What messages.modify / batchModify / threads.modify accept and refuse; TRASH and SPAM by label;
threads.trash/untrash."""

from __future__ import annotations

import json
from typing import Any

import pytest
from gmail_emulator import Emulator
from googleapiclient.errors import HttpError


def refused(request: Any) -> tuple[int, str]:
    with pytest.raises(HttpError) as err:
        request.execute()
    error = json.loads(err.value.content)["error"]
    return err.value.resp.status, error["message"]


def test_batch_modify_refusals_change_nothing(emu: Emulator, svc: Any) -> None:
    messages = svc.users().messages()
    ids = [emu.seeded[k] for k in ("lunch_1", "security", "promo")]
    before = {mid: emu.label_ids(mid) for mid in emu.message_ids()}
    cases = [
        ({"ids": ids * 334, "addLabelIds": ["STARRED"]}, 400, "Too many ids: at most 1000 are allowed"),
        ({"ids": ids, "addLabelIds": ["Label_99"]}, 400, "Invalid label: Label_99"),
        ({"ids": ids, "addLabelIds": ["SENT"]}, 400, "Invalid label: SENT"),
        ({"ids": ids, "removeLabelIds": ["DRAFT"]}, 400, "Invalid label: DRAFT"),
        ({"ids": ids}, 400, "No label add or removes specified"),
        ({"ids": ids, "addLabelIds": ["INBOX", "TRASH"]}, 400, "Can only add one of: INBOX, SPAM, TRASH"),
        ({"ids": ids, "addLabelIds": ["SPAM", "TRASH"]}, 400, "Can only add one of: INBOX, SPAM, TRASH"),
        ({"ids": ids, "addLabelIds": ["STARRED"], "removeLabelIds": ["STARRED"]}, 400, None),
        ({"ids": [*ids, "0123456789abcdef"], "addLabelIds": ["STARRED"]}, 404, None),
    ]
    for body, status, message in cases:
        got_status, got_message = refused(messages.batchModify(userId="me", body=body))
        assert got_status == status, body
        if message:
            assert got_message == message
    assert {mid: emu.label_ids(mid) for mid in emu.message_ids()} == before
    # exactly 1000 ids is fine (repeats count as one message each)
    messages.batchModify(userId="me", body={"ids": (ids * 334)[:1000], "addLabelIds": ["STARRED"]}).execute()
    assert all("STARRED" in emu.label_ids(mid) for mid in ids)


def test_modify_refuses_sent_and_draft(emu: Emulator, svc: Any) -> None:
    sent = emu.seeded["atlas_2"]
    status, message = refused(svc.users().messages().modify(userId="me", id=sent, body={"removeLabelIds": ["SENT"]}))
    assert (status, message) == (400, "Invalid label: SENT")
    assert "SENT" in emu.label_ids(sent)


def test_trash_by_label_in_batch_modify(emu: Emulator, svc: Any) -> None:
    """addLabelIds TRASH is accepted (gmail.modify); INBOX goes only when asked; untrash restores it."""
    messages = svc.users().messages()
    kept, moved = emu.seeded["lunch_1"], emu.seeded["security"]
    messages.batchModify(userId="me", body={"ids": [kept], "addLabelIds": ["TRASH"]}).execute()
    messages.batchModify(
        userId="me", body={"ids": [moved], "addLabelIds": ["TRASH"], "removeLabelIds": ["INBOX"]}
    ).execute()
    assert emu.label_ids(kept) == ["INBOX", "CATEGORY_PERSONAL", "TRASH"]
    assert emu.label_ids(moved) == ["UNREAD", "CATEGORY_UPDATES", "TRASH"]
    listed = {m["id"] for m in messages.list(userId="me", maxResults=500).execute()["messages"]}
    assert kept not in listed and moved not in listed  # both hidden like any trashed message
    trash = {m["id"] for m in messages.list(userId="me", q="in:trash").execute()["messages"]}
    assert {kept, moved} <= trash
    assert "INBOX" in messages.untrash(userId="me", id=moved).execute()["labelIds"]
    # messages.trash takes the message out of the inbox itself
    trashed = messages.trash(userId="me", id=emu.seeded["promo"]).execute()
    assert "TRASH" in trashed["labelIds"] and "INBOX" not in trashed["labelIds"]


def test_spam_and_trash_exclude_each_other(emu: Emulator, svc: Any) -> None:
    messages = svc.users().messages()
    spam = emu.seeded["spam"]
    assert "SPAM" in emu.label_ids(spam)
    assert messages.modify(userId="me", id=spam, body={"addLabelIds": ["TRASH"]}).execute()["labelIds"][-1] == "TRASH"
    assert "SPAM" not in emu.label_ids(spam)
    labels = messages.modify(userId="me", id=spam, body={"addLabelIds": ["SPAM"]}).execute()["labelIds"]
    assert "SPAM" in labels and "TRASH" not in labels


def test_threads_modify_trash_untrash(emu: Emulator, svc: Any) -> None:
    threads = svc.users().threads()
    thread = emu.thread_id(emu.seeded["lunch_1"])
    ids = emu.mailbox.thread_message_ids(thread)
    assert len(ids) == 3
    resp = threads.modify(userId="me", id=thread, body={"addLabelIds": ["Label_3"], "removeLabelIds": ["UNREAD"]})
    result = resp.execute()
    assert result["id"] == thread and [m["id"] for m in result["messages"]] == ids
    assert all("Label_3" in emu.label_ids(mid) and "UNREAD" not in emu.label_ids(mid) for mid in ids)
    assert refused(threads.modify(userId="me", id=thread, body={"addLabelIds": ["SENT"]}))[0] == 400
    assert refused(threads.modify(userId="me", id="0123456789abcdef", body={"addLabelIds": ["STARRED"]}))[0] == 404
    trashed = threads.trash(userId="me", id=thread).execute()
    assert all("TRASH" in m["labelIds"] and "INBOX" not in m["labelIds"] for m in trashed["messages"])
    assert thread not in {t["id"] for t in threads.list(userId="me").execute()["threads"]}
    restored = threads.untrash(userId="me", id=thread).execute()
    assert all("TRASH" not in m["labelIds"] for m in restored["messages"])
    assert "INBOX" in emu.label_ids(emu.seeded["lunch_1"])
    assert "INBOX" not in emu.label_ids(emu.seeded["lunch_2"])  # the sent reply was never in the inbox
