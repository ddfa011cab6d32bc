"""Filter tools: list them (labels by name); create and delete them. A filter made here never forwards."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field

from gmail_mcp.accounts import Accounts
from gmail_mcp.filters import FilterVerb
from gmail_mcp.results import FilterCriteria, FilterList, ManagedFilter, lean_optional
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.annotations import MANAGE, READ
from gmail_mcp.tools.arguments import Account
from gmail_mcp.tools.person import Elicitation

Names = Annotated[list[str], Field(max_length=20)]


class LabelChanges(BaseModel):
    model_config = ConfigDict(extra="forbid")

    add: Names = []
    remove: Names = []


MANAGE_FILTER = (
    "Create a filter: new mail matching criteria gets action_labels (names), mark_read, archive; never a forward. "
    "Or delete one (filter_id). Needs gmail.settings.basic."
)


def register(server: ContractServer, accounts: Accounts) -> None:
    @server.tool(annotations=READ)
    def list_filters(account: Account = None) -> FilterList:
        """List the mailbox's filters: criteria and action, labels by name."""
        with accounts.reading(account) as mail:
            return mail.filters.listing()

    @server.tool(annotations=MANAGE, description=MANAGE_FILTER)
    def manage_filter(
        action: FilterVerb,
        criteria: Annotated[FilterCriteria | None, Field(json_schema_extra=lean_optional)] = None,
        action_labels: Annotated[LabelChanges | None, Field(json_schema_extra=lean_optional)] = None,
        mark_read: bool = False,
        archive: bool = False,
        filter_id: Annotated[
            Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,256}$")] | None, Field(json_schema_extra=lean_optional)
        ] = None,
        account: Account = None,
        *,
        ctx: Context,
    ) -> ManagedFilter:
        changes = action_labels or LabelChanges()
        with accounts.writing(account) as mail:
            return mail.filters.manage(
                action, criteria, changes.add, changes.remove, mark_read, archive, filter_id, Elicitation(ctx)
            )
