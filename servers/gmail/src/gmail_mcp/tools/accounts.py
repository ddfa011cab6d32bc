"""The accounts tool: which Gmail accounts are authorised."""

from __future__ import annotations

from mcp_types import ToolAnnotations

from gmail_mcp.accounts import Accounts
from gmail_mcp.results import AccountList
from gmail_mcp.runtime.server import ContractServer

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)


def register(server: ContractServer, accounts: Accounts) -> None:
    @server.tool(annotations=READ)
    def list_accounts() -> AccountList:
        """The authorised Gmail accounts; every tool takes account (a name or address from here)."""
        return accounts.listing()
