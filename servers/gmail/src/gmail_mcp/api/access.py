"""Read-only mode and the OAuth scopes: decided once, derived everywhere else.

`Settings.read_only` (`--read-only` / `GMAIL_MCP_READ_ONLY=1`) is the one decision for the server.
`Access` carries it, and everything that depends on it is derived here: the scopes `gmail-mcp auth`
asks for, and the re-authorisation command an `auth_required` error names. The server hides its
write tools from the same `Access.read_only`. What a token allows is a fact of the token, not of
the mode: `can_read`, `can_modify` (an account whose token holds only gmail.readonly is read-only:
`Access.account_read_only`) and `can_manage_filters`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SCOPE_MODIFY = "https://www.googleapis.com/auth/gmail.modify"
SCOPE_READONLY = "https://www.googleapis.com/auth/gmail.readonly"
# users.settings.filters.create/delete accept this scope only (not gmail.modify, not even the full scope).
SCOPE_SETTINGS_BASIC = "https://www.googleapis.com/auth/gmail.settings.basic"
SCOPE_FULL = "https://mail.google.com/"  # never asked for: it also allows permanent deletion
READ_SCOPES = frozenset({SCOPE_READONLY, SCOPE_MODIFY, SCOPE_FULL})
WRITE_SCOPES = frozenset({SCOPE_MODIFY, SCOPE_FULL})

REAUTH_COMMAND = "uv run gmail-mcp auth"
DEFAULT_ACCOUNT = "default"


@dataclass(frozen=True)
class Access:
    read_only: bool

    @property
    def scopes(self) -> list[str]:
        """The scopes to authorise: gmail.readonly in read-only mode, else gmail.modify (the least every
        tool needs) with gmail.settings.basic (creating and deleting filters)."""
        return [SCOPE_READONLY] if self.read_only else [SCOPE_MODIFY, SCOPE_SETTINGS_BASIC]

    @property
    def reauth_command(self) -> str:
        """The command that authorises this mode's scopes for the default account."""
        return self.reauth_for(DEFAULT_ACCOUNT)

    def reauth_for(self, account: str | None) -> str:
        """The command that authorises this mode's scopes for `account` (None: the default account)."""
        named = f" --account {account}" if account and account != DEFAULT_ACCOUNT else ""
        return REAUTH_COMMAND + named + (" --read-only" if self.read_only else "")

    def account_read_only(self, scopes: Iterable[str] | None) -> bool:
        """Whether an account with these token scopes may only be read: in read-only mode, or by its token (a
        token that cannot even read is not read-only but insufficient: the client refuses it as such)."""
        return self.read_only or (can_read(scopes) and not can_modify(scopes))


def can_read(scopes: Iterable[str] | None) -> bool:
    """Whether a token's scopes allow reading mail (a token that lists no scopes is given the benefit of the doubt)."""
    return not scopes or bool(READ_SCOPES & set(scopes))


def can_modify(scopes: Iterable[str] | None) -> bool:
    """Whether a token's scopes allow changing the mailbox (no scopes listed: the benefit of the doubt)."""
    return not scopes or bool(WRITE_SCOPES & set(scopes))


def can_manage_filters(scopes: Iterable[str] | None) -> bool:
    """Whether a token's scopes allow creating and deleting filters (no scopes listed: the benefit of the doubt)."""
    return not scopes or SCOPE_SETTINGS_BASIC in set(scopes)
