"""Read-only mode and the OAuth scopes: decided once, derived everywhere else.

`Settings.read_only` (`--read-only` / `GMAIL_MCP_READ_ONLY=1`) is the one decision. `Access`
carries it, and everything that depends on it is derived here: the scope `gmail-mcp auth` asks
for, and the re-authorisation command an `auth_required` error names. The server hides its write
tools from the same `Access.read_only`. Which scopes let the server read mail at all is a fact of
the token, not of the mode: `can_read`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SCOPE_MODIFY = "https://www.googleapis.com/auth/gmail.modify"
SCOPE_READONLY = "https://www.googleapis.com/auth/gmail.readonly"
SCOPE_FULL = "https://mail.google.com/"  # never asked for: it also allows permanent deletion
READ_SCOPES = frozenset({SCOPE_READONLY, SCOPE_MODIFY, SCOPE_FULL})

REAUTH_COMMAND = "uv run gmail-mcp auth"


@dataclass(frozen=True)
class Access:
    read_only: bool

    @property
    def scope(self) -> str:
        """The scope to authorise: gmail.readonly in read-only mode, else gmail.modify (the least every tool needs)."""
        return SCOPE_READONLY if self.read_only else SCOPE_MODIFY

    @property
    def reauth_command(self) -> str:
        """The command that authorises this mode's scope."""
        return REAUTH_COMMAND + (" --read-only" if self.read_only else "")


def can_read(scopes: Iterable[str] | None) -> bool:
    """Whether a token's scopes allow reading mail (a token that lists no scopes is given the benefit of the doubt)."""
    return not scopes or bool(READ_SCOPES & set(scopes))
