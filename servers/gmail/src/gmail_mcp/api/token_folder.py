"""Where each account's token lives: one file per account, and which account a call means by default.

An account is a name (`default`, `work`, ...) with a token file: `<GMAIL_MCP_TOKEN_DIR>/<name>.json`,
except `default`, whose file is `Settings.token_file` (`GMAIL_MCP_TOKEN_FILE` when set). The accounts
that exist are the files that exist, read again on every call (a cheap listing), so an account
authorised while the server runs is there at its next call. Names are checked before they become
file names or part of a command shown to the user.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gmail_mcp.api.access import DEFAULT_ACCOUNT

# Letters, digits and . _ @ + - (an address is a valid name), starting with a letter or digit: safe as a
# file name and inside a shell command.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$"
_NAME = re.compile(NAME_PATTERN)
_SUFFIX = ".json"


def valid_name(name: str) -> bool:
    return bool(_NAME.fullmatch(name))


class TokenFolder:
    def __init__(self, default_file: Path, folder: Path | None, chosen: str | None = None) -> None:
        """`default_file`: the `default` account's token; `folder`: every other account's (None: no other
        account); `chosen`: the account a call without `account` means (GMAIL_MCP_ACCOUNT), if set."""
        self.default_file = default_file
        self.folder = folder
        self.chosen = chosen or None

    def path_for(self, name: str) -> Path:
        """The token file of account `name` (which must be a valid name); it may not exist yet."""
        if name == DEFAULT_ACCOUNT:
            return self.default_file
        if not valid_name(name):
            raise ValueError(f"not an account name: {name[:100]!r}")
        if self.folder is None:
            raise ValueError("no token folder: only the default account exists")
        return self.folder / f"{name}{_SUFFIX}"

    def names(self) -> list[str]:
        """The accounts that have a token file: `default` first (when it has one), then by name."""
        others = set()
        if self.folder is not None:
            try:
                entries = list(os.scandir(self.folder))
            except OSError:  # missing or unreadable: no account there
                entries = []
            for entry in entries:
                name = entry.name[: -len(_SUFFIX)] if entry.name.endswith(_SUFFIX) else ""
                if name and name != DEFAULT_ACCOUNT and valid_name(name) and entry.is_file():
                    others.add(name)
        default = [DEFAULT_ACCOUNT] if self.default_file.is_file() else []
        return default + sorted(others, key=str.casefold)

    def implicit(self, names: list[str]) -> str:
        """The account a call without `account` means: GMAIL_MCP_ACCOUNT, else the only account, else `default`."""
        if self.chosen:
            return self.chosen
        return names[0] if len(names) == 1 else DEFAULT_ACCOUNT
