"""Never send twice, for every way a message leaves: send_email, forward_email and send_draft, each through
the full fault matrix, with Gmail keeping our Message-ID, replacing it but keeping ours in
X-Google-Original-Message-ID, and replacing it without a trace (the emulator's `set_rewrite_message_id`).

Each case counts the copies in Sent that carry our id in any header Gmail may leave it in, and the send
requests the emulator saw, and checks that the answer says which: success, success confirmed after an
error, or a failure naming the delivery (not_sent / unknown) or the refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.errors import ApiRejected, AuthRequired, RateLimited, SendFailed
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.drafts import Drafts
from gmail_mcp.guard.gate import Answer, Ask, ConfirmMode, Gate
from gmail_mcp.guard.known import AccountAddress, KnownRecipients, Trusted
from gmail_mcp.mail.compose import FINGERPRINT_HEADER
from gmail_mcp.outgoing import Composer, Forward, Outgoing
from gmail_mcp.results import SentDraft, SentMessage
from gmail_mcp.sendas import SendAs
from gmail_mcp.sender import Sender
from gmail_mcp.warnings import DELIVERY_CONFIRMED_AFTER_ERROR

ID_HEADERS = ("Message-ID", "X-Google-Original-Message-ID", FINGERPRINT_HEADER)


def copies(emu: Emulator, our_id: str) -> int:
    """Messages in Sent carrying our Message-ID in any header Gmail may have left it in."""
    found: set[str] = set()
    for name in ID_HEADERS:
        found.update(emu.mailbox.sent_messages_with_header(name, our_id))
    return len(found)


@dataclass
class Operation:
    """One way of sending: `prepare` makes what is needed and returns our Message-ID; `send` sends it."""

    name: str
    route: str
    prepare: Callable[[Emulator, MailboxApi, Delivery], tuple[str, Callable[[], SentMessage | SentDraft]]]


def _send(emu: Emulator, mailbox: MailboxApi, delivery: Delivery) -> tuple[str, Callable[[], Any]]:
    composer = Composer(mailbox)
    built = composer.compose(Outgoing(to="bob@example.com", subject="fault matrix", body="hello\n"))
    sender = Sender(composer, delivery, _asking(mailbox))
    return built.message_id, lambda: _gated(lambda: sender._clear(built, YES), lambda: sender._deliver(built, []))


def _forward(emu: Emulator, mailbox: MailboxApi, delivery: Delivery) -> tuple[str, Callable[[], Any]]:
    composer = Composer(mailbox)
    composed = composer.compose_forward(Forward(message_id=emu.seeded["invoice_pdf"], to="bob@example.com", body="FYI"))
    sender = Sender(composer, delivery, _asking(mailbox))
    return composed.built.message_id, lambda: _gated(
        lambda: sender._clear(composed.built, YES), lambda: sender._deliver(composed.built, composed.warnings)
    )


def _draft(emu: Emulator, mailbox: MailboxApi, delivery: Delivery) -> tuple[str, Callable[[], Any]]:
    box = Drafts(mailbox, Composer(mailbox), delivery, _asking(mailbox))
    created = box.create(Outgoing(to="bob@example.com", subject="fault matrix", body="hello\n"))
    raw = emu.mailbox.get_raw(created.message_id).decode()
    our_id = next(line.split(":", 1)[1].strip() for line in raw.split("\r\n") if line.startswith("Message-ID:"))
    return our_id, lambda: box.send(created.draft_id, YES)


class _Yes:
    """The person, who says yes to every question (and is counted): the matrix runs with the gate in front."""

    asked = 0

    def ask(self, question: Ask) -> Answer:
        _Yes.asked += 1
        return Answer.YES


YES = _Yes()


def _gated(clear: Callable[[], None], deliver: Callable[[], Any]) -> Any:
    """The gate's check (composed once, before the faults), then the one delivery the matrix is about."""
    clear()
    return deliver()


OPERATIONS = [
    Operation("send_email", "messages.send", _send),
    Operation("forward_email", "messages.send", _forward),
    Operation("send_draft", "drafts.send", _draft),
]
REWRITES = {"id-kept": None, "id-replaced": True, "id-replaced-no-trace": False}  # None: off; else keep_original


def outcome(send: Callable[[], SentMessage | SentDraft]) -> tuple[Any, ...]:
    """What the caller learns: ('sent',), ('confirmed',), ('send_failed', delivery), or the refusal."""
    try:
        answer = send()
    except SendFailed as exc:
        return ("send_failed", exc.delivery)
    except RateLimited as exc:
        return ("rate_limited", exc.retry_after_seconds)
    except AuthRequired as exc:
        return ("auth_required", exc.reason)
    except ApiRejected:
        return ("parse_error",)
    assert answer.id
    if answer.warnings:
        assert [w.code for w in answer.warnings] == [DELIVERY_CONFIRMED_AFTER_ERROR]
        return ("confirmed",)
    return ("sent",)


def matrix(route: str, rewritten: bool) -> list[tuple[str, list[Fault], tuple[Any, ...], int]]:
    """id, faults, what the caller learns, copies in Sent (the route is always asked exactly once)."""
    # Comparing headers is needed only when Gmail replaced our Message-ID (else rfc822msgid: finds it).
    compared = ("send_failed", "unknown") if rewritten else ("confirmed",)
    return [
        ("no-fault", [], ("sent",), 1),
        ("500-before-commit", [Fault(route, status=500)], ("send_failed", "unknown"), 0),
        ("500-after-commit", [Fault(route, status=500, after_commit=True)], ("confirmed",), 1),
        ("502-after-commit", [Fault(route, status=502, after_commit=True)], ("confirmed",), 1),
        ("503-before-commit", [Fault(route, status=503)], ("send_failed", "unknown"), 0),
        ("503-after-commit", [Fault(route, status=503, after_commit=True)], ("confirmed",), 1),
        ("429", [Fault(route, status=429, reason="rateLimitExceeded", retry_after=7)], ("rate_limited", 7), 0),
        ("403-user-rate", [Fault(route, status=403, reason="userRateLimitExceeded")], ("rate_limited", 1), 0),
        ("400", [Fault(route, status=400, reason="invalidArgument")], ("parse_error",), 0),
        ("drop-before-commit", [Fault(route, drop_connection=True)], ("send_failed", "unknown"), 0),
        ("drop-after-commit", [Fault(route, drop_connection=True, after_commit=True)], ("confirmed",), 1),
        ("malformed-200-after-commit", [Fault(route, malformed_body=True, after_commit=True)], ("confirmed",), 1),
        ("500-after-commit-sent-check-fails",
         [Fault(route, status=500, after_commit=True), Fault("messages.list", status=500, times=None)],
         ("send_failed", "unknown"), 1),
        ("500-after-commit-compare-fails",
         [Fault(route, status=500, after_commit=True), Fault("messages.get", status=500, times=None)],
         compared, 1),
    ]  # fmt: skip


CASES = [
    pytest.param(op, keep, faults, expected, n, id=f"{op.name}-{mode}-{case}")
    for op in OPERATIONS
    for mode, keep in REWRITES.items()
    for case, faults, expected, n in matrix(op.route, keep is not None)
]


@pytest.mark.parametrize(("operation", "keep_original", "faults", "expected", "copies_in_sent"), CASES)
def test_fault_matrix(
    emu: Emulator,
    mailbox: MailboxApi,
    delivery: Delivery,
    operation: Operation,
    keep_original: bool | None,
    faults: list[Fault],
    expected: tuple[Any, ...],
    copies_in_sent: int,
) -> None:
    if keep_original is not None:
        emu.set_rewrite_message_id(True, keep_original=keep_original)
    our_id, send = operation.prepare(emu, mailbox, delivery)
    emu.clear_requests()
    for fault in faults:
        emu.add_fault(fault)
    asked = _Yes.asked
    assert outcome(send) == expected
    assert _Yes.asked == asked + 1  # the gate stood in front of this send and was answered
    assert copies(emu, our_id) == copies_in_sent
    assert sum(1 for r in emu.request_log() if r.route == operation.route) == 1
    if keep_original is not None and copies_in_sent:
        # the copy is Gmail's: our id is no longer its Message-ID (only, maybe, X-Google-Original-Message-ID)
        assert emu.mailbox.sent_messages_with_header("Message-ID", our_id) == []


def test_a_draft_made_elsewhere_is_recognised_by_its_message_id_alone(
    emu: Emulator, mailbox: MailboxApi, delivery: Delivery
) -> None:
    """The seeded draft carries no header of ours; Gmail replaces its Message-ID without a trace; the
    answer is lost. The draft's own message id, which drafts.send keeps, still recognises it."""
    emu.set_rewrite_message_id(True, keep_original=False)
    draft_id = emu.seeded_drafts["draft_notes"]
    message_id = emu.seeded["draft_notes"]
    emu.add_fault(Fault("drafts.send", drop_connection=True, after_commit=True))
    box = Drafts(mailbox, Composer(mailbox), delivery, _asking(mailbox))
    assert outcome(lambda: box.send(draft_id, YES)) == ("confirmed",)
    assert "SENT" in emu.mailbox.label_ids(message_id)
    assert sum(1 for r in emu.request_log() if r.route == "drafts.send") == 1


def _asking(mailbox: MailboxApi) -> Gate:
    """A gate that asks about every mail (--confirm always): the matrix runs behind a real question. What it
    learns from Gmail (Sent, send-as, the profile) is learnt here, before the faults are set: the faults are
    for the one send request and the look into Sent after it."""
    gate = Gate(ConfirmMode.ALWAYS, KnownRecipients(mailbox, SendAs(mailbox), Trusted()), AccountAddress(mailbox))
    assert gate.known.known({"bob@example.com"}) == {"bob@example.com"} and gate.account_address()
    return gate
