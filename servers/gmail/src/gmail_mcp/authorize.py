"""The installed-app OAuth flow (google-auth-oauthlib) on a loopback port, for one account.

The scopes come from `Access` (gmail.modify with gmail.settings.basic by default: the least that covers
every tool, filters included; gmail.readonly alone with --read-only). The full-mail scope is never asked
for, because it also allows permanent deletion. Each account's token goes to its own file
(`TokenFolder.path_for`), and the account's address, asked of Gmail (users.getProfile) with the new
token, is recorded beside it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gmail_mcp.api.access import DEFAULT_ACCOUNT, Access
from gmail_mcp.api.client import ClientSettings, GmailClient
from gmail_mcp.api.errors import GmailFailure
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.api.token_folder import TokenFolder, valid_name
from gmail_mcp.api.tokens import TokenStore
from gmail_mcp.config import Settings


class AuthorizationError(Exception):
    pass


@dataclass(frozen=True)
class Authorised:
    account: str
    path: Path
    email: str | None  # None when Gmail could not be asked (the token is saved all the same)
    same_address: list[str]  # other accounts already recorded with this address


@dataclass(frozen=True)
class StoredAccount:
    name: str
    email: str | None  # as recorded at `auth`; None when none is
    read_only: bool | None  # from the token's scopes; None when the token file cannot be read
    path: Path
    is_default: bool  # the account a call without `account` means


def token_folder(settings: Settings) -> TokenFolder:
    return TokenFolder(settings.token_file, settings.token_dir, settings.account)


def stored_accounts(settings: Settings) -> list[StoredAccount]:
    """The accounts with a token file, from the files alone (`gmail-mcp accounts`: no request is made)."""
    folder = token_folder(settings)
    names = folder.names()
    implicit = folder.implicit(names)
    found = []
    for name in names:
        path = folder.path_for(name)
        try:
            facts = TokenStore(path).facts()
            email, read_only = facts.email, Access(settings.read_only).account_read_only(facts.scopes)
        except GmailFailure:
            email, read_only = None, None
        found.append(StoredAccount(name, email, read_only, path, name == implicit))
    return found


def authorize(settings: Settings, *, open_browser: bool, port: int = 0, account: str = DEFAULT_ACCOUNT) -> Authorised:
    from google_auth_oauthlib.flow import InstalledAppFlow

    if not valid_name(account):
        raise AuthorizationError("an account name is letters, digits and . _ @ + - (at most 100), e.g. work")
    folder = token_folder(settings)
    if account != DEFAULT_ACCOUNT and folder.folder is None:
        raise AuthorizationError("no token folder is configured for more accounts (GMAIL_MCP_TOKEN_DIR)")
    path = folder.path_for(account)
    try:
        client_config = json.loads(settings.credentials_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AuthorizationError(
            f"no OAuth client file at {settings.credentials_file}; download a 'Desktop app' OAuth client "
            "from Google Cloud Console and point GMAIL_MCP_CREDENTIALS_FILE at it"
        ) from None
    except (OSError, ValueError) as exc:
        raise AuthorizationError(f"cannot read the OAuth client file: {exc.__class__.__name__}") from None
    try:
        flow = InstalledAppFlow.from_client_config(client_config, scopes=Access(settings.read_only).scopes)
    except ValueError as exc:
        raise AuthorizationError(f"the OAuth client file is not an installed-app client: {exc}") from None
    # Let the person pick the Google account (a browser is often signed in to another one), and ask for
    # consent every time, so Google hands out a refresh token for an account authorised before.
    hints = {"prompt": "select_account consent"} | ({"login_hint": account} if "@" in account else {})
    creds = flow.run_local_server(
        host="127.0.0.1",
        port=port,
        open_browser=open_browser,
        authorization_prompt_message="Open this URL in a browser to authorise gmail-mcp:\n{url}",
        success_message="gmail-mcp is authorised; you can close this window.",
        **hints,
    )
    TokenStore(path).save(creds)
    email = _address(settings, path)
    same = [n for n in folder.names() if n != account and email and _recorded(folder, n) == email.casefold()]
    return Authorised(account=account, path=path, email=email, same_address=same)


def _address(settings: Settings, path: Path) -> str | None:
    """Ask Gmail for the address of the account whose token was just saved, and record it beside the token."""
    client = GmailClient(
        ClientSettings(token_file=path, api_endpoint=settings.api_endpoint, timeout_seconds=settings.timeout_seconds)
    )
    try:
        email = MailboxApi(client).get_profile().email_address
        if not email:
            return None
        client.tokens.save(client.credentials(), email=email)
    except GmailFailure:
        return None
    return email


def _recorded(folder: TokenFolder, name: str) -> str | None:
    """The address recorded for account `name`, casefolded (None when none is)."""
    try:
        email = TokenStore(folder.path_for(name)).facts().email
    except GmailFailure:
        return None
    return email.casefold() if email else None
