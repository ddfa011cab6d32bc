"""Sending a message now, or forwarding one: composed from the caller's description, delivered at most once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gmail_mcp.api.errors import ApiUnavailable, SendFailed
from gmail_mcp.delivery import Delivery
from gmail_mcp.guard.errors import ConfirmationRequired
from gmail_mcp.guard.gate import NOBODY, Gate, Person
from gmail_mcp.mail.compose import BuiltMessage
from gmail_mcp.models import ToolWarning
from gmail_mcp.outgoing import Composer, Forward, Outgoing
from gmail_mcp.results import SentMessage

T = TypeVar("T")


class Sender:
    def __init__(self, composer: Composer, delivery: Delivery, gate: Gate) -> None:
        self.composer = composer
        self.delivery = delivery
        self.gate = gate

    def send(self, outgoing: Outgoing, person: Person = NOBODY) -> SentMessage:
        """Send at most once, once the gate clears it; SendFailed says whether nothing went out or the
        outcome is unknown."""
        built = _prepared(lambda: self.composer.compose(outgoing))
        self._clear(built, person)
        return self._deliver(built, [])

    def forward(self, forward: Forward, person: Person = NOBODY) -> SentMessage:
        """Forward a message at most once, by the same gated one-shot path as `send`."""
        composed = _prepared(lambda: self.composer.compose_forward(forward))
        self._clear(composed.built, person)
        return self._deliver(composed.built, composed.warnings)

    def _clear(self, built: BuiltMessage, person: Person = NOBODY) -> None:
        """The gate's check of the composed bytes. Declined propagates; when nobody can be asked, the mail is
        kept as a draft for the person to send from Gmail (ConfirmationRequired)."""
        clearance = _prepared(lambda: self.gate.clear_to_send(built.mime, person))
        if clearance.unavailable:
            draft = self.delivery.create_draft(built)
            new = [r.address for r in clearance.outbound.new]
            raise ConfirmationRequired.unsent(new, draft.id, f"The mail is saved as draft {draft.id}")

    def _deliver(self, built: BuiltMessage, notes: list[ToolWarning]) -> SentMessage:
        done = self.delivery.send_message(built)
        return SentMessage(
            id=done.id,
            thread_id=done.answer.thread_id or built.thread_id or done.id,
            message_id=built.message_id,
            warnings=notes + done.warnings,
        )


def _prepared(compose: Callable[[], T]) -> T:
    """Compose; Gmail unreachable while preparing (send-as, the original) means nothing was sent: `not_sent`."""
    try:
        return compose()
    except ApiUnavailable as exc:
        raise SendFailed("not_sent", f"nothing was sent ({exc}); it is safe to try again later") from None
