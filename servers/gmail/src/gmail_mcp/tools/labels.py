"""Label tools: list them with their counts; create, rename (or recolour) and delete them."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from gmail_mcp.accounts import Accounts
from gmail_mcp.labels import LabelVerb
from gmail_mcp.results import ListLabelsResult, ManagedLabel, lean_optional
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.annotations import MANAGE, READ
from gmail_mcp.tools.arguments import Account

Hex = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]


class LabelColors(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Hex
    background: Hex


MANAGE_LABEL = (
    "Create, rename (new_name, colors) or delete a user label; deleting a label never deletes messages. "
    "colors: Gmail's palette, e.g. #ffffff on #16a765."
)


def register(server: ContractServer, accounts: Accounts) -> None:
    @server.tool(annotations=READ)
    def list_labels(account: Account = None) -> ListLabelsResult:
        """List all labels (system and user) with their unread and total message counts."""
        with accounts.reading(account) as mail:
            return mail.labels.list_with_counts()

    @server.tool(annotations=MANAGE, description=MANAGE_LABEL)
    def manage_label(
        action: LabelVerb,
        label: Annotated[str, Field(min_length=1, max_length=225, description="name (any case) or id")],
        new_name: Annotated[
            Annotated[str, Field(max_length=225)] | None, Field(json_schema_extra=lean_optional)
        ] = None,
        colors: Annotated[LabelColors | None, Field(json_schema_extra=lean_optional)] = None,
        account: Account = None,
    ) -> ManagedLabel:
        with accounts.writing(account) as mail:
            return mail.labels.manage(action, label, new_name, (colors.text, colors.background) if colors else None)
