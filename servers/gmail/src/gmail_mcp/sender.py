"""Sending a message now, or forwarding one: composed from the caller's description, delivered at most once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gmail_mcp.api.errors import ApiUnavailable, SendFailed
from gmail_mcp.delivery import Delivery
from gmail_mcp.mail.compose import BuiltMessage
from gmail_mcp.models import ToolWarning
from gmail_mcp.outgoing import Composer, Forward, Outgoing
from gmail_mcp.results import SentMessage

T = TypeVar("T")


class Sender:
    def __init__(self, composer: Composer, delivery: Delivery) -> None:
        self.composer = composer
        self.delivery = delivery

    def send(self, outgoing: Outgoing) -> SentMessage:
        """Send at most once; SendFailed says whether nothing went out or the outcome is unknown."""
        return self._deliver(_prepared(lambda: self.composer.compose(outgoing)), [])

    def forward(self, forward: Forward) -> SentMessage:
        """Forward a message at most once, by the same one-shot path as `send`."""
        composed = _prepared(lambda: self.composer.compose_forward(forward))
        return self._deliver(composed.built, composed.warnings)

    def _deliver(self, built: BuiltMessage, notes: list[ToolWarning]) -> SentMessage:
        done = self.delivery.send_message(built)
        return SentMessage(
            id=done.answer["id"],
            thread_id=done.answer.get("threadId") or built.thread_id or done.answer["id"],
            message_id=built.message_id,
            warnings=notes + done.warnings,
        )


def _prepared(compose: Callable[[], T]) -> T:
    """Compose; Gmail unreachable while preparing (send-as, the original) means nothing was sent: `not_sent`."""
    try:
        return compose()
    except ApiUnavailable as exc:
        raise SendFailed("not_sent", f"nothing was sent ({exc}); it is safe to try again later") from None
