"""The guard's refusals; `gmail_mcp.errors` maps both to permission_denied."""

from __future__ import annotations

from gmail_mcp.api.errors import GmailFailure


class Declined(GmailFailure):
    """The person said no (decline, cancel, or `send: false`): nothing was done (`reason: declined`)."""


class ConfirmationRequired(GmailFailure):
    """The client cannot ask the person (no elicitation capability): nothing was done; a mail was kept as
    the draft `draft_id` for the person to send from Gmail (`reason: confirmation_required`)."""

    def __init__(self, message: str, draft_id: str | None = None, new_recipients: list[str] | None = None) -> None:
        super().__init__(message)
        self.draft_id = draft_id
        self.new_recipients = new_recipients

    @classmethod
    def unsent(cls, new_recipients: list[str], draft_id: str, kept: str) -> ConfirmationRequired:
        """A mail that was not sent because nobody could be asked; `kept` says where it waits, as a sentence."""
        who = ", ".join(new_recipients) or "anyone"
        return cls(
            f"nothing was sent: sending to {who} needs the person's confirmation and this client cannot ask "
            f"for it (no MCP elicitation). {kept}: the person can review and send it in Gmail.",
            draft_id=draft_id,
            new_recipients=new_recipients,
        )


class DraftChanged(GmailFailure):
    """The draft changed while the person was being asked: what they said yes to is not what would be sent."""

    def __init__(self, draft_id: str) -> None:
        super().__init__(f"draft {draft_id} changed while you were asked to confirm it; nothing was sent")
        self.draft_id = draft_id
