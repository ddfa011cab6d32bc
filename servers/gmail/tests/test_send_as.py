"""Send-as: from_address must be one of the account's send-as addresses (cached per client), and the
signature Gmail's client would add: HTML in the HTML part, its text rendering in the plain part."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

import pytest
from gmail_emulator import Emulator, Fault
from gmail_emulator.seed import signature_html
from gmail_mcp.api.access import Access
from gmail_mcp.api.errors import SendFailed
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.drafts import Drafts
from gmail_mcp.errors import to_contract
from gmail_mcp.guard.gate import Gate
from gmail_mcp.mail.errors import InvalidField, NotSendAs
from gmail_mcp.outgoing import Composer, Forward, Outgoing
from gmail_mcp.sender import Sender

Stored = Callable[[Emulator, str], EmailMessage]
SEED_SIGNATURE_TEXT = "Mia Example\nACME · [acme.example](https://acme.example)"


@pytest.fixture
def composer(mailbox: MailboxApi) -> Composer:
    return Composer(mailbox)


@pytest.fixture
def sender(composer: Composer, delivery: Delivery, ungated: Gate) -> Sender:
    return Sender(composer, delivery, ungated)


def text(part: object) -> str:
    assert isinstance(part, EmailMessage)
    content = part.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def send_as_lists(emu: Emulator) -> int:
    return sum(1 for record in emu.request_log() if record.route == "settings.sendAs.list")


def test_the_default_signature_as_gmail_adds_it(emu: Emulator, sender: Sender, stored: Stored) -> None:
    answer = sender.send(Outgoing(to="bob@example.com", subject="hi", body="Hello Bob,\nsee you.\n"))
    sent = stored(emu, answer.id)
    assert sent["From"] is None or "me@example.com" in sent["From"]  # no from_address: Gmail's default
    assert sent.get_content_type() == "multipart/alternative"
    assert text(sent.get_body(("plain",))) == f"Hello Bob,\nsee you.\n\n-- \n{SEED_SIGNATURE_TEXT}\n"
    assert text(sent.get_body(("html",))) == (
        '<div dir="ltr">Hello Bob,<br>see you.<br>'
        '<div><br></div><span class="gmail_signature_prefix">-- </span><br>'
        f'<div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature">{signature_html("Mia Example")}</div>'
        "</div>\n"
    )


def test_the_signature_goes_into_the_callers_html(emu: Emulator, sender: Sender, stored: Stored) -> None:
    html = "<html><body><p>Hello <b>Bob</b></p></body></html>"
    answer = sender.send(Outgoing(to="bob@example.com", subject="hi", body="Hello Bob", html_body=html))
    sent_html = text(stored(emu, answer.id).get_body(("html",)))
    assert sent_html.startswith('<html><body><p>Hello <b>Bob</b></p><div><br></div><span class="gmail_signature')
    assert sent_html.rstrip("\n").endswith(f"{signature_html('Mia Example')}</div></body></html>")


def test_an_alias_without_signature_adds_nothing(emu: Emulator, sender: Sender, stored: Stored) -> None:
    answer = sender.send(
        Outgoing(to="bob@example.com", subject="hi", body="Hello\n", from_address="ME@acme.example")
    )  # any case
    sent = stored(emu, answer.id)
    assert sent["From"] == "Mia Example <me@acme.example>"
    assert sent.get_content_type() == "text/plain" and text(sent) == "Hello\n"


def test_signature_false_adds_nothing_and_asks_nothing(emu: Emulator, sender: Sender, stored: Stored) -> None:
    answer = sender.send(Outgoing(to="bob@example.com", subject="hi", body="Hello\n", signature=False))
    assert text(stored(emu, answer.id)) == "Hello\n"
    assert send_as_lists(emu) == 0


def test_an_alias_signature_rendered_to_text(emu: Emulator, sender: Sender, stored: Stored) -> None:
    emu.set_send_as(
        "me@acme.example",
        signature='<div dir="ltr"><b>Mia</b> | Sales<br><a href="https://acme.example/sales">Sales desk</a><br>'
        "<table><tr><td>Tel</td><td>+49 30 1234</td></tr></table></div>",
    )
    answer = sender.send(Outgoing(to="bob@example.com", subject="hi", body="Hi", from_address="me@acme.example"))
    sent = stored(emu, answer.id)
    assert text(sent.get_body(("plain",))) == (
        "Hi\n\n-- \nMia | Sales\n[Sales desk](https://acme.example/sales)\nTel  +49 30 1234\n"
    )
    assert 'class="gmail_signature"' in text(sent.get_body(("html",)))


def test_forwards_and_drafts_sign_too(
    emu: Emulator, sender: Sender, composer: Composer, delivery: Delivery, mailbox: MailboxApi, stored: Stored
) -> None:
    answer = sender.forward(Forward(message_id=emu.seeded["lunch_1"], to="bob@example.com", body="FYI"))
    plain = text(stored(emu, answer.id).get_body(("plain",)))
    assert plain.startswith(f"FYI\n\n-- \n{SEED_SIGNATURE_TEXT}\n\n---------- Forwarded message ---------\n")
    draft = Drafts(mailbox, composer, delivery, sender.gate).create(
        Outgoing(to="bob@example.com", subject="d", body="Draft")
    )
    assert text(stored(emu, draft.message_id).get_body(("plain",))) == f"Draft\n\n-- \n{SEED_SIGNATURE_TEXT}\n"


def test_no_signature_configured_adds_nothing(emu: Emulator, sender: Sender, stored: Stored) -> None:
    emu.set_send_as("me@example.com", signature="")
    answer = sender.send(Outgoing(to="bob@example.com", subject="hi", body="Hello\n"))
    assert text(stored(emu, answer.id)) == "Hello\n"


def test_an_address_that_is_not_send_as_is_refused_before_sending(emu: Emulator, sender: Sender) -> None:
    with pytest.raises(NotSendAs) as caught:
        sender.send(Outgoing(to="bob@example.com", subject="x", body="y", from_address="ceo@acme.example"))
    assert caught.value.allowed == ["me@example.com", "me@acme.example"]
    error = to_contract(caught.value, "req-1", Access(read_only=False))
    assert error is not None and error.error == "permission_denied"
    assert error.details == {
        "reason": "not_send_as",
        "field": "from_address",
        "send_as": ["me@example.com", "me@acme.example"],
        "retryable": False,
        "request_id": "req-1",
    }
    assert "messages.send" not in [r.route for r in emu.request_log()]
    assert send_as_lists(emu) == 2  # looked up again before refusing: the alias may be new


def test_a_pending_alias_cannot_send(emu: Emulator, sender: Sender) -> None:
    emu.set_send_as("new@acme.example", verification_status="pending")
    with pytest.raises(NotSendAs):
        sender.send(Outgoing(to="bob@example.com", subject="x", body="y", from_address="new@acme.example"))


def test_the_list_is_cached_per_client_and_refreshed_for_a_new_alias(
    emu: Emulator, sender: Sender, stored: Stored
) -> None:
    for _ in range(3):
        sender.send(Outgoing(to="bob@example.com", subject="x", body="y", from_address="me@acme.example"))
    assert send_as_lists(emu) == 1
    emu.set_send_as("sales@acme.example", display_name="ACME Sales")
    answer = sender.send(Outgoing(to="bob@example.com", subject="x", body="y", from_address="sales@acme.example"))
    assert stored(emu, answer.id)["From"] == "ACME Sales <sales@acme.example>"
    assert send_as_lists(emu) == 2


def test_a_malformed_from_address_is_a_parse_error_naming_it(emu: Emulator, sender: Sender) -> None:
    for bad in ("not an address", "a@example.com, b@example.com"):
        with pytest.raises(InvalidField) as caught:
            sender.send(Outgoing(to="bob@example.com", subject="x", body="y", from_address=bad))
        assert caught.value.field == "from_address"


def test_gmail_unreachable_while_preparing_is_not_sent(emu: Emulator, sender: Sender) -> None:
    emu.add_fault(Fault("settings.sendAs.list", status=503, times=None))
    with pytest.raises(SendFailed) as caught:
        sender.send(Outgoing(to="bob@example.com", subject="x", body="y"))
    assert caught.value.delivery == "not_sent"
    assert "messages.send" not in [r.route for r in emu.request_log()]
