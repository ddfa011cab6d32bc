"""Organising tools: change labels, move to Trash. No tool deletes a message for good."""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

from gmail_mcp.organizer import MAX_IDS, Organizer
from gmail_mcp.results import Modified, Trashed
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.arguments import MessageId

LABELS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
TRASH = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True)

MessageIds = Annotated[list[MessageId], Field(min_length=1, max_length=MAX_IDS, description="ids from search_emails")]
LabelList = Annotated[list[str], Field(max_length=100, description="label names (any case) or ids")]

MODIFY_LABELS = (
    "Add/remove labels. Mark read: remove UNREAD; archive: remove INBOX; star: add STARRED. An unknown label "
    "changes nothing (not_found); messages failing on their own are listed in warnings, the rest are changed."
)
TRASH_EMAIL = (
    "Move messages to Trash (recoverable for 30 days; never a permanent delete). Messages failing on their own "
    "are listed in warnings, the rest are trashed."
)


def register(server: ContractServer, organizer: Organizer) -> None:
    @server.tool(annotations=LABELS, description=MODIFY_LABELS)
    def modify_labels(
        message_ids: MessageIds,
        add_labels: LabelList = [],  # noqa: B006 - never mutated; the schema shows the default
        remove_labels: LabelList = [],  # noqa: B006
    ) -> Modified:
        return organizer.modify(message_ids, add_labels, remove_labels)

    @server.tool(annotations=TRASH, description=TRASH_EMAIL)
    def trash_email(message_ids: MessageIds) -> Trashed:
        return organizer.trash(message_ids)
