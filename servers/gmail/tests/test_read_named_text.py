"""Reading what a forward carries: a message whose only text parts carry a file name (inline with
`filename=`, or `name=` alone) shows the first of them as its body, as the standard library's
`EmailMessage.get_body` does, and still lists them as attachments.

Checked against CPython's own e-mail test corpus (Lib/test/test_email/data): messages 04 and 44 are
exactly that case, and every other message there must still read as `get_body` reads it.
"""

from __future__ import annotations

import email
import email.policy
import sysconfig
from pathlib import Path

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.mail.htmltext import html_to_text
from gmail_mcp.reader import MailReader

CORPUS = Path(sysconfig.get_paths()["stdlib"]) / "test" / "test_email" / "data"
MESSAGES = sorted(CORPUS.glob("msg_*.txt")) if CORPUS.is_dir() else []
MIRROR = "a simple kind of mirror\nto reflect upon our own"

# CPython's msg_04.txt and msg_44.txt, headers shortened (the corpus may be missing from an installed Python).
NAMED = """From: barry@python.org (Barry A. Warsaw)
To: barry@python.org
Subject: a simple multipart
Date: Tue, 11 Sep 2001 00:05:05 -0400
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="h90VIIIKmx"


--h90VIIIKmx
{named}
Content-Transfer-Encoding: 7bit

a simple kind of mirror
to reflect upon our own

--h90VIIIKmx
{named}
Content-Transfer-Encoding: 7bit

a simple kind of mirror
to reflect upon our own

--h90VIIIKmx--
"""
MSG_04 = 'Content-Type: text/plain\nContent-Disposition: inline;\n\tfilename="msg.txt"'
MSG_44 = 'Content-Type: text/plain; name="msg.txt"'


@pytest.fixture
def reader(mailbox: MailboxApi, tmp_path: Path) -> MailReader:
    return MailReader(mailbox, LabelDirectory(mailbox), tmp_path)


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("named", [MSG_04, MSG_44], ids=["msg_04-inline-filename", "msg_44-name-only"])
def test_the_first_named_text_part_is_the_body(emu: Emulator, reader: MailReader, named: str) -> None:
    message_id = emu.add_message(NAMED.format(named=named).replace("\n", "\r\n").encode())
    answer = reader.email(message_id, 0, 20_000)
    assert answer.body == MIRROR and answer.warnings == []
    assert [(a.filename, a.mime_type, a.inline) for a in answer.attachments] == [
        ("msg.txt", "text/plain", named == MSG_04)
    ] * 2
    assert [r.route for r in emu.request_log()].count("messages.attachments.get") == 1  # only the first is read


def test_a_named_body_that_cannot_be_fetched_is_reported_not_fatal(emu: Emulator, reader: MailReader) -> None:
    message_id = emu.add_message(NAMED.format(named=MSG_04).replace("\n", "\r\n").encode())
    emu.add_fault(Fault("messages.attachments.get", status=404, times=None))
    answer = reader.email(message_id, 0, 20_000)
    assert answer.body == "" and [w.code for w in answer.warnings] == ["CONTENT_DROPPED"]
    assert len(answer.attachments) == 2


def test_a_thread_reads_named_bodies_too(emu: Emulator, reader: MailReader) -> None:
    message_id = emu.add_message(NAMED.format(named=MSG_44).replace("\n", "\r\n").encode())
    thread = reader.thread(emu.mailbox.thread_id(message_id), 5_000)
    assert [m.body for m in thread.messages] == [MIRROR]


@pytest.mark.skipif(not MESSAGES, reason="this Python has no test_email corpus")
@pytest.mark.parametrize("path", MESSAGES, ids=[p.name for p in MESSAGES])
def test_cpythons_corpus_reads_as_get_body_reads_it(emu: Emulator, reader: MailReader, path: Path) -> None:
    raw = path.read_bytes()
    expected = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(expected, email.message.EmailMessage)
    body = expected.get_body(("plain", "html"))
    wanted = body.get_content() if body is not None else ""
    answer = reader.email(emu.add_message(raw), 0, 200_000)
    if body is not None and body.get_content_type() == "text/html":
        wanted = html_to_text(wanted)[0]
    # Our body may hold more (the inline text parts of a multipart/mixed are joined), never less.
    assert flat(wanted) in flat(answer.body), (flat(wanted)[:200], flat(answer.body)[:200])
    if path.name in ("msg_04.txt", "msg_44.txt"):
        assert answer.body == MIRROR
