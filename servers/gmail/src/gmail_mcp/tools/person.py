"""The person behind the client, asked through MCP elicitation (form mode): the gate's `Person`.

The question reaches the person through the client's own form (Claude Code shows a dialog, or runs its
`Elicitation` hook), never through the model. Two ways, by the protocol the session speaks:

* up to 2025-11-25: an `elicitation/create` request in the middle of the call, answered at once;
* 2026-07-28 and later: the call answers `InputRequiredResult` with the form under a key that is a digest
  of the question (`runtime/input.py`); the client asks the person and calls the tool again with the
  answer under that key. The tool runs again from the start and finds it; a question that comes out
  different on the second run (a draft changed meanwhile) is asked anew.

A client that did not declare the elicitation capability (form mode; a bare `elicitation: {}` counts as
form), or a session that can carry neither, is not asked: `Answer.UNAVAILABLE`. Anything but an accepted
form whose one boolean is true is `Answer.NO`: decline, cancel, false, a malformed answer, a failed
request, or no answer within `ANSWER_SECONDS`.
"""

from __future__ import annotations

import hashlib
import logging

import anyio
import anyio.from_thread
from mcp.server.elicitation import AcceptedElicitation, render_elicitation_schema
from mcp.server.mcpserver import Context
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult
from pydantic import BaseModel, Field, ValidationError

from gmail_mcp.guard.gate import Answer, Ask
from gmail_mcp.runtime.input import InputNeeded

log = logging.getLogger(__name__)

ANSWER_SECONDS = 900.0
INPUT_REQUIRED_PROTOCOL = "2026-07-28"  # from this revision on, questions ride InputRequiredResult


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
        if not self._declared():
            return Answer.UNAVAILABLE
        if (self.ctx.protocol_version or "") >= INPUT_REQUIRED_PROTOCOL:
            return self._answer_from_retry(question)
        if not self.ctx.session.can_send_request:
            return Answer.UNAVAILABLE
        form = FORMS[question.field]
        try:
            data = anyio.from_thread.run(self._elicit, question.text, form)
        except Exception as exc:  # the client failed or refused the request: nothing may happen
            log.warning("the confirmation request failed", extra={"failure": type(exc).__name__})
            return Answer.NO
        return Answer.YES if data is not None and getattr(data, question.field) is True else Answer.NO

    def _declared(self) -> bool:
        capabilities = self.ctx.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        return elicitation is not None and (elicitation.form is not None or elicitation.url is None)

    def _answer_from_retry(self, question: Ask) -> Answer:
        """The answer the client sent with this retry of the call, else InputNeeded (ask, and call again)."""
        form = FORMS[question.field]
        digest = hashlib.sha256("\n".join((question.field, question.text)).encode()).hexdigest()
        key = f"confirm-{digest[:24]}"
        answer = (self.ctx.input_responses or {}).get(key)
        if answer is None:
            schema = render_elicitation_schema(form)
            request = ElicitRequest(params=ElicitRequestFormParams(message=question.text, requested_schema=schema))
            raise InputNeeded({key: request})
        if not isinstance(answer, ElicitResult) or answer.action != "accept" or answer.content is None:
            return Answer.NO
        try:
            data = form.model_validate(answer.content)
        except ValidationError:
            return Answer.NO
        return Answer.YES if getattr(data, question.field) is True else Answer.NO

    async def _elicit(self, text: str, form: type[BaseModel]) -> BaseModel | None:
        with anyio.move_on_after(ANSWER_SECONDS):
            result = await self.ctx.elicit(text, form)
            return result.data if isinstance(result, AcceptedElicitation) else None
        return None
