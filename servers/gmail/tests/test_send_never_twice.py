"""Never send twice: every fault on messages.send, through the real client library and the real emulator.

Each case counts the copies of our Message-ID in Sent and the send requests the emulator saw,
and checks that the answer says which: success, success confirmed after an error, or a failure
naming the delivery (not_sent / unknown) or the refusal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.client import ClientSettings, GmailClient
from gmail_mcp.api.errors import ApiRejected, AuthRequired, RateLimited, RequestNotSent, SendFailed
from gmail_mcp.api.mailbox import RAW_LIMIT_BYTES, MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.guard.gate import ConfirmMode, Gate
from gmail_mcp.guard.known import AccountAddress, KnownRecipients, Trusted
from gmail_mcp.mail.compose import BuiltMessage, build_message
from gmail_mcp.outgoing import Composer, Outgoing
from gmail_mcp.sendas import SendAs
from gmail_mcp.sender import Sender
from gmail_mcp.warnings import DELIVERY_CONFIRMED_AFTER_ERROR

READONLY = "https://www.googleapis.com/auth/gmail.readonly"


def message(subject: str = "fault matrix", **kwargs: Any) -> BuiltMessage:
    return build_message(sender=None, to="bob@example.com", subject=subject, body="hello\n", **kwargs)


def outcome(delivery: Delivery, built: BuiltMessage) -> tuple[Any, ...]:
    """What the caller learns: ('sent',), ('confirmed',), ('send_failed', delivery), or the refusal."""
    try:
        done = delivery.send_message(built)
    except SendFailed as exc:
        return ("send_failed", exc.delivery)
    except RateLimited as exc:
        return ("rate_limited", exc.retry_after_seconds)
    except AuthRequired as exc:
        return ("auth_required", exc.reason)
    except ApiRejected:
        return ("parse_error",)
    assert done.id and done.answer.id == done.id
    if done.warnings:
        assert [w.code for w in done.warnings] == [DELIVERY_CONFIRMED_AFTER_ERROR]
        return ("confirmed",)
    return ("sent",)


def send_requests(emu: Emulator) -> int:
    return sum(1 for record in emu.request_log() if record.route == "messages.send")


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


SEND = "messages.send"
MATRIX: list[tuple[str, list[Fault], tuple[Any, ...], int, int]] = [
    # id, faults, what the caller learns, copies in Sent, send requests seen
    ("no-fault", [], ("sent",), 1, 1),
    ("500-before-commit", [Fault(SEND, status=500)], ("send_failed", "unknown"), 0, 1),
    ("500-after-commit", [Fault(SEND, status=500, after_commit=True)], ("confirmed",), 1, 1),
    ("502-after-commit", [Fault(SEND, status=502, after_commit=True)], ("confirmed",), 1, 1),
    # A 503 does not prove nothing was stored: looked for, never retried.
    ("503-before-commit", [Fault(SEND, status=503)], ("send_failed", "unknown"), 0, 1),
    ("503-after-commit", [Fault(SEND, status=503, after_commit=True)], ("confirmed",), 1, 1),
    ("429", [Fault(SEND, status=429, reason="rateLimitExceeded", retry_after=7)], ("rate_limited", 7), 0, 1),
    ("403-user-rate", [Fault(SEND, status=403, reason="userRateLimitExceeded")], ("rate_limited", 1), 0, 1),
    ("400", [Fault(SEND, status=400, reason="invalidArgument")], ("parse_error",), 0, 1),
    ("drop-before-commit", [Fault(SEND, drop_connection=True)], ("send_failed", "unknown"), 0, 1),
    ("drop-after-commit", [Fault(SEND, drop_connection=True, after_commit=True)], ("confirmed",), 1, 1),
    ("malformed-200-after-commit", [Fault(SEND, malformed_body=True, after_commit=True)], ("confirmed",), 1, 1),
    ("500-after-commit-sent-check-fails", [Fault(SEND, status=500, after_commit=True),
                                           Fault("messages.list", status=500, times=None)],
     ("send_failed", "unknown"), 1, 1),
]  # fmt: skip


@pytest.mark.parametrize(("faults", "expected", "copies", "sends"), [m[1:] for m in MATRIX], ids=[m[0] for m in MATRIX])
def test_send_fault_matrix(
    emu: Emulator,
    delivery: Delivery,
    sent_copies: Callable[[str], int],
    faults: list[Fault],
    expected: tuple[Any, ...],
    copies: int,
    sends: int,
) -> None:
    for fault in faults:
        emu.add_fault(fault)
    built = message()
    assert outcome(delivery, built) == expected
    assert sent_copies(built.message_id) == copies
    assert send_requests(emu) == sends


def test_a_timed_out_send_that_lands_later_is_unknown_never_resent(
    emu: Emulator, make_client: Callable[..., GmailClient], sent_copies: Callable[[str], int]
) -> None:
    delivery = Delivery(MailboxApi(make_client(timeout=1.0)))
    emu.add_fault(Fault(SEND, delay=2.5, after_commit=True))  # Gmail stores it well after we gave up
    built = message()
    assert outcome(delivery, built) == ("send_failed", "unknown")
    assert wait_for(lambda: sent_copies(built.message_id) == 1)
    time.sleep(0.3)
    assert sent_copies(built.message_id) == 1 and send_requests(emu) == 1


def test_a_timed_out_send_found_by_a_later_look_is_confirmed(
    emu: Emulator, make_client: Callable[..., GmailClient], sent_copies: Callable[[str], int]
) -> None:
    delivery = Delivery(MailboxApi(make_client(timeout=0.5, backoff=0.4)))  # looks at +0, +0.8 s, +2.4 s
    emu.add_fault(Fault(SEND, delay=1.0, after_commit=True))
    built = message()
    assert outcome(delivery, built) == ("confirmed",)
    assert sent_copies(built.message_id) == 1 and send_requests(emu) == 1


def test_missing_scope_is_refused_and_nothing_is_sent(
    emu: Emulator, make_client: Callable[..., GmailClient], sent_copies: Callable[[str], int]
) -> None:
    delivery = Delivery(MailboxApi(make_client(scopes=(READONLY,))))
    built = message()
    assert outcome(delivery, built) == ("auth_required", "insufficient_scope")
    assert sent_copies(built.message_id) == 0
    assert [r.route for r in emu.request_log()] == [SEND]  # no Sent check after a refusal


def test_unreachable_gmail_is_not_sent(tmp_path: Path, emu: Emulator, client: GmailClient) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = ClientSettings(
        token_file=client.settings.token_file, api_endpoint=f"http://127.0.0.1:{port}/", backoff_base_seconds=0.01
    )
    assert outcome(Delivery(MailboxApi(GmailClient(settings))), message()) == ("send_failed", "not_sent")


class FlakyConnect(GmailClient):
    """Fails the first one-shot request as if the connection had been refused."""

    failed = False

    def execute_once(self, build: Callable[[Any], Any]) -> Any:
        if not self.failed:
            self.failed = True
            raise RequestNotSent("could not connect to the server")
        return super().execute_once(build)


def test_a_request_that_never_left_is_retried_once(
    emu: Emulator, client: GmailClient, sent_copies: Callable[[str], int]
) -> None:
    flaky = FlakyConnect(client.settings)
    built = message()
    assert outcome(Delivery(MailboxApi(flaky)), built) == ("sent",)
    assert sent_copies(built.message_id) == 1 and send_requests(emu) == 1
    assert "messages.list" not in [r.route for r in emu.request_log()]  # nothing to look for


@pytest.mark.parametrize("size", [10_000, RAW_LIMIT_BYTES + 200_000], ids=["raw", "upload"])
def test_a_dropped_reply_with_attachment_is_confirmed_in_its_thread(
    emu: Emulator,
    delivery: Delivery,
    client: GmailClient,
    tmp_path: Path,
    size: int,
    sent_copies: Callable[[str], int],
    stored: Callable[[Emulator, str], EmailMessage],
) -> None:
    attachment = tmp_path / "data.bin"
    attachment.write_bytes(bytes(range(256)) * (size // 256))
    original = emu.seeded["dinner_2"]
    sender = Sender(Composer(MailboxApi(client)), delivery, _ungated(MailboxApi(client)))
    emu.add_fault(Fault(SEND, drop_connection=True, after_commit=True))
    answer = sender.send(
        Outgoing(to="bob@example.com", subject="", body="see attached", reply_to_message_id=original,
                 attachments=[str(attachment)])
    )  # fmt: skip
    assert [w.code for w in answer.warnings] == [DELIVERY_CONFIRMED_AFTER_ERROR]
    assert answer.thread_id == emu.mailbox.thread_id(original)
    assert sent_copies(answer.message_id) == 1 and send_requests(emu) == 1
    record = next(r for r in emu.request_log() if r.route == SEND)
    assert record.path.startswith("/upload/") == (size > RAW_LIMIT_BYTES)
    if size > RAW_LIMIT_BYTES:
        assert record.query["uploadType"] == "multipart"  # the thread id rides along with the MIME
    sent = stored(emu, answer.id)
    assert [part.get_content() for part in sent.iter_attachments()] == [attachment.read_bytes()]


class CrashAfterSending(GmailClient):
    """Sends, then fails in a way nobody anticipated (a bug in a library, say)."""

    def execute_once(self, build: Callable[[Any], Any]) -> Any:
        super().execute_once(build)
        raise RuntimeError("boom")


def test_an_unexpected_failure_is_ambiguous_not_a_crash_and_not_a_retry(
    emu: Emulator, client: GmailClient, sent_copies: Callable[[str], int]
) -> None:
    built = message()
    assert outcome(Delivery(MailboxApi(CrashAfterSending(client.settings))), built) == ("confirmed",)
    assert sent_copies(built.message_id) == 1 and send_requests(emu) == 1


def _ungated(mailbox: MailboxApi) -> Gate:
    """A gate that asks nothing (--confirm never): these tests are about delivering at most once."""
    return Gate(ConfirmMode.NEVER, KnownRecipients(mailbox, SendAs(mailbox), Trusted()), AccountAddress(mailbox))
