"""The gate: what must be confirmed by the person before a change leaves or sweeps the mailbox.

* a mail (send_email, forward_email, send_draft) with a new recipient, or any mail under
  `--confirm always`;
* trash_email / modify_labels by query that would change more than `BULK_LIMIT` messages;
* every filter created by manage_filter.

`--confirm never` asks nothing. The question goes to a `Person`: the runtime's elicitation, whose
answer comes from the client's own form and never from a tool argument. The gate answers with a
`Clearance`, or raises `Declined`; when nobody can be asked it says so (`Clearance.unavailable`) and
the caller keeps the mail as a draft, or raises `ConfirmationRequired` itself.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from gmail_mcp.config import ConfirmMode as ConfirmMode  # the setting, said here too
from gmail_mcp.guard import audit
from gmail_mcp.guard.errors import ConfirmationRequired, Declined
from gmail_mcp.guard.known import KnownRecipients
from gmail_mcp.guard.outbound import Outbound, Recipient

BULK_LIMIT = 50


class Answer(enum.Enum):
    YES = "yes"
    NO = "no"  # decline, cancel, a false answer, or a failed question
    UNAVAILABLE = "unavailable"  # the client declared no elicitation capability


@dataclass(frozen=True)
class Ask:
    """What the person is asked: `text` is shown; the form has one boolean, `field`."""

    text: str
    field: str  # "send" for mail, "confirm" for bulk changes and filters


class Person(Protocol):
    def ask(self, question: Ask) -> Answer: ...


class Nobody:
    """No one to ask (a caller outside a client's tool call): every question is unavailable, so nothing that
    needs a yes is done."""

    def ask(self, question: Ask) -> Answer:
        return Answer.UNAVAILABLE


NOBODY = Nobody()


@dataclass(frozen=True)
class Clearance:
    outbound: Outbound
    confirmation: str  # known | accepted | not_needed | unavailable

    @property
    def unavailable(self) -> bool:
        return self.confirmation == "unavailable"


class Gate:
    def __init__(self, mode: ConfirmMode, known: KnownRecipients, account_address: Callable[[], str]) -> None:
        self.mode = mode
        self.known = known
        self.account_address = account_address

    def clear_to_send(self, raw: bytes, person: Person) -> Clearance:
        """Check every recipient of the mail `raw` (the exact bytes to be sent); ask when one is new.

        Raises Declined when the person says no. Notes recipients and confirmation for the audit line.
        """
        outbound = Outbound.from_mime(raw)
        note = audit.note()
        note.recipients = [r.address for r in outbound.recipients]
        note.subject = outbound.subject
        if self.mode is ConfirmMode.NEVER:
            note.confirmation = "not_needed"
            return Clearance(outbound, "not_needed")
        canonical = {r.canonical for r in outbound.recipients}
        known = self.known.known(canonical)
        outbound = outbound.marked(known, self.known.directory())
        if not outbound.new and self.mode is ConfirmMode.NEW_RECIPIENTS:
            note.confirmation = "known"
            return Clearance(outbound, "known")
        address = self.account_address()
        note.account_address = address
        note.confirmation = self._ask(person, Ask(send_question(address, outbound), "send"))
        return Clearance(outbound, note.confirmation)

    def clear_bulk(self, person: Person, count: int, what: str) -> None:
        """A change of `count` messages (described by `what`); asks above BULK_LIMIT. Raises Declined or
        ConfirmationRequired (nothing changed) when not confirmed."""
        if self.mode is ConfirmMode.NEVER or count <= BULK_LIMIT:
            return
        self._require(person, f"Account {self.account_address()}: {what}")

    def clear_filter(self, person: Person, what: str) -> None:
        """A new filter (described by `what`): always asked, but under `--confirm never`."""
        if self.mode is ConfirmMode.NEVER:
            return
        self._require(person, f"Account {self.account_address()}: {what}")

    def _require(self, person: Person, text: str) -> None:
        note = audit.note()
        note.confirmation = self._ask(person, Ask(text, "confirm"))
        if note.confirmation == "unavailable":
            raise ConfirmationRequired(
                "nothing was changed: this needs the person's confirmation, and this client cannot ask for it "
                "(it does not support MCP elicitation); do it in Gmail, or use a client that can ask"
            )

    @staticmethod
    def _ask(person: Person, question: Ask) -> str:
        answer = person.ask(question)
        if answer is Answer.UNAVAILABLE:
            return "unavailable"
        if answer is Answer.NO:
            audit.note().confirmation = "declined"
            raise Declined(
                "the person said no when asked to confirm: nothing was done; do not try again unless they ask you to"
            )
        return "accepted"


def send_question(account: str, outbound: Outbound) -> str:
    """The text of the send question: account, From, every recipient (new ones marked), subject,
    attachments and the start of the body."""
    lines = [f"Send this email from your account {account}?", ""]
    lines.append(f"From: {outbound.sender or account}")
    for field in ("to", "cc", "bcc"):
        shown = [_shown(r) for r in outbound.recipients if r.field == field]
        if shown:
            lines.append(f"{field.capitalize()}: {', '.join(shown)}")
    lines.append(f"Subject: {outbound.subject or '(no subject)'}")
    if outbound.attachments:
        files = ", ".join(f"{a.name} ({_size(a.size)})" for a in outbound.attachments)
        lines.append(f"Attachments: {files}")
    lines += ["", outbound.body_start or "(empty body)"]
    new = outbound.new
    if new:
        lines += ["", f"NEW: this account has never written to {', '.join(r.address for r in new)}."]
    return "\n".join(lines)


def _shown(recipient: Recipient) -> str:
    text = recipient.address
    if recipient.display_name:
        text = f'"{recipient.display_name}" <{recipient.address}>'
    if recipient.known:
        return text
    flags = ["NEW"]
    if recipient.looks_like:
        flags.append(f"looks like {recipient.looks_like}")
    if recipient.name_claims:
        flags.append(f"its name shows {recipient.name_claims}")
    return f"{text} [{'; '.join(flags)}]"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
