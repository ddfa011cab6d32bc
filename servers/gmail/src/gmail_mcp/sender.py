"""Sending a message now: composed from the caller's description, delivered at most once."""

from __future__ import annotations

from gmail_mcp.delivery import Delivery
from gmail_mcp.outgoing import Composer, Outgoing
from gmail_mcp.results import SentMessage


class Sender:
    def __init__(self, composer: Composer, delivery: Delivery) -> None:
        self.composer = composer
        self.delivery = delivery

    def send(self, outgoing: Outgoing) -> SentMessage:
        """Send at most once; SendFailed says whether nothing went out or the outcome is unknown."""
        built = self.composer.compose(outgoing)
        done = self.delivery.send_message(built)
        return SentMessage(
            id=done.answer["id"],
            thread_id=done.answer.get("threadId") or built.thread_id or done.answer["id"],
            message_id=built.message_id,
            warnings=done.warnings,
        )
