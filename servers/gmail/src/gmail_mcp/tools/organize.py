"""Organising tools: change labels, move to Trash, for given messages or all a query matches. No tool deletes a
message for good."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from gmail_mcp.accounts import Accounts
from gmail_mcp.organizer import DEFAULT_QUERY_MESSAGES, MAX_IDS, MAX_QUERY_MESSAGES, select
from gmail_mcp.results import Modified, Trashed, lean_optional
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.annotations import LABELS, TRASH
from gmail_mcp.tools.arguments import Account, HexId
from gmail_mcp.tools.person import Elicitation

# The query arguments show no `null` in their schemas (tools/list has a size budget); None means not given.
IdList = Annotated[list[HexId], Field(min_length=1, max_length=MAX_IDS)]
MessageIds = Annotated[IdList | None, Field(description="from search_emails", json_schema_extra=lean_optional)]
Query = Annotated[
    Annotated[str, Field(max_length=2000)] | None,
    Field(description="instead of ids: all it matches", json_schema_extra=lean_optional),
]
DryRun = Annotated[
    bool | None,
    Field(description="query only; default true", json_schema_extra=lean_optional),
]
MaxMessages = Annotated[int, Field(ge=1, le=MAX_QUERY_MESSAGES, description="query only")]
LabelList = Annotated[list[str], Field(max_length=100, description="label names (any case) or ids")]

MODIFY_LABELS = (
    "Add/remove labels on message_ids, or on all a query matches (a dry run unless dry_run=false). Mark read: "
    "remove UNREAD; archive: remove INBOX; star: add STARRED."
)
TRASH_EMAIL = (
    "Move message_ids, or all a query matches (a dry run unless dry_run=false), to Trash: recoverable for 30 "
    "days, never a permanent delete."
)


def register(server: ContractServer, accounts: Accounts) -> None:
    @server.tool(annotations=LABELS, description=MODIFY_LABELS)
    def modify_labels(
        message_ids: MessageIds = None,
        add_labels: LabelList = [],  # noqa: B006 - never mutated; the schema shows the default
        remove_labels: LabelList = [],  # noqa: B006
        query: Query = None,
        dry_run: DryRun = None,
        max_messages: MaxMessages = DEFAULT_QUERY_MESSAGES,
        account: Account = None,
        *,
        ctx: Context,
    ) -> Modified:
        with accounts.writing(account) as mail:
            return mail.organizer.modify_labels(
                select(message_ids, query, dry_run, max_messages), add_labels, remove_labels, Elicitation(ctx)
            )

    @server.tool(annotations=TRASH, description=TRASH_EMAIL)
    def trash_email(
        message_ids: MessageIds = None,
        query: Query = None,
        dry_run: DryRun = None,
        max_messages: MaxMessages = DEFAULT_QUERY_MESSAGES,
        account: Account = None,
        *,
        ctx: Context,
    ) -> Trashed:
        with accounts.writing(account) as mail:
            return mail.organizer.trash_messages(select(message_ids, query, dry_run, max_messages), Elicitation(ctx))
