"""The bodies of an outgoing message as Gmail's web client lays them out: signature and forwarded message.

What Gmail's client inserts, read from messages it sent (and kept exactly, so that Gmail and the
clients that look for these classes recognise them):

* a signature goes after the text, in HTML
  `<div><br></div><span class="gmail_signature_prefix">-- </span><br>` then
  `<div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature">…</div>`, and in the
  plain part after the usenet separator line `-- ` (dash, dash, space);
* a forward puts after the note `---------- Forwarded message ---------` and the original's From,
  Date, Subject, To (and Cc when it had one), then the original's text unchanged (no `>` quoting);
  in HTML inside `<div class="gmail_quote gmail_quote_container">` with the header lines in
  `<div dir="ltr" class="gmail_attr">`.

Pure: no I/O. The HTML of a signature is the account owner's own; the HTML of a forwarded
original is carried over as Gmail carries it (its `<head>` and `<body>` wrapper dropped).
"""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass
from email.headerregistry import Address

from .addresses import header_addresses
from .text import normalise_newlines, one_line

FORWARD_SEPARATOR = "---------- Forwarded message ---------"
SIGNATURE_SEPARATOR = "-- "  # RFC 3676 §4.3: dash, dash, space, alone on its line
_SIGNATURE_HTML = (
    '<div><br></div><span class="gmail_signature_prefix">-- </span><br>'
    '<div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature">{}</div>'
)
_BODY_START = re.compile(r"<body\b[^>]*>", re.IGNORECASE)
_BODY_END = re.compile(r"</body\s*>", re.IGNORECASE)
_HEAD = re.compile(r"<head\b.*?</head\s*>", re.IGNORECASE | re.DOTALL)
_DOCUMENT_TAGS = re.compile(r"<!doctype[^>]*>|</?html\b[^>]*>", re.IGNORECASE)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class Signature:
    """A send-as address's Gmail signature (HTML, as Gmail stores it) and its plain-text rendering."""

    html: str
    text: str

    @classmethod
    def from_html(cls, markup: str) -> Signature | None:
        """The signature for Gmail's HTML `markup`; None when it is empty (no signature configured)."""
        if not isinstance(markup, str) or not markup.strip():
            return None
        from .htmltext import html_to_text  # inscriptis+lxml: loaded only when a signature is used

        text, _ = html_to_text(markup)
        return cls(html=markup, text=text.strip("\n"))


@dataclass(frozen=True, kw_only=True)
class ForwardedOriginal:
    """The message being forwarded: its header values (decoded), its text, and its HTML when it had one."""

    from_: str
    date: str | None  # ISO 8601, as `parse_full` reads it
    subject: str
    to: str
    cc: str
    text: str
    html: str | None = None

    def header_lines(self) -> list[tuple[str, str]]:
        lines = [("From", one_line(self.from_))]
        if self.date:
            lines.append(("Date", gmail_date(self.date)))
        lines += [("Subject", one_line(self.subject)), ("To", one_line(self.to))]
        if self.cc.strip():
            lines.append(("Cc", one_line(self.cc)))
        return lines

    def text_block(self) -> str:
        head = "\n".join(f"{name}: {value}" for name, value in self.header_lines())
        return f"{FORWARD_SEPARATOR}\n{head}\n\n\n{normalise_newlines(self.text)}"

    def html_block(self) -> str:
        lines = []
        for name, value in self.header_lines():
            if name == "From":
                shown = _sender_html(value)
            elif name in ("To", "Cc"):
                shown = _addresses_html(value)
            else:
                shown = html.escape(value, quote=False)
            lines.append(f"{name}: {shown}<br>")
        original = _html_inner(self.html) if self.html is not None else f'<div dir="ltr">{_text_html(self.text)}</div>'
        return (
            '<div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">'
            f"{FORWARD_SEPARATOR}<br>{''.join(lines)}</div><br><br>{original}</div>"
        )


def gmail_date(iso: str) -> str:
    """`Mon, Oct 5, 2026 at 5:03 PM` (Gmail's forward header, English), in the original's own offset."""
    try:
        when = dt.datetime.fromisoformat(iso)
    except ValueError:
        return one_line(iso)
    hour = when.hour % 12 or 12
    noon = "AM" if when.hour < 12 else "PM"
    return f"{_DAYS[when.weekday()]}, {_MONTHS[when.month - 1]} {when.day}, {when.year} at {hour}:{when:%M} {noon}"


def _text_html(text: str) -> str:
    return html.escape(normalise_newlines(text), quote=False).replace("\n", "<br>")


def _address_html(address: Address) -> str:
    spec = html.escape(address.addr_spec)
    link = f'<a href="mailto:{spec}">{spec}</a>'
    return f"{html.escape(address.display_name, quote=False)} &lt;{link}&gt;" if address.display_name else link


def _addresses_html(value: str) -> str:
    found = header_addresses(value)
    return ", ".join(_address_html(a) for a in found) if found else html.escape(value, quote=False)


def _sender_html(value: str) -> str:
    found = header_addresses(value)
    if len(found) != 1 or not found[0].display_name:
        return _addresses_html(value)
    name = html.escape(found[0].display_name, quote=False)
    spec = html.escape(found[0].addr_spec)
    return (
        f'<strong class="gmail_sendername" dir="auto">{name}</strong> '
        f'<span dir="auto">&lt;<a href="mailto:{spec}">{spec}</a>&gt;</span>'
    )


def _html_inner(markup: str) -> str:
    """What is inside the document's <body> (a whole document cannot sit inside a <div>)."""
    start = _BODY_START.search(markup)
    if start is not None:
        ends = list(_BODY_END.finditer(markup, start.end()))
        return markup[start.end() : ends[-1].start() if ends else len(markup)]
    return _DOCUMENT_TAGS.sub("", _HEAD.sub("", markup))


def _insert_at_end(markup: str, addition: str) -> str:
    """`addition` just before the last </body>, else at the end."""
    ends = list(_BODY_END.finditer(markup))
    if not ends:
        return markup + addition
    at = ends[-1].start()
    return markup[:at] + addition + markup[at:]


def combine_bodies(
    body: str, html_body: str | None, signature: Signature | None, forward: ForwardedOriginal | None
) -> tuple[str, str | None]:
    """(text, HTML or None) of the message: the caller's body, then the signature, then the forward.

    There is an HTML part when the caller gave one, when a signature is added (Gmail signatures are
    HTML: the text is carried into HTML so that the signature keeps its links and layout), or when
    the forwarded original had HTML. Otherwise the message is plain text.
    """
    text = body
    if signature is not None:
        lead = text.rstrip("\n") + "\n\n" if text.strip() else ""
        text = f"{lead}{SIGNATURE_SEPARATOR}\n{signature.text}\n"
    if forward is not None:
        lead = text.rstrip("\n") + "\n\n" if text.strip() else ""
        text = lead + forward.text_block()
    if html_body is None and signature is None and (forward is None or forward.html is None):
        return text, None
    signature_html = _SIGNATURE_HTML.format(signature.html) if signature is not None else ""
    forward_html = "<br><br>" + forward.html_block() if forward is not None else ""
    if html_body is not None:
        return text, _insert_at_end(html_body, signature_html + forward_html)
    return text, f'<div dir="ltr">{_text_html(body)}{signature_html}{forward_html}</div>'
