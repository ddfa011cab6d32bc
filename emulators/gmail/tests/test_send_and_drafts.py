"""messages.send (JSON raw, media, multipart, resumable uploads), threading, drafts lifecycle."""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from gmail_emulator import Emulator
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaIoBaseUpload


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii")


def rfc822(subject: str, *, msgid: str | None = None, extra: str = "", body: str = "Hello!\r\n") -> bytes:
    lines = [
        "From: Mia Example <me@example.com>",
        "To: Bob Lee <bob@example.com>",
        f"Subject: {subject}",
        "Date: Sat, 21 Nov 2026 10:00:00 +0000",
    ]
    if msgid:
        lines.append(f"Message-ID: {msgid}")
    if extra:
        lines.append(extra)
    lines += ["MIME-Version: 1.0", 'Content-Type: text/plain; charset="UTF-8"', "Content-Transfer-Encoding: 8bit"]
    return ("\r\n".join(lines) + "\r\n\r\n" + body).encode("utf-8")


def media(raw: bytes, **kwargs: Any) -> MediaIoBaseUpload:
    return MediaIoBaseUpload(io.BytesIO(raw), mimetype="message/rfc822", **kwargs)


def test_send_json_raw(emu: Emulator, svc: Any) -> None:
    raw = rfc822("JSON send", msgid="<json-1@client.example>", body="Grüße, Zoë\r\n")
    sent = svc.users().messages().send(userId="me", body={"raw": b64(raw)}).execute()
    assert set(sent) == {"id", "threadId", "labelIds"}
    assert sent["labelIds"] == ["SENT"]
    assert sent["threadId"] == sent["id"]  # a new thread
    assert emu.mailbox.get_raw(sent["id"]) == raw  # stored byte for byte
    assert emu.mailbox.sent_messages_with_header("Message-ID", "<json-1@client.example>") == [sent["id"]]
    assert emu.mailbox.sent_messages_with_header("Message-ID", "json-1@client.example") == [sent["id"]]
    listed = svc.users().messages().list(userId="me", q="rfc822msgid:json-1@client.example").execute()
    assert listed["messages"] == [{"id": sent["id"], "threadId": sent["id"]}]
    assert "INBOX" not in svc.users().messages().get(userId="me", id=sent["id"]).execute()["labelIds"]


def test_send_adds_missing_from_date_message_id(emu: Emulator, svc: Any) -> None:
    raw = b"To: bob@example.com\r\nSubject: bare\r\n\r\nhi\r\n"
    sent = svc.users().messages().send(userId="me", body={"raw": b64(raw)}).execute()
    stored = emu.mailbox.get_raw(sent["id"])
    assert stored.endswith(raw)
    head = stored[: -len(raw)].decode()
    assert "From: Mia Example <me@example.com>\r\n" in head
    assert "Date: " in head and "Message-ID: <" in head


def test_send_media_upload_is_byte_exact(emu: Emulator, svc: Any) -> None:
    raw = rfc822("media send", msgid="<media-1@client.example>", body="Ünïcödé body\r\n")
    sent = svc.users().messages().send(userId="me", media_body=media(raw)).execute()
    assert emu.mailbox.get_raw(sent["id"]) == raw
    rec = [r for r in emu.request_log() if r.route == "messages.send"]
    assert len(rec) == 1
    assert rec[0].path == "/upload/gmail/v1/users/me/messages/send"
    assert rec[0].query["uploadType"] == "media"


def test_send_multipart_upload_with_thread_id(emu: Emulator, svc: Any) -> None:
    thread = emu.mailbox.thread_id(emu.seeded["dinner_1"])
    raw = rfc822("Re: Dinner on Saturday?", msgid="<mp-1@client.example>")
    sent = svc.users().messages().send(userId="me", body={"threadId": thread}, media_body=media(raw)).execute()
    assert sent["threadId"] == thread
    assert emu.mailbox.get_raw(sent["id"]) == raw
    assert emu.request_log()[-1].query["uploadType"] == "multipart"


def test_send_resumable_upload_in_chunks(emu: Emulator, svc: Any) -> None:
    raw = rfc822("big resumable", msgid="<res-1@client.example>", body="x" * 600_000 + "\r\n")
    request = svc.users().messages().send(userId="me", media_body=media(raw, resumable=True, chunksize=256 * 1024))
    response = None
    steps = 0
    while response is None:
        _status, response = request.next_chunk()
        steps += 1
    assert steps == 3
    assert emu.mailbox.get_raw(response["id"]) == raw
    methods = [(r.method, r.query.get("uploadType")) for r in emu.request_log() if r.route == "messages.send"]
    assert methods == [("POST", "resumable"), ("PUT", "resumable"), ("PUT", "resumable"), ("PUT", "resumable")]


def test_reply_is_threaded_by_in_reply_to(emu: Emulator, svc: Any) -> None:
    raw = rfc822(
        "Re: Lunch tomorrow?",
        extra="In-Reply-To: <lunch_3@seed.example.com>\r\n"
        "References: <lunch_1@seed.example.com> <lunch_3@seed.example.com>",
    )
    sent = svc.users().messages().send(userId="me", body={"raw": b64(raw)}).execute()
    assert sent["threadId"] == emu.mailbox.thread_id(emu.seeded["lunch_1"])
    thread = svc.users().threads().get(userId="me", id=sent["threadId"], format="minimal").execute()
    assert [m["id"] for m in thread["messages"]][-1] == sent["id"]
    assert len(thread["messages"]) == 4


def test_send_errors(emu: Emulator, svc: Any) -> None:
    with pytest.raises(HttpError) as err:
        svc.users().messages().send(userId="me", body={}).execute()
    assert err.value.resp.status == 400 and "raw" in err.value.reason
    with pytest.raises(HttpError) as err:
        svc.users().messages().send(userId="me", body={"raw": b64(b"Subject: nobody\r\n\r\nx\r\n")}).execute()
    assert err.value.resp.status == 400 and err.value.reason == "Recipient address required"
    with pytest.raises(HttpError) as err:
        svc.users().messages().send(
            userId="me", body={"raw": b64(rfc822("x")), "threadId": "ffffffffffffffff"}
        ).execute()
    assert err.value.resp.status == 404
    assert len(emu.mailbox.message_ids("SENT")) == 4  # nothing was stored


def test_drafts_lifecycle(emu: Emulator, svc: Any) -> None:
    drafts = svc.users().drafts()
    created = drafts.create(userId="me", body={"message": {"raw": b64(rfc822("Draft v1"))}}).execute()
    draft_id, first_msg = created["id"], created["message"]["id"]
    assert created["message"]["labelIds"] == ["DRAFT"]

    listing = drafts.list(userId="me").execute()
    assert [d["id"] for d in listing["drafts"]] == [draft_id, emu.seeded_drafts["draft_notes"]]
    assert listing["drafts"][0]["message"] == {"id": first_msg, "threadId": created["message"]["threadId"]}
    assert listing["resultSizeEstimate"] == 2

    got = drafts.get(userId="me", id=draft_id).execute()
    assert got["message"]["payload"]["headers"][2] == {"name": "Subject", "value": "Draft v1"}

    updated = drafts.update(userId="me", id=draft_id, body={"message": {"raw": b64(rfc822("Draft v2"))}}).execute()
    assert updated["id"] == draft_id and updated["message"]["id"] != first_msg
    with pytest.raises(HttpError) as err:
        svc.users().messages().get(userId="me", id=first_msg).execute()
    assert err.value.resp.status == 404
    raw_v2 = drafts.get(userId="me", id=draft_id, format="raw").execute()["message"]["raw"]
    assert b"Subject: Draft v2" in base64.urlsafe_b64decode(raw_v2)

    sent = drafts.send(userId="me", body={"id": draft_id}).execute()
    assert sent["id"] == updated["message"]["id"] and sent["labelIds"] == ["SENT"]
    with pytest.raises(HttpError) as err:
        drafts.get(userId="me", id=draft_id).execute()
    assert err.value.resp.status == 404
    assert sent["id"] in emu.mailbox.message_ids("SENT")
    assert b"Message-ID: <" in emu.mailbox.get_raw(sent["id"])

    seeded = emu.seeded_drafts["draft_notes"]
    assert drafts.delete(userId="me", id=seeded).execute() == ""  # 204 -> RawModel's empty answer
    assert "drafts" not in drafts.list(userId="me").execute()
    assert emu.seeded["draft_notes"] not in emu.mailbox.message_ids()
    with pytest.raises(HttpError) as err:
        drafts.send(userId="me", body={"id": seeded}).execute()
    assert err.value.resp.status == 404


def test_draft_create_via_media_upload_and_q(emu: Emulator, svc: Any) -> None:
    raw = rfc822("Uploaded draft", body="zebra crossing\r\n")
    created = svc.users().drafts().create(userId="me", media_body=media(raw)).execute()
    assert emu.mailbox.get_raw(created["message"]["id"]) == raw
    found = svc.users().drafts().list(userId="me", q="zebra").execute()
    assert [d["id"] for d in found["drafts"]] == [created["id"]]


def test_concurrent_sends_are_all_stored(emu: Emulator, service_for: Any) -> None:
    import threading

    services = [service_for() for _ in range(6)]
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(5):
                raw = rfc822(f"concurrent {n}-{i}", msgid=f"<c-{n}-{i}@client>")
                services[n].users().messages().send(userId="me", body={"raw": b64(raw)}).execute()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(emu.mailbox.message_ids("SENT")) == 4 + 30
    assert len(set(emu.mailbox.message_ids())) == len(emu.mailbox.message_ids())
