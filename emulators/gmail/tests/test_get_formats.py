"""messages.get in every format, payload trees built from the stored RFC 822, attachments.get."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from gmail_emulator import Emulator
from gmail_emulator.seed import NOTES_TXT, PDF_BYTES
from googleapiclient.errors import HttpError


def get(svc: Any, mid: str, **kwargs: Any) -> dict[str, Any]:
    result: dict[str, Any] = svc.users().messages().get(userId="me", id=mid, **kwargs).execute()
    return result


def headers(node: dict[str, Any]) -> dict[str, str]:
    return {h["name"]: h["value"] for h in node["headers"]}


def data(node: dict[str, Any]) -> bytes:
    return base64.urlsafe_b64decode(node["body"]["data"])


def test_full_top_level_fields(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["atlas_1"]
    msg = get(svc, mid)
    assert list(msg) == [
        "id",
        "threadId",
        "labelIds",
        "snippet",
        "payload",
        "sizeEstimate",
        "historyId",
        "internalDate",
    ]
    assert msg["labelIds"] == ["INBOX", "STARRED", "IMPORTANT", "CATEGORY_PERSONAL", "Label_1"]
    assert msg["internalDate"] == "1790936100000"  # 2026-10-02T10:15:00Z
    assert msg["sizeEstimate"] == len(emu.mailbox.get_raw(mid))
    assert msg["historyId"].isdigit()
    assert msg["snippet"].startswith("Hi Mia, let&#39;s kick off Project Atlas on Monday.")
    payload = msg["payload"]
    assert payload["partId"] == "" and payload["filename"] == "" and payload["mimeType"] == "text/plain"
    assert headers(payload)["Cc"] == "Bob Lee <bob@example.com>"
    assert data(payload).startswith(b"Hi Mia,\r\n\r\nlet's kick off")
    assert payload["body"]["size"] == len(data(payload))
    assert "parts" not in payload


def test_html_only_message(emu: Emulator, svc: Any) -> None:
    msg = get(svc, emu.seeded["receipt_html"])
    payload = msg["payload"]
    assert payload["mimeType"] == "text/html" and "parts" not in payload
    html = data(payload).decode("utf-8")  # quoted-printable undone
    assert "<table" in html and '<a href="https://northwind.example/orders/8812">' in html
    assert msg["snippet"].startswith("Thanks for your order! Order #8812 &amp; receipt below.")
    assert "<" not in msg["snippet"]


def test_multipart_alternative(emu: Emulator, svc: Any) -> None:
    payload = get(svc, emu.seeded["digest_alt"])["payload"]
    assert payload["mimeType"] == "multipart/alternative"
    assert payload["body"] == {"size": 0}
    assert [(p["partId"], p["mimeType"]) for p in payload["parts"]] == [("0", "text/plain"), ("1", "text/html")]
    assert b"<b>rust in production</b>" in data(payload["parts"][1])
    assert headers(payload)["List-Id"] == "The Weekly <weekly.news.example.com>"


def test_text_attachment_and_attachments_get(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["notes_attachment"]
    payload = get(svc, mid)["payload"]
    body_part, att_part = payload["parts"]
    assert body_part["body"]["data"] and body_part["filename"] == ""
    assert att_part["filename"] == "notes.txt" and att_part["partId"] == "1"
    assert set(att_part["body"]) == {"attachmentId", "size"}
    assert att_part["body"]["size"] == len(NOTES_TXT)
    att = (
        svc.users()
        .messages()
        .attachments()
        .get(userId="me", messageId=mid, id=att_part["body"]["attachmentId"])
        .execute()
    )
    assert base64.urlsafe_b64decode(att["data"]) == NOTES_TXT
    assert att["size"] == len(NOTES_TXT)


def test_pdf_attachment_with_rfc2231_filename_and_rfc2047_headers(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["invoice_pdf"]
    msg = get(svc, mid)
    top = headers(msg["payload"])
    assert top["Subject"] == "Rechnung März 2026"
    assert top["From"] == "Zoë Ünal <zoe@example.de>"
    text_part, pdf_part = msg["payload"]["parts"]
    assert data(text_part).decode("utf-8").startswith("Hallo Mia,")
    assert pdf_part["mimeType"] == "application/pdf"
    assert pdf_part["filename"] == "Rechnung_März_2026.pdf"
    att = (
        svc.users()
        .messages()
        .attachments()
        .get(userId="me", messageId=mid, id=pdf_part["body"]["attachmentId"])
        .execute()
    )
    assert base64.urlsafe_b64decode(att["data"]) == PDF_BYTES
    assert msg["snippet"] == "Hallo Mia, anbei die Rechnung für März. Viele Grüße Zoë"


def test_non_ascii_subjects_and_charsets(emu: Emulator, svc: Any) -> None:
    jp = get(svc, emu.seeded["japanese"])
    assert headers(jp["payload"])["Subject"] == "会議の議事録について"
    assert headers(jp["payload"])["From"] == "田中太郎 <tanaka@example.jp>"
    assert "議事録" in data(jp["payload"]).decode("utf-8")

    munich = get(svc, emu.seeded["munich_1"])
    assert headers(munich["payload"])["Subject"] == "Grüße aus München"

    fr = get(svc, emu.seeded["latin1"])
    assert headers(fr["payload"])["Subject"] == "Café menu for Friday"
    assert headers(fr["payload"])["From"] == "François Dubois <francois@example.fr>"
    body = data(fr["payload"])  # transfer encoding undone, charset kept (iso-8859-1), like Gmail
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")
    assert "crème brûlée" in body.decode("iso-8859-1")
    assert fr["snippet"].startswith("Bonjour Mia, Voilà le menu du café")


def test_large_body(emu: Emulator, svc: Any) -> None:
    msg = get(svc, emu.seeded["logs_large"])
    body = data(msg["payload"])
    assert msg["payload"]["body"]["size"] == len(body) > 100 * 1024
    assert body.rstrip().endswith(b"-- ops")
    assert len(msg["snippet"]) <= 200


def test_metadata_minimal_raw(emu: Emulator, svc: Any) -> None:
    mid = emu.seeded["dinner_1"]
    meta = get(svc, mid, format="metadata", metadataHeaders=["Subject", "bcc"])
    assert meta["payload"] == {
        "mimeType": "text/plain",
        "headers": [
            {"name": "Bcc", "value": "Lee Example <lee@example.net>"},  # kept in the sender's copy
            {"name": "Subject", "value": "Dinner on Saturday?"},
        ],
    }
    all_headers = get(svc, mid, format="metadata")["payload"]["headers"]
    assert len(all_headers) == 9

    minimal = get(svc, mid, format="minimal")
    assert set(minimal) == {"id", "threadId", "labelIds", "snippet", "sizeEstimate", "historyId", "internalDate"}

    raw = get(svc, mid, format="raw")
    assert "payload" not in raw
    assert base64.urlsafe_b64decode(raw["raw"]) == emu.mailbox.get_raw(mid)


def test_unknown_ids_are_404_not_found(emu: Emulator, svc: Any) -> None:
    with pytest.raises(HttpError) as err:
        get(svc, "0000000000000000")
    assert err.value.resp.status == 404
    assert err.value.error_details[0]["reason"] == "notFound"
    mid = emu.seeded["notes_attachment"]
    with pytest.raises(HttpError) as err:
        svc.users().messages().attachments().get(userId="me", messageId=mid, id="ANGjdJnope").execute()
    assert err.value.resp.status == 404


def test_an_attached_message_is_shown_expanded_and_its_attachments_served(emu: Emulator, svc: Any) -> None:
    """A message/rfc822 part is shown as Gmail shows it: expanded (its one child is the attached message, with
    that message's own headers), no attachment id of its own; the attachments inside it have ids that
    attachments.get serves, as for any other attachment of the message."""
    from email.message import EmailMessage

    inner = EmailMessage()
    inner["From"] = "Carol <carol@example.org>"
    inner["Subject"] = "Agenda"
    inner.set_content("See the agenda.\n")
    inner.add_attachment(PDF_BYTES, "application", "pdf", filename="agenda.pdf")
    outer = EmailMessage()
    outer["From"] = "Ann <ann@example.org>"
    outer["Subject"] = "Fwd: Agenda"
    outer.set_content("Forwarded as an attachment.\n")
    outer.add_attachment(inner, filename="agenda.eml")
    mid = emu.add_message(outer.as_bytes(), ["INBOX"])
    attached = get(svc, mid)["payload"]["parts"][1]
    assert (attached["mimeType"], attached["filename"], attached["partId"]) == ("message/rfc822", "agenda.eml", "1")
    assert "attachmentId" not in attached["body"]
    [message] = attached["parts"]
    assert headers(message)["Subject"] == "Agenda" and message["mimeType"] == "multipart/mixed"
    pdf = message["parts"][1]
    assert (pdf["partId"], pdf["filename"], pdf["body"]["size"]) == ("1.0.1", "agenda.pdf", len(PDF_BYTES))
    served = svc.users().messages().attachments().get(userId="me", messageId=mid, id=pdf["body"]["attachmentId"])
    assert base64.urlsafe_b64decode(served.execute()["data"]) == PDF_BYTES
