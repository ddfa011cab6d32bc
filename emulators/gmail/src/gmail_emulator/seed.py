"""The deterministic seed mailbox of ``me@example.com`` ("Mia Example").

Messages are dated 2026-10-01 .. 2026-11-20, always between 10:00 and 20:00 UTC (so the calendar
day is the same in UTC and in Gmail's PST rule for ``after:``/``before:``). ``SEED_KEYS`` lists
what each message is there to cover; ``Emulator.seeded`` maps these keys to message ids.
"""

from __future__ import annotations

import base64
import quopri
from dataclasses import dataclass
from datetime import UTC, datetime
from email.header import Header
from email.utils import format_datetime, formataddr

from .mailbox import Mailbox

ME = "me@example.com"
ME_NAME = "Mia Example"
ME_ADDR = f"{ME_NAME} <{ME}>"

ALICE = "Alice Johnson <alice@example.com>"
BOB = "Bob Lee <bob@example.com>"
CAROL = "Carol Diaz <carol@example.com>"
SAM = "Sam Rivera <sam@example.net>"
ALIAS_DOMAIN = "acme.example"

USER_LABELS: list[tuple[str, dict[str, str]]] = [
    ("Projects", {}),
    ("Receipts", {}),
    ("Travel", {}),
    ("Travel/2026", {}),
]

PDF_BYTES = (
    b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
    + bytes(range(256))
    + b"\nstream\nRechnung 2026-03 Betrag 119.00 EUR\nendstream\n%%EOF\n"
)
NOTES_TXT = b"Agenda\n1. Atlas scope\n2. Budget\n3. Next steps: Carol drafts the plan\n"

# key -> what the message covers (documentation; keys are stable API for tests).
SEED_KEYS: dict[str, str] = {
    "atlas_1": "thread start (starred, important, Projects); 3 replies follow with In-Reply-To/References",
    "atlas_2": "reply 1, SENT by me",
    "atlas_3": "reply 2",
    "atlas_4": "reply 3, unread",
    "receipt_html": "HTML-only message with a table and a link (Receipts, unread)",
    "digest_alt": "multipart/alternative text+html newsletter with List-Id",
    "logs_large": "plain text body over 100 KB; the word 'CRITICAL' only near the end",
    "notes_attachment": "multipart/mixed with a small text attachment notes.txt",
    "invoice_pdf": "RFC 2047 subject and sender name, PDF-ish binary attachment, RFC 2231 non-ASCII filename",
    "munich_1": "non-ASCII subject/display name 'Zoë Ünal' (RFC 2047), starred, Travel/2026",
    "munich_2": "reply SENT by me in the same thread",
    "japanese": "Japanese subject and sender (RFC 2047 UTF-8), base64 UTF-8 body, unread",
    "latin1": "iso-8859-1 quoted-printable body, iso-8859-1 RFC 2047 subject",
    "dinner_1": "SENT by me with a Bcc header kept in the sent copy",
    "dinner_2": "reply to dinner_1",
    "flight": "Travel/2026, important, unread",
    "invoice_114": "archived (no INBOX), read, Receipts",
    "spam": "in SPAM (hidden from list unless includeSpamTrash / in:spam)",
    "trash": "in TRASH, oldest message",
    "lunch_1": "thread start from Bob",
    "lunch_2": "reply SENT by me",
    "lunch_3": "reply from Bob, unread",
    "security": "notification, unread",
    "promo": "CATEGORY_PROMOTIONS, unread",
    "status": "newest message, unread, important, Projects",
    "draft_notes": "a draft (DRAFT label) addressed to Bob",
}


@dataclass(frozen=True)
class SeedMessage:
    key: str
    raw: bytes
    labels: tuple[str, ...]
    internal_ms: int
    draft: bool = False


def _when(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def _enc(text: str, charset: str = "utf-8") -> str:
    return Header(text, charset).encode()


def _addr(name: str, addr: str, charset: str = "utf-8") -> str:
    return formataddr((name, addr), charset=charset)


def _msgid(key: str) -> str:
    return f"<{key}@seed.example.com>"


def _b64(data: bytes) -> str:
    return base64.encodebytes(data).decode("ascii").rstrip("\n")


def _qp(data: bytes) -> str:
    return quopri.encodestring(data).decode("ascii")


def _crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def _headers(
    key: str,
    when: datetime,
    sender: str,
    to: str,
    subject: str,
    *,
    cc: str | None = None,
    bcc: str | None = None,
    reply_to_keys: tuple[str, ...] = (),
    extra: tuple[tuple[str, str], ...] = (),
) -> str:
    lines = [
        f"From: {sender}",
        f"To: {to}",
    ]
    if cc:
        lines.append(f"Cc: {cc}")
    if bcc:
        lines.append(f"Bcc: {bcc}")
    lines += [
        f"Subject: {subject}",
        f"Date: {format_datetime(when)}",
        f"Message-ID: {_msgid(key)}",
    ]
    if reply_to_keys:
        lines.append(f"In-Reply-To: {_msgid(reply_to_keys[-1])}")
        lines.append("References: " + " ".join(_msgid(k) for k in reply_to_keys))
    lines += [f"{name}: {value}" for name, value in extra]
    lines.append("MIME-Version: 1.0")
    return "\n".join(lines) + "\n"


def _plain(headers: str, body: str) -> bytes:
    return _crlf(headers + 'Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: 7bit\n\n' + body)


def _large_log() -> str:
    lines = ["Hi Mia,", "", "here are the October server logs, inline as requested.", ""]
    for i in range(1400):
        lines.append(
            f"2026-10-14T{(i // 60) % 24:02d}:{i % 60:02d}:00Z INFO api request id={i:06d} "
            f"path=/api/v1/items/{i % 97} status=200 duration_ms={(i * 7) % 250}"
        )
    lines += ["2026-10-14T23:59:59Z CRITICAL disk almost full on db-2", "", "-- ops"]
    return "\n".join(lines) + "\n"


def seed_messages() -> list[SeedMessage]:
    out: list[SeedMessage] = []

    def add(key: str, when: datetime, raw: bytes, *labels: str, draft: bool = False) -> None:
        out.append(SeedMessage(key, raw, tuple(labels), _ms(when), draft))

    # --- Project Atlas: a thread of 4 (start + 3 replies) ---------------------------------
    atlas = "Project Atlas kickoff"
    t = _when(10, 2, 10, 15)
    add(
        "atlas_1",
        t,
        _plain(
            _headers("atlas_1", t, ALICE, ME_ADDR, atlas, cc=BOB),
            "Hi Mia,\n\nlet's kick off Project Atlas on Monday. Agenda: scope, budget, timeline.\n\nAlice\n",
        ),
        "INBOX",
        "STARRED",
        "IMPORTANT",
        "CATEGORY_PERSONAL",
        "Label_1",
    )
    t = _when(10, 2, 11, 40)
    add(
        "atlas_2",
        t,
        _plain(
            _headers("atlas_2", t, ME_ADDR, ALICE, "Re: " + atlas, cc=BOB, reply_to_keys=("atlas_1",)),
            "Monday works for me. I'll bring the budget numbers.\n\nMia\n\n> let's kick off Project Atlas on Monday.\n",
        ),
        "SENT",
        "Label_1",
    )
    t = _when(10, 3, 14, 5)
    add(
        "atlas_3",
        t,
        _plain(
            _headers("atlas_3", t, ALICE, ME_ADDR, "Re: " + atlas, cc=BOB, reply_to_keys=("atlas_1", "atlas_2")),
            "Great, room 4B at 10:00. Bob, can you prepare the timeline?\n\nAlice\n",
        ),
        "INBOX",
        "CATEGORY_PERSONAL",
        "Label_1",
    )
    t = _when(10, 4, 16, 30)
    add(
        "atlas_4",
        t,
        _plain(
            _headers(
                "atlas_4",
                t,
                BOB,
                f"{ALICE}, {ME_ADDR}",
                "Re: " + atlas,
                reply_to_keys=("atlas_1", "atlas_2", "atlas_3"),
            ),
            "Timeline draft is ready, milestone M1 is the 30th.\n\nBob\n",
        ),
        "INBOX",
        "UNREAD",
        "CATEGORY_PERSONAL",
        "Label_1",
    )

    # --- HTML-only receipt with a table and a link ---------------------------------------
    t = _when(10, 6, 10, 0)
    html = (
        "<html><body><h1>Thanks for your order!</h1>"
        "<p>Order <b>#8812</b> &amp; receipt below.</p>"
        '<table border="1"><tr><th>Item</th><th>Price</th></tr>'
        "<tr><td>Flat white</td><td>3.80 EUR</td></tr>"
        "<tr><td>Croissant</td><td>2.50 EUR</td></tr>"
        "<tr><td><b>Total</b></td><td><b>6.30 EUR</b></td></tr></table>"
        '<p>View it online: <a href="https://northwind.example/orders/8812">order 8812</a></p>'
        "</body></html>"
    )
    add(
        "receipt_html",
        t,
        _crlf(
            _headers(
                "receipt_html",
                t,
                "Northwind Coffee <receipts@northwind.example>",
                ME,
                "Your receipt from Northwind Coffee",
            )
            + 'Content-Type: text/html; charset="UTF-8"\nContent-Transfer-Encoding: quoted-printable\n\n'
            + _qp(html.encode("utf-8"))
        ),
        "INBOX",
        "UNREAD",
        "CATEGORY_UPDATES",
        "Label_2",
    )

    # --- multipart/alternative newsletter --------------------------------------------------
    t = _when(10, 12, 12, 0)
    add(
        "digest_alt",
        t,
        _crlf(
            _headers(
                "digest_alt",
                t,
                "The Weekly <digest@news.example.com>",
                ME,
                "Weekly digest: October 12",
                extra=(("List-Id", "The Weekly <weekly.news.example.com>"),),
            )
            + 'Content-Type: multipart/alternative; boundary="alt-1"\n\n'
            "--alt-1\nContent-Type: text/plain; charset=UTF-8\n\n"
            "This week: rust in production, a gardening robot, and the best pretzels.\n"
            "--alt-1\nContent-Type: text/html; charset=UTF-8\n\n"
            "<p>This week: <b>rust in production</b>, a gardening robot, and the best pretzels.</p>\n"
            "--alt-1--\n"
        ),
        "INBOX",
        "CATEGORY_UPDATES",
    )

    # --- plain body over 100 KB -------------------------------------------------------------
    t = _when(10, 14, 10, 30)
    add(
        "logs_large",
        t,
        _plain(_headers("logs_large", t, "Ops Team <ops@example.org>", ME, "Server logs for October"), _large_log()),
        "INBOX",
        "CATEGORY_UPDATES",
    )

    # --- small text attachment ----------------------------------------------------------------
    t = _when(10, 16, 15, 20)
    add(
        "notes_attachment",
        t,
        _crlf(
            _headers("notes_attachment", t, CAROL, ME_ADDR, "Meeting notes and agenda")
            + 'Content-Type: multipart/mixed; boundary="mix-1"\n\n'
            "--mix-1\nContent-Type: text/plain; charset=UTF-8\n\n"
            "Hi Mia, notes from today are attached.\n\nCarol\n"
            '--mix-1\nContent-Type: text/plain; charset=UTF-8; name="notes.txt"\n'
            'Content-Disposition: attachment; filename="notes.txt"\n'
            "Content-Transfer-Encoding: base64\n\n" + _b64(NOTES_TXT) + "\n--mix-1--\n"
        ),
        "INBOX",
        "CATEGORY_PERSONAL",
        "Label_1",
    )

    # --- PDF attachment with an RFC 2231 non-ASCII filename, RFC 2047 subject -------------------
    t = _when(10, 20, 10, 45)
    zoe = _addr("Zoë Ünal", "zoe@example.de")
    body = "Hallo Mia,\n\nanbei die Rechnung für März.\n\nViele Grüße\nZoë\n"
    add(
        "invoice_pdf",
        t,
        _crlf(
            _headers("invoice_pdf", t, zoe, ME_ADDR, _enc("Rechnung März 2026"))
            + 'Content-Type: multipart/mixed; boundary="mix-2"\n\n'
            "--mix-2\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: quoted-printable\n\n"
            + _qp(body.encode("utf-8"))
            + "\n--mix-2\nContent-Type: application/pdf; name*=utf-8''Rechnung_M%C3%A4rz_2026.pdf\n"
            "Content-Disposition: attachment; filename*=utf-8''Rechnung_M%C3%A4rz_2026.pdf\n"
            "Content-Transfer-Encoding: base64\n\n" + _b64(PDF_BYTES) + "\n--mix-2--\n"
        ),
        "INBOX",
        "CATEGORY_PERSONAL",
        "Label_2",
    )

    # --- Grüße aus München (non-ASCII subject and name) + my reply ---------------------------------
    t = _when(10, 24, 17, 0)
    munich = "Grüße aus München"
    munich_body = "Liebe Mia,\n\nviele Grüße aus München! Das Oktoberfest war großartig.\n\nZoë\n"
    add(
        "munich_1",
        t,
        _crlf(
            _headers("munich_1", t, zoe, ME_ADDR, _enc(munich))
            + 'Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: base64\n\n'
            + _b64(munich_body.encode("utf-8"))
            + "\n"
        ),
        "INBOX",
        "STARRED",
        "CATEGORY_PERSONAL",
        "Label_4",
    )
    t = _when(10, 25, 10, 10)
    add(
        "munich_2",
        t,
        _crlf(
            _headers("munich_2", t, ME_ADDR, zoe, _enc("Re: " + munich), reply_to_keys=("munich_1",))
            + 'Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: quoted-printable\n\n'
            + _qp("Danke Zoë! Bis bald in Berlin.\n\nMia\n".encode())
        ),
        "SENT",
        "Label_4",
    )

    # --- Japanese ----------------------------------------------------------------------------------
    t = _when(10, 27, 11, 0)
    jp_body = "ミアさん\n\n先日の会議の議事録をお送りします。ご確認ください。\n\n田中\n"
    add(
        "japanese",
        t,
        _crlf(
            _headers("japanese", t, _addr("田中太郎", "tanaka@example.jp"), ME_ADDR, _enc("会議の議事録について"))
            + 'Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: base64\n\n'
            + _b64(jp_body.encode("utf-8"))
            + "\n"
        ),
        "INBOX",
        "UNREAD",
        "CATEGORY_PERSONAL",
    )

    # --- iso-8859-1 quoted-printable -------------------------------------------------------------------
    t = _when(10, 29, 13, 30)
    fr_body = (
        "Bonjour Mia,\n\nVoilà le menu du café pour vendredi : crème brûlée et gâteau à l'orange.\n\n"
        "À bientôt,\nFrançois\n"
    )
    add(
        "latin1",
        t,
        _crlf(
            _headers(
                "latin1",
                t,
                _addr("François Dubois", "francois@example.fr", "iso-8859-1"),
                ME_ADDR,
                _enc("Café menu for Friday", "iso-8859-1"),
            )
            + 'Content-Type: text/plain; charset="iso-8859-1"\nContent-Transfer-Encoding: quoted-printable\n\n'
            + _qp(fr_body.encode("iso-8859-1"))
        ),
        "INBOX",
        "CATEGORY_PERSONAL",
    )

    # --- dinner: sent with Bcc, then a reply ------------------------------------------------------------
    t = _when(11, 2, 18, 0)
    add(
        "dinner_1",
        t,
        _plain(
            _headers("dinner_1", t, ME_ADDR, SAM, "Dinner on Saturday?", bcc="Lee Example <lee@example.net>"),
            "Hi Sam, dinner on Saturday at 7? I'm thinking the Italian place.\n\nMia\n",
        ),
        "SENT",
    )
    t = _when(11, 3, 10, 20)
    add(
        "dinner_2",
        t,
        _plain(
            _headers("dinner_2", t, SAM, ME_ADDR, "Re: Dinner on Saturday?", reply_to_keys=("dinner_1",)),
            "Sounds perfect, see you at 7!\n\nSam\n",
        ),
        "INBOX",
        "CATEGORY_PERSONAL",
    )

    # --- misc single messages ----------------------------------------------------------------------------
    t = _when(11, 5, 12, 0)
    add(
        "flight",
        t,
        _plain(
            _headers(
                "flight",
                t,
                "SkyWays Bookings <bookings@airline.example>",
                ME,
                "Flight confirmation ABC123 - Munich, 14 Nov",
            ),
            "Booking reference ABC123\nBER -> MUC, 14 Nov 2026 08:05, seat 12A\n",
        ),
        "INBOX",
        "UNREAD",
        "IMPORTANT",
        "CATEGORY_UPDATES",
        "Label_4",
    )
    t = _when(11, 8, 10, 0)
    add(
        "invoice_114",
        t,
        _plain(
            _headers("invoice_114", t, "Hosting Billing <billing@hosting.example>", ME, "Invoice #2026-114"),
            "Your invoice 2026-114 for November: 12.00 EUR. Paid by card.\n",
        ),
        "CATEGORY_UPDATES",
        "Label_2",
    )
    t = _when(11, 10, 10, 0)
    add(
        "spam",
        t,
        _plain(
            _headers("spam", t, "Prize Office <lottery@prizes.example>", ME, "You have WON a prize!!!"),
            "Claim your prize now by sending your bank details.\n",
        ),
        "SPAM",
        "UNREAD",
    )
    t = _when(10, 1, 12, 0)
    add(
        "trash",
        t,
        _plain(
            _headers("trash", t, "Old News <news@old.example>", ME, "Old newsletter: September edition"),
            "The September edition of our newsletter.\n",
        ),
        "TRASH",
        "CATEGORY_PROMOTIONS",
    )

    # --- lunch: 3 messages ------------------------------------------------------------------------------
    t = _when(11, 12, 11, 30)
    add(
        "lunch_1",
        t,
        _plain(_headers("lunch_1", t, BOB, ME_ADDR, "Lunch tomorrow?"), "Lunch tomorrow at noon? Ramen?\n\nBob\n"),
        "INBOX",
        "CATEGORY_PERSONAL",
    )
    t = _when(11, 12, 12, 5)
    add(
        "lunch_2",
        t,
        _plain(
            _headers("lunch_2", t, ME_ADDR, BOB, "Re: Lunch tomorrow?", reply_to_keys=("lunch_1",)),
            "Yes! Ramen it is.\n\nMia\n",
        ),
        "SENT",
    )
    t = _when(11, 12, 12, 30)
    add(
        "lunch_3",
        t,
        _plain(
            _headers("lunch_3", t, BOB, ME_ADDR, "Re: Lunch tomorrow?", reply_to_keys=("lunch_1", "lunch_2")),
            "Great, I'll book a table for two.\n\nBob\n",
        ),
        "INBOX",
        "UNREAD",
        "CATEGORY_PERSONAL",
    )

    t = _when(11, 15, 10, 45)
    add(
        "security",
        t,
        _plain(
            _headers(
                "security", t, "Example Accounts <no-reply@accounts.example.com>", ME, "Security alert: new sign-in"
            ),
            "A new sign-in to your account was detected from Firefox on Linux.\n",
        ),
        "INBOX",
        "UNREAD",
        "CATEGORY_UPDATES",
    )
    t = _when(11, 18, 15, 0)
    add(
        "promo",
        t,
        _plain(
            _headers("promo", t, "Shop Deals <deals@shop.example>", ME, "50% off everything this weekend"),
            "Use code WEEKEND50 at checkout. Offer ends Sunday.\n",
        ),
        "INBOX",
        "UNREAD",
        "CATEGORY_PROMOTIONS",
    )
    t = _when(11, 20, 16, 0)
    add(
        "status",
        t,
        _plain(
            _headers("status", t, ALICE, ME_ADDR, "Atlas status update - week 47"),
            "Status: M1 done, M2 at risk because of the vendor delay. Let's discuss Monday.\n\nAlice\n",
        ),
        "INBOX",
        "UNREAD",
        "IMPORTANT",
        "CATEGORY_PERSONAL",
        "Label_1",
    )

    # --- a draft --------------------------------------------------------------------------------------
    t = _when(11, 19, 19, 0)
    add(
        "draft_notes",
        t,
        _plain(
            _headers("draft_notes", t, ME_ADDR, BOB, "Notes for Bob"),
            "Bob, some notes on the timeline before Monday:\n- M2 needs a buffer\n",
        ),
        "DRAFT",
        draft=True,
    )
    return out


def signature_html(display_name: str) -> str:
    """The seed's HTML signature of the primary send-as address."""
    return f'<div dir="ltr">{display_name}<br><b>ACME</b> · <a href="https://acme.example">acme.example</a></div>'


def alias_address(email_address: str) -> str:
    """The seed's one custom "from" alias: the same local part at acme.example (no signature)."""
    return email_address.split("@")[0] + "@" + ALIAS_DOMAIN


def populate(mailbox: Mailbox) -> tuple[dict[str, str], dict[str, str]]:
    """Fill ``mailbox`` (labels, messages, drafts, send-as: the primary address gets
    ``signature_html``, plus the alias ``alias_address`` without signature); return
    (key -> message id, key -> draft id)."""
    mailbox.set_send_as(mailbox.email_address, signature=signature_html(mailbox.display_name))
    mailbox.set_send_as(
        alias_address(mailbox.email_address),
        display_name=mailbox.display_name,
        treat_as_alias=True,
        verification_status="accepted",
    )
    for name, fields in USER_LABELS:
        mailbox.create_label(name, **fields)
    messages: dict[str, str] = {}
    drafts: dict[str, str] = {}
    for seed in seed_messages():
        if seed.draft:
            draft_id = mailbox.add_draft(seed.raw, internal_date_ms=seed.internal_ms)
            drafts[seed.key] = draft_id
            messages[seed.key] = mailbox.draft_ids()[draft_id]
        else:
            messages[seed.key] = mailbox.add_message(seed.raw, seed.labels, internal_date_ms=seed.internal_ms)
    return messages, drafts
