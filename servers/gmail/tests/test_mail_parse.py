"""gmail_mcp.mail.parse: Gmail API message resources → summaries and ParsedEmail.

Resources are built the way Gmail builds them: real MIME (from the `email` package or raw
bytes) converted to the `payload` JSON shape by `gmail_resource` below.
"""

from __future__ import annotations

import base64
import email
import email.policy
from email.message import EmailMessage, Message
from typing import Any

import pytest
from gmail_mcp.api.views import message
from gmail_mcp.mail import parse
from gmail_mcp.mail.errors import InvalidField, MessageMalformed
from gmail_mcp.mail.parse import (
    Fetch,
    MessageSummary,
    ParsedEmail,
    decode_header_value,
    header_map,
    slice_body,
)
from hypothesis import given, settings
from hypothesis import strategies as st

LABELS = {"INBOX": "INBOX", "UNREAD": "UNREAD", "Label_7": "Projects/Alpha"}


# The Gmail JSON these tests build reaches `mail.parse` as api/ hands it over: parsed once into the typed view.
def parse_full(resource: object, labels: dict[str, str], fetch: Fetch | None = None) -> ParsedEmail:
    return parse.parse_full(message(resource), labels, fetch)


def summarize(resource: object, labels: dict[str, str], **hint: Any) -> MessageSummary:
    return parse.summarize(message(resource), labels, **hint)


# --- helper: MIME → Gmail payload JSON ------------------------------------------------------------


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")  # Gmail may omit the padding


def gmail_part(msg: Message, part_id: str = "") -> dict[str, Any]:
    """One MessagePart as `users.messages.get?format=full` returns it (headers raw, data transfer-decoded)."""
    part: dict[str, Any] = {
        "partId": part_id,
        "mimeType": msg.get_content_type(),
        "filename": msg.get_filename() or "",  # Gmail decodes RFC 2231 itself
        "headers": [{"name": name, "value": str(value)} for name, value in msg.items()],
    }
    prefix = "" if part_id == "" else part_id + "."
    payload: Any = msg.get_payload() if msg.is_multipart() else msg.get_payload(decode=True)
    if msg.get_content_type() == "message/rfc822":
        inner: Message = payload[0]
        part["body"] = {"attachmentId": f"ATT-{part_id}", "size": len(inner.as_bytes())}
        part["parts"] = [gmail_part(inner, prefix + "0")]
    elif msg.is_multipart():
        part["body"] = {"size": 0}
        part["parts"] = [gmail_part(child, f"{prefix}{i}") for i, child in enumerate(payload)]
    else:
        data: bytes = payload or b""
        if part["filename"]:
            part["body"] = {"attachmentId": f"ATT-{part_id}", "size": len(data)}
        else:
            part["body"] = {"data": _b64url(data), "size": len(data)}
    return part


def gmail_resource(source: Message | bytes, **fields: Any) -> dict[str, Any]:
    """A full message resource; `source` is re-parsed from bytes so header values stay raw."""
    raw = source if isinstance(source, bytes) else source.as_bytes()
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    resource: dict[str, Any] = {
        "id": "18c0ffee",
        "threadId": "18c0ffe0",
        "labelIds": ["INBOX", "UNREAD", "Label_7"],
        "snippet": "Hi &amp; welcome &#39;friend&#39;",
        "internalDate": "1700000000000",
        "sizeEstimate": len(raw),
        "payload": gmail_part(msg),
    }
    resource.update(fields)
    return resource


def simple_message(body: str = "Hello there.\nSecond line.") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Alice Example <alice@example.com>"
    msg["To"] = "bob@example.com, Carol <carol@example.com>"
    msg["Cc"] = "dave@example.com"
    msg["Subject"] = "Quarterly report"
    msg["Date"] = "Tue, 14 Nov 2023 09:30:00 +0100"
    msg["Message-ID"] = "<abc123@mail.example.com>"
    msg["In-Reply-To"] = "<parent@mail.example.com>"
    msg["References"] = "<root@mail.example.com> <parent@mail.example.com>"
    msg.set_content(body)
    return msg


def raw_message(content_type: str, body: bytes, cte: str = "8bit", extra: str = "") -> bytes:
    head = (
        "From: a@example.com\r\nTo: b@example.com\r\nSubject: raw\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: {content_type}\r\nContent-Transfer-Encoding: {cte}\r\n{extra}\r\n"
    )
    return head.encode("ascii") + body


HTML = """<html><head><title>Newsletter</title><style>p { color: red }</style>
<script>document.write("SECRET SCRIPT TEXT")</script></head>
<body><h1>Monthly update</h1><p>Read <a href="https://example.com/news?id=42">the full story</a>.</p>
<table><tr><th>Item</th><th>Price</th></tr><tr><td>Widget</td><td>9.99 EUR</td></tr></table>
<div style="display:none">hidden preheader</div></body></html>"""


# --- headers ---------------------------------------------------------------------------------------


def test_header_map_is_case_insensitive_and_first_wins() -> None:
    headers = header_map(
        [
            {"name": "Subject", "value": "first"},
            {"name": "SUBJECT", "value": "second"},
            {"name": "X-Broken"},
            "not a dict",  # type: ignore[list-item]
            {"name": 7, "value": "bad name"},
        ]
    )
    assert headers["subject"] == "first"
    assert headers.get("Subject") == "first"
    assert "sUbJeCt" in headers
    assert "x-broken" not in headers
    assert headers.get("missing", "") == ""
    assert len(header_map("garbage")) == 0  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("=?utf-8?q?Gr=C3=BC=C3=9Fe?= =?iso-8859-1?q?_aus_K=F6ln?=", "Grüße aus Köln"),
        ("=?UTF-8?B?8J+Ukg==?= launch", "🔒 launch"),
        ("Plain subject", "Plain subject"),
        ("=?shift_jis?b?grGC8YLJgr+CzQ==?=", "こんにちは"),
        ("folded\r\n line", "folded line"),
    ],
)
def test_decode_header_value(raw: str, expected: str) -> None:
    assert decode_header_value(raw) == expected


@pytest.mark.parametrize(
    "garbage",
    [
        "=?bogus-charset?q?abc?=",
        "=?utf-8?b?###?=",
        "=?utf-8?x?zz?=",
        "=?",
        "=?utf-8?q?" + "=?" * 5000,
        "C:\\users\\=?utf-8?q?x?=",
        "\x00\x1b[31m=?utf-8?q?red?=",
    ],
)
def test_decode_header_value_survives_garbage(garbage: str) -> None:
    decoded = decode_header_value(garbage)
    assert isinstance(decoded, str)
    assert "\r" not in decoded and "\n" not in decoded and "\x00" not in decoded


# --- parse_full: bodies ----------------------------------------------------------------------------


def test_plain_message() -> None:
    parsed = parse_full(gmail_resource(simple_message()), LABELS)
    assert parsed.id == "18c0ffee"
    assert parsed.thread_id == "18c0ffe0"
    assert parsed.from_ == "Alice Example <alice@example.com>"
    assert parsed.to == "bob@example.com, Carol <carol@example.com>"
    assert parsed.cc == "dave@example.com"
    assert parsed.bcc is None
    assert parsed.subject == "Quarterly report"
    assert parsed.date == "2023-11-14T09:30:00+01:00"
    assert parsed.message_id == "<abc123@mail.example.com>"
    assert parsed.in_reply_to == "<parent@mail.example.com>"
    assert parsed.references == "<root@mail.example.com> <parent@mail.example.com>"
    assert parsed.labels == ["INBOX", "UNREAD", "Projects/Alpha"]
    assert parsed.unread is True
    assert parsed.snippet == "Hi & welcome 'friend'"
    assert parsed.body == "Hello there.\nSecond line."
    assert parsed.attachments == []
    assert parsed.body_incomplete is False


def test_html_only_message_is_rendered_as_text() -> None:
    msg = simple_message()
    msg.set_content(HTML, subtype="html")
    parsed = parse_full(gmail_resource(msg), LABELS)
    assert "Monthly update" in parsed.body
    assert "https://example.com/news?id=42" in parsed.body
    assert "the full story" in parsed.body
    assert "Widget" in parsed.body and "9.99 EUR" in parsed.body
    assert "SECRET SCRIPT TEXT" not in parsed.body
    assert "color: red" not in parsed.body
    assert "hidden preheader" not in parsed.body
    assert "<" not in parsed.body


def test_alternative_prefers_plain() -> None:
    msg = simple_message("The plain version.")
    msg.add_alternative("<p>The <b>HTML</b> version.</p>", subtype="html")
    parsed = parse_full(gmail_resource(msg), LABELS)
    assert parsed.body == "The plain version."


def test_alternative_with_html_first_still_prefers_plain() -> None:
    msg = EmailMessage()
    msg["Subject"] = "x"
    msg.make_alternative()
    html_part, plain_part = EmailMessage(), EmailMessage()
    html_part.set_content("<p>html</p>", subtype="html")
    plain_part.set_content("plain")
    msg.attach(html_part)
    msg.attach(plain_part)
    assert parse_full(gmail_resource(msg), LABELS).body == "plain"


def nested_message(with_plain: bool = True) -> EmailMessage:
    """mixed > [related > [alternative > [plain?, html], inline png], report.pdf]."""
    msg = simple_message("Plain body of the nested message.")
    if not with_plain:
        msg.set_content("<p>Only <i>HTML</i> here.</p>", subtype="html")
        msg.add_related(b"\x89PNG fake", maintype="image", subtype="png", cid="<logo@x>")
    else:
        msg.add_alternative('<p>HTML body <img src="cid:logo@x"></p>', subtype="html")
        html_part: Any = msg.get_payload()[1]  # type: ignore[index]
        html_part.add_related(b"\x89PNG fake", maintype="image", subtype="png", cid="<logo@x>")
    msg.add_attachment(b"%PDF-1.4 fake", maintype="application", subtype="pdf", filename="report.pdf")
    return msg


def test_nested_mixed_related_alternative() -> None:
    resource = gmail_resource(nested_message())
    assert resource["payload"]["mimeType"] == "multipart/mixed"
    parsed = parse_full(resource, LABELS)
    assert parsed.body == "Plain body of the nested message."
    assert [a.filename for a in parsed.attachments] == ["report.pdf"]  # the cid image is not listed


def test_nested_related_html_only() -> None:
    parsed = parse_full(gmail_resource(nested_message(with_plain=False)), LABELS)
    assert parsed.body == "Only HTML here."
    assert [a.filename for a in parsed.attachments] == ["report.pdf"]


def test_inline_text_parts_are_concatenated_in_order() -> None:
    msg = simple_message("First part.")
    msg.add_attachment(b"\x00\x01", maintype="application", subtype="octet-stream", filename="blob.bin")
    second = EmailMessage()
    second.set_content("Second part.")
    msg.attach(second)
    parsed = parse_full(gmail_resource(msg), LABELS)
    assert parsed.body == "First part.\n\nSecond part."
    assert [a.filename for a in parsed.attachments] == ["blob.bin"]


# --- parse_full: charsets --------------------------------------------------------------------------


def test_iso_8859_1_quoted_printable() -> None:
    raw = raw_message("text/plain; charset=iso-8859-1", b"Gr=FC=DFe aus K=F6ln=\r\n!\r\n", "quoted-printable")
    parsed = parse_full(gmail_resource(raw), LABELS)
    assert parsed.body == "Grüße aus Köln!"


def test_iso_8859_1_label_with_windows_1252_quotes() -> None:
    raw = raw_message("text/plain; charset=ISO-8859-1", b"\x93quoted\x94 \x80 5")
    assert parse_full(gmail_resource(raw), LABELS).body == "“quoted” € 5"


def test_windows_1252() -> None:
    raw = raw_message('text/plain; charset="windows-1252"', b"caf\xe9 \x96 na\xefve")
    assert parse_full(gmail_resource(raw), LABELS).body == "café – naïve"


def test_utf8_mislabelled_as_latin1_or_ascii() -> None:
    for label in ("iso-8859-1", "us-ascii"):
        raw = raw_message(f"text/plain; charset={label}", "Grüße – ok".encode())
        assert parse_full(gmail_resource(raw), LABELS).body == "Grüße – ok"


def test_shift_jis() -> None:
    body = base64.b64encode("こんにちは、世界".encode("shift_jis"))
    raw = raw_message("text/plain; charset=Shift_JIS", body, "base64")
    assert parse_full(gmail_resource(raw), LABELS).body == "こんにちは、世界"


@pytest.mark.parametrize(
    "content_type", ["text/plain; charset=utf-8", "text/plain; charset=x-no-such-charset", "text/plain; charset=zlib"]
)
def test_wrong_or_unknown_charset_does_not_raise(content_type: str) -> None:
    raw = raw_message(content_type, b"caf\xe9 \xff\xfe ok")
    parsed = parse_full(gmail_resource(raw), LABELS)
    assert parsed.body.startswith("caf") and parsed.body.endswith(" ok")
    assert parsed.body_incomplete is False


def test_utf8_html_with_charset_in_header() -> None:
    raw = raw_message("text/html; charset=utf-8", "<p>Grüße &amp; 👋</p>".encode())
    assert parse_full(gmail_resource(raw), LABELS).body == "Grüße & 👋"


# --- parse_full: headers and attachments -----------------------------------------------------------


def test_rfc2047_subject_and_names() -> None:
    raw = (
        b"From: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <jm@example.de>\r\n"
        b"To: =?iso-8859-1?q?Fran=E7ois?= <f@example.fr>\r\n"
        b"Bcc: secret@example.com\r\n"
        b"Subject: =?utf-8?b?R3LDvMOfZSBhdXMgS8O2bG4=?= =?utf-8?q?_=F0=9F=8C=8D?=\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\nhi\r\n"
    )
    parsed = parse_full(gmail_resource(raw), LABELS)
    assert parsed.from_ == "Jürgen Müller <jm@example.de>"
    assert parsed.to == "François <f@example.fr>"
    assert parsed.subject == "Grüße aus Köln 🌍"
    assert parsed.bcc == "secret@example.com"


def test_rfc2231_attachment_filename_from_headers() -> None:
    raw = (
        b"Subject: files\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n"
        b"--XX\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n"
        b"--XX\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n"
        b"Content-Disposition: attachment; filename*=utf-8''Gr%C3%BC%C3%9Fe%20%E6%97%A5%E6%9C%AC.pdf\r\n\r\n"
        b"JVBERi0xLjQ=\r\n"
        b'--XX\r\nContent-Type: text/csv; name="=?utf-8?b?w6TDtsO8LmNzdg==?="\r\n'
        b"Content-Disposition: attachment\r\n\r\na,b\r\n"
        b"--XX--\r\n"
    )
    resource = gmail_resource(raw)
    for part in resource["payload"]["parts"]:
        part["filename"] = ""  # make the parser read the headers itself
    parsed = parse_full(resource, LABELS)
    assert [a.filename for a in parsed.attachments] == ["Grüße 日本.pdf", "äöü.csv"]
    assert parsed.body == "see attached"


def test_encoded_word_in_gmail_filename_field_is_decoded() -> None:
    resource = gmail_resource(nested_message())
    resource["payload"]["parts"][1]["filename"] = "=?utf-8?q?Bericht_M=C3=A4rz.pdf?="
    assert parse_full(resource, LABELS).attachments[0].filename == "Bericht März.pdf"


def test_attachments_listed_with_sizes() -> None:
    msg = simple_message("body")
    msg.add_attachment(b"x" * 1234, maintype="application", subtype="zip", filename="data.zip")
    msg.add_attachment(b"y" * 10, maintype="image", subtype="jpeg", filename="photo.jpg")
    inner = simple_message("Inner forwarded text.")
    inner.replace_header("Subject", "Forwarded")
    msg.add_attachment(inner)  # message/rfc822, no filename
    parsed = parse_full(gmail_resource(msg), LABELS)
    assert [(a.filename, a.mime_type, a.size) for a in parsed.attachments[:2]] == [
        ("data.zip", "application/zip", 1234),
        ("photo.jpg", "image/jpeg", 10),
    ]
    assert parsed.attachments[0].attachment_id == "ATT-1"
    forwarded = parsed.attachments[2]
    assert forwarded.mime_type == "message/rfc822" and forwarded.attachment_id == "ATT-3"
    assert "Inner forwarded text" not in parsed.body
    assert parsed.body == "body"


def test_unnamed_parts_with_attachment_disposition_or_id_are_listed() -> None:
    raw = (
        b"Subject: x\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n"
        b"--B\r\nContent-Type: text/plain\r\n\r\nbody\r\n"
        b"--B\r\nContent-Type: text/plain\r\nContent-Disposition: attachment\r\n\r\nnot body\r\n"
        b"--B\r\nContent-Type: application/octet-stream\r\n\r\nblob\r\n"
        b"--B--\r\n"
    )
    resource = gmail_resource(raw)
    resource["payload"]["parts"][2]["body"] = {"attachmentId": "BLOB", "size": 4}
    parsed = parse_full(resource, LABELS)
    assert parsed.body == "body"
    assert [(a.filename, a.attachment_id, a.part_id) for a in parsed.attachments] == [
        ("", None, "1"),
        ("", "BLOB", "2"),
    ]


def test_text_body_only_available_as_attachment_is_flagged() -> None:
    resource = gmail_resource(simple_message())
    resource["payload"]["body"] = {"attachmentId": "BIG", "size": 9_000_000}
    parsed = parse_full(resource, LABELS)
    assert parsed.body == ""
    assert parsed.body_incomplete is True
    assert [a.attachment_id for a in parsed.attachments] == ["BIG"]


# --- parse_full: hostile and broken content ---------------------------------------------------------


def test_broken_base64_in_only_text_part_flags_incomplete() -> None:
    resource = gmail_resource(simple_message())
    resource["payload"]["body"]["data"] = "!!!not*base64!!!"
    parsed = parse_full(resource, LABELS)
    assert parsed.body == ""
    assert parsed.body_incomplete is True
    assert "undecodable_part:" in parsed.problems


def test_broken_plain_alternative_falls_back_to_html() -> None:
    msg = simple_message("plain")
    msg.add_alternative("<p>from html</p>", subtype="html")
    resource = gmail_resource(msg)
    resource["payload"]["parts"][0]["body"]["data"] = "A"  # impossible length
    parsed = parse_full(resource, LABELS)
    assert parsed.body == "from html"
    assert parsed.body_incomplete is False
    assert "undecodable_part:0" in parsed.problems


def test_broken_part_keeps_the_rest() -> None:
    msg = simple_message("first")
    second = EmailMessage()
    second.set_content("second")
    msg.make_mixed()
    msg.attach(second)
    resource = gmail_resource(msg)
    resource["payload"]["parts"][0]["body"]["data"] = "%%%"
    parsed = parse_full(resource, LABELS)
    assert parsed.body == "second"
    assert parsed.body_incomplete is True


def test_depth_bomb_does_not_recurse_forever() -> None:
    leaf: dict[str, Any] = {"partId": "x", "mimeType": "text/plain", "body": {"data": _b64url(b"deep")}}
    payload = leaf
    for _ in range(1000):
        payload = {"mimeType": "multipart/mixed", "headers": [], "body": {"size": 0}, "parts": [payload]}
    resource = {"id": "bomb", "threadId": "t", "payload": payload}
    parsed = parse_full(resource, LABELS)
    assert parsed.body_incomplete is True
    assert "mime_depth_limit" in parsed.problems
    assert summarize(resource, LABELS).has_attachments is False


def test_breadth_bomb_is_capped() -> None:
    part = {"mimeType": "application/octet-stream", "filename": "f", "body": {"attachmentId": "A", "size": 1}}
    payload = {"mimeType": "multipart/mixed", "parts": [part] * 10_000}
    parsed = parse_full({"id": "wide", "payload": payload}, LABELS)
    assert "too_many_parts" in parsed.problems
    assert len(parsed.attachments) < 10_000


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "string",
        {"parts": "not a list"},
        {"mimeType": 5, "headers": {"a": "b"}, "body": []},
        {"mimeType": "multipart/mixed", "parts": [None, 3, {"mimeType": "text/plain", "body": {"data": 7}}]},
        {"mimeType": "text/plain", "headers": [{"name": "Content-Type", "value": "text/plain; charset*=x''"}]},
    ],
)
def test_malformed_payloads_do_not_raise(payload: Any) -> None:
    resource = {"id": "m", "threadId": 3, "labelIds": "x", "snippet": None, "internalDate": "soon"}
    if payload is not None:
        resource["payload"] = payload
    parsed = parse_full(resource, LABELS)
    assert parsed.id == "m"
    assert parsed.date is None
    summarize(resource, LABELS)


@pytest.mark.parametrize("resource", [None, [], "18c0ffee", {"threadId": "t"}, {"id": 12}])
def test_not_a_message_raises_malformed(resource: Any) -> None:
    with pytest.raises(MessageMalformed):
        parse_full(resource, LABELS)
    with pytest.raises(MessageMalformed):
        summarize(resource, LABELS)


# --- summarize ----------------------------------------------------------------------------------------


def metadata_resource(**fields: Any) -> dict[str, Any]:
    """A `format=metadata` resource: headers only, no parts."""
    resource = gmail_resource(simple_message(), **fields)
    payload = resource["payload"]
    resource["payload"] = {"partId": "", "mimeType": payload["mimeType"], "headers": payload["headers"]}
    return resource


def test_summarize_metadata() -> None:
    summary = summarize(metadata_resource(labelIds=["INBOX", "Label_99"]), LABELS)
    assert summary.model_dump(by_alias=True) == {
        "id": "18c0ffee",
        "thread_id": "18c0ffe0",
        "from": "Alice Example <alice@example.com>",
        "to": "bob@example.com, Carol <carol@example.com>",
        "subject": "Quarterly report",
        "date": "2023-11-14T09:30:00+01:00",
        "snippet": "Hi & welcome 'friend'",
        "labels": ["INBOX", "Label_99"],
        "unread": False,
        "has_attachments": False,
    }


def test_summarize_has_attachments_from_parts_or_hint() -> None:
    assert summarize(metadata_resource(), LABELS, has_attachments_hint=True).has_attachments is True
    assert summarize(gmail_resource(nested_message()), LABELS).has_attachments is True
    only_inline_image = gmail_resource(nested_message(with_plain=False))
    del only_inline_image["payload"]["parts"][1]
    only_inline_image["payload"]["parts"][0]["parts"][1]["body"] = {"attachmentId": "IMG", "size": 9}
    assert summarize(only_inline_image, LABELS).has_attachments is False


@pytest.mark.parametrize("date", [None, "not a date", "Mon, 99 Foo 99999 99:99:99 +9999"])
def test_summarize_date_falls_back_to_internal_date(date: str | None) -> None:
    resource = metadata_resource()
    headers = [h for h in resource["payload"]["headers"] if h["name"] != "Date"]
    if date is not None:
        headers.append({"name": "Date", "value": date})
    resource["payload"]["headers"] = headers
    assert summarize(resource, LABELS).date == "2023-11-14T22:13:20+00:00"


def test_summarize_snippet_drops_invisible_padding() -> None:
    resource = metadata_resource(snippet="Sale! \u034f \u200c \u034f \u200c &nbsp; ends today")
    assert summarize(resource, LABELS).snippet == "Sale! ends today"


# --- slice_body ------------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 9, 10, 11, 99, 1000])
@pytest.mark.parametrize("page", [1, 3, 10, 1000])
def test_slice_body_pages_cover_body_exactly_once(length: int, page: int) -> None:
    body = "".join(chr(0x61 + i % 26) if i % 7 else "é👋"[i % 2] for i in range(length))
    pieces: list[str] = []
    offset: int | None = 0
    while offset is not None:
        piece, next_offset = slice_body(body, offset, page)
        assert len(piece) <= page
        assert next_offset is None or next_offset == offset + len(piece) > offset
        pieces.append(piece)
        offset = next_offset
    assert "".join(pieces) == body


@pytest.mark.parametrize(
    ("offset", "max_chars", "field"), [(-1, 10, "body_offset"), (6, 10, "body_offset"), (0, 0, "max_body_chars")]
)
def test_slice_body_rejects_bad_arguments(offset: int, max_chars: int, field: str) -> None:
    with pytest.raises(InvalidField) as caught:
        slice_body("hello", offset, max_chars)
    assert caught.value.field == field


# --- property: no content makes the parser raise -----------------------------------------------------

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=40)
    | st.sampled_from(
        ["text/plain", "text/html", "multipart/alternative", "multipart/mixed", "message/rfc822", "image/png", "=?"]
    )
)
_headers = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(["Content-Type", "Content-Disposition", "Subject", "From", "Date", "X"]),
            "value": st.text(max_size=60)
            | st.sampled_from(["text/html; charset=shift_jis", "attachment; filename*=x''%FF", "=?utf-8?b?@@?="]),
        }
    ),
    max_size=4,
)
_bodies = st.fixed_dictionaries(
    {},
    optional={
        "data": st.text(alphabet="AZaz09-_=+/!", max_size=40) | _scalars,
        "attachmentId": _scalars,
        "size": _scalars,
    },
)
_parts = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={"mimeType": _scalars, "headers": _headers, "body": _bodies, "filename": _scalars, "partId": _scalars},
    ),
    lambda children: st.fixed_dictionaries(
        {"mimeType": st.sampled_from(["multipart/mixed", "multipart/alternative", "multipart/related", "x"])},
        optional={"parts": st.lists(children | _scalars, max_size=4), "headers": _headers, "body": _bodies},
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(payload=_parts, extra=st.dictionaries(st.sampled_from(["labelIds", "snippet", "internalDate"]), _scalars))
def test_arbitrary_payloads_never_raise(payload: dict[str, Any], extra: dict[str, Any]) -> None:
    resource = {"id": "fuzz", "payload": payload, **extra}
    parsed = parse_full(resource, LABELS)
    assert isinstance(parsed.body, str)
    summarize(resource, LABELS)
