"""The accounts tool: which Gmail accounts are authorised."""

from __future__ import annotations

from gmail_mcp.accounts import Accounts
from gmail_mcp.results import AccountList
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.annotations import READ


def register(server: ContractServer, accounts: Accounts) -> None:
    @server.tool(annotations=READ)
    def list_accounts() -> AccountList:
        """The authorised Gmail accounts; every tool takes account (a name or address from here)."""
        return accounts.listing()
