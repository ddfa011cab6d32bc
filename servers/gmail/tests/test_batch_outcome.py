"""`GmailClient.batch` through the real client library: one typed outcome, one policy for authorisation."""

from __future__ import annotations

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.errors import ApiNotFound, AuthRequired
from gmail_mcp.api.mailbox import MailboxApi


def test_every_key_is_answered_or_failed_in_the_order_asked(emu: Emulator, mailbox: MailboxApi) -> None:
    outcome = mailbox.get_labels(["Label_1", "Label_99", "INBOX"])
    assert list(outcome.succeeded) == ["Label_1", "INBOX"]
    assert (outcome.succeeded["INBOX"].messages_total or 0) > 0
    assert list(outcome.failed) == ["Label_99"] and isinstance(outcome.failed["Label_99"], ApiNotFound)


def test_transient_part_failures_are_retried(emu: Emulator, mailbox: MailboxApi) -> None:
    emu.add_fault(Fault("labels.get", status=503, times=2))
    outcome = mailbox.get_labels(["Label_1", "INBOX"])
    assert list(outcome.succeeded) == ["Label_1", "INBOX"] and outcome.failed == {}


def test_an_auth_failure_in_one_part_fails_the_whole_batch(emu: Emulator, mailbox: MailboxApi) -> None:
    emu.add_fault(Fault("labels.get", status=403, reason="insufficientPermissions", times=1))
    with pytest.raises(AuthRequired) as caught:
        mailbox.get_labels(["Label_1", "INBOX"])
    assert caught.value.reason == "insufficient_scope"


def test_the_label_list_rides_along_with_message_metadata(emu: Emulator, mailbox: MailboxApi) -> None:
    ids = [emu.seeded["status"], "ffffffffffffffff"]
    fetched = mailbox.get_messages_metadata(ids, ["Subject"], with_label_list=True)
    assert list(fetched.messages.succeeded) == [emu.seeded["status"]]
    assert list(fetched.messages.failed) == ["ffffffffffffffff"]
    assert fetched.labels is not None and {"INBOX", "Label_1"} <= {label.id for label in fetched.labels}
    assert [r.route for r in emu.request_log() if not getattr(r, "in_batch", False)] == ["batch"]
