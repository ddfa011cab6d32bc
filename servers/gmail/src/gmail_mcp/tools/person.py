"""The person behind the client, asked through MCP elicitation (form mode): the gate's `Person`.

The question goes to the client as `elicitation/create`, whose answer the client takes from its own
form (Claude Code shows a dialog), never from the model. A client that did not declare the
elicitation capability (form mode; a bare `elicitation: {}` counts as form) is not asked at all:
`Answer.UNAVAILABLE`, as is a session with no back-channel for a request in the middle of a call (the
2026-07-28 protocol's stateless sessions, which would need the multi-round-trip `InputRequiredResult`:
not supported yet, so such a client gets the draft). Anything but an accepted form whose one boolean is
true is `Answer.NO`: decline, cancel, false, a malformed answer, a failed request, or no answer within `ANSWER_SECONDS`.
"""

from __future__ import annotations

import logging

import anyio
import anyio.from_thread
from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from gmail_mcp.guard.gate import Answer, Ask

log = logging.getLogger(__name__)

ANSWER_SECONDS = 900.0


class SendForm(BaseModel):
    send: bool = Field(description="Send this email now")


class ConfirmForm(BaseModel):
    confirm: bool = Field(description="Make this change now")


FORMS: dict[str, type[SendForm] | type[ConfirmForm]] = {"send": SendForm, "confirm": ConfirmForm}


class Elicitation:
    """Asks the person behind `ctx`'s client; called from a tool's worker thread."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def ask(self, question: Ask) -> Answer:
        if not self.can_ask():
            return Answer.UNAVAILABLE
        form = FORMS[question.field]
        try:
            data = anyio.from_thread.run(self._elicit, question.text, form)
        except Exception as exc:  # the client failed or refused the request: nothing may happen
            log.warning("the confirmation request failed", extra={"failure": type(exc).__name__}, exc_info=True)
            return Answer.NO
        return Answer.YES if data is not None and getattr(data, question.field) is True else Answer.NO

    def can_ask(self) -> bool:
        """The client declared form elicitation, and the connection can carry a request to it mid-call
        (protocol 2025-11-25 and earlier; a 2026-07-28 session without a back-channel cannot)."""
        if not self.ctx.session.can_send_request:
            return False
        capabilities = self.ctx.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        return elicitation is not None and (elicitation.form is not None or elicitation.url is None)

    async def _elicit(self, text: str, form: type[BaseModel]) -> BaseModel | None:
        with anyio.move_on_after(ANSWER_SECONDS):
            result = await self.ctx.elicit(text, form)
            return result.data if isinstance(result, AcceptedElicitation) else None
        return None
