"""users.settings.sendAs list/get: the seeded primary address (with signature) and alias, scopes,
configuration from the Emulator, the From header Gmail fills in."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from gmail_emulator import Emulator
from googleapiclient.errors import HttpError

MODIFY = "https://www.googleapis.com/auth/gmail.modify"
READONLY = "https://www.googleapis.com/auth/gmail.readonly"
BASIC = "https://www.googleapis.com/auth/gmail.settings.basic"
FULL = "https://mail.google.com/"
COMPOSE = "https://www.googleapis.com/auth/gmail.compose"
LABELS = "https://www.googleapis.com/auth/gmail.labels"
SIGNATURE = '<div dir="ltr">Mia Example<br><b>ACME</b> · <a href="https://acme.example">acme.example</a></div>'


def test_seeded_send_as(svc: Any) -> None:
    send_as = svc.users().settings().sendAs()
    listed = send_as.list(userId="me").execute()
    assert listed == {
        "sendAs": [
            {
                "sendAsEmail": "me@example.com",
                "displayName": "Mia Example",
                "signature": SIGNATURE,
                "isPrimary": True,
                "isDefault": True,
            },
            {
                "sendAsEmail": "me@acme.example",
                "displayName": "Mia Example",
                "treatAsAlias": True,
                "verificationStatus": "accepted",
            },
        ]
    }
    assert send_as.get(userId="me", sendAsEmail="me@acme.example").execute() == listed["sendAs"][1]
    assert send_as.get(userId="me", sendAsEmail="ME@Example.com").execute() == listed["sendAs"][0]
    with pytest.raises(HttpError) as err:
        send_as.get(userId="me", sendAsEmail="someone@else.example").execute()
    assert err.value.resp.status == 404


def test_send_as_scopes(service_for: Callable[..., Any]) -> None:
    for scopes in ((MODIFY,), (READONLY,), (BASIC,), (FULL,)):
        assert len(service_for(scopes).users().settings().sendAs().list(userId="me").execute()["sendAs"]) == 2
    for scopes in ((COMPOSE,), (LABELS,)):
        with pytest.raises(HttpError) as err:
            service_for(scopes).users().settings().sendAs().list(userId="me").execute()
        assert err.value.resp.status == 403


def test_configure_send_as_and_default_from(emu: Emulator, svc: Any) -> None:
    emu.set_send_as(
        "mia@work.example",
        display_name="Mia (Work)",
        reply_to_address="team@work.example",
        signature="<div>Mia, Work</div>",
        is_default=True,
        verification_status="pending",
    )
    emu.set_send_as("me@example.com", signature="")
    listed = {sa["sendAsEmail"]: sa for sa in emu.send_as()}
    assert listed["mia@work.example"] == {
        "sendAsEmail": "mia@work.example",
        "displayName": "Mia (Work)",
        "replyToAddress": "team@work.example",
        "signature": "<div>Mia, Work</div>",
        "isDefault": True,
        "treatAsAlias": True,
        "verificationStatus": "pending",
    }
    assert listed["me@example.com"] == {
        "sendAsEmail": "me@example.com",
        "displayName": "Mia Example",
        "isPrimary": True,
    }
    # Gmail fills a missing From with the default send-as address
    raw = b"To: bob@example.com\r\nSubject: from the default\r\n\r\nhi\r\n"
    sent = svc.users().messages().send(userId="me", body={"raw": base64.urlsafe_b64encode(raw).decode()}).execute()
    assert b'From: "Mia (Work)" <mia@work.example>\r\n' in emu.get_raw(sent["id"])
    emu.remove_send_as("mia@work.example")
    assert [sa.get("isDefault") for sa in emu.send_as()] == [True, None]
    with pytest.raises(ValueError):
        emu.remove_send_as("me@example.com")


def test_send_as_per_mailbox(emu: Emulator, build: Callable[..., Any]) -> None:
    emu.add_mailbox("work", "ann@work.example", "Ann Work")
    emu.set_send_as("ann@work.example", signature="<b>Ann</b>", mailbox="work")
    work = build(emu, emu.issue_token([READONLY], mailbox="work"))
    assert work.users().settings().sendAs().list(userId="me").execute() == {
        "sendAs": [
            {
                "sendAsEmail": "ann@work.example",
                "displayName": "Ann Work",
                "signature": "<b>Ann</b>",
                "isPrimary": True,
                "isDefault": True,
            }
        ]
    }
    with pytest.raises(HttpError) as err:
        work.users().settings().sendAs().get(userId="me", sendAsEmail="me@example.com").execute()
    assert err.value.resp.status == 404
    assert emu.send_as()[0]["signature"] == SIGNATURE  # the default mailbox keeps its own


def test_unseeded_emulator_has_only_the_primary_address() -> None:
    with Emulator(seed=False) as emu:
        assert emu.send_as() == [
            {"sendAsEmail": "me@example.com", "displayName": "Mia Example", "isPrimary": True, "isDefault": True}
        ]
