"""Input a tool needs from the client in the middle of a call, on protocol 2026-07-28 and later.

Those sessions carry no request from server to client during a call. Instead the call answers
`InputRequiredResult` with the requests (an elicitation form, say) under keys of the tool's choosing;
the client fulfils them (Claude Code asks the person) and sends the same `tools/call` again with the
responses under the same keys, and the tool, run again from the start, finds its answer there.

A tool raises `InputNeeded` to ask; `ContractServer.call_tool` turns it into the `InputRequiredResult`.
A key should name the question exactly (a digest of its text), so that an answer is only ever taken for
the question it answered: a retry whose question came out different asks again.
"""

from __future__ import annotations

from mcp_types import InputRequest, InputRequiredResult


class InputNeeded(Exception):
    """The tool cannot go on without the client's answers to `requests` (key → request)."""

    def __init__(self, requests: dict[str, InputRequest]) -> None:
        super().__init__(", ".join(requests))
        self.requests = requests

    def result(self) -> InputRequiredResult:
        return InputRequiredResult(input_requests=self.requests)
