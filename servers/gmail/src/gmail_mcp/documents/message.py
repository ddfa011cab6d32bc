"""An attached message's bytes (`.eml`, message/rfc822) → text, as get_email reads a message."""

from __future__ import annotations

from ..mail.parse import parse_full
from ..mail.render import attached_message_text
from ..mail.rfc822 import message_of
from .extracted import Extracted
from .limits import Budget, Limits


def read_eml(data: bytes, limits: Limits) -> Extracted:
    parsed = parse_full(message_of(data[: limits.max_bytes]), {})
    budget = Budget(limits)
    budget.add(attached_message_text(parsed, None))
    return Extracted(text=budget.text(), kind="eml", cut=budget.cut)
