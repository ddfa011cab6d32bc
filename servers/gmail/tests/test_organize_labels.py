"""modify_labels and trash_email against the emulator: names resolve, unknown labels change nothing,
per-message failures are reported, and nothing is ever deleted for good."""

from __future__ import annotations

import re
from pathlib import Path

import gmail_mcp
import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.client import GmailClient
from gmail_mcp.api.errors import ApiNotFound, ApiRejected
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.guard.gate import Gate
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.organizer import Organizer


@pytest.fixture
def organizer(mailbox: MailboxApi, ungated: Gate) -> Organizer:
    return Organizer(mailbox, LabelDirectory(mailbox), ungated)


def labels_of(emu: Emulator, key: str) -> set[str]:
    return set(emu.mailbox.label_ids(emu.seeded[key]))


def test_names_any_case_and_ids_in_one_batch_modify(emu: Emulator, organizer: Organizer) -> None:
    ids = [emu.seeded["status"], emu.seeded["promo"], emu.seeded["status"]]
    result = organizer.modify(ids, ["projects", "Label_2", "starred"], ["UNREAD", "inbox"])
    assert result.modified == [emu.seeded["status"], emu.seeded["promo"]] and result.warnings == []
    for key in ("status", "promo"):
        assert {"Label_1", "Label_2", "STARRED"} <= labels_of(emu, key)
        assert not {"UNREAD", "INBOX"} & labels_of(emu, key)
    assert [r.route for r in emu.request_log()] == ["labels.list", "messages.batchModify"]


def test_an_unknown_label_changes_nothing(emu: Emulator, organizer: Organizer) -> None:
    before = labels_of(emu, "status")
    with pytest.raises(ApiNotFound) as caught:
        organizer.modify([emu.seeded["status"]], ["Projects"], ["No Such Label"])
    assert (caught.value.resource, caught.value.id) == ("label", "No Such Label")
    assert labels_of(emu, "status") == before
    assert "messages.batchModify" not in [r.route for r in emu.request_log()]


def test_a_label_created_after_the_cache_was_filled_resolves(
    emu: Emulator, organizer: Organizer, client: GmailClient
) -> None:
    organizer.modify([emu.seeded["status"]], ["STARRED"], [])  # fills the cache
    created = client.execute(lambda users: users.labels().create(userId="me", body={"name": "Fresh"}), "label")
    organizer.modify([emu.seeded["status"]], ["fresh"], [])
    assert created["id"] in labels_of(emu, "status")


def test_per_message_failures_are_reported_and_the_rest_modified(emu: Emulator, organizer: Organizer) -> None:
    ids = [emu.seeded["status"], "ffffffffffffffff", emu.seeded["promo"]]
    result = organizer.modify(ids, [], ["UNREAD"])
    assert result.modified == [emu.seeded["status"], emu.seeded["promo"]]
    [warning] = result.warnings
    assert warning.code == "PARTIAL_RESULTS"
    assert [(f["id"], f["error"]) for f in warning.model_extra["failed"]] == [("ffffffffffffffff", "not_found")]
    assert "UNREAD" not in labels_of(emu, "status") | labels_of(emu, "promo")
    routes = [r.route for r in emu.request_log()]
    assert routes.count("messages.batchModify") == 1 and routes.count("batch") == 1
    assert routes.count("messages.modify") == 3


def test_all_unknown_messages_is_not_found(emu: Emulator, organizer: Organizer) -> None:
    with pytest.raises(ApiNotFound) as caught:
        organizer.modify(["ffffffffffffffff", "eeeeeeeeeeeeeeee"], ["STARRED"], [])
    assert caught.value.resource == "message" and "ffffffffffffffff" in caught.value.id


def test_rate_limited_parts_are_retried(emu: Emulator, organizer: Organizer) -> None:
    emu.add_fault(Fault("messages.batchModify", status=404))  # force the per-message path
    emu.add_fault(Fault("messages.modify", status=429, retry_after=0))
    result = organizer.modify([emu.seeded["status"], emu.seeded["promo"]], ["STARRED"], [])
    assert result.warnings == [] and len(result.modified) == 2


def test_bad_arguments(emu: Emulator, organizer: Organizer) -> None:
    with pytest.raises(InvalidField) as caught:
        organizer.modify([emu.seeded["status"]], [], [])
    assert caught.value.field == "add_labels"
    with pytest.raises(InvalidField) as caught:
        organizer.modify([emu.seeded["status"]], ["STARRED"], ["starred"])
    assert caught.value.field == "remove_labels"
    emu.add_fault(Fault("messages.batchModify", status=400, reason="invalidArgument"))
    emu.add_fault(Fault("messages.modify", status=400, reason="invalidArgument", times=None))
    with pytest.raises(ApiRejected):  # refused for every message alike: the refusal itself
        organizer.modify([emu.seeded["status"], emu.seeded["promo"]], ["STARRED"], [])


def test_trash_reports_failures_and_moves_the_rest(emu: Emulator, organizer: Organizer) -> None:
    result = organizer.trash([emu.seeded["promo"], "ffffffffffffffff", emu.seeded["status"]])
    assert result.trashed == [emu.seeded["promo"], emu.seeded["status"]]
    assert [f["id"] for w in result.warnings for f in w.model_extra["failed"]] == ["ffffffffffffffff"]
    for key in ("promo", "status"):
        assert "TRASH" in labels_of(emu, key) and "INBOX" not in labels_of(emu, key)
    assert [r.route for r in emu.request_log()].count("batch") == 1
    with pytest.raises(ApiNotFound):
        organizer.trash(["ffffffffffffffff"])
    again = organizer.trash([emu.seeded["promo"]])  # again: still fine
    assert again.trashed == [emu.seeded["promo"]] and again.warnings == []


# Any Gmail API delete: users.messages.delete / batchDelete, users.threads.delete, ... (all take userId), also by name.
PERMANENT = re.compile(r"batchDelete|\.delete\(\s*userId|\bdelete\b\s*\(\s*\*\*|getattr\(.*[\"']delete[\"']")
# The deletes the server does make, none of a message: a draft, a label (taken off its messages), a filter.
ALLOWED = ("drafts().delete(userId", "labels().delete(userId", "filters().delete(userId")


def test_no_code_path_can_delete_a_message_for_good() -> None:
    for call in (
        'users.messages().delete(userId="me", id=i)',
        'users.threads().delete( userId="me", id=i)',
        'users.messages().batchDelete(userId="me", body=b)',
        'getattr(users.messages(), "delete")',
    ):
        assert PERMANENT.search(call), call  # the grep below would see it
    package = Path(gmail_mcp.__file__).parent
    offending = []
    for source in sorted(package.rglob("*.py")):
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            if PERMANENT.search(line) and not any(allowed in line for allowed in ALLOWED):
                offending.append(f"{source.relative_to(package)}:{number}: {line.strip()}")
    assert offending == []
    for allowed in ALLOWED:  # each only in the one module that makes requests, on request
        uses = [p for p in package.rglob("*.py") if allowed in p.read_text(encoding="utf-8")]
        assert [p.name for p in uses] == ["mailbox.py"], allowed
