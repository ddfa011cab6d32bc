"""labels.patch / labels.update / labels.delete, colours, system labels refused, name clashes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from gmail_emulator import Emulator
from googleapiclient.errors import HttpError

LABELS = "https://www.googleapis.com/auth/gmail.labels"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
RED = {"textColor": "#ffffff", "backgroundColor": "#cc3a21"}


def error_of(err: HttpError) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(err.content)["error"]
    return body


def test_patch_renames_and_recolours(emu: Emulator, svc: Any) -> None:
    labels = svc.users().labels()
    patched = labels.patch(userId="me", id="Label_2", body={"name": "Invoices", "color": RED}).execute()
    assert patched == {
        "id": "Label_2",
        "name": "Invoices",
        "messageListVisibility": "show",
        "labelListVisibility": "labelShow",
        "type": "user",
        "color": RED,
    }
    assert labels.get(userId="me", id="Label_2").execute()["color"] == RED
    assert emu.label_id("invoices") == "Label_2" and emu.label_id("Receipts") is None
    # messages keep the label (same id); search by the new name finds them
    receipts = {emu.seeded["receipt_html"], emu.seeded["invoice_114"]}
    assert receipts <= set(emu.search("label:invoices", include_spam_trash=True))
    # patch changes only what it is given; a case-only rename of itself is fine
    again = labels.patch(userId="me", id="Label_2", body={"labelListVisibility": "labelHide"}).execute()
    assert (again["name"], again["color"], again["labelListVisibility"]) == ("Invoices", RED, "labelHide")
    assert labels.patch(userId="me", id="Label_2", body={"name": "INVOICES"}).execute()["name"] == "INVOICES"
    cleared = labels.patch(userId="me", id="Label_2", body={"color": {}}).execute()
    assert "color" not in cleared


def test_update_replaces_the_label(emu: Emulator, svc: Any) -> None:
    labels = svc.users().labels()
    labels.patch(userId="me", id="Label_3", body={"color": RED, "messageListVisibility": "hide"}).execute()
    updated = labels.update(userId="me", id="Label_3", body={"id": "Label_3", "name": "Trips"}).execute()
    assert updated == {
        "id": "Label_3",
        "name": "Trips",
        "messageListVisibility": "show",
        "labelListVisibility": "labelShow",
        "type": "user",
    }
    with pytest.raises(HttpError) as err:
        labels.update(userId="me", id="Label_3", body={"color": RED}).execute()  # name is required
    assert err.value.resp.status == 400
    assert [r.route for r in emu.request_log()] == ["labels.patch", "labels.update", "labels.update"]


def test_name_clash_is_409(emu: Emulator, svc: Any) -> None:
    labels = svc.users().labels()
    for body in ({"name": "projects"}, {"name": " Travel/2026 "}, {"name": "inbox"}, {"name": "SENT"}):
        with pytest.raises(HttpError) as err:
            labels.patch(userId="me", id="Label_3", body=body).execute()
        error = error_of(err.value)
        assert (err.value.resp.status, error["message"], error["status"]) == (
            409,
            "Label name exists or conflicts",
            "ALREADY_EXISTS",
        )
        assert error["errors"][0]["reason"] == "duplicate"
    with pytest.raises(HttpError) as err:
        labels.update(userId="me", id="Label_3", body={"name": "Receipts"}).execute()
    assert err.value.resp.status == 409
    with pytest.raises(HttpError) as err:
        labels.patch(userId="me", id="Label_3", body={"name": "  "}).execute()
    assert err.value.resp.status == 400
    assert emu.label_id("Travel") == "Label_3"


@pytest.mark.parametrize("label_id", ["INBOX", "UNREAD", "STARRED", "TRASH", "SPAM", "SENT", "DRAFT", "IMPORTANT"])
def test_system_labels_refuse_patch_update_delete(emu: Emulator, svc: Any, label_id: str) -> None:
    labels = svc.users().labels()
    for request in (
        labels.patch(userId="me", id=label_id, body={"name": "Renamed"}),
        labels.update(userId="me", id=label_id, body={"name": "Renamed"}),
        labels.patch(userId="me", id=label_id, body={"color": RED}),
        labels.delete(userId="me", id=label_id),
    ):
        with pytest.raises(HttpError) as err:
            request.execute()
        error = error_of(err.value)
        assert err.value.resp.status == 400 and error["errors"][0]["reason"] == "invalidArgument"
        assert error["status"] == "INVALID_ARGUMENT"
    got = labels.get(userId="me", id=label_id).execute()
    assert (got["name"], got["type"]) == (label_id, "system") and "color" not in got


def test_category_labels_are_system_too(svc: Any) -> None:
    with pytest.raises(HttpError) as err:
        svc.users().labels().delete(userId="me", id="CATEGORY_PROMOTIONS").execute()
    assert err.value.resp.status == 400


def test_delete_removes_the_label_from_every_message_but_keeps_them(emu: Emulator, svc: Any) -> None:
    labelled = emu.message_ids("Label_1")
    assert len(labelled) == 6
    total = len(emu.mailbox)
    before = {mid: emu.label_ids(mid) for mid in labelled}
    assert svc.users().labels().delete(userId="me", id="Label_1").execute() == ""
    assert len(emu.mailbox) == total
    for mid in labelled:
        assert emu.label_ids(mid) == [lab for lab in before[mid] if lab != "Label_1"]
    with pytest.raises(HttpError) as err:
        svc.users().labels().get(userId="me", id="Label_1").execute()
    assert err.value.resp.status == 404
    with pytest.raises(HttpError) as err:
        svc.users().labels().delete(userId="me", id="Label_1").execute()
    assert err.value.resp.status == 404
    with pytest.raises(HttpError) as err:  # the id is gone for modify too
        svc.users().messages().modify(userId="me", id=labelled[0], body={"addLabelIds": ["Label_1"]}).execute()
    assert err.value.resp.status == 400
    # the name is free again, with a new id
    assert svc.users().labels().create(userId="me", body={"name": "Projects"}).execute()["id"] == "Label_5"


def test_colour_is_validated_on_create_and_patch(svc: Any) -> None:
    labels = svc.users().labels()
    created = labels.create(userId="me", body={"name": "Red", "color": RED}).execute()
    assert created["color"] == RED
    for color in ({"textColor": "#ffffff"}, {"textColor": "#ffffff", "backgroundColor": "#123456"}, "red"):
        with pytest.raises(HttpError) as err:
            labels.patch(userId="me", id=created["id"], body={"color": color}).execute()
        assert err.value.resp.status == 400
    with pytest.raises(HttpError) as err:
        labels.create(userId="me", body={"name": "Bad", "messageListVisibility": "sometimes"}).execute()
    assert err.value.resp.status == 400


def test_label_scopes(emu: Emulator, service_for: Callable[..., Any]) -> None:
    only_labels = service_for((LABELS,))
    assert only_labels.users().labels().patch(userId="me", id="Label_4", body={"name": "T26"}).execute()
    only_labels.users().labels().delete(userId="me", id="Label_4").execute()
    readonly = service_for((READONLY,))
    for request in (
        readonly.users().labels().patch(userId="me", id="Label_3", body={"name": "X"}),
        readonly.users().labels().update(userId="me", id="Label_3", body={"name": "X"}),
        readonly.users().labels().delete(userId="me", id="Label_3"),
    ):
        with pytest.raises(HttpError) as err:
            request.execute()
        assert err.value.resp.status == 403 and error_of(err.value)["errors"][0]["reason"] == "insufficientPermissions"
    assert emu.label_id("Travel") == "Label_3"
